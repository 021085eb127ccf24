#!/usr/bin/env bash
# The machine's own ceiling for a 2-thread speedup of the solver: the same
# in-memory solve loop (examples/engine_loop.rs, no reading, no verification,
# no output) run alone on core 0 (where `run -j 1` solves), alone on core 1,
# then as two independent processes pinned to the two cores at once.
# ceiling = (alone µs/puzzle on core 0) × (1/a + 1/b), a and b being the two
# concurrent µs/puzzle: the combined throughput of both cores against one,
# what two solver threads sharing the work could reach with a harness that
# cost nothing. (On a virtual machine the two cores need not be equally
# fast: a busy neighbour on the host can slow one down; "core 1 / core 0"
# shows it.) Rounds alternate; medians are reported.
#
# usage: scripts/scaling-ceiling.sh FILE [STRATEGY]   env: ROUNDS=5
set -euo pipefail
cd "$(dirname "$0")/.."
file=${1:?usage: scripts/scaling-ceiling.sh FILE [STRATEGY]}
strategy=${2:-fast}
rounds=${ROUNDS:-5}
cargo build --release --quiet --example engine_loop
bin=target/release/examples/engine_loop
us() { awk '{for (i = 1; i <= NF; i++) if ($i == "us/puzzle,") print $(i - 1)}'; }
alone=(); alone1=(); both=()
for _ in $(seq "$rounds"); do
  alone+=("$(taskset -c 0 "$bin" --rounds 3 -s "$strategy" "$file" | us)")
  alone1+=("$(taskset -c 1 "$bin" --rounds 3 -s "$strategy" "$file" | us)")
  a=$(mktemp); b=$(mktemp)
  taskset -c 0 "$bin" --rounds 3 -s "$strategy" "$file" > "$a" &
  taskset -c 1 "$bin" --rounds 3 -s "$strategy" "$file" > "$b" &
  wait
  both+=("$(us < "$a") $(us < "$b")")
  rm -f "$a" "$b"
done
python3 - "$file" "$strategy" "${alone[*]}" "${alone1[*]}" "${both[@]}" <<'PY'
import sys, statistics as st
file, strategy = sys.argv[1], sys.argv[2]
alone = [float(x) for x in sys.argv[3].split()]
alone1 = [float(x) for x in sys.argv[4].split()]
both = [[float(x) for x in b.split()] for b in sys.argv[5:]]
ceil = [a * (1 / b[0] + 1 / b[1]) for a, b in zip(alone, both)]
slow = [(sum(b) / 2) / a for a, b in zip(alone, both)]
skew = [c / a for a, c in zip(alone, alone1)]
print(f"{file}, {strategy}, {len(alone)} alternating rounds (best of 3 passes each)")
print(f"  alone: median {st.median(alone):.3f} µs/puzzle on core 0, {st.median(alone1):.3f} on core 1 (core 1 / core 0: median {st.median(skew):.3f}, min {min(skew):.3f}, max {max(skew):.3f})")
print(f"  two at once: median {st.median(sum(b)/2 for b in both):.3f} µs/puzzle")
print(f"  per-solve slowdown with both cores busy: median {st.median(slow):.3f} (min {min(slow):.3f}, max {max(slow):.3f})")
print(f"  2-thread ceiling: median {st.median(ceil):.3f} (min {min(ceil):.3f}, max {max(ceil):.3f})")
PY
