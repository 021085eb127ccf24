#!/usr/bin/env bash
# `fast` against the field: the `sudoku` crate, tdoku and fastdoku beside
# bench-sudoku's `fast` on the five benchmark corpora, single thread, in two
# modes: the first solution (`--count 1`, what the peers table has always
# shown) and uniqueness (`--count 2`: count solutions up to 2, as tdoku's
# published tables measure). Each figure best of 3 (per puzzle, or per
# pass), measured two independent ways:
#
#  1. paired, in one process: `bench-sudoku run FILE -j 1 --repeat 3
#     --count N -s fast -s 'lib=…' …` (cold: each pass goes over the whole
#     file before the next). Per-puzzle means and the paired geometric mean
#     of time / fast's time with its 95 % interval. The same again with
#     `--practised` (each chunk's passes back to back: the hot regime).
#     Every answer is verified by the harness: each grid written against the
#     rules and the givens, and each peer's count against bench-sudoku's
#     own count of the same puzzle up to the same limit (a different count
#     rejects the answer, and the script stops). With `--count 2` a library
#     behind tdoku's signature may count without writing a grid (tdoku does,
#     and fastdoku when its triad engine counted): those answers are checked
#     by their count alone, and the tables say how many there were.
#  2. whole passes, timed from outside: scripts/whole-pass.c (tdoku's
#     run_benchmark method: one clock read per pass over the file, fastest of
#     3 passes after a warm-up pass; then one untimed pass that checks every
#     answer and prints a digest of the per-puzzle counts) on `fast` through
#     the capi library and on each peer, all through tdoku's C signature with
#     the mode's limit; each peer's count digest must equal fast's (the same
#     count on every puzzle), else the script stops. In the first-solution
#     mode also the crate's own harness (../shared/peers/rust-sudoku-ref/run.sh
#     --rounds 3, best of 3 passes; it finds first solutions only). Each is
#     run REPEAT times per corpus and mode, the order rotating; the table has
#     the median. By the wall clock, as the peers' harnesses time; and, for
#     the whole-pass.c ones, by the thread's CPU time too, which a busy
#     machine does not inflate.
#
# "best peer / fast" divides the fastest peer figure of a method by fast's:
# above 1, fast is ahead.
#
# usage: scripts/peers-table.sh [CORPORA_DIR]
#   CORPORA_DIR  default: $BENCH_SUDOKU_CORPORA, else ../shared/corpora
# env:
#   TDOKU_DIR    a tdoku source tree (github.com/t-dillon/tdoku), fetched
#                OUTSIDE this repository; built there (build/, cmake,
#                -DOPT=O3 -DARCH=native) unless build/libtdoku_shared.so
#                exists. Unset: tdoku is skipped, and the output says so.
#   FASTDOKU_DIR the fastdoku-peer crate (fastdoku behind tdoku's signature,
#                e.g. ../shared/peers/fastdoku-peer), outside this
#                repository; built with its own .cargo/config.toml
#                (target-cpu=native) into FASTDOKU_TARGET (default
#                ${TMPDIR:-/tmp}/fastdoku-peer-target), unless FASTDOKU_LIB
#                names a built libfastdoku_peer.so. Neither set: fastdoku is
#                skipped, and the output says so.
#   MODES        the solution limits to measure (default "1 2": first
#                solution, then uniqueness)
#   REPEAT       whole-pass repetitions per corpus and mode (default 3)
#   CORPUS       one corpus file name to measure instead of all five
# Needs cargo, a C compiler, python3 (and cmake, g++ for tdoku).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-${BENCH_SUDOKU_CORPORA:-../shared/corpora}}
repeat=${REPEAT:-3}
read -r -a modes <<< "${MODES:-1 2}"
for m in "${modes[@]}"; do
  [[ $m =~ ^[12]$ ]] || { echo "peers-table: MODES holds 1 (first solution) and/or 2 (uniqueness), not '$m'" >&2; exit 2; }
