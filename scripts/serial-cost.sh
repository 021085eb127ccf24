#!/usr/bin/env bash
# What one thread at a time must do for every puzzle, and what that means for
# scaling. Runs `run DATASET -s STRATEGY -j J` (puzzles.csv on) ROUNDS times for
# each J, alternating, and reports the medians of what meta.json's `harness`
# records:
#   read   = ns per puzzle in the reader (one thread at a time)
#   write  = ns per puzzle in the ordered writer (one thread at a time)
#   serial = read + write
#   harness CPU = process CPU time beyond the measured solve times, % of them
#   solve loop = ns per puzzle the solving loop takes beyond the measured
#                solves (clock reads, the chunk loop, storing results)
#   with BENCH_SUDOKU_STAGE_TIMES=1 in the environment, also the CPU time per
#   puzzle of preparing (parsing) and finishing (verification, statistics,
#   rows, writing) batches
# and the model that follows from them, with `mean` the mean solve time:
#   mean / serial       = solver threads one serial thread can feed when it
#                         does both stages (the goal: at least 64)
#   mean / max(r, w)    = the bound when the two stages run on different
#                         threads at once (as they do in both layouts)
#
# usage: scripts/serial-cost.sh [--bin BIN]... DATASET [STRATEGY] ["1 2"]
#   several --bin: the binaries take turns within every round (so that a slow
#   spell of the machine meets each alike), one table per binary
# env:   ROUNDS=7
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/bins.sh
take_bins "$@"
set -- "${args[@]}"
data=${1:?usage: scripts/serial-cost.sh [--bin BIN]... DATASET [STRATEGY] [\"1 2\"]}
strategy=${2:-fast}
threads=${3:-"1 2"}
rounds=${ROUNDS:-7}
if [ ${#bins[@]} -eq 0 ]; then
  cargo build --release --quiet
  bins=(target/release/bench-sudoku)
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for ((r = 1; r <= rounds; r++)); do
  for k in "${!bins[@]}"; do
  for j in $threads; do
    "${bins[$k]}" run "$data" -s "$strategy" -j "$j" -q --out "$out/run" --force >/dev/null
    python3 - "$out/run" "$j" >>"$out/rows$k.tsv" <<'EOF'
import json, sys
d, j = sys.argv[1], sys.argv[2]
m = json.load(open(f"{d}/meta.json"))
r = json.load(open(f"{d}/summary.json"))["results"][0]
h = m["harness"]
st = h.get("stages") or {}
print(j, h["layout"], h["read_ns_per_puzzle"], h["write_ns_per_puzzle"],
      h["serial_ns_per_puzzle"], h.get("harness_cpu_pct") or 0, r["mean_ns"], r["wall_ns"],
      h.get("solve_loop_ns_per_puzzle", -1), st.get("prepare_ns_per_puzzle", -1),
      st.get("finish_ns_per_puzzle", -1), sep="\t")
EOF
  done
  done
done

for k in "${!bins[@]}"; do
[ ${#bins[@]} -gt 1 ] && printf '\n%s\n' "${bins[$k]}"
python3 - "$out/rows$k.tsv" "$rounds" "$strategy" <<'EOF'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()]
med = statistics.median
by = {}
for j, layout, *v in rows:
    by.setdefault(int(j), (layout, []))[1].append(tuple(map(float, v)))
base_wall = med(v[5] for v in by[min(by)][1]) if by else 0
stages = any(x[7] >= 0 for _, v in by.values() for x in v)
print(f"{sys.argv[2]} rounds, strategy {sys.argv[3]}, medians:\n")
extra = " prepare ns | finish ns |" if stages else ""
print("| -j | layout | read ns | write ns | serial ns | mean solve ns | serial / mean | mean / serial | mean / max(read, write) | harness CPU % of solve | solve loop ns |" + extra + " speedup |")
print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|" + ("---:|---:|" if stages else "") + "---:|")
for j in sorted(by):
    layout, v = by[j]
    rd, wr, se, cpu, mean, wall, loop, prep, fin = (med(x[i] for x in v) for i in range(9))
    cols = f" {prep:.1f} | {fin:.1f} |" if stages else ""
    loop = f"{loop:.1f}" if loop >= 0 else "–"
    print(f"| {j} | {layout} | {rd:.1f} | {wr:.1f} | {se:.1f} | {mean:.0f} | 1/{mean / se:.0f} | {mean / se:.0f} | {mean / max(rd, wr):.0f} | {cpu:.1f} | {loop} |{cols} {base_wall / wall:.2f} |")
EOF
done
