#!/usr/bin/env bash
# What an external solver costs over the same engine in-process: `fast` built in,
# against the same engine loaded back from the capi library (tdoku's signature and
# bench-sudoku's interface) and served over the protocol (`cmd=bench-sudoku serve -s
# fast`). Each of the three runs interleaved with the built-in `fast` alone, one run
# per pair and round, which of the two goes first alternating from round to round.
# Single thread unless -j is given.
#
# Why pairs: two strategies that run the same machine code in one run train each
# other's branch predictor on the puzzles of every block, so both read as practised
# (about 20 % faster on 17-clue, cold or not). The library's two interfaces call the
# same engine code, so they never share a run; the built-in `fast` is another copy.
#
# usage: scripts/external-overhead.sh [--rounds N] [-j N] [--limit N] [--repeat N] FILE
#   --repeat N: N measured passes after one warm-up pass (each puzzle's time is its
#           fastest pass); default one pass, no warm-up
#   mean  = summary.json's mean_ns: the per-puzzle time each one records (the harness's
#           clock around the call in-process; serve's own clock around its solve)
#   solve = 1e9 / puzzles_per_sec: wall time per solve, harness and pipes included
#   the differences to fast are taken within each run, then the median over rounds;
#   fast's own row is the median over all its runs
# Needs target/release/bench-sudoku and target/release/libbench_sudoku_capi.so:
#   cargo build --release && cargo build --release -p bench-sudoku-capi
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=7
jobs=1
limit=()
passes=()
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    -j) jobs=$2; shift 2 ;;
    --limit) limit=(--limit "$2"); shift 2 ;;
    --repeat) passes=(--repeat "$2" --warmup 1); shift 2 ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
[ $# -eq 1 ] || { sed -n '14,14p' "$0" >&2; exit 2; }
[ -x target/release/bench-sudoku ] && [ -f target/release/libbench_sudoku_capi.so ] ||
  { echo "build first: cargo build --release && cargo build --release -p bench-sudoku-capi" >&2; exit 2; }
file=$1
bin=$(pwd)/target/release/bench-sudoku
lib=$(pwd)/target/release/libbench_sudoku_capi.so
others=("lib=$lib,symbol=bench_sudoku_fast,name=lib-tdoku"
  "lib=$lib,solver=fast,name=lib-native"
  "cmd=$bin serve -s fast,name=cmd-serve")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: > "$tmp/rows"
for r in $(seq 1 "$rounds"); do
  for other in "${others[@]}"; do
    if [ $((r % 2)) = 1 ]; then pair=(-s fast -s "$other"); else pair=(-s "$other" -s fast); fi
    "$bin" run "$file" -j "$jobs" "${pair[@]}" --no-puzzle-csv "${limit[@]}" "${passes[@]}" --quiet --force --out "$tmp/o" >/dev/null
    python3 -c "
import json
rs = {x['strategy']: x for x in json.load(open('$tmp/o/summary.json'))['results']}
other = next(s for s in rs if s != 'fast')
f, o = rs['fast'], rs[other]
print(other, o['mean_ns'], 1e9 / o['puzzles_per_sec'], f['mean_ns'], 1e9 / f['puzzles_per_sec'])" >> "$tmp/rows"
  done
done
python3 - "$tmp/rows" "$(basename "$file")" "$jobs" "$rounds" <<'PY'
import sys, statistics as st
from collections import defaultdict
by = defaultdict(list)
fast = []
for l in open(sys.argv[1]):
    s, m, w, fm, fw = l.split()
    m, w, fm, fw = map(float, (m, w, fm, fw))
    by[s].append((m, w, m - fm, w - fw))
    fast.append((fm, fw))
print(f"{sys.argv[2]}, -j {sys.argv[3]}, {sys.argv[4]} rounds, each external solver in its own run "
      "with fast (medians; the differences are taken within each run)\n")
print("| strategy | mean ns | mean − fast (ns) | ns/solve (wall) | wall − fast (ns) |")
print("|---|---:|---:|---:|---:|")
print(f"| fast | {st.median(x[0] for x in fast):.1f} | — | {st.median(x[1] for x in fast):.1f} | — |")
for s in ["lib-tdoku", "lib-native", "cmd-serve"]:
    v = by[s]
    print(f"| {s} | {st.median(x[0] for x in v):.1f} | {st.median(x[2] for x in v):+.1f} | "
          f"{st.median(x[1] for x in v):.1f} | {st.median(x[3] for x in v):+.1f} |")
PY
