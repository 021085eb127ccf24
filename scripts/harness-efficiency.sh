#!/usr/bin/env bash
# Harness efficiency and scaling of `bench-sudoku run`, per-puzzle CSV on:
#   efficiency = solve_ns_total / wall_ns at -j 1 (time spent solving / wall time)
#   speedup    = wall_ns(-j 1) / wall_ns(-j 2)
# and whether every counter of puzzles.csv is identical between -j 1 and -j 2.
# Runs alternate -j 1 / -j 2, ROUNDS times; medians are reported.
#
# usage: scripts/harness-efficiency.sh DATASET [STRATEGY]   (default strategy: fast if it exists, else locked)
# env:   ROUNDS=5
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:?usage: scripts/harness-efficiency.sh DATASET [STRATEGY]}
cargo build --release --quiet
bin=target/release/bench-sudoku
strategy=${2:-$("$bin" strategies | awk '$1=="fast"{print "fast"; found=1} END{if(!found) print "locked"}')}
rounds=${ROUNDS:-5}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for i in $(seq "$rounds"); do
  for j in 1 2; do
    "$bin" run "$data" -s "$strategy" -j "$j" -q --out "$out/j$j-$i" > /dev/null
  done
done
python3 - "$out" "$rounds" "$strategy" "$data" <<'PY'
import json, sys, statistics, csv
out, rounds, strategy, data = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def res(j, i):
    return json.load(open(f"{out}/j{j}-{i}/summary.json"))["results"][0]
r1 = [res(1, i) for i in range(1, rounds + 1)]
r2 = [res(2, i) for i in range(1, rounds + 1)]
eff = [r["solve_ns_total"] / r["wall_ns"] for r in r1]
speed = [a["wall_ns"] / b["wall_ns"] for a, b in zip(r1, r2)]
def rows(j):
    with open(f"{out}/j{j}-1/puzzles.csv") as f:
        return [tuple(v for k, v in row.items() if k != "time_ns") for row in csv.DictReader(f)]
same = rows(1) == rows(2)
print(f"dataset {data}, strategy {strategy}, {r1[0]['puzzles']} puzzles, {rounds} alternating rounds, puzzles.csv on")
print(f"  -j 1: wall median {statistics.median(r['wall_ns'] for r in r1)/1e6:.1f} ms, mean solve {statistics.median(r['mean_ns'] for r in r1)/1e3:.3f} µs")
print(f"  -j 2: wall median {statistics.median(r['wall_ns'] for r in r2)/1e6:.1f} ms, mean solve {statistics.median(r['mean_ns'] for r in r2)/1e3:.3f} µs")
print(f"  efficiency (-j 1) solve_ns_total/wall_ns: median {statistics.median(eff):.3f} (min {min(eff):.3f}, max {max(eff):.3f})")
print(f"  speedup wall(-j 1)/wall(-j 2): median {statistics.median(speed):.3f} (min {min(speed):.3f}, max {max(speed):.3f})")
print(f"  counters identical between -j 1 and -j 2, row for row: {same}")
PY
