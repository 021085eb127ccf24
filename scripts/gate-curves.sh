#!/usr/bin/env bash
# The budgeted gate's error rates and power, by simulation (docs/MEASUREMENT.md §5): the
# confidence sequence of src/compare/sequential.rs applied after every round of simulated
# chunk log ratios, stopping at the first decision, as `run --gate … --budget D` does.
# Deterministic (seeded), no timing: the figures depend only on the arguments.
#
# usage: scripts/gate-curves.sh [RUNS [ROUND_SE]]
#   RUNS      simulated gate runs per cell (default 2000)
#   ROUND_SE  one round's standard error of the mean log ratio (default 0.003, i.e. 0.3 %:
#             what top1465 gave with the C fixture under load; a run's one-look interval is
#             about ±1.96 of it)
# Prints (1) A/A at threshold 0, every noise model: the share of runs that ever called a
# regression, and the share whose interval ever missed the truth, by budget in rounds;
# (2) at threshold 0.5 %, for true ratios 1.000, 1.005, 1.01 and 1.02: the shares regressed /
# unchanged / undecided by budget, and the rounds used.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
CURVE_RUNS=${1:-2000} CURVE_SE=${2:-0.003} \
  cargo test --release --quiet --lib sequential_curves -- --ignored --nocapture 2>&1 |
  grep -v -e "^running" -e "^test " -e "test result" -e "has been running"
