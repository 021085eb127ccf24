#!/usr/bin/env bash
# The share of a run's wall time spent inside the solves, and its serial
# part, as a user runs it (puzzles.csv and every report on):
#   share  = solve_ns_total / (J × wall_ns)   (summary.json: the measured
#            solves over the wall time of J solver threads)
#   serial = ns per puzzle of the stages one thread at a time does
#            (meta.json's harness.serial_ns_per_puzzle: reading and the
#            ordered writing), against 1/64 of the mean solve time (one
#            serial thread then feeds 64 solver threads)
# Runs -j 1 and -j 2 in turn, ROUNDS times, and prints every round and the
# best of them (the largest share, the smallest serial part): on a shared
# machine the best round is the one the machine disturbed least.
#
# usage: scripts/harness-share.sh [--bin BIN] DATASET [STRATEGY]
# env:   ROUNDS=3 THREADS="1 2"
set -euo pipefail
cd "$(dirname "$0")/.."
bin=
if [ "${1:-}" = --bin ]; then
    bin=$2
    shift 2
fi
data=${1:?usage: scripts/harness-share.sh [--bin BIN] DATASET [STRATEGY]}
strategy=${2:-fast}
rounds=${ROUNDS:-3}
threads=${THREADS:-"1 2"}
if [ -z "$bin" ]; then
    cargo build --release --quiet
    bin=target/release/bench-sudoku
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "round  -j  share   serial ns/puzzle  mean ns  mean/64"
for r in $(seq "$rounds"); do
    for j in $threads; do
        "$bin" run "$data" -s "$strategy" -j "$j" -q --out "$out/r" --force >/dev/null
        python3 - "$out/r" "$j" "$r" >>"$out/rows" <<'PY'
import json, sys
d, j, r = sys.argv[1], int(sys.argv[2]), sys.argv[3]
s = json.load(open(d + "/summary.json"))["results"][0]
h = json.load(open(d + "/meta.json"))["harness"]
share = s["solve_ns_total"] / (j * s["wall_ns"])
print(r, j, f"{share:.3f}", f"{h['serial_ns_per_puzzle']:.1f}", f"{s['mean_ns']:.1f}", f"{s['mean_ns'] / 64:.1f}")
PY
        tail -1 "$out/rows" | awk '{printf "%5s  %2s  %5s  %16s  %7s  %7s\n", $1, $2, $3, $4, $5, $6}'
    done
done
echo "best of $rounds:"
for j in $threads; do
    awk -v j="$j" '$2 == j { if ($3 > s) s = $3; if (m == "" || $4 < m) m = $4; mean = $5 }
        END { printf "  -j %s  share %s  serial %s ns/puzzle  (1/64 of the mean: %.1f ns)\n", j, s, m, mean / 64 }' "$out/rows"
done
