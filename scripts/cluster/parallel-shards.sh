#!/usr/bin/env bash
# Runs a dataset as N shards over ssh hosts with GNU parallel and merges them here.
#
# The binary and the dataset are copied to each host (GNU parallel's --basefile, over
# rsync), every shard runs there with all the host's cores, its results directory comes
# back (--return) and the remote copies are removed (--cleanup). The hosts need ssh
# access without a password prompt, rsync, and the same OS and CPU family as this machine
# (the binary is copied as it is). ":" in HOSTS is this machine, without ssh.
#
# usage: scripts/cluster/parallel-shards.sh HOSTS N DATASET OUT [run options...]
#   HOSTS: GNU parallel --sshlogin list, one shard at a time per host:
#          "server1,server2", "user@server1,:" …
#   e.g.   scripts/cluster/parallel-shards.sh server1,server2 4 big.csv results/big -s fast
# env:     BENCH (default: target/release/bench-sudoku of this checkout)
set -euo pipefail
hosts=${1:?usage: parallel-shards.sh HOSTS N DATASET OUT [run options...]}
n=${2:?number of shards}
data=$(realpath "${3:?dataset}")
out=$(realpath -m "${4:?output directory}")
shift 4
here=$(cd "$(dirname "$0")" && pwd)
bench=$(realpath "${BENCH:-$here/../../target/release/bench-sudoku}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Files go to each host's working directory (~/bench-sudoku-shards.PID) under the names
# they have in $work.
cp "$bench" "$work/bench-sudoku"
cp "$data" "$work/$(basename "$data")"
cd "$work"
dataset=$(basename "$data")
# shellcheck disable=SC2016 # {} is GNU parallel's, $* is expanded here on purpose
seq 1 "$n" | parallel --jobs 1 --sshlogin "$hosts" --workdir "bench-sudoku-shards.$$" \
  --basefile bench-sudoku --basefile "$dataset" --return 'shard-{}' --cleanup \
  "./bench-sudoku run '$dataset' --shard {}/$n --out shard-{} --force --quiet $*"
# The working directory itself stays behind on each host: remove it.
parallel --nonall --sshlogin "$hosts" rm -rf "bench-sudoku-shards.$$"
dirs=()
for k in $(seq 1 "$n"); do dirs+=("shard-$k"); done
"$bench" merge "${dirs[@]}" --out "$out" --force
