#!/usr/bin/env bash
# What a run's harness costs once and what it costs per puzzle: runs the
# first N lines of DATASET for several N (written to a temporary
# directory, never into the repository) at -j 1 and -j 2, takes each run's
# thread time outside the measured solves (J × wall − solve total, from
# summary.json), and fits a line through the medians over the sizes: the
# intercept is what the run pays once (set-up, the first batch's wait,
# the last batch's finishing, the merge), the slope what it pays per
# puzzle. With several binaries (--bin, repeatable) they alternate run by
# run, so that the machine's drift falls on all of them alike.
#
# usage: scripts/harness-fixed.sh [--bin BIN]... DATASET [STRATEGY]
# env:   ROUNDS=5 THREADS="1 2" SIZES="6000 12000 24000 0" (0: the whole file)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/bins.sh
take_bins "$@"
set -- "${args[@]}"
data=${1:?usage: scripts/harness-fixed.sh [--bin BIN]... DATASET [STRATEGY]}
strategy=${2:-fast}
rounds=${ROUNDS:-5}
threads=${THREADS:-"1 2"}
sizes=${SIZES:-"6000 12000 24000 0"}
if [ ${#bins[@]} -eq 0 ]; then
    cargo build --release --quiet
    bins=(target/release/bench-sudoku)
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
files=()
for n in $sizes; do
    if [ "$n" = 0 ]; then
        files+=("$data")
    else
        # The first N lines after the comment lines (a CSV header among them).
        awk -v n="$n" '/^#/ { print; next } k < n { print; k++ }' "$data" >"$tmp/first-$n"
        files+=("$tmp/first-$n")
    fi
done
for r in $(seq "$rounds"); do
    for f in "${files[@]}"; do
        for j in $threads; do
            for b in "${bins[@]}"; do
                # (A small size's run is short enough to be warned of: kept quiet.)
                "$b" run "$f" -s "$strategy" -j "$j" -q --out "$tmp/r" --force >/dev/null 2>"$tmp/err" ||
                    { cat "$tmp/err" >&2; exit 1; }
                python3 - "$tmp/r" "$j" "$b" >>"$tmp/rows" <<'PY'
import json, sys
d, j, b = sys.argv[1], int(sys.argv[2]), sys.argv[3]
s = json.load(open(d + "/summary.json"))["results"][0]
print(b, j, s["puzzles"], (j * s["wall_ns"] - s["solve_ns_total"]) / 1e6, s["solve_ns_total"] / (j * s["wall_ns"]))
PY
            done
        done
    done
done
python3 - "$tmp/rows" <<'PY'
import collections, statistics as st, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    b, j, n, ms, share = line.split()
    runs[(b, int(j), int(n))].append((float(ms), float(share)))
print("binary  -j  puzzles  outside solves (thread-ms, median)  share (median)")
for b in dict.fromkeys(k[0] for k in runs):
    for j in sorted({k[1] for k in runs}):
        xs, ys = [], []
        for (bb, jj, n), v in sorted(runs.items()):
            if (bb, jj) != (b, j):
                continue
            ms = st.median(x[0] for x in v)
            print(f"{b}  {j}  {n}  {ms:.2f}  {st.median(x[1] for x in v):.3f}")
            xs.append(n)
            ys.append(ms)
        if len(xs) >= 2:
            mx, my = st.mean(xs), st.mean(ys)
            slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
            print(f"  fit, {b} -j {j}: once {my - slope * mx:.2f} thread-ms, per puzzle {slope * 1e6:.0f} ns")
PY
