#!/usr/bin/env bash
# What each part of the harness costs: builds a probe binary
# (`--features harness-probe`, its own target directory) and runs
# `run DATASET -s STRATEGY -j 1` with ever more of the finishing work left
# out (BENCH_SUDOKU_PROBE_SKIP, src/bench/pipeline/probe.rs), the levels in
# turns within every round, and prints the medians of the process's CPU
# time beyond the measured solves: per puzzle, as % of the solves, and what
# each level saved, and the share of the wall time inside the solves
# (solve total / (J × wall)). THREADS=2 runs `-j 2` instead (the layout
# the run chooses, shown as `default`: on two cores the solver threads
# finish their own batches). With --one-cpu, every level also runs under
# `taskset -c 1` (one CPU: the workers-only layout, one thread doing
# everything).
#
# The probe binary's results are incomplete by design (rows, statistics,
# verification left out); only its CPU figures mean anything.
#
# usage: scripts/harness-probe.sh [--one-cpu] DATASET [STRATEGY]
# env:   ROUNDS=9 THREADS=1
set -euo pipefail
cd "$(dirname "$0")/.."
one_cpu=
if [ "${1:-}" = --one-cpu ]; then
  one_cpu=1
  shift
fi
data=${1:?usage: scripts/harness-probe.sh [--one-cpu] DATASET [STRATEGY]}
strategy=${2:-fast}
rounds=${ROUNDS:-9}
threads=${THREADS:-1}
levels="nothing sample write rows stats verify hash"

cargo build --release --quiet --features harness-probe --target-dir target/probe
bin=target/probe/release/bench-sudoku
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

modes=()
main=helpers
[ "$threads" = 1 ] || main=default
for l in $levels; do modes+=("$main:$l"); done
if [ -n "$one_cpu" ]; then
  for l in $levels; do modes+=("one-cpu:$l"); done
fi

for ((r = 1; r <= rounds; r++)); do
  for mode in "${modes[@]}"; do
    layout=${mode%%:*}
    level=${mode#*:}
    pin=()
    [ "$layout" = one-cpu ] && pin=(taskset -c 1)
    BENCH_SUDOKU_PROBE_SKIP=$level "${pin[@]}" "$bin" run "$data" -s "$strategy" -j "$threads" -q \
      --out "$out/run" --force >/dev/null
    python3 - "$out/run" "$layout" "$level" "$threads" >>"$out/rows.tsv" <<'EOF'
import json, sys
d, layout, level, threads = sys.argv[1:5]
cpu = json.load(open(f"{d}/meta.json"))["harness"]["cpu_ns"]
units = json.load(open(f"{d}/summary.json"))["results"]
# The solves' total from each pass's sum: present at every level (the
# statistics, and with them `solve_ns_total`, are left out at some).
solve = sum(sum(u["pass_solve_ns"]) for u in units)
# Puzzles solved (zero where the statistics are left out).
puzzles = sum(u["puzzles"] for u in units)
# The wall time the units share out (their sum is the group's wall).
wall = sum(u["wall_ns"] for u in units)
print(layout, level, cpu, solve, puzzles, solve / (int(threads) * wall), sep="\t")
EOF
  done
done

python3 - "$out/rows.tsv" "$rounds" "$strategy" "$threads" <<'EOF'
import statistics, sys
path, rounds, strategy, threads = sys.argv[1:5]
rows = {}
n = 0
for line in open(path):
    layout, level, cpu, solve, puzzles, share = line.split("\t")
    rows.setdefault((layout, level), []).append((int(cpu), int(solve), float(share)))
    n = max(n, int(puzzles))
print(f"{rounds} rounds, strategy {strategy}, -j {threads}, {n} puzzles, medians:\n")
print("| layout | left out | harness ns / puzzle | harness CPU % of solve | saved ns / puzzle | mean solve ns | share of wall in solves |")
print("|---|---|---:|---:|---:|---:|---:|")
for layout in ("helpers", "default", "one-cpu"):
    prev = None
    for (lay, level), v in rows.items():
        if lay != layout:
            continue
        ns = statistics.median((c - s) / n for c, s, _ in v)
        pct = statistics.median((c - s) * 100 / s for c, s, _ in v)
        mean = statistics.median(s / n for _, s, _ in v)
        share = statistics.median(x for _, _, x in v)
        saved = "" if prev is None else f"{prev - ns:.1f}"
        # Each level leaves out its part and every part above it.
        what = "nothing" if level == "nothing" else f"+ {level}"
        print(f"| {layout} | {what} | {ns:.1f} | {pct:.1f} | {saved} | {mean:.0f} | {share:.3f} |")
        prev = ns
EOF