done
corpora=(puzzles2_17_clue puzzles3_magictour_top1465 "puzzles5_forum_hardest_1905_11+"
  puzzles6_forum_hardest_1106 puzzles7_serg_benchmark)
[ -n "${CORPUS:-}" ] && corpora=("$CORPUS")
for f in "${corpora[@]}"; do
  [ -f "$dir/$f" ] || { echo "peers-table: no corpus $dir/$f (give the corpora directory)" >&2; exit 2; }
done
peer_ref=../shared/peers/rust-sudoku-ref/run.sh
[ -x "$peer_ref" ] || { echo "peers-table: the crate's harness $peer_ref is missing" >&2; exit 2; }

# Builds: bench-sudoku, the capi library (fast for whole-pass), the crate's
# wrapper, the whole-pass harness, the crate's own harness, tdoku, fastdoku.
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
fastdoku_lib=${FASTDOKU_LIB:-}
if [ -z "$fastdoku_lib" ] && [ -n "${FASTDOKU_DIR:-}" ]; then
  [ -f "$FASTDOKU_DIR/Cargo.toml" ] || { echo "peers-table: FASTDOKU_DIR=$FASTDOKU_DIR is not the fastdoku-peer crate" >&2; exit 2; }
  fastdoku_target=${FASTDOKU_TARGET:-${TMPDIR:-/tmp}/fastdoku-peer-target}
  # From inside the crate, so that its .cargo/config.toml (target-cpu=native,
  # as fastdoku's own build) applies.
  (cd "$FASTDOKU_DIR" && CARGO_TARGET_DIR=$fastdoku_target cargo build --release --quiet) \
    || { echo "peers-table: building fastdoku in $FASTDOKU_DIR failed" >&2; exit 1; }
  fastdoku_lib=$fastdoku_target/release/libfastdoku_peer.so
fi
if [ -n "$fastdoku_lib" ]; then
  [ -f "$fastdoku_lib" ] || { echo "peers-table: no fastdoku library $fastdoku_lib" >&2; exit 2; }
  echo "fastdoku: $fastdoku_lib (fastdoku_solve: its auto engine, jcz with the triad engine for hard puzzles)"
else
  echo "fastdoku: SKIPPED (set FASTDOKU_DIR to the fastdoku-peer crate, outside this repository, to include it)"
fi
echo "sudoku crate: $crate_lib (sudoku $(sed -n 's/^sudoku = "=\(.*\)"/\1/p' "$crate_dir/Cargo.toml")); fast: $("$bin" --version)"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) logical cores; $(date -u '+%Y-%m-%d %H:%M UTC'); load at start: $(cut -d' ' -f1-3 /proc/loadavg)"

specs=(-s fast -s "lib=$crate_lib,solver=sudoku-crate")
[ -n "$tdoku_lib" ] && specs+=(-s "lib=$tdoku_lib,symbol=TdokuSolverDpllTriadSimd,name=tdoku")
[ -n "$fastdoku_lib" ] && specs+=(-s "lib=$fastdoku_lib,symbol=fastdoku_solve,name=fastdoku")
for f in "${corpora[@]}"; do
  for mode in "${modes[@]}"; do
    # 1. Paired, cold then hot.
    "$bin" run "$dir/$f" -j 1 --repeat 3 --count "$mode" --no-puzzle-csv -q "${specs[@]}" --out "$out/cold-$mode-$f" > /dev/null
    "$bin" run "$dir/$f" -j 1 --repeat 3 --count "$mode" --practised --no-puzzle-csv -q "${specs[@]}" --out "$out/hot-$mode-$f" > /dev/null
    # 2. Whole passes, the order rotating from one repetition to the next.
    harnesses=(fast crate)
    [ "$mode" = 1 ] && harnesses+=(crate-own)
    [ -n "$tdoku_lib" ] && harnesses+=(tdoku)
    [ -n "$fastdoku_lib" ] && harnesses+=(fastdoku)
    n=${#harnesses[@]}
    for ((k = 0; k < repeat; k++)); do
      for ((h = 0; h < n; h++)); do
        which=${harnesses[$(((h + k) % n))]}
        case $which in
          fast) "$out/whole-pass" "$capi" "$dir/$f" 3 bench_sudoku_fast 0 "$mode" ;;
          crate) "$out/whole-pass" "$crate_lib" "$dir/$f" 3 sudoku_crate_solve 0 "$mode" ;;
          tdoku) "$out/whole-pass" "$tdoku_lib" "$dir/$f" 3 TdokuSolverDpllTriadSimd 0 "$mode" ;;
          fastdoku) "$out/whole-pass" "$fastdoku_lib" "$dir/$f" 3 fastdoku_solve 0 "$mode" ;;
          crate-own) "$peer_ref" --rounds 3 "$dir/$f" ;;
        esac >> "$out/whole-$mode-$which-$f"
      done
    done
  done
