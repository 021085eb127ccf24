//! `bench-sudoku compare BASELINE CURRENT`: the regression gate.

use super::args::Undecided;
use super::CmdResult;
use crate::compare::{self, stats::Metric, Settings};
use crate::results::ResultsDir;
use clap::Args;
use std::path::PathBuf;

/// What besides a time regression fails the comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    /// Any change of total guesses, backtracks, max depth or puzzle count.
    Counters,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Results directory of the reference run.
    #[arg(value_name = "BASELINE_DIR")]
    pub baseline: PathBuf,
    /// Results directory of the run under test.
    #[arg(value_name = "CURRENT_DIR")]
    pub current: PathBuf,
    /// Change in percent the whole confidence interval must exceed to count
    /// as a regression (or improvement); 0 < PCT ≤ 1000.
    #[arg(long, value_name = "PCT", default_value_t = 5.0,
          value_parser = super::args::parse_percent)]
    pub threshold: f64,
    /// Statistic of the per-puzzle solve times compared.
    #[arg(long, value_enum, default_value_t = Metric::P50)]
    pub metric: Metric,
    /// Print a GitHub-flavoured Markdown table and verdict (for a CI job
    /// summary) instead of the terminal table.
    #[arg(long)]
    pub markdown: bool,
    /// Also fail (exit 1) when a search counter changed.
    #[arg(long, value_enum, value_name = "WHAT")]
    pub fail_on: Option<FailOn>,
    /// Seed of the bootstrap (the verdict is reproducible for a given seed).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,
    /// Resample puzzles in pairs (same puzzle in both runs) when both runs
    /// hold the same puzzles: a tighter interval that ignores run-to-run
    /// machine noise. Default: each run resampled on its own.
    #[arg(long)]
    pub paired: bool,
    /// Compare runs that stopped early (refused otherwise: exit 2).
    #[arg(long)]
    pub allow_incomplete: bool,
    /// Compare although units of the baseline are missing from the current
    /// run (refused otherwise: exit 2).
    #[arg(long)]
    pub allow_missing: bool,
    /// What an undecided comparison exits with: fail (3, the default) or
    /// pass (0, the verdict still says undecided).
    #[arg(long, value_enum, value_name = "WHAT", default_value_t = Undecided::Fail)]
    pub undecided: Undecided,
}

pub const COMPARE_HELP: &str = "Matches the (dataset, strategy) pairs of two results directories.

Every pair goes through the one judge (docs/RELIABILITY.md), each reason named by its rule:
a pair of two runs that are not one experiment (other puzzles, --transform, --count, search
budget, timing) is not judged; a pair fails whatever its times when a run has rejected
answers, faults, answers with no solution written or a clock that claims more than the
harness measured, or when the current run gave up on more puzzles (or solved fewer) than the
baseline.

Search counters (puzzles, total guesses, total backtracks, max depth) are deterministic and
compared exactly: any change is reported as a behaviour change. Times are noisy: the chosen
statistic (--metric) of the per-puzzle solve times in puzzles.csv is compared with a seeded
95% percentile bootstrap of the ratio current/baseline (each run resampled on its own; with
--paired, puzzles resampled in pairs when both runs hold the same puzzles). A pair is 'regressed' only when the whole interval lies above
+threshold, 'improved' only when it lies below -threshold, 'unchanged' only when it lies
wholly within ±threshold (equivalence shown), otherwise 'undecided' (the data cannot tell:
more puzzles, passes or a wider threshold narrow it). With two or more measured passes in
both runs, the passes' totals must agree as well: regressed or improved only when every
current pass is beyond every baseline pass by the threshold, and a pair whose interval and
passes point different ways is undecided (a change of the whole run, the machine busier
during one of them, cannot be told from a change of the solver). Without
puzzles.csv (run --no-puzzle-csv) the summary values are shown and not judged.
A pair is 'not judged' (and the output says why) when either run timed fewer than 10
puzzles of it (100 with --metric p99, whose value below that is the largest time),
solved none of them with an accepted answer, or timed them with another clock: an
interval over fewer puzzles holds the true ratio clearly less often than 90%.

Examples:
  bench-sudoku compare results/main results/pr
  bench-sudoku compare base/ cur/ --metric mean --threshold 3 --markdown >> \"$GITHUB_STEP_SUMMARY\"
  bench-sudoku compare base/ cur/ --fail-on counters

Both directories are read whole before anything is judged: a puzzles.csv that disagrees
with its own summary.json (its rows, outcomes, rejected answers, the sum, largest or
percentiles of its times, which puzzle had which time, the pairing with the baseline: one of
the files was edited, cut or mixed with another run's) is refused, and so is
one run given twice (the same directory, or a copy of it: the same run_id), which would show
no change by construction.

Exit status: 0 every pair judged unchanged or improved (or undecided with --undecided pass);
1 a pair failed or regressed (or a counter changed with --fail-on counters); 2 nothing failed
but a pair was not judged, or bad input (missing or unreadable directory, not a results
directory, no meta.json (the run did not finish writing its results), malformed summary.json
or puzzles.csv, files of one run that disagree, one run given twice, an incomplete run without
--allow-incomplete, runs that cannot be compared); 3 nothing failed or went unjudged but a
pair was undecided.";

pub fn run(args: &CompareArgs) -> CmdResult {
    let base = ResultsDir::load(&args.baseline)?;
    let current = ResultsDir::load(&args.current)?;
    let cmp = compare::compare(
        &base,
        &current,
        Settings {
            threshold: args.threshold,
            metric: args.metric,
            seed: args.seed,
            paired: args.paired,
            allow_incomplete: args.allow_incomplete,
            allow_missing: args.allow_missing,
            undecided_passes: args.undecided == Undecided::Pass,
        },
    )?;
    let fail_on_counters = args.fail_on == Some(FailOn::Counters);
    super::print_text(&if args.markdown {
        cmp.markdown(fail_on_counters)
    } else {
        cmp.terminal(fail_on_counters)
    })?;
    Ok(cmp.exit_code(fail_on_counters))
}
