#!/usr/bin/env bash
# Re-measures every table of docs/PERFORMANCE.md on this machine and writes
# each one into the document between its markers
#
#   <!-- perf:NAME:begin -->   and   <!-- perf:NAME:end -->
#
# each preceded by one generated line: the date and time (UTC), the CPU model
# and logical cores, the load average, and the exact command that measured it.
# The document is written once, at the end, through a temporary file renamed
# over it: a run that fails leaves it as it was.
#
# usage: scripts/performance.sh [--print] [--only NAME[,NAME…]] [--lock FILE] [--list]
#   --print, --dry-run  print the generated blocks instead of writing the document
#   --only NAME         measure only these tables (the others stay as they are)
#   --lock FILE         hold FILE (flock) while measuring, not while building: on a
#                       machine shared with others who measure under the same lock
#   --list              list the tables' names and exit
# env:
#   BENCH_SUDOKU_CORPORA  the benchmark corpora (default ../shared/corpora)
#   TDOKU_DIR             a tdoku source tree fetched OUTSIDE this repository
#                         (built there unless build/libtdoku_shared.so exists);
#                         unset, the tables say that tdoku was skipped
#   FASTDOKU_DIR          the fastdoku-peer crate (../shared/peers/fastdoku-peer), built
#                         outside the repository unless FASTDOKU_LIB names its built
#                         libfastdoku_peer.so; unset, the tables say that fastdoku was skipped
#   PEERS_REPEAT          whole-pass repetitions of scripts/peers-table.sh (default 3)
#
# Builds what the chosen tables need (release bench-sudoku, the capi library,
# the Rust example solver; the C example and scripts/whole-pass.c in a
# temporary directory; scripts/peers-table.sh builds the peers) and then runs
# scripts/performance.py, which measures. Needs cargo, cc, python3, taskset,
# GNU time, valgrind (callgrind_annotate); cmake and g++ for tdoku. On an idle
# 2-core machine the measurements take about 6 minutes and a first build about
# 3 more. Measure on a quiet machine: every table says what the load was.
set -euo pipefail
cd "$(dirname "$0")/.."

print=0
only=
lock=
while [ $# -gt 0 ]; do
  case $1 in
    --print|--dry-run) print=1; shift ;;
    --only) only=${2:?--only needs a table name}; shift 2 ;;
    --only=*) only=${1#--only=}; shift ;;
    --lock) lock=${2:?--lock needs a file}; shift 2 ;;
    --list) exec python3 scripts/performance.py --list ;;
    -h|--help) sed -n '2,34p' "$0"; exit 0 ;;
    *) echo "performance.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

fail() { echo "performance.sh: $*" >&2; exit 1; }
for tool in cargo cc python3 taskset valgrind callgrind_annotate; do
  command -v "$tool" > /dev/null || fail "needs '$tool' on PATH"
done
[ -x /usr/bin/time ] || fail "needs GNU time at /usr/bin/time (Debian: apt-get install time)"

corpora=${BENCH_SUDOKU_CORPORA:-../shared/corpora}
[ -d "$corpora" ] || fail "no corpora directory '$corpora' (set BENCH_SUDOKU_CORPORA)"
corpora=$(cd "$corpora" && pwd)

# The names of the tables to measure, and what they need built.
tables=$(python3 scripts/performance.py --list --only "$only") || fail "bad --only '$only'"
wanted=$(python3 scripts/performance.py --needs --only "$only")
needs() { grep -qx "$1" <<< "$wanted"; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "performance.sh: building" >&2
# One cargo invocation, so that the binaries' link-time optimisation runs in
# parallel.
targets=(-p bench-sudoku --bins --lib)
needs capi && targets+=(-p bench-sudoku-capi)
needs example && targets+=(--example rust_solver)
cargo build --release --quiet "${targets[@]}" || fail "cargo build --release ${targets[*]} failed"
if needs whole-pass; then
  cc -O2 -o "$work/whole-pass" scripts/whole-pass.c -ldl || fail "compiling scripts/whole-pass.c failed"
fi
if needs c-example; then
  cc -std=c11 -O2 -fPIC -shared -o "$work/libexample_solver.so" examples/solvers/c/solver.c ||
    fail "compiling examples/solvers/c/solver.c failed"
fi
tdoku_lib=
if [ -n "${TDOKU_DIR:-}" ] && needs tdoku; then
  [ -f "$TDOKU_DIR/CMakeLists.txt" ] || fail "TDOKU_DIR=$TDOKU_DIR is not a tdoku source tree"
  tdoku_lib=$(cd "$TDOKU_DIR" && pwd)/build/libtdoku_shared.so
  if [ ! -f "$tdoku_lib" ]; then
    { cmake -S "$TDOKU_DIR" -B "$TDOKU_DIR/build" -DCMAKE_BUILD_TYPE=Release -DOPT=O3 -DARCH=native &&
      cmake --build "$TDOKU_DIR/build" --target tdoku_shared; } > "$work/tdoku-build.log" 2>&1 ||
      { cat "$work/tdoku-build.log" >&2; fail "building tdoku in $TDOKU_DIR failed"; }
  fi
fi

if [ -n "$lock" ]; then
  command -v flock > /dev/null || fail "--lock needs 'flock' on PATH"
  exec 9>> "$lock" || fail "cannot open the lock file $lock"
  echo "performance.sh: waiting for $lock" >&2
  flock 9 || fail "cannot take the lock $lock"
fi
echo "performance.sh: measuring $(echo "$tables" | tr '\n' ' ')" >&2
args=(--corpora "$corpora" --work "$work" --only "$only")
[ -n "$tdoku_lib" ] && args+=(--tdoku "$tdoku_lib")
[ "$print" = 1 ] && args+=(--print)
python3 scripts/performance.py "${args[@]}" || fail "measuring failed (above: which table and which command)"
