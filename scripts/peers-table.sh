#!/usr/bin/env bash
# `fast` against the field: the `sudoku` crate and tdoku beside bench-sudoku's
# `fast` on the five benchmark corpora, single thread, first solution, each
# figure best of 3 (per puzzle, or per pass), measured two independent ways:
#
#  1. paired, in one process: `bench-sudoku run FILE -j 1 --repeat 3 -s fast
#     -s 'lib=…'` (cold: each pass goes over the whole file before the next;
#     every answer verified). Per-puzzle means and the paired geometric mean
#     of time / fast's time with its 95 % interval. The same again with
#     `--practised` (each chunk's passes back to back: the hot regime).
#  2. whole passes, timed from outside: scripts/whole-pass.c (tdoku's
#     run_benchmark method: one clock read per pass over the file, fastest of
#     3 passes after a warm-up pass) on `fast` through the capi library, the
#     crate through examples/peers/sudoku-crate and tdoku, all three through
#     tdoku's C signature; and the crate's own harness
#     (../shared/peers/rust-sudoku-ref/run.sh --rounds 3, best of 3 passes).
#     Each is run REPEAT times per corpus, the order rotating; the table has
#     the median. By the wall clock, as the peers' harnesses time; and, for
#     the whole-pass.c three, by the thread's CPU time too, which a busy
#     machine does not inflate (a pass of 15 ms on a shared core is rarely
#     left alone, where a single solve of the paired run mostly is).
#
# "best peer / fast" divides the fastest peer figure of a method (any of the
# crate's and tdoku's) by fast's: above 1, fast is ahead.
#
# usage: scripts/peers-table.sh [CORPORA_DIR]
#   CORPORA_DIR  default: $BENCH_SUDOKU_CORPORA, else ../shared/corpora
# env:
#   TDOKU_DIR    a tdoku source tree (github.com/t-dillon/tdoku), fetched
#                OUTSIDE this repository; built there (build/, cmake,
#                -DOPT=O3 -DARCH=native) unless build/libtdoku_shared.so
#                exists. Unset: tdoku is skipped, and the output says so.
#   REPEAT       whole-pass repetitions per corpus (default 3)
#   CORPUS       one corpus file name to measure instead of all five
# Needs cargo, a C compiler, python3 (and cmake, g++ for tdoku).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-${BENCH_SUDOKU_CORPORA:-../shared/corpora}}
repeat=${REPEAT:-3}
corpora=(puzzles2_17_clue puzzles3_magictour_top1465 "puzzles5_forum_hardest_1905_11+"
  puzzles6_forum_hardest_1106 puzzles7_serg_benchmark)
[ -n "${CORPUS:-}" ] && corpora=("$CORPUS")
for f in "${corpora[@]}"; do
  [ -f "$dir/$f" ] || { echo "peers-table: no corpus $dir/$f (give the corpora directory)" >&2; exit 2; }
done
peer_ref=../shared/peers/rust-sudoku-ref/run.sh
[ -x "$peer_ref" ] || { echo "peers-table: the crate's harness $peer_ref is missing" >&2; exit 2; }

# Builds: bench-sudoku, the capi library (fast for whole-pass), the crate's
# wrapper, the whole-pass harness, the crate's own harness, tdoku.
cargo build --release --quiet
cargo build --release --quiet -p bench-sudoku-capi
crate_dir=examples/peers/sudoku-crate
cargo build --release --quiet --manifest-path "$crate_dir/Cargo.toml"
bin=target/release/bench-sudoku
capi=$(pwd)/target/release/libbench_sudoku_capi.so
crate_lib=$(pwd)/$crate_dir/target/release/libsudoku_crate_peer.so
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cc -O2 -o "$out/whole-pass" scripts/whole-pass.c -ldl
"$peer_ref" --rounds 1 "$dir/${corpora[0]}" > /dev/null   # builds it once
tdoku_lib=
if [ -n "${TDOKU_DIR:-}" ]; then
  [ -f "$TDOKU_DIR/CMakeLists.txt" ] || { echo "peers-table: TDOKU_DIR=$TDOKU_DIR is not a tdoku source tree" >&2; exit 2; }
  tdoku_lib=$(cd "$TDOKU_DIR" && pwd)/build/libtdoku_shared.so
  if [ ! -f "$tdoku_lib" ]; then
    cmake -S "$TDOKU_DIR" -B "$TDOKU_DIR/build" -DCMAKE_BUILD_TYPE=Release -DOPT=O3 -DARCH=native > "$out/tdoku-build.log" 2>&1 \
      && cmake --build "$TDOKU_DIR/build" --target tdoku_shared > "$out/tdoku-build.log" 2>&1 \
      || { cat "$out/tdoku-build.log" >&2; echo "peers-table: building tdoku failed" >&2; exit 1; }
  fi
  echo "tdoku: $tdoku_lib (TdokuSolverDpllTriadSimd)"
