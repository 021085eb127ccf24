#!/usr/bin/env bash
# What link-time optimisation and one codegen unit buy: builds the release
# binary cold under three settings, each in a target directory of its own,
# timing each build, then times `fast` with each binary on corpora,
# alternating the binaries round by round (cold, -j 1, --repeat 3), and
# prints each build's median mean solve time per corpus over the rounds.
#
#   scripts/build-profiles.sh CORPORA_DIR [ROUNDS]     (from the repository root)
#
# The settings: fat LTO with one codegen unit; thin LTO with 16; no LTO with
# 16 (Cargo's own release settings, which Cargo.toml keeps). Builds take
# minutes each; run it on a quiet machine (docs/PERFORMANCE.md, "Build
# profile").
set -euo pipefail
cd "$(dirname "$0")/.."
corpora=${1:?usage: scripts/build-profiles.sh CORPORA_DIR [ROUNDS]}
rounds=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
settings=("fat:true:1" "thin:\"thin\":16" "off:false:16")
echo "cold release builds (cargo build --release --locked, every dependency built):"
for s in "${settings[@]}"; do
    IFS=: read -r name lto cgu <<<"$s"
    start=$(date +%s.%N)
    CARGO_TARGET_DIR="$work/t-$name" cargo build --release --locked --quiet \
        --config "profile.release.lto=$lto" --config "profile.release.codegen-units=$cgu"
    end=$(date +%s.%N)
    cp "$work/t-$name/release/bench-sudoku" "$work/bs-$name"
    rm -rf "$work/t-$name"
    printf '  %-5s lto=%-7s codegen-units=%-3s %6.0f s  (load %s)\n' "$name" "$lto" "$cgu" \
        "$(echo "$end - $start" | bc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
done
echo "fast, mean solve time (ns) per build, median of $rounds alternated rounds:"
for ds in puzzles3_magictour_top1465 puzzles6_forum_hardest_1106 puzzles7_serg_benchmark; do
    for r in $(seq "$rounds"); do
        for s in "${settings[@]}"; do
            name=${s%%:*}
            "$work/bs-$name" run "$corpora/$ds" -s fast -j 1 -q --repeat 3 --no-puzzle-csv \
                --out "$work/r-$name-$r" --force >/dev/null 2>&1
        done
    done
    for s in "${settings[@]}"; do
        name=${s%%:*}
        for r in $(seq "$rounds"); do
            python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["mean_ns"])' \
                "$work/r-$name-$r/summary.json"
        done | sort -g | awk -v n="$name" -v d="$ds" '{a[NR]=$1} END {printf "  %-28s %-5s %10.1f\n", d, n, a[int((NR+1)/2)]}'
    done
done