done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$out" "${modes[*]}" "${corpora[@]}" <<'PY'
import json, os, re, statistics, sys
out, modes, corpora = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
short = {"puzzles2_17_clue": "17-clue", "puzzles3_magictour_top1465": "top1465",
         "puzzles5_forum_hardest_1905_11+": "forum hardest 1905 11+",
         "puzzles6_forum_hardest_1106": "forum hardest 1106", "puzzles7_serg_benchmark": "serg"}
mode_name = {"1": "first solution (`--count 1`)", "2": "uniqueness (`--count 2`: solutions counted up to 2)"}
names = {"sudoku-crate": "crate", "tdoku": "tdoku", "fastdoku": "fastdoku"}

def paired(path):
    rs = {r["strategy"]: r for r in json.load(open(f"{path}/summary.json"))["results"]}
    for r in rs.values():
        bad = r["mismatches"] + r["wrong_answers"] + r["wrong_counts"] + r["rejected"] + r["crashed"] + r["error"]
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

def answers(path):
    """whole-pass.c's answer check of every repetition: (digest, grids, without a grid)."""
    seen = set()
    for line in open(path):
        m = re.search(r"(\d+) grids checked, (\d+) without a grid, \d+ with 2\+ solutions, counts digest ([0-9a-f]+)", line)
        if m:
            seen.add((m.group(3), int(m.group(1)), int(m.group(2))))
    if len(seen) != 1:
        sys.exit(f"peers-table: {path}: the repetitions' answers differ: {seen}")
    return seen.pop()

def ratio_cell(rs, name):
    p = rs[name]["paired"]
    return f"{p['geomean_ratio']:.2f} [{p['ci_low']:.2f}, {p['ci_high']:.2f}]"

peers = ["sudoku-crate"] + [p for p in ("tdoku", "fastdoku")
                            if os.path.exists(f"{out}/whole-{modes[0]}-{p}-{corpora[0]}")]
