#!/usr/bin/env bash
# How noisy the wall-clock figures (puzzles/s, and the speedup of 2 threads
# over 1) are, by the length of the run: the same work run TRIALS times at
# each length, 1 thread and 2 threads alternately. Prints, per length, the
# median wall time of the 1-thread runs, the median share of that wall time
# not spent inside solve calls (thread start-up, reading, scheduling), the
# spread of their puzzles/s (fastest run over slowest) and the range of the
# 2-over-1 speedups.
#
#   scripts/short-run-noise.sh [BIN] [TRIALS]
#
# BIN defaults to target/release/bench-sudoku (build it first), TRIALS to 7.
# The lengths are easy.csv's 1,000 puzzles solved by `fast` with 1 to 300
# measured passes (--repeat), from about 1 ms to a few hundred ms of work.
set -euo pipefail
bin=${1:-target/release/bench-sudoku}
trials=${2:-7}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

one() { # threads repeat → "wall_ns puzzles_per_sec solve_ns_total"
    "$bin" run datasets/easy.csv -s fast -j "$1" --repeat "$2" --warmup 0 \
        --no-puzzle-csv -q --out "$tmp/r" --force >/dev/null 2>&1 || true
    jq -r '.results[0] | "\(.wall_ns) \(.puzzles_per_sec) \(.solve_ns_total)"' "$tmp/r/summary.json"
}

printf '%8s %12s %14s %24s %22s\n' repeat "wall (j1)" "not solving" "puzzles/s spread (j1)" "speedup j2/j1 range"
for repeat in 1 3 10 30 100 300; do
    walls=() rates=() speedups=() idle=()
    for _ in $(seq "$trials"); do
        read -r w1 r1 s1 < <(one 1 "$repeat")
        read -r _ r2 _ < <(one 2 "$repeat")
        walls+=("$w1") rates+=("$r1")
        # solve_ns_total is one pass's (the minimum over the passes per
        # puzzle): the solving of `repeat` passes is about that many times it.
        idle+=("$(awk -v w="$w1" -v s="$s1" -v n="$repeat" 'BEGIN { x = (w - s * n) / w; if (x < 0) x = 0; printf "%.3f", x }')")
        speedups+=("$(awk -v a="$r2" -v b="$r1" 'BEGIN { printf "%.3f", a / b }')")
    done
    med_wall=$(printf '%s\n' "${walls[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
    med_idle=$(printf '%s\n' "${idle[@]}" | sort -g | awk '{ a[NR] = $1 } END { printf "%.0f%%", a[int((NR + 1) / 2)] * 100 }')
    spread=$(printf '%s\n' "${rates[@]}" | sort -g | awk '{ a[NR] = $1 } END { printf "%.0f%%", (a[NR] / a[1] - 1) * 100 }')
    range=$(printf '%s\n' "${speedups[@]}" | sort -g | awk '{ a[NR] = $1 } END { printf "%.2f–%.2f×", a[1], a[NR] }')
    printf '%8s %9.2f ms %14s %24s %22s\n' "$repeat" "$(awk -v w="$med_wall" 'BEGIN { print w / 1e6 }')" "$med_idle" "$spread" "$range"
done
