#!/usr/bin/env bash
# Runs a dataset as a Slurm job array of N shards and merges them when every shard has
# succeeded (Slurm's afterok dependency). Prints the two job ids; the merged results
# directory is OUT (see its meta.json: "complete" is true only when all N shards merged).
#
# usage: scripts/cluster/slurm-merge.sh N DATASET OUT [run options...]
#   e.g. scripts/cluster/slurm-merge.sh 8 big.csv results/big -s fast -s locked
# env:   BENCH (default: target/release/bench-sudoku of this checkout), CPUS (per task, 2),
#        SBATCH_ARGS (more sbatch options: partition, time limit, account…)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
n=${1:?usage: slurm-merge.sh N DATASET OUT [run options...]}
data=$(realpath "${2:?dataset}")
out=$(realpath -m "${3:?output directory}")
shift 3
bench=$(realpath "${BENCH:-$here/../../target/release/bench-sudoku}")
shards="$out.shards"
mkdir -p "$shards" "$out.logs"
# shellcheck disable=SC2086 # SBATCH_ARGS is a list of options
array=$(sbatch --parsable --array="1-$n" --cpus-per-task="${CPUS:-2}" \
  --output="$out.logs/shard-%a.log" ${SBATCH_ARGS:-} \
  --export=ALL,BENCH="$bench",DATASET="$data",SHARDS="$shards",RUN_ARGS="$*" \
  "$here/slurm-shards.sbatch")
dirs=$(seq -f "$shards/%g" 1 "$n" | tr '\n' ' ')
# shellcheck disable=SC2086
merge=$(sbatch --parsable --dependency="afterok:$array" --output="$out.logs/merge.log" ${SBATCH_ARGS:-} \
  --wrap="'$bench' merge $dirs --out '$out' --force")
echo "shards: job $array ($n tasks), merge: job $merge -> $out"
