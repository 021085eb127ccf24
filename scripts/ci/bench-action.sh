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
# By default a gate measures round after round until it is decided, within a budget
# (BS_BUDGET, 60s), and a gate still undecided at the end of it passes (BS_UNDECIDED=pass):
# the verdict still says undecided, in the summary, the outputs and the comment, but an
# unchanged solver on a noisy runner does not fail the job. A regression, a wrong answer
# or a run that cannot be judged still does.
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
#   BS_BUDGET      with a gate: measure until decided, at most this long (run --budget,
#                  e.g. 60s, 5m) [default: 60s]; "none": one round
#   BS_UNDECIDED   with a gate: what a gate still undecided does, and with BS_FAIL_ON_STEP
#                  what a newest revision the history cannot tell from its level does:
#                  pass (exit 0, the verdict still says undecided) or fail (exit 3)
#                  [default: pass]
#   BS_RUN_ARGS    more arguments for `run`, split like a shell would (e.g. "-j 1 --repeat 5");
#                  a --budget or --undecided here replaces BS_BUDGET or BS_UNDECIDED
#   BS_RESULTS     the results directory [default: bench-results]
#   BS_HISTORY     the history file to append to (created when missing); empty: none.
#                  With BS_HISTORY_BRANCH, its path inside that branch
#   BS_HISTORY_BRANCH   a git branch that keeps the history: fetched from BS_HISTORY_REMOTE,
#                  appended to and pushed (a push that loses a race with another job is
#                  tried again on the new tip, up to 5 times); empty: BS_HISTORY is a file
#                  of the working directory
#   BS_HISTORY_REMOTE   the remote of that branch [default: origin]
#   BS_HISTORY_FALLBACK a file to keep the history in when the branch cannot be read or
#                  pushed (the action keeps it in the Actions cache); empty: none
#   BS_FAIL_ON_STEP     "true": fail when the history's ratio stepped to slower at this revision
#   BS_STEP_THRESHOLD   the smallest step in percent [default: 5]
#   BS_COMMENT     "true": on a pull request, post the verdict as a comment, or update the
#                  one posted before (found by its marker), with `gh api` (GH_TOKEN)
#   BS_PR_NUMBER   the pull request [default: from $GITHUB_EVENT_PATH]
#   BS_COMMENT_LINK     a link shown in the comment [default: this run's page on GitHub]
#   BENCH_SUDOKU   the bench-sudoku executable [default: bench-sudoku on PATH]
#   BS_DATA_DIR    bench-sudoku's source tree, for the default dataset [default: this script's]
# Writes to $GITHUB_STEP_SUMMARY and $GITHUB_OUTPUT (verdict, exit-code, results,
# history-kept: branch, cache, file or nothing) when set.
#
# Exit status: the gate's (`bench-sudoku run --help`: 0 unchanged or improved, or undecided
# with BS_UNDECIDED=pass; 1 regressed or wrong answers, 2 not judged or bad input, 3 undecided
# with BS_UNDECIDED=fail, 124/125/128+N a solver that hung, exited or crashed), else, with
# BS_FAIL_ON_STEP, trend's (1 a step to slower at this revision, 2 not judged), else 2 when
# the run could not be added to the history. A branch that cannot be pushed, or a comment
# that cannot be posted, never changes it: what goes wrong there is a warning.
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

# A warning: on the terminal, and as an annotation of the job on GitHub.
warn() {
  echo "bench-action: warning: $*" >&2
  if [ -n "${GITHUB_ACTIONS:-}" ]; then echo "::warning title=bench-sudoku::$*"; fi
}

[ -n "${BS_HEAD:-}" ] || die "the head's strategy spec is required (input head, BS_HEAD)"
command -v "$bin" >/dev/null 2>&1 || die "no bench-sudoku executable: $bin (install it: cargo install --locked --path <clone>)"
for spec in "$BS_HEAD" "${BS_BASE:-}"; do
  case ",$spec" in
    *,name=*) die "$spec: leave name= out: the action labels the builds (input name)" ;;
  esac
