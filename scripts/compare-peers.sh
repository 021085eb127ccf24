#!/usr/bin/env bash
# Side-by-side timing of bench-sudoku's `fast` strategy and a peer solver on the
# same files, in one session, single thread, first solution, best of N rounds.
#
# usage: scripts/compare-peers.sh [--peer CMD] [--rounds N] [--repeat K] [--strategy S] FILE...
#   --peer CMD   the peer's command; it is run as `CMD --rounds N FILE` and must print one
#                JSON line per file with "usec_per_puzzle" (the format of
#                ../shared/peers/rust-sudoku-ref/run.sh). Default: $PEER_CMD, else
#                ../shared/peers/rust-sudoku-ref/run.sh next to this checkout.
#   --rounds N   rounds for both (default 5; ours: --warmup 1 --repeat N)
#   --repeat K   measure each file K times, alternating who goes first, and report
#                medians with the range of the K ratios (default 1; use 5+ on a noisy machine)
#   --strategy S our strategy (default fast)
#
# Our figure is the peer's method: the best round's total solve time / puzzles
# (min over passes of pass_solve_ns), not the mean of per-puzzle minima; each of our
# solves additionally carries its own clock reads (meta.json: timer_overhead_ns).
set -euo pipefail
cd "$(dirname "$0")/.."
peer=${PEER_CMD:-../shared/peers/rust-sudoku-ref/run.sh}
rounds=5
repeat=1
strategy=fast
files=()
while [ $# -gt 0 ]; do
  case $1 in
    --peer) peer=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --strategy) strategy=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) files+=("$1"); shift ;;
  esac
done
[ ${#files[@]} -gt 0 ] || { echo "usage: scripts/compare-peers.sh [--peer CMD] [--rounds N] [--repeat K] FILE..." >&2; exit 2; }
cargo build --release --quiet
bin=target/release/bench-sudoku
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "| file | puzzles | peer µs/puzzle | $strategy µs/puzzle | speedup (peer / $strategy) | $strategy ahead |"
echo "|---|---:|---:|---:|---:|---:|"
n=0
for f in "${files[@]}"; do
  n=$((n + 1))
  for k in $(seq "$repeat"); do
    # Alternate who goes first so neither always runs on a warmer machine.
    if [ $(((n + k) % 2)) -eq 0 ]; then
      $peer --rounds "$rounds" "$f" > "$out/peer-$n-$k.json"
      "$bin" run "$f" -s "$strategy" -j 1 --warmup 1 --repeat "$rounds" --no-puzzle-csv -q --out "$out/ours-$n-$k" > /dev/null
    else
      "$bin" run "$f" -s "$strategy" -j 1 --warmup 1 --repeat "$rounds" --no-puzzle-csv -q --out "$out/ours-$n-$k" > /dev/null
      $peer --rounds "$rounds" "$f" > "$out/peer-$n-$k.json"
    fi
  done
  python3 - "$f" "$out" "$n" "$repeat" <<'PY'
import json, sys, os, statistics as st
name, out, n, repeat = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
peers, ours, bad = [], [], False
for k in range(1, repeat + 1):
    peer = json.loads(open(f"{out}/peer-{n}-{k}.json").read().strip().splitlines()[-1])
    r = json.load(open(f"{out}/ours-{n}-{k}/summary.json"))["results"][0]
    peers.append(peer["usec_per_puzzle"])
    ours.append(min(r["pass_solve_ns"]) / r["puzzles"] / 1e3)
    bad |= r["solved"] + r["multiple"] != r["puzzles"] or r["mismatches"] > 0 or r["wrong_answers"] > 0
ratios = [p / o for p, o in zip(peers, ours)]
flag = " (NOT ALL SOLVED)" if bad else ""
spread = f" ({min(ratios):.2f}–{max(ratios):.2f})" if repeat > 1 else ""
ahead = sum(x > 1 for x in ratios)
print(f"| {os.path.basename(name)} | {r['puzzles']} | {st.median(peers):.3f} | {st.median(ours):.3f}{flag} | "
      f"{st.median(ratios):.2f}×{spread} | {ahead}/{repeat} |")
PY
done