else
  echo "tdoku: SKIPPED (set TDOKU_DIR to a tdoku source tree fetched outside this repository to include it)"
fi
echo "sudoku crate: $crate_lib (sudoku $(sed -n 's/^sudoku = "=\(.*\)"/\1/p' "$crate_dir/Cargo.toml")); fast: $("$bin" --version)"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) logical cores; $(date -u '+%Y-%m-%d %H:%M UTC'); load at start: $(cut -d' ' -f1-3 /proc/loadavg)"

specs=(-s fast -s "lib=$crate_lib,solver=sudoku-crate")
[ -n "$tdoku_lib" ] && specs+=(-s "lib=$tdoku_lib,symbol=TdokuSolverDpllTriadSimd,name=tdoku")
for f in "${corpora[@]}"; do
  # 1. Paired, cold then hot.
  "$bin" run "$dir/$f" -j 1 --repeat 3 --no-puzzle-csv -q "${specs[@]}" --out "$out/cold-$f" > /dev/null
  "$bin" run "$dir/$f" -j 1 --repeat 3 --practised --no-puzzle-csv -q "${specs[@]}" --out "$out/hot-$f" > /dev/null
  # 2. Whole passes, the order rotating from one repetition to the next.
  harnesses=(fast crate crate-own)
  [ -n "$tdoku_lib" ] && harnesses+=(tdoku)
  n=${#harnesses[@]}
  for ((k = 0; k < repeat; k++)); do
    for ((h = 0; h < n; h++)); do
      which=${harnesses[$(((h + k) % n))]}
      case $which in
        fast) "$out/whole-pass" "$capi" "$dir/$f" 3 bench_sudoku_fast ;;
        crate) "$out/whole-pass" "$crate_lib" "$dir/$f" 3 sudoku_crate_solve ;;
        tdoku) "$out/whole-pass" "$tdoku_lib" "$dir/$f" 3 TdokuSolverDpllTriadSimd ;;
        crate-own) "$peer_ref" --rounds 3 "$dir/$f" ;;
      esac >> "$out/whole-$which-$f"
    done
  done
done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$out" "${corpora[@]}" <<'PY'
import json, os, re, statistics, sys
out, corpora = sys.argv[1], sys.argv[2:]
short = {"puzzles2_17_clue": "17-clue", "puzzles3_magictour_top1465": "top1465",
         "puzzles5_forum_hardest_1905_11+": "forum hardest 1905 11+",
         "puzzles6_forum_hardest_1106": "forum hardest 1106", "puzzles7_serg_benchmark": "serg"}

def paired(path):
    rs = {r["strategy"]: r for r in json.load(open(f"{path}/summary.json"))["results"]}
    for r in rs.values():
        bad = r["mismatches"] + r["wrong_answers"] + r["rejected"] + r["crashed"] + r["error"]
        if bad or r["solved"] + r["multiple"] != r["puzzles"]:
            sys.exit(f"peers-table: {path}: {r['strategy']} has unsolved or rejected answers")
    return rs

def whole(path, clock="wall"):
    """Median over the repetitions of the fastest pass, µs per puzzle."""
    vals = []
    for line in open(path):
        m = re.search(r'"usec_per_puzzle":([0-9.]+)', line)
        if m:
            vals.append(float(m.group(1)))
        elif clock == "wall":
            vals.append(float(re.search(r"fastest ([0-9.]+) ns/puzzle, median", line).group(1)) / 1e3)
        else:
            vals.append(float(re.search(r"CPU time \(ns/puzzle\): fastest ([0-9.]+)", line).group(1)) / 1e3)
    return statistics.median(vals)