worst = {}
notes = []
for mode in modes:
    print(f"\n#### {mode_name[mode].capitalize()}")
    for regime in ("cold", "hot"):
        print(f"\nPaired in one process, {regime}, {mode_name[mode]} (`run -j 1 --repeat 3 --count {mode}"
              f"{' --practised' if regime == 'hot' else ''}`): mean µs per puzzle (each puzzle's fastest "
              "of 3 passes), paired geomean of time / fast's [95 % CI]\n")
        print("| corpus | puzzles | fast µs | " + " | ".join(f"{names[p]} µs | {names[p]} / fast (geomean)" for p in peers)
              + " | best peer / fast (means) | best peer / fast (geomean) |")
        print("|---|---:|---:|" + "---:|---:|" * len(peers) + "---:|---:|")
        for f in corpora:
            rs = paired(f"{out}/{regime}-{mode}-{f}")
            fast = rs["fast"]["mean_ns"] / 1e3
            cells = [f"{rs[p]['mean_ns'] / 1e3:.2f} | {ratio_cell(rs, p)}" for p in peers]
            by_mean = min(rs[p]["mean_ns"] for p in peers) / rs["fast"]["mean_ns"]
            by_geo = min(rs[p]["paired"]["geomean_ratio"] for p in peers)
            worst.setdefault((mode, f"paired {regime}, means"), []).append(by_mean)
            worst.setdefault((mode, f"paired {regime}, geomean"), []).append(by_geo)
            print(f"| {short.get(f, f)} | {rs['fast']['puzzles']} | {fast:.2f} | " + " | ".join(cells)
                  + f" | **{by_mean:.2f}** | **{by_geo:.2f}** |")
            if regime == "cold":
                for p in peers:
                    if rs[p]["unverified"]:
                        notes.append(f"{short.get(f, f)}, {mode_name[mode].split(' (')[0]}: {names[p]} wrote no grid "
                                     f"for {rs[p]['unverified']} of {rs[p]['puzzles']} puzzles in the paired run "
                                     "(their counts were checked against bench-sudoku's)")

    cols = ["fast (capi, whole-pass.c)", "crate (wrapper, whole-pass.c)"]
    keys = ["fast", "crate"]
    if mode == "1":
        cols.append("crate (its own harness)")
        keys.append("crate-own")
    for p in peers[1:]:
        cols.append(f"{p} (whole-pass.c)")
        keys.append(p)
    print(f"\nWhole passes, cold, wall clock, {mode_name[mode]} (fastest of 3 passes; median of the repetitions): "
          "µs per puzzle\n")
    own = " | crate's own harness / fast" if mode == "1" else ""
    print("| corpus | " + " | ".join(cols) + f" | best peer / fast{own} |")
    print("|---|" + "---:|" * (len(cols) + 1 + (mode == "1")))
    for f in corpora:
        v = {k: whole(f"{out}/whole-{mode}-{k}-{f}") for k in keys}
        ref = answers(f"{out}/whole-{mode}-fast-{f}")
        for k in keys:
            if k == "crate-own":
                continue
            a = answers(f"{out}/whole-{mode}-{k}-{f}")
            if a[0] != ref[0]:
                sys.exit(f"peers-table: {f}, limit {mode}: {k}'s counts differ from fast's (digest {a[0]}, fast {ref[0]})")
            if a[2]:
                notes.append(f"{short.get(f, f)}, {mode_name[mode].split(' (')[0]}: {k} wrote no grid for {a[2]} puzzles "
                             "in the whole passes (their counts equal fast's, puzzle by puzzle)")
        best = min(v[k] for k in keys if k != "fast") / v["fast"]
        worst.setdefault((mode, "whole passes, cold, wall clock"), []).append(best)
        tail = f" | {v['crate-own'] / v['fast']:.2f}" if mode == "1" else ""
        print(f"| {short.get(f, f)} | " + " | ".join(f"{v[k]:.2f}" for k in keys) + f" | **{best:.2f}**{tail} |")

    print(f"\nWhole passes, cold, thread CPU time, {mode_name[mode]} (the same passes of whole-pass.c): µs per puzzle\n")
    ckeys = [k for k in keys if k != "crate-own"]
    print("| corpus | " + " | ".join(c for c, k in zip(cols, keys) if k != "crate-own") + " | best peer / fast |")
    print("|---|" + "---:|" * (len(ckeys) + 1))
    for f in corpora:
        v = {k: whole(f"{out}/whole-{mode}-{k}-{f}", "cpu") for k in ckeys}
        best = min(v[k] for k in ckeys if k != "fast") / v["fast"]
        worst.setdefault((mode, "whole passes, cold, thread CPU time"), []).append(best)
        print(f"| {short.get(f, f)} | " + " | ".join(f"{v[k]:.2f}" for k in ckeys) + f" | **{best:.2f}** |")

print("\nEvery answer was verified: each grid written against the rules and the givens, each count "
      "against fast's (in the paired runs by the harness, in the whole passes by comparing every "
      "library's per-puzzle counts with fast's).")
for n in notes:
    print(f"- {n}")
print("\nLowest best peer / fast over the corpora (goal: at least 1.2 by means and 1.1 by the paired "
      "geomean, cold, in both modes):")
for (mode, k), v in worst.items():
    print(f"- {mode_name[mode].split(' (')[0]}, {k}: {min(v):.2f}")
PY