done
if [ -n "${BS_HISTORY_BRANCH:-}" ]; then
  case ${BS_HISTORY:-} in
    /* | ./* | ../* | */../* | */./* | */) die "history: ${BS_HISTORY}: with history-branch, give a path inside the branch (e.g. bench-history.jsonl)" ;;
  esac
fi
case ${BS_UNDECIDED:-pass} in
  pass | fail) ;;
  *) die "undecided: ${BS_UNDECIDED}: give pass or fail" ;;
esac

# The solver's label: the input, else the repository's name, as a label may be spelled.
name=${BS_NAME:-${GITHUB_REPOSITORY##*/}}
name=$(printf '%s' "${name:-solver}" | tr -c 'A-Za-z0-9._+:@-' '-' | cut -c1-56)
results=${BS_RESULTS:-bench-results}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

datasets=()
while IFS= read -r d; do
  [ -n "$d" ] && datasets+=("$d")
done <<<"${BS_DATASETS:-}"
[ ${#datasets[@]} -gt 0 ] || datasets=("$tree/datasets/hard.csv")

# run-args, split like a shell, without running anything in it: the words come back
# NUL-terminated.
extra=()
if [ -n "${BS_RUN_ARGS:-}" ]; then
  split='import shlex, sys
for w in shlex.split(sys.argv[1]):
    sys.stdout.write(w + "\0")'
  python3 -c "$split" "$BS_RUN_ARGS" >/dev/null 2>&1 || die "run-args: cannot split into words: $BS_RUN_ARGS"
  while IFS= read -r -d '' w; do extra+=("$w"); done < <(python3 -c "$split" "$BS_RUN_ARGS")
fi
# Whether run-args gives the option $1 itself.
given() {
  local w
  for w in ${extra[@]+"${extra[@]}"}; do
    case $w in "$1" | "$1"=*) return 0 ;; esac
  done
  return 1
}

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
  budget=${BS_BUDGET-60s}
  if [ -n "$budget" ] && [ "$budget" != none ] && ! given --budget; then
    args+=(--budget "$budget")
  fi
  given --undecided || args+=(--undecided "${BS_UNDECIDED:-pass}")
  [ -n "${BS_FAIL_ON:-}" ] && args+=(--fail-on "$BS_FAIL_ON")
  [ "$summary" != /dev/null ] && args+=(--gate-summary "$summary")
else
  args+=(-s "$BS_HEAD,name=$name" --repeat 3)
fi
args+=(${extra[@]+"${extra[@]}"})

echo "bench-action: $bin ${args[*]}"
"$bin" "${args[@]}"
status=$?

# The gate's own word, from summary.json: an undecided gate that passes (exit 0) is still
# called undecided.
word=""
if [ -f "$results/summary.json" ]; then
  word=$(python3 -c 'import json, sys
g = json.load(open(sys.argv[1])).get("gate") or {}
print(g.get("verdict", ""))' "$results/summary.json" 2>/dev/null)
fi
case $status in
  0) verdict=pass ;;
  1) verdict=fail ;;
  2) verdict=not-judged ;;
  3) verdict=undecided ;;
  *) verdict=error ;;
esac
[ "$status" = 0 ] && [ "$word" = UNDECIDED ] && verdict=undecided
if [ -f "$results/summary.md" ]; then
  { echo; cat "$results/summary.md"; } >>"$summary"
fi

# The history: the head's line and, with a gate, the base's (its revision measured once
# more, beside its successor), when the run finished: their times mean something even when
# the gate failed, which is the point of keeping them. `add_to FILE` adds them to FILE.
# history add exits 1 when it added a run the judge fails (a liar's times are kept, marked,
# for trend to show): added all the same, and the gate's own verdict says the rest.
add_to() {
  local add=(history add "$results" --file "$1" --series "$name" -s "$name") rc=0
  [ -n "${BS_BASE:-}" ] && add+=(-s "$name@base")
  "$bin" "${add[@]}" || rc=$?
  [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]
}

