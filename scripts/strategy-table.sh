#!/usr/bin/env bash
# Every named strategy, single thread, on each benchmark corpus: a Markdown table of
# mean and median µs per puzzle, guesses per puzzle and outcomes, measured with
# `bench-sudoku run -j 1 --repeat N --warmup 1 --no-puzzle-csv` (first solution).
#
# usage: scripts/strategy-table.sh [CORPORA_DIR]   (default: $BENCH_SUDOKU_CORPORA or ../shared/corpora)
# env:   STRATEGIES="naive rowmajor …"  REPEAT=3  EXPLOSIVE_LIMIT=100 (first puzzles of each corpus
#        for naive/rowmajor, which run once under the default 1,000,000-guess budget)
#        MRV_LIMIT=5000 (first puzzles of each corpus for mrv, one pass)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-${BENCH_SUDOKU_CORPORA:-../shared/corpora}}
strategies=${STRATEGIES:-"naive rowmajor mrv logic hidden locked fast dlx"}
repeat=${REPEAT:-3}
explosive_limit=${EXPLOSIVE_LIMIT:-100}
mrv_limit=${MRV_LIMIT:-5000}
cargo build --release --quiet
bin=target/release/bench-sudoku
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "| corpus | strategy | puzzles | mean µs | p50 µs | p99 µs | guesses/puzzle | outcomes |"
echo "|---|---|---:|---:|---:|---:|---:|---|"
for f in puzzles2_17_clue puzzles3_magictour_top1465 "puzzles5_forum_hardest_1905_11+" puzzles6_forum_hardest_1106 puzzles7_serg_benchmark; do
  [ -f "$dir/$f" ] || { echo "missing $dir/$f" >&2; continue; }
  for s in $strategies; do
    extra=(--repeat "$repeat" --warmup 1)
    # Explosive strategies: a sample, one pass (a puzzle can take 1M guesses).
    case $s in
      naive|rowmajor) extra=(--limit "$explosive_limit" --repeat 1) ;;
      # Naked singles only: milliseconds per puzzle on the sparse corpora.
      mrv) extra=(--limit "$mrv_limit" --repeat 1) ;;
    esac
    "$bin" run "$dir/$f" -s "$s" -j 1 --no-puzzle-csv -q \
      --out "$out/$s-$f" "${extra[@]}" > /dev/null
    python3 - "$out/$s-$f/summary.json" "$f" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
other = ", ".join(f"{r[k]} {k}" for k in ("multiple", "no_solution", "stalled", "gave_up", "mismatches") if r[k])
print(f"| {sys.argv[2]} | {r['strategy']} | {r['puzzles']} | {r['mean_ns']/1e3:.2f} | {r['p50_ns']/1e3:.2f} | {r['p99_ns']/1e3:.2f} | {r['guesses_mean']:.2f} | {r['solved']} solved{', ' + other if other else ''} |")
PY
  done
done