def ratio_cell(rs, name):
    p = rs[name]["paired"]
    return f"{p['geomean_ratio']:.2f} [{p['ci_low']:.2f}, {p['ci_high']:.2f}]"

peers = ["sudoku-crate"] + (["tdoku"] if os.path.exists(f"{out}/whole-tdoku-{corpora[0]}") else [])
worst = {}
for regime in ("cold", "hot"):
    print(f"\nPaired in one process, {regime} (`run -j 1 --repeat 3{' --practised' if regime == 'hot' else ''}`): "
          "mean µs per puzzle (each puzzle's fastest of 3 passes), paired geomean of time / fast's [95 % CI]\n")
    print("| corpus | puzzles | fast µs | " + " | ".join(f"{p} µs | {p} / fast (geomean)" for p in peers)
          + " | best peer / fast (means) | best peer / fast (geomean) |")
    print("|---|---:|---:|" + "---:|---:|" * len(peers) + "---:|---:|")
    for f in corpora:
        rs = paired(f"{out}/{regime}-{f}")
        fast = rs["fast"]["mean_ns"] / 1e3
        cells = [f"{rs[p]['mean_ns'] / 1e3:.2f} | {ratio_cell(rs, p)}" for p in peers]
        by_mean = min(rs[p]["mean_ns"] for p in peers) / rs["fast"]["mean_ns"]
        by_geo = min(rs[p]["paired"]["geomean_ratio"] for p in peers)
        worst.setdefault(f"paired {regime}, means", []).append(by_mean)
        worst.setdefault(f"paired {regime}, geomean", []).append(by_geo)
        print(f"| {short.get(f, f)} | {rs['fast']['puzzles']} | {fast:.2f} | " + " | ".join(cells)
              + f" | **{by_mean:.2f}** | **{by_geo:.2f}** |")

print("\nWhole passes, cold, wall clock (fastest of 3 passes; median of the repetitions): µs per puzzle\n")
cols = ["fast (capi, whole-pass.c)", "crate (wrapper, whole-pass.c)", "crate (its own harness)"]
keys = ["fast", "crate", "crate-own"]
if "tdoku" in peers:
    cols.append("tdoku (whole-pass.c)")
    keys.append("tdoku")
print("| corpus | " + " | ".join(cols) + " | best peer / fast | crate's own harness / fast |")
print("|---|" + "---:|" * (len(cols) + 2))
for f in corpora:
    v = {k: whole(f"{out}/whole-{k}-{f}") for k in keys}
    best = min(v[k] for k in keys if k != "fast") / v["fast"]
    own = v["crate-own"] / v["fast"]
    worst.setdefault("whole passes, cold, wall clock", []).append(best)
    print(f"| {short.get(f, f)} | " + " | ".join(f"{v[k]:.2f}" for k in keys) + f" | **{best:.2f}** | {own:.2f} |")

print("\nWhole passes, cold, thread CPU time (the same passes of whole-pass.c): µs per puzzle\n")
ckeys = [k for k in keys if k != "crate-own"]
print("| corpus | " + " | ".join(c for c, k in zip(cols, keys) if k != "crate-own") + " | best peer / fast |")
print("|---|" + "---:|" * (len(ckeys) + 1))
for f in corpora:
    v = {k: whole(f"{out}/whole-{k}-{f}", "cpu") for k in ckeys}
    best = min(v[k] for k in ckeys if k != "fast") / v["fast"]
    worst.setdefault("whole passes, cold, thread CPU time", []).append(best)
    print(f"| {short.get(f, f)} | " + " | ".join(f"{v[k]:.2f}" for k in ckeys) + f" | **{best:.2f}** |")

print("\nLowest best peer / fast over the corpora (goal: at least 1.2 cold):")
for k, v in worst.items():
    print(f"- {k}: {min(v):.2f}")
PY
