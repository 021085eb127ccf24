#!/usr/bin/env bash
# How steady the quick start's figures are on a loaded machine: starts one
# CPU-bound busy loop, runs `bench-sudoku run DATASET` RUNS times (the
# README's quick start, default options), and prints each run's mean, max
# and re-measured count for STRATEGY, then the largest over the smallest of
# the means and of the maxima. Preemption spikes that survive into the
# statistics show as a max ratio far above 1.
#
# usage: scripts/spike-check.sh [DATASET] [STRATEGY]   (default datasets/hard.csv fast)
# env:   RUNS=10 LOAD=1 (0: no busy loop) EXTRA="--practised" (more run options)
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-datasets/hard.csv}
strategy=${2:-fast}
runs=${RUNS:-10}
cargo build --release --quiet
bin=target/release/bench-sudoku
out=$(mktemp -d)
busy=
cleanup() { [ -n "$busy" ] && kill "$busy" 2>/dev/null; rm -rf "$out"; }
trap cleanup EXIT
if [ "${LOAD:-1}" = 1 ]; then
  sh -c 'while :; do :; done' &
  busy=$!
fi
echo "| run | mean ns | max ns | re-measured |"
echo "|---:|---:|---:|---:|"
means=() maxes=()
for ((i = 1; i <= runs; i++)); do
  # shellcheck disable=SC2086
  "$bin" run "$data" -q ${EXTRA:-} --out "$out/r" --force >/dev/null 2>&1
  read -r mean max re < <(python3 -c "
import json, sys
for r in json.load(open(sys.argv[1]))['results']:
    if r['strategy'] == sys.argv[2]:
        print('%.1f %d %d' % (r['mean_ns'], r['max_ns'], r.get('remeasured', 0)))" "$out/r/summary.json" "$strategy")
  echo "| $i | $mean | $max | $re |"
  means+=("$mean") maxes+=("$max")
done
python3 -c "
import sys
n = int(sys.argv[1]); v = [float(x) for x in sys.argv[2:]]
m, x = v[:n], v[n:]
print('mean: largest / smallest %.3f; max: largest / smallest %.2f' % (max(m) / min(m), max(x) / min(x)))
" "${#means[@]}" "${means[@]}" "${maxes[@]}"
