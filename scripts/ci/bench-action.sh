#!/usr/bin/env bash
# The logic of bench-sudoku's CI action (action.yml at the repository root), as a script
# that runs the same anywhere: in a GitHub job, in another CI, or by hand.
#
# It measures a solver's head build beside a yardstick (fast by default, built into every
# bench-sudoku) and, when a base build is given, gates head against base: both builds and
# the yardstick in ONE `bench-sudoku run`, interleaved on the same threads, every puzzle
# paired. Then it writes the verdict and the results table to the job summary, and
# appends the head's line (revision, time, machine, the paired ratio to the yardstick
# with its interval, times, counters) to a history file, whose trend it also draws.
#
# Inputs, as environment variables (the action sets them from its inputs):
#   BS_HEAD        strategy spec of the head build, e.g. lib=./libmysolver.so (required)
#   BS_BASE        strategy spec of the base build; empty: no gate
#   BS_NAME        the solver's label and history series [default: the repository's name]
#   BS_DATASETS    dataset files, one per line [default: bench-sudoku's datasets/hard.csv]
#   BS_YARDSTICK   strategies to pair with, one per line; the first is the yardstick
#                  every ratio is to [default: fast]
#   BS_THRESHOLD   the gate's threshold in percent [default: 3]
#   BS_FAIL_ON     "counters" also fails the gate on a search-counter change
#   BS_RUN_ARGS    more arguments for `run`, split like a shell would (e.g. "-j 1 --repeat 5")
#   BS_RESULTS     the results directory [default: bench-results]
#   BS_HISTORY     a history file to append to (created when missing); empty: none
#   BS_FAIL_ON_STEP     "true": fail when the history's ratio stepped to slower at this revision
#   BS_STEP_THRESHOLD   the smallest step in percent [default: 5]
#   BENCH_SUDOKU   the bench-sudoku executable [default: bench-sudoku on PATH]
#   BS_DATA_DIR    bench-sudoku's source tree, for the default dataset [default: this script's]
# Writes to $GITHUB_STEP_SUMMARY and $GITHUB_OUTPUT (verdict, exit-code, results) when set.
#
# Exit status: the gate's (`bench-sudoku run --help`: 0 unchanged or improved, 1 regressed or
# wrong answers, 2 not judged or bad input, 3 undecided, 124/125/128+N a solver that hung,
# exited or crashed), else, with BS_FAIL_ON_STEP, trend's (1 a step to slower at this
# revision, 2 not judged).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tree=${BS_DATA_DIR:-$(cd "$here/../.." && pwd)}
bin=${BENCH_SUDOKU:-bench-sudoku}
summary=${GITHUB_STEP_SUMMARY:-/dev/null}
outputs=${GITHUB_OUTPUT:-/dev/null}

die() {
  echo "bench-action: $*" >&2
  echo "exit-code=2" >>"$outputs"
  exit 2
}

[ -n "${BS_HEAD:-}" ] || die "the head's strategy spec is required (input head, BS_HEAD)"
command -v "$bin" >/dev/null 2>&1 || die "no bench-sudoku executable: $bin (install it: cargo install --locked --path <clone>)"
for spec in "$BS_HEAD" "${BS_BASE:-}"; do
  case ",$spec" in
    *,name=*) die "$spec: leave name= out: the action labels the builds (input name)" ;;
  esac
done

# The solver's label: the input, else the repository's name, as a label may be spelled.
name=${BS_NAME:-${GITHUB_REPOSITORY##*/}}
name=$(printf '%s' "${name:-solver}" | tr -c 'A-Za-z0-9._+:@-' '-' | cut -c1-56)
results=${BS_RESULTS:-bench-results}

datasets=()
while IFS= read -r d; do
  [ -n "$d" ] && datasets+=("$d")
done <<<"${BS_DATASETS:-}"
[ ${#datasets[@]} -gt 0 ] || datasets=("$tree/datasets/hard.csv")

args=(run "${datasets[@]}" --out "$results" --force --progress plain)
yard=""
while IFS= read -r y; do
  [ -n "$y" ] || continue
  args+=(-s "$y")
  [ -n "$yard" ] || yard=$y
done <<<"${BS_YARDSTICK:-fast}"
if [ -n "$yard" ]; then
  case $yard in
    *=*) ;; # a spec: the first -s is the baseline anyway
    *) args+=(--baseline "$yard") ;;
  esac
fi
if [ -n "${BS_BASE:-}" ]; then
  args+=(-s "$BS_BASE,name=$name@base" -s "$BS_HEAD,name=$name")
  args+=(--gate "$name@base:$name" --threshold "${BS_THRESHOLD:-3}")
  [ -n "${BS_FAIL_ON:-}" ] && args+=(--fail-on "$BS_FAIL_ON")
  [ "$summary" != /dev/null ] && args+=(--gate-summary "$summary")
else
  args+=(-s "$BS_HEAD,name=$name" --repeat 3)
fi
if [ -n "${BS_RUN_ARGS:-}" ]; then
  # Split like a shell, without running anything in it: the words come back
  # NUL-terminated.
  split='import shlex, sys
for w in shlex.split(sys.argv[1]):
    sys.stdout.write(w + "\0")'
  python3 -c "$split" "$BS_RUN_ARGS" >/dev/null 2>&1 || die "run-args: cannot split into words: $BS_RUN_ARGS"
  while IFS= read -r -d '' w; do args+=("$w"); done < <(python3 -c "$split" "$BS_RUN_ARGS")
fi

echo "bench-action: $bin ${args[*]}"
"$bin" "${args[@]}"
status=$?

case $status in
  0) verdict=pass ;;
  1) verdict=fail ;;
  2) verdict=not-judged ;;
  3) verdict=undecided ;;
  *) verdict=error ;;
esac
if [ -f "$results/summary.md" ]; then
  { echo; cat "$results/summary.md"; } >>"$summary"
fi

# The history: the head's line and, with a gate, the base's (its revision measured once
# more, beside its successor), when the run finished: their times mean something even when
# the gate failed, which is the point of keeping them.
trend_status=0
if [ -n "${BS_HISTORY:-}" ]; then
  add=(history add "$results" --file "$BS_HISTORY" --series "$name" -s "$name")
  [ -n "${BS_BASE:-}" ] && add+=(-s "$name@base")
  if "$bin" "${add[@]}"; then
    trend=(trend "$BS_HISTORY" --markdown --threshold "${BS_STEP_THRESHOLD:-5}" --out "$results/trend")
    [ "${BS_FAIL_ON_STEP:-false}" = true ] && trend+=(--fail-on-step)
    { echo; echo "### History of $name"; echo; } >>"$summary"
    "$bin" "${trend[@]}" >"$results/trend.md"
    trend_status=$?
    cat "$results/trend.md" >>"$summary"
    cat "$results/trend.md"
  else
    echo "bench-action: the run was not added to the history (see above)" >&2
    [ "$status" = 0 ] && status=2
  fi
fi

if [ "$status" = 0 ] && [ "$trend_status" != 0 ]; then
  status=$trend_status
  [ "$status" = 1 ] && verdict=step
  [ "$status" = 2 ] && verdict=not-judged
fi
{
  echo "verdict=$verdict"
  echo "exit-code=$status"
  echo "results=$results"
} >>"$outputs"
echo "bench-action: $verdict (exit $status)"
exit "$status"
