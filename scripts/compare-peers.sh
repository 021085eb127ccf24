#!/usr/bin/env bash
# Side-by-side timing of bench-sudoku's `fast` strategy and a peer solver on the
# same files, in one session, single thread, first solution, best of N rounds.
#
# usage: scripts/compare-peers.sh [--peer CMD] [--rounds N] [--strategy S] FILE...
#   --peer CMD   the peer's command; it is run as `CMD --rounds N FILE` and must print one
#                JSON line per file with "usec_per_puzzle" (the format of
#                ../shared/peers/rust-sudoku-ref/run.sh). Default: $PEER_CMD, else
#                ../shared/peers/rust-sudoku-ref/run.sh next to this checkout.
#   --rounds N   rounds for both (default 5; ours: --warmup 1 --repeat N)
#   --strategy S our strategy (default fast)
#
# Our figure is the peer's method: the best round's total solve time / puzzles
# (min over passes of pass_solve_ns), not the mean of per-puzzle minima; each of our
# solves additionally carries its own clock reads (meta.json: timer_overhead_ns).
set -euo pipefail
cd "$(dirname "$0")/.."
peer=${PEER_CMD:-../shared/peers/rust-sudoku-ref/run.sh}
rounds=5
strategy=fast
files=()
while [ $# -gt 0 ]; do
  case $1 in
    --peer) peer=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --strategy) strategy=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) files+=("$1"); shift ;;
  esac
done
[ ${#files[@]} -gt 0 ] || { echo "usage: scripts/compare-peers.sh [--peer CMD] [--rounds N] FILE..." >&2; exit 2; }
cargo build --release --quiet
bin=target/release/bench-sudoku
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "| file | puzzles | peer µs/puzzle | $strategy µs/puzzle | speedup (peer / $strategy) |"
echo "|---|---:|---:|---:|---:|"
i=0
for f in "${files[@]}"; do
  i=$((i + 1))
  # Alternate who goes first so neither always runs on a warmer machine.
  if [ $((i % 2)) -eq 1 ]; then
    $peer --rounds "$rounds" "$f" > "$out/peer-$i.json"
    "$bin" run "$f" -s "$strategy" -j 1 --warmup 1 --repeat "$rounds" --no-puzzle-csv -q --out "$out/ours-$i" > /dev/null
  else
    "$bin" run "$f" -s "$strategy" -j 1 --warmup 1 --repeat "$rounds" --no-puzzle-csv -q --out "$out/ours-$i" > /dev/null
    $peer --rounds "$rounds" "$f" > "$out/peer-$i.json"
  fi
  python3 - "$f" "$out/peer-$i.json" "$out/ours-$i/summary.json" <<'PY'
import json, sys, os
name, peer_file, ours_file = sys.argv[1:4]
peer = json.loads(open(peer_file).read().strip().splitlines()[-1])
r = json.load(open(ours_file))["results"][0]
ours = min(r["pass_solve_ns"]) / r["puzzles"] / 1e3
p = peer["usec_per_puzzle"]
bad = r["solved"] + r["multiple"] != r["puzzles"] or r["mismatches"] or r["wrong_answers"]
flag = " (NOT ALL SOLVED)" if bad else ""
print(f"| {os.path.basename(name)} | {r['puzzles']} | {p:.3f} | {ours:.3f}{flag} | {p / ours:.2f}× |")
PY
done