# The history kept in a branch: its file read from the branch's tip (none before the
# branch's first commit), the run added, a commit on that tip pushed. A push that another
# job's push beat is tried again from the new tip (history add leaves out a run the file
# has already). Returns 0 when pushed (the file then in $work/history.jsonl), 1 when the
# branch cannot be used, 2 when the run could not be added. The user's checkout, index
# and branches are left as they are: the commit is made with a separate index.
in_branch() {
  local branch=$1 path=$2 remote=${BS_HISTORY_REMOTE:-origin} file=$work/history.jsonl
  local try parent tree commit rev found
  git rev-parse --git-dir >/dev/null 2>&1 || { warn "history-branch $branch: not in a git repository"; return 1; }
  rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  export GIT_AUTHOR_NAME=${GIT_AUTHOR_NAME:-$(git config user.name || echo 'github-actions[bot]')}
  export GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL:-$(git config user.email || echo '41898282+github-actions[bot]@users.noreply.github.com')}
  export GIT_COMMITTER_NAME=${GIT_COMMITTER_NAME:-$GIT_AUTHOR_NAME}
  export GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL:-$GIT_AUTHOR_EMAIL}
  for try in 1 2 3 4 5; do
    git ls-remote --exit-code --heads "$remote" "$branch" >/dev/null 2>&1
    found=$?
    parent=""
    rm -f "$file" "$work/index"
    if [ "$found" = 0 ]; then
      git fetch --quiet --no-tags "$remote" "+refs/heads/$branch:refs/bench-sudoku/history" ||
        { warn "history-branch $branch: cannot fetch it from $remote"; return 1; }
      parent=$(git rev-parse refs/bench-sudoku/history)
      git cat-file -e "$parent:$path" 2>/dev/null && git show "$parent:$path" >"$file"
    elif [ "$found" != 2 ]; then
      warn "history-branch $branch: cannot reach $remote"
      return 1
    fi
    add_to "$file" || return 2
    export GIT_INDEX_FILE=$work/index
    if [ -n "$parent" ]; then git read-tree "$parent"; else git read-tree --empty; fi &&
      git update-index --add --cacheinfo "100644,$(git hash-object -w "$file"),$path" &&
      tree=$(git write-tree)
    local made=$?
    unset GIT_INDEX_FILE
    [ "$made" = 0 ] || { warn "history-branch $branch: cannot make the commit"; return 1; }
    commit=$(git commit-tree "$tree" ${parent:+-p "$parent"} -m "bench-sudoku history: $name at $rev") ||
      { warn "history-branch $branch: cannot make the commit"; return 1; }
    if git push --quiet "$remote" "$commit:refs/heads/$branch"; then
      echo "bench-action: history pushed to $branch ($path, commit ${commit:0:12})"
      return 0
    fi
    echo "bench-action: the push of $branch was refused (try $try of 5: another job pushed first?); again from its new tip" >&2
    sleep "$try"
  done
  warn "history-branch $branch: every push was refused"
  return 1
}

trend_status=0
kept=""
unadded=0
if [ -n "${BS_HISTORY:-}" ]; then
  history=""
  if [ -n "${BS_HISTORY_BRANCH:-}" ]; then
    in_branch "$BS_HISTORY_BRANCH" "$BS_HISTORY"
    case $? in
      0) history=$work/history.jsonl kept=branch ;;
      2) unadded=1 ;;
      *)
        if [ -n "${BS_HISTORY_FALLBACK:-}" ]; then
          warn "the history is kept in ${BS_HISTORY_FALLBACK} instead (the action's cache) until the branch can be pushed (the job needs contents: write)"
          mkdir -p "$(dirname "$BS_HISTORY_FALLBACK")"
          if add_to "$BS_HISTORY_FALLBACK"; then history=$BS_HISTORY_FALLBACK kept=cache; else unadded=1; fi
        else
          warn "the run was not added to the history"
        fi
        ;;
    esac
  else
    if add_to "$BS_HISTORY"; then history=$BS_HISTORY kept=file; else unadded=1; fi
  fi
  if [ -n "$history" ]; then
    cp "$history" "$results/history.jsonl" 2>/dev/null
    trend=(trend "$history" --markdown --threshold "${BS_STEP_THRESHOLD:-5}" --out "$results/trend")
    [ "${BS_FAIL_ON_STEP:-false}" = true ] && trend+=(--fail-on-step --undecided "${BS_UNDECIDED:-pass}")
    { echo; echo "### History of $name"; echo; } >>"$summary"
    "$bin" "${trend[@]}" >"$results/trend.md"
    trend_status=$?
    cat "$results/trend.md" >>"$summary"
    cat "$results/trend.md"
  elif [ "$unadded" = 1 ]; then
    # The run itself could not be added (an incomplete run, a label not in it): as before
    # the history was kept anywhere, this fails the job.
    echo "bench-action: the run was not added to the history (see above)" >&2
    [ "$status" = 0 ] && status=2 && verdict=not-judged
  fi
