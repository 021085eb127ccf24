#!/usr/bin/env bash
# The budgeted gate's known-answer trial: does `run --gate … --budget D` catch a candidate made
# 1 % slower, and call an identical copy unchanged, on a machine kept busy (one busy loop per
# logical core beside every run), and does each run end within its budget plus one round?
#
# usage: scripts/gate-budget-trial.sh [--runs N] [--first K] [--budget D] [--threshold PCT]
#                                     [--slow PER_MILLE] [--scale S] [--symbol NAME] [--idle]
#                                     [--tsv FILE] [-- RUN_ARGS...] FILE
#   --runs N          pairs of runs (default 20): each pair is one run of the slow candidate and
#                     one of the identical copy, alternating, so that the machine's moods meet both
#   --first K         number the runs from K (default 1; run i uses --transform i): to measure in
#                     pieces (e.g. --runs 10 --first 11 --tsv same.tsv after --runs 10)
#   --budget D        the gate's --budget (default 60s)
#   --threshold PCT   the gate's --threshold (default 0.5)
#   --slow PER_MILLE  the candidate's calls take PER_MILLE/1000 of the base's (default 1010: 1 %)
#   --scale S         every call takes S times longer, the candidate's as much slower again
#                     (base config=1000·S, candidate PER_MILLE·S, copy 1000·S; default 1): with
#                     the default symbol and S = 20, a solver of about 2 ms a puzzle of top1465
#                     whose time is mostly a wait on the wall clock (docs/MEASUREMENT.md §7:
#                     under load its gate stays undecided)
#   --symbol NAME     the fixture's entry point (default solve_stretch, about 0.1 ms a puzzle of
#                     top1465; solve_plain_stretch: a plain backtracker, about 1.8 ms;
#                     solve_plain_stretch_cpu: the same, its stretch on the thread's CPU clock)
#   --idle            no busy loops
#   --tsv FILE        append each run's row to FILE (the summary covers every row in it)
#   RUN_ARGS          added to every run
#
# The solver is the C fixture `solve_stretch` (tests/fixtures/solvers/fixtures.c: naked and
# hidden singles, fewest-candidate branching), compiled outside the repository; its
# configuration busy-waits after each solve until the call has taken config/1000 of the solve's
# own time: base config=1000, candidate config=PER_MILLE, identical copy config=1000.
# Each run: run FILE -s base -s cand --gate base:cand --threshold PCT --budget D --transform i.
# Prints each run and then: regressed / unchanged / undecided / other counts of each experiment,
# and the largest overrun of (wall time from outside) − (budget + the run's longest round).
set -euo pipefail
runs=20
first=1
budget=60s
threshold=0.5
slow=1010
scale=1
symbol=solve_stretch
busy=1
tsv=
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --first) first=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --threshold) threshold=$2; shift 2 ;;
    --slow) slow=$2; shift 2 ;;
    --scale) scale=$2; shift 2 ;;
    --symbol) symbol=$2; shift 2 ;;
    --idle) busy=0; shift ;;
    --tsv) tsv=$2; shift 2 ;;
    --) shift; while [ $# -gt 1 ]; do extra+=("$1"); shift; done ;;
    -h|--help) sed -n '2,34p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
[ $# -eq 1 ] || { sed -n '5,7p' "$0" >&2; exit 2; }
file=$1
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/target/release/bench-sudoku
(cd "$root" && cargo build --release --quiet)
tmp=$(mktemp -d)
lib=$tmp/libfixtures.so
"${CC:-cc}" -std=c11 -O2 -shared -fPIC -o "$lib" "$root/tests/fixtures/solvers/fixtures.c" -I "$root/include"
[ -n "$tsv" ] || tsv=$tmp/runs.tsv
# shellcheck source=scripts/lib/busy.sh
. "$root/scripts/lib/busy.sh"
cleanup() {
  busy_stop
  rm -rf "$tmp"
}
trap cleanup EXIT
if [ "$busy" = 1 ]; then busy_start; fi

budget_s=$(python3 -c "import sys,re; v=sys.argv[1]; m=re.fullmatch(r'([0-9.]+)(ms|s|m|min)?', v); n=float(m.group(1)); u=m.group(2) or 's'; print(n*{'ms':0.001,'s':1,'m':60,'min':60}[u])" "$budget")

one() { # experiment seed cand_config
  local out=$tmp/r st=0 start end
  start=$(date +%s.%N)
  "$bin" run "$file" -q --force --out "$out" \
    -s "lib=$lib,symbol=$symbol,config=$((1000 * scale)),name=base" \
    -s "lib=$lib,symbol=$symbol,config=$3,name=cand" \
    --gate base:cand --threshold "$threshold" --budget "$budget" --transform "$2" \
    "${extra[@]}" >/dev/null 2>"$tmp/err" || st=$?
  end=$(date +%s.%N)
  python3 - "$1" "$2" "$st" "$start" "$end" "$out/summary.json" "$budget_s" "$(uptime | sed 's/.*load average: //; s/,.*//')" <<'PY' | tee -a "$tsv"
import json, sys
exp, seed, st, start, end, path, budget, load = sys.argv[1:]
wall = float(end) - float(start)
try:
    g = json.load(open(path))["gate"]
    d, b = g["datasets"][0], g["budget"]
    over = wall - float(budget) - b["longest_round_s"]
    print(f"{exp}\t{seed}\t{st}\t{d['time']}\t{d.get('ratio', 0):.5f}\t{d.get('half_width_pct', 0):.3f}"
          f"\t{b['rounds']}\t{b['longest_round_s']:.2f}\t{wall:.1f}\t{over:.1f}\t{load}"
          f"\t{'; '.join(d.get('failures', []) + d.get('unjudged', [])) or '-'}")
except Exception as e:  # a run that wrote no gate: counted as "other"
    print(f"{exp}\t{seed}\t{st}\tnone\t0\t0\t0\t0\t{wall:.1f}\t0\t{load}")
PY
}

echo "$(basename "$file"): $runs pairs of runs from --transform $first, --budget $budget --threshold $threshold," \
  "candidate $slow‰, scale $scale, $([ "$busy" = 1 ] && echo "$(nproc) busy loops beside" || echo idle), run args: ${extra[*]:-(none)}"
printf 'experiment\tseed\texit\tverdict\tratio\thalf-width %%\trounds\tlongest round s\twall s\toverrun s\tload\tfailed or not judged\n'
for i in $(seq "$first" $((first + runs - 1))); do
  one slow "$i" $((slow * scale))
  one same "$i" $((1000 * scale))
done

python3 - "$tsv" <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
print()
print("| experiment | runs | regressed | unchanged | undecided | other | rounds: median (max) | wall s: median (max) | largest overrun s |")
print("|---|---:|---:|---:|---:|---:|---|---|---:|")
for exp in ("slow", "same"):
    r = [x for x in rows if x[0] == exp]
    if not r:
        continue
    count = lambda v: sum(1 for x in r if x[3] == v)
    other = len(r) - count("regressed") - count("unchanged") - count("undecided")
    rounds = sorted(int(x[6]) for x in r)
    walls = sorted(float(x[8]) for x in r)
    over = max(float(x[9]) for x in r)
    print(f"| {exp} | {len(r)} | {count('regressed')} | {count('unchanged')} | {count('undecided')} | {other} "
          f"| {rounds[len(rounds)//2]} ({rounds[-1]}) | {walls[len(walls)//2]:.1f} ({walls[-1]:.1f}) | {over:+.1f} |")
PY
