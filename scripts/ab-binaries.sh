#!/usr/bin/env bash
# Two bench-sudoku binaries, one strategy, the same files, in one session: rounds
# alternate which binary goes first, and the table gives medians and the median of the
# per-round ratios (NEW / OLD). Meant for "did this change make the engine slower?".
#
# usage: scripts/ab-binaries.sh [--rounds N] [--strategy S] [--limit N] [-j N] [--csv] [--practised] OLD_BIN NEW_BIN FILE...
#   per round and binary: run FILE -j 1 -s S --repeat 3 --warmup 1 --no-puzzle-csv
#   (-j N: N solver threads; --csv: with puzzles.csv, and one pass: --repeat 1 --warmup 0;
#   --practised: each chunk's passes back to back, the hot regime, instead of cold passes)
#   mean  = summary.json's mean_ns (mean over puzzles of each puzzle's fastest pass)
#   solve = 1e9 / puzzles_per_sec (wall time per solve, harness included)
set -euo pipefail
rounds=7
strategy=fast
limit=()
jobs=1
passes=(--repeat 3 --warmup 1 --no-puzzle-csv)
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --strategy) strategy=$2; shift 2 ;;
    --limit) limit=(--limit "$2"); shift 2 ;;
    -j) jobs=$2; shift 2 ;;
    --csv) passes=(--repeat 1 --warmup 0); shift ;;
    --practised) passes+=(--practised); shift ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
[ $# -ge 3 ] || { sed -n '6,6p' "$0" >&2; exit 2; }
old=$1 new=$2; shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
one() { # binary file out
  "$1" run "$2" -j "$jobs" -s "$strategy" "${passes[@]}" "${limit[@]}" \
    --quiet --force --out "$3" >/dev/null
  python3 -c "import json; r=json.load(open('$3/summary.json'))['results'][0]; print(r['mean_ns'], 1e9/r['puzzles_per_sec'])"
}
echo "| file | OLD mean ns | NEW mean ns | NEW/OLD mean (range) | OLD ns/solve | NEW ns/solve | NEW/OLD wall (range) |"
echo "|---|---:|---:|---|---:|---:|---|"
for f in "$@"; do
  : > "$tmp/rows"
  for r in $(seq 1 "$rounds"); do
    if [ $((r % 2)) -eq 1 ]; then
      a=$(one "$old" "$f" "$tmp/o"); b=$(one "$new" "$f" "$tmp/n")
    else
      b=$(one "$new" "$f" "$tmp/n"); a=$(one "$old" "$f" "$tmp/o")
    fi
    echo "$a $b" >> "$tmp/rows"
  done
  python3 - "$tmp/rows" "$(basename "$f")" <<'PY'
import sys, statistics as st
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
om, ow, nm, nw = (st.median(r[i] for r in rows) for i in range(4))
rm = sorted(r[2] / r[0] for r in rows); rw = sorted(r[3] / r[1] for r in rows)
print(f"| {sys.argv[2]} | {om:.1f} | {nm:.1f} | {st.median(rm):.3f} ({rm[0]:.3f}–{rm[-1]:.3f}) "
      f"| {ow:.1f} | {nw:.1f} | {st.median(rw):.3f} ({rw[0]:.3f}–{rw[-1]:.3f}) |")
PY
done
