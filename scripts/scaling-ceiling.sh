#!/usr/bin/env bash
# The machine's own ceiling for a 2-thread speedup of the solver: the same
# in-memory solve loop (examples/engine_loop.rs, no reading, no verification,
# no output) run alone on one core, then as two independent processes pinned
# to two cores at once. ceiling = 2 × (alone µs/puzzle) / (mean of the two
# concurrent µs/puzzle): what two solver threads could reach with a harness
# that cost nothing. Rounds alternate; medians are reported.
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
alone=(); both=()
for _ in $(seq "$rounds"); do
  alone+=("$(taskset -c 0 "$bin" --rounds 3 -s "$strategy" "$file" | us)")
  a=$(mktemp); b=$(mktemp)
  taskset -c 0 "$bin" --rounds 3 -s "$strategy" "$file" > "$a" &
  taskset -c 1 "$bin" --rounds 3 -s "$strategy" "$file" > "$b" &
  wait
  both+=("$(us < "$a") $(us < "$b")")
  rm -f "$a" "$b"
done
python3 - "$file" "$strategy" "${alone[*]}" "${both[@]}" <<'PY'
import sys, statistics as st
file, strategy, alone = sys.argv[1], sys.argv[2], [float(x) for x in sys.argv[3].split()]
both = [[float(x) for x in b.split()] for b in sys.argv[4:]]
ceil = [2 * a / (sum(b) / 2) for a, b in zip(alone, both)]
slow = [(sum(b) / 2) / a for a, b in zip(alone, both)]
print(f"{file}, {strategy}, {len(alone)} alternating rounds (best of 3 passes each)")
print(f"  alone: median {st.median(alone):.3f} µs/puzzle; two at once: median {st.median(sum(b)/2 for b in both):.3f} µs/puzzle")
print(f"  per-solve slowdown with both cores busy: median {st.median(slow):.3f} (min {min(slow):.3f}, max {max(slow):.3f})")
print(f"  2-thread ceiling: median {st.median(ceil):.3f} (min {min(ceil):.3f}, max {max(ceil):.3f})")
PY
