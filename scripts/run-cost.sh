#!/usr/bin/env bash
# What a whole `run` costs, not only its units: runs
# `run DATASET -s STRATEGY -j J -q` (puzzles.csv and every report on)
# ROUNDS times for each J (and each --bin, in turns within a round) and
# prints the medians of
#   process wall / CPU = the whole process, start to exit (as a user or a CI
#                        job waits for it), wall and user + system time
#   units wall         = the units' wall time (summary.json `wall_ns`)
#   outside the units  = process wall − units wall: start-up, opening the
#                        datasets, the timer calibration, and after the
#                        units puzzles.csv's fsync and the reports and charts
#                        (each run gets a new --out directory)
#   harness CPU %      = meta.json's, CPU time beyond the solves while the
#                        units ran, % of the solve time
#
# usage: scripts/run-cost.sh [--bin BIN]... DATASET [STRATEGY] ["1 2"]
# env:   ROUNDS=7
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/bins.sh
take_bins "$@"
set -- "${args[@]}"
data=${1:?usage: scripts/run-cost.sh [--bin BIN]... DATASET [STRATEGY] [\"1 2\"]}
strategy=${2:-fast}
threads=${3:-"1 2"}
rounds=${ROUNDS:-7}
if [ ${#bins[@]} -eq 0 ]; then
  cargo build --release --quiet
  bins=(target/release/bench-sudoku)
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

python3 - "$out" "$data" "$strategy" "$rounds" "$threads" "${bins[@]}" <<'EOF'
import json, os, resource, shutil, statistics, subprocess, sys, time
out, data, strategy, rounds, threads, *bins = sys.argv[1:]
rows = {}
for _ in range(int(rounds)):
    for j in threads.split():
        for b in bins:
            d = os.path.join(out, "run")
            # A new results directory each time, as a run without --force
            # has: replacing the last run's files is not part of the cost.
            shutil.rmtree(d, ignore_errors=True)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run([b, "run", data, "-s", strategy, "-j", j, "-q", "--out", d],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            wall = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            units = json.load(open(os.path.join(d, "summary.json")))["results"][0]["wall_ns"] / 1e9
            meta = json.load(open(os.path.join(d, "meta.json")))
            pct = (meta.get("harness") or {}).get("harness_cpu_pct") or 0.0
            rows.setdefault((b, int(j)), []).append((wall, cpu, units, wall - units, pct))
med = statistics.median
print(f"{rounds} rounds, strategy {strategy}, {os.path.basename(data)}, medians:\n")
print("| binary | -j | process wall ms | process CPU ms | units wall ms | outside the units ms | harness CPU % |")
print("|---|---:|---:|---:|---:|---:|---:|")
for (b, j), v in rows.items():
    w, c, u, o, p = (med(x[i] for x in v) for i in range(5))
    print(f"| {b} | {j} | {w * 1e3:.1f} | {c * 1e3:.1f} | {u * 1e3:.1f} | {o * 1e3:.1f} | {p:.1f} |")
EOF
