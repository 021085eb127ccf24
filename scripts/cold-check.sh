#!/usr/bin/env bash
# Checks bench-sudoku's per-puzzle times against whole passes timed from
# outside: the same engine (`fast`, from the capi library) run by
# scripts/whole-pass.c, one clock read per pass, each puzzle solved once a
# pass (tdoku's run_benchmark method). For every file, ROUNDS rounds
# alternate the whole-pass harness with these bench-sudoku runs (-j 1):
#   default   -s fast -s capi            (interleaved: 1 warm-up + 1 measured pass, cold)
#   repeat3   the same with --repeat 3   (cold)
#   practised the same with --practised  (each chunk's passes back to back)
# and prints, per run, the median over rounds of (mean_ns / whole-pass ns)
# for `fast` (built in) and `capi` (the library through lib=). 1.00: the two
# methods agree; below 1: bench-sudoku's time is of a practised puzzle.
#
# usage: scripts/cold-check.sh FILE...      env: ROUNDS=5
# Needs a C compiler; builds the release binary and the capi library.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: scripts/cold-check.sh FILE..." >&2; exit 2; }
rounds=${ROUNDS:-5}
cargo build --release --quiet
cargo build --release --quiet -p bench-sudoku-capi
bin=target/release/bench-sudoku
lib=$(pwd)/target/release/libbench_sudoku_capi.so
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/whole-pass" scripts/whole-pass.c -ldl
mean() { python3 -c "
import json, sys
d = json.load(open(sys.argv[1] + '/summary.json'))
print(' '.join('%.1f' % r['mean_ns'] for r in d['results']))" "$1"; }
median() { python3 -c "
import sys
v = sorted(float(x) for x in sys.argv[1:])
print('%.3f' % v[len(v) // 2])" "$@"; }
printf '| file | whole pass ns | run | fast / whole | capi / whole |\n|---|---:|---|---:|---:|\n'
for f in "$@"; do
  declare -A fast=() capi=()
  wholes=()
  for ((r = 0; r < rounds; r++)); do
    w=$("$work/whole-pass" "$lib" "$f" 3 bench_sudoku_fast | sed -E 's/.*median ([0-9.]+) ns.*/\1/')
    wholes+=("$w")
    for run in default repeat3 practised; do
      case $run in
        default) extra=() ;;
        repeat3) extra=(--repeat 3) ;;
        practised) extra=(--practised) ;;
      esac
      "$bin" run "$f" -j 1 -q -s fast -s "lib=$lib,symbol=bench_sudoku_fast,name=capi" \
        "${extra[@]}" --no-puzzle-csv --out "$work/r" --force >/dev/null 2>&1
      read -r a b < <(mean "$work/r")
      fast[$run]+=" $(python3 -c "print($a / $w)")"
      capi[$run]+=" $(python3 -c "print($b / $w)")"
    done
  done
  w=$(median "${wholes[@]}")
  for run in default repeat3 practised; do
    # shellcheck disable=SC2086
    printf '| %s | %.1f | %s | %s | %s |\n' "$(basename "$f")" "$w" "$run" \
      "$(median ${fast[$run]})" "$(median ${capi[$run]})"
  done
  unset fast capi
done