fi

if [ "$status" = 0 ] && [ "$trend_status" != 0 ]; then
  status=$trend_status
  [ "$status" = 1 ] && verdict=step
  [ "$status" = 2 ] && verdict=not-judged
  [ "$status" = 3 ] && verdict=undecided
fi

# The pull request's comment: the tool writes the body (its first line is the marker);
# the comment of the pull request that starts with that marker is edited, else one is
# added.
comment() {
  local pr=${BS_PR_NUMBER:-} repo=${GITHUB_REPOSITORY:-} link=${BS_COMMENT_LINK:-} marker id
  if [ -z "$pr" ] && [ -n "${GITHUB_EVENT_PATH:-}" ] && [ -f "$GITHUB_EVENT_PATH" ]; then
    pr=$(python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))
print((e.get("pull_request") or {}).get("number") or "")' "$GITHUB_EVENT_PATH")
  fi
  [ -n "$pr" ] || { echo "bench-action: not a pull request: no comment"; return 0; }
  [ -n "$repo" ] || { warn "comment: GITHUB_REPOSITORY is not set"; return 1; }
  command -v gh >/dev/null 2>&1 || { warn "comment: no gh on PATH"; return 1; }
  if [ -z "$link" ] && [ -n "${GITHUB_RUN_ID:-}" ]; then
    link=${GITHUB_SERVER_URL:-https://github.com}/$repo/actions/runs/$GITHUB_RUN_ID
  fi
  "$bin" comment "$results" --key "$name" ${link:+--link "$link"} --out "$work/comment.md" || return 1
  marker=$(head -n 1 "$work/comment.md")
  python3 -c 'import json, sys
print(json.dumps({"body": open(sys.argv[1]).read()}))' "$work/comment.md" >"$work/comment.json" || return 1
  gh api --paginate "repos/$repo/issues/$pr/comments" >"$work/comments.json" || return 1
  # The pages come as JSON arrays one after another.
  id=$(python3 -c 'import json, sys
text, marker = open(sys.argv[1]).read(), sys.argv[2]
dec, at, found = json.JSONDecoder(), 0, ""
while at < len(text):
    if text[at].isspace():
        at += 1
        continue
    page, at = dec.raw_decode(text, at)
    for c in page:
        if not found and (c.get("body") or "").startswith(marker):
            found = str(c["id"])
print(found)' "$work/comments.json" "$marker") || return 1
  if [ -n "$id" ]; then
    gh api --method PATCH "repos/$repo/issues/comments/$id" --input "$work/comment.json" >/dev/null || return 1
    echo "bench-action: comment $id of pull request $pr updated"
  else
    gh api --method POST "repos/$repo/issues/$pr/comments" --input "$work/comment.json" >/dev/null || return 1
    echo "bench-action: comment added to pull request $pr"
  fi
}
if [ "${BS_COMMENT:-false}" = true ] && [ -f "$results/summary.json" ]; then
  comment || warn "the pull request's comment was not posted (the job needs pull-requests: write)"
fi

{
  echo "verdict=$verdict"
  echo "exit-code=$status"
  echo "results=$results"
  echo "history-kept=$kept"
} >>"$outputs"
echo "bench-action: $verdict (exit $status)"
exit "$status"
