#!/usr/bin/env bash
# How often the two comparison methods cry wolf, and how often they catch a known slowdown,
# on a machine kept busy: one busy loop per logical core runs beside every benchmark.
#
# usage: scripts/false-alarms.sh [--runs N] [--idle] [--threshold PCT] [--slow PER_MILLE] [-- RUN_ARGS...] FILE
#   --runs N          runs of each experiment (default 20)
#   --idle            no busy loops
#   --threshold PCT   the sensitivity experiments' threshold (default 2)
#   --slow PER_MILLE  the candidate's stretch: its calls take PER_MILLE/1000 of the base's
#                     (default 1050: 5 % slower)
#   RUN_ARGS          added to every `run` (e.g. --repeat 3)
#
# Experiments (each N times, the verdict's exit status counted):
#   gate A/A      run FILE -s fast,name=a -s fast,name=b --gate a:b            (defaults: threshold 3 %, --repeat 3)
#   compare A/A   two separate runs of -s fast, then compare                    (default threshold 5 %)
#   gate 5 %      run FILE -s lib=capi,config=1000 -s lib=capi,config=1050 --gate base:slow --threshold 2
#   compare 5 %   separate runs of each side, then compare --threshold 2
# The library is bench-sudoku's own C ABI build (cargo build --release -p bench-sudoku-capi),
# whose tdoku-signature exports stretch each call to config/1000 of its solve time.
# Prints a Markdown table: alarms (exit 1) out of N, verdicts that were undecided (exit 3: the
# interval neither wholly beyond nor wholly within ±threshold, or compare's interval and passes
# pointing different ways), and the median reported ratio.
set -euo pipefail
runs=20
busy=1
threshold=2
slow=1050
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --idle) busy=0; shift ;;
    --threshold) threshold=$2; shift 2 ;;
    --slow) slow=$2; shift 2 ;;
    --) shift; while [ $# -gt 1 ]; do extra+=("$1"); shift; done ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
[ $# -eq 1 ] || { sed -n '5,5p' "$0" >&2; exit 2; }
file=$1
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/target/release/bench-sudoku
lib=$root/target/release/libbench_sudoku_capi.so
[ "$(uname)" = Darwin ] && lib=$root/target/release/libbench_sudoku_capi.dylib
(cd "$root" && cargo build --release --quiet && cargo build --release --quiet -p bench-sudoku-capi)
tmp=$(mktemp -d)
# shellcheck source=scripts/lib/busy.sh
. "$root/scripts/lib/busy.sh"
cleanup() {
  busy_stop
  rm -rf "$tmp"
}
trap cleanup EXIT
if [ "$busy" = 1 ]; then busy_start; fi
base="lib=$lib,symbol=bench_sudoku_fast,config=1000,name=base"
cand="lib=$lib,symbol=bench_sudoku_fast,config=$slow,name=slow"

# ratio of a gate run: the candidate's geometric-mean ratio; of a compare: its change.
gate_ratio() { python3 -c "import json,sys; r=[x for x in json.load(open('$1/summary.json'))['results'] if x.get('paired')][0]['paired']; print(r['geomean_ratio'])"; }

run_gate() { # label spec_a spec_b gate threshold_args...
  local alarms=0 undecided=0 ratios=()
  for _ in $(seq "$runs"); do
    local st=0
    "$bin" run "$file" -q -s "$2" -s "$3" --gate "$4" "${@:5}" "${extra[@]}" --out "$tmp/g" --force >/dev/null || st=$?
    [ "$st" = 1 ] && alarms=$((alarms + 1))
    [ "$st" = 3 ] && undecided=$((undecided + 1))
    # 2: an error, or a dataset too small to judge (fewer than 10 chunks).
    [ "$st" = 2 ] || [ "$st" -gt 3 ] && { echo "run failed or not judged ($st): see 'bench-sudoku run --help', --gate" >&2; exit 2; }
    ratios+=("$(gate_ratio "$tmp/g")")
  done
  printf '| %s | %d / %d | %d | %s |\n' "$1" "$alarms" "$runs" "$undecided" "$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{a[NR]=$1} END {printf "%.4f (%.4f–%.4f)", a[int((NR+1)/2)], a[1], a[NR]}')"
}

run_compare() { # label spec_base spec_cur threshold_args...
  local alarms=0 undecided=0 ratios=()
  for _ in $(seq "$runs"); do
    "$bin" run "$file" -q -s "$2" "${extra[@]}" --out "$tmp/b" --force >/dev/null
    "$bin" run "$file" -q -s "$3" "${extra[@]}" --out "$tmp/c" --force >/dev/null
    local st=0 out
    out=$("$bin" compare "$tmp/b" "$tmp/c" "${@:4}") || st=$?
    [ "$st" = 1 ] && alarms=$((alarms + 1))
    [ "$st" = 3 ] && undecided=$((undecided + 1))
    [ "$st" = 2 ] || [ "$st" -gt 3 ] && { echo "compare failed ($st): $out" >&2; exit 2; }
    ratios+=("$(printf '%s\n' "$out" | awk 'NR==2 {for (i=1;i<=NF;i++) if ($i ~ /^[+-][0-9.]+%$/) {sub(/%/,"",$i); print 1+$i/100; exit}}')")
  done
  printf '| %s | %d / %d | %d | %s |\n' "$1" "$alarms" "$runs" "$undecided" "$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{a[NR]=$1} END {printf "%.4f (%.4f–%.4f)", a[int((NR+1)/2)], a[1], a[NR]}')"
}

echo "$(basename "$file"), $runs runs each, $([ "$busy" = 1 ] && echo "$(nproc) busy loops beside" || echo idle), run args: ${extra[*]:-(none)}"
echo
echo "| experiment | alarms (exit 1) | undecided (exit 3) | ratio: median (min–max) |"
echo "|---|---:|---:|---|"
run_gate "gate A/A, default threshold" "fast,name=a" "fast,name=b" "a:b"
run_compare "compare A/A, default threshold" "fast" "fast"
run_gate "gate, candidate $((slow - 1000))‰ slower, --threshold $threshold" "$base" "$cand" "base:slow" --threshold "$threshold"
# Separate runs: both sides under one label, so that compare matches them.
run_compare "compare, candidate $((slow - 1000))‰ slower, --threshold $threshold" "$base" "${cand%,name=slow},name=base" --threshold "$threshold"
