#!/usr/bin/env bash
# Harness efficiency and scaling of `bench-sudoku run`, per-puzzle CSV on:
#   efficiency = solve_ns_total / wall_ns at -j 1 (time spent solving / wall time)
#   speedup    = wall_ns(-j 1) / wall_ns(-j 2)
# and whether every counter of puzzles.csv is identical between -j 1 and -j 2.
# Runs alternate -j 1 / -j 2, ROUNDS times; medians are reported.
#
# With CEILING=1 each round also measures the machine's own 2-thread ceiling
# right after (as scripts/scaling-ceiling.sh does, one pass: the bare solve
# loop alone on core 0, then on both cores at once), and reports the speedup
# as a fraction of it: on a shared virtual machine the ceiling moves from
# minute to minute, and this fraction is what the harness controls.
#
# usage: scripts/harness-efficiency.sh DATASET [STRATEGY]   (default strategy: fast if it exists, else locked)
# env:   ROUNDS=5 CEILING=0
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:?usage: scripts/harness-efficiency.sh DATASET [STRATEGY]}
cargo build --release --quiet
bin=target/release/bench-sudoku
strategy=${2:-$("$bin" strategies | awk '$1=="fast"{print "fast"; found=1} END{if(!found) print "locked"}')}
rounds=${ROUNDS:-5}
ceiling=${CEILING:-0}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if [ "$ceiling" = 1 ]; then
  cargo build --release --quiet --example engine_loop
  loop=target/release/examples/engine_loop
  # Plain lines only: the loop reads 81-character lines.
  us() { awk '{for (i = 1; i <= NF; i++) if ($i == "us/puzzle,") print $(i - 1)}'; }
fi
for i in $(seq "$rounds"); do
  for j in 1 2; do
    "$bin" run "$data" -s "$strategy" -j "$j" -q --out "$out/j$j-$i" > /dev/null
  done
  if [ "$ceiling" = 1 ]; then
    a=$(taskset -c 0 "$loop" --rounds 1 -s "$strategy" "$data" | us)
    taskset -c 0 "$loop" --rounds 1 -s "$strategy" "$data" > "$out/b0" &
    taskset -c 1 "$loop" --rounds 1 -s "$strategy" "$data" > "$out/b1" &
    wait
    echo "$a $(us < "$out/b0") $(us < "$out/b1")" >> "$out/ceiling"
  fi
done
python3 - "$out" "$rounds" "$strategy" "$data" <<'PY'
import json, os, sys, statistics, csv
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
if os.path.exists(f"{out}/ceiling"):
    rows = [[float(x) for x in line.split()] for line in open(f"{out}/ceiling")]
    ceil = [a * (1 / b0 + 1 / b1) for a, b0, b1 in rows]
    frac = [s / c for s, c in zip(speed, ceil)]
    print(f"  machine ceiling (bare loop, same rounds): median {statistics.median(ceil):.3f} (min {min(ceil):.3f}, max {max(ceil):.3f})")
    print(f"  speedup / ceiling, per round: median {statistics.median(frac):.3f} (min {min(frac):.3f}, max {max(frac):.3f})")
PY
