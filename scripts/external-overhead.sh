#!/usr/bin/env bash
# What an external solver costs over the same engine in-process: `fast` built in,
# loaded back from the capi library (tdoku's signature and bench-sudoku's interface),
# and served over the protocol (`cmd=bench-sudoku serve -s fast`), in one invocation per
# round, the order rotating from round to round. Single thread unless -j is given.
#
# usage: scripts/external-overhead.sh [--rounds N] [-j N] [--limit N] [--repeat N] FILE
#   --repeat N: N measured passes after one warm-up pass (each puzzle's time is its
#           fastest pass); default one pass, no warm-up
#   mean  = summary.json's mean_ns: the per-puzzle time each one records (the harness's
#           clock around the call in-process; serve's own clock around its solve)
#   solve = 1e9 / puzzles_per_sec: wall time per solve, harness and pipes included
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
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
[ $# -eq 1 ] || { sed -n '7,7p' "$0" >&2; exit 2; }
[ -x target/release/bench-sudoku ] && [ -f target/release/libbench_sudoku_capi.so ] ||
  { echo "build first: cargo build --release && cargo build --release -p bench-sudoku-capi" >&2; exit 2; }
file=$1
bin=$(pwd)/target/release/bench-sudoku
lib=$(pwd)/target/release/libbench_sudoku_capi.so
specs=("fast"
  "lib=$lib,symbol=bench_sudoku_fast,name=lib-tdoku"
  "lib=$lib,solver=fast,name=lib-native"
  "cmd=$bin serve -s fast,name=cmd-serve")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: > "$tmp/rows"
for r in $(seq 1 "$rounds"); do
  args=()
  for i in 0 1 2 3; do args+=(-s "${specs[$(( (i + r) % 4 ))]}"); done
  "$bin" run "$file" -j "$jobs" "${args[@]}" --no-puzzle-csv "${limit[@]}" "${passes[@]}" --quiet --force --out "$tmp/o" >/dev/null
  python3 -c "
import json
for x in json.load(open('$tmp/o/summary.json'))['results']:
    print(x['strategy'], x['mean_ns'], 1e9 / x['puzzles_per_sec'])" >> "$tmp/rows"
done
python3 - "$tmp/rows" "$(basename "$file")" "$jobs" "$rounds" <<'PY'
import sys, statistics as st
from collections import defaultdict
by = defaultdict(list)
for l in open(sys.argv[1]):
    s, m, w = l.split(); by[s].append((float(m), float(w)))
base = by["fast"]
print(f"{sys.argv[2]}, -j {sys.argv[3]}, {sys.argv[4]} rounds (medians; differences are per round, then the median)")
print("| strategy | mean ns | mean − fast (ns) | ns/solve (wall) | wall − fast (ns) |")
print("|---|---:|---:|---:|---:|")
for s in ["fast", "lib-tdoku", "lib-native", "cmd-serve"]:
    v = by[s]
    dm = st.median(a[0] - b[0] for a, b in zip(v, base))
    dw = st.median(a[1] - b[1] for a, b in zip(v, base))
    print(f"| {s} | {st.median(x[0] for x in v):.1f} | {dm:+.1f} | {st.median(x[1] for x in v):.1f} | {dw:+.1f} |")
PY
