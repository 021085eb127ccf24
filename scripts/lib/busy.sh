# shellcheck shell=bash
# Sourced by the measuring scripts that load the machine on purpose: one
# busy loop per logical core (busy_start), killed by busy_stop, which the
# script's EXIT trap calls so that no loop outlives it.
busy_pids=()
busy_start() {
  for _ in $(seq "$(nproc)"); do
    sh -c 'while :; do :; done' &
    busy_pids+=($!)
  done
}
busy_stop() {
  for p in "${busy_pids[@]}"; do kill "$p" 2>/dev/null || true; done
}
