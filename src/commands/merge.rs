//! `bench-sudoku merge DIR… --out DIR`: combines the results directories of
//! the shards of one run (`run --shard K/N`) into the directory the unsharded
//! run would have written. Counters and histograms are merged losslessly;
//! the summary is recomputed from the merged data with the run's exporters.

use super::CmdResult;
use crate::report::{self, terminal, Report};
use crate::results::claim::Claim;
use crate::results::dest::Guard;
use crate::results::merge;
use crate::results::ResultsDir;
use anyhow::bail;
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Results directories of the shards (`run --shard K/N`).
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Directory of the merged results.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Replace the results already in --out DIR.
    #[arg(long)]
    pub force: bool,
    /// Merge although shards are missing or incomplete (refused otherwise:
    /// exit 2); the merged results are then marked incomplete.
    #[arg(long)]
    pub allow_partial: bool,
}

pub const MERGE_HELP: &str =
    "The inputs must be shards of one run: the same datasets, strategies and
options, each with a different --shard K/N of the same N. Histograms (V2 .hdr) are added,
counts and totals summed, maxima maxed; percentiles come from the merged histograms and the
mean from the summed totals; puzzles.csv rows are merged in index order per (dataset,
strategy). Every shard 1..N must be given, each complete: a missing or incomplete shard is
refused unless --allow-partial, and the merged meta.json is then marked incomplete. It lists
the inputs in \"merged_from\". Wall time and throughput are the sums over the shards (as if
they had run one after another).

Examples:
  bench-sudoku run datasets/hard.csv --shard 1/3 --out r1   (and 2/3, 3/3, e.g. in a CI matrix)
  bench-sudoku merge r1 r2 r3 --out results/hard

Exit status: 0 merged; 2 bad input (unreadable or inconsistent inputs, a shard whose
puzzles.csv disagrees with its summary.json or its time histogram, overlapping shards, missing
or incomplete shards without --allow-partial, an --out that is an input or in use by another
command; an --out the refused merge created is removed).";

/// Claims `--out` (created when missing) after checking it against the
/// inputs, and empties it of earlier results with `--force`.
fn prepare_out(args: &MergeArgs) -> anyhow::Result<Claim> {
    let out = &args.out;
    let mut guard = Guard::new();
    for d in &args.dirs {
        guard.reads_results(d);
    }
    let mut writes: Vec<&str> = crate::results::FILES.to_vec();
    writes.push(crate::results::claim::LOCK);
    guard.dir("--out", out, &writes)?;
    let claim = Claim::create("--out", out)?;
    if crate::results::holds_results(out) {
        if !args.force {
            bail!(
                "--out {}: already holds results; choose another directory or pass --force to replace them",
                out.display()
            );
        }
        crate::results::remove(out)?;
    }
    Ok(claim)
}

pub fn run(args: &MergeArgs) -> CmdResult {
    let inputs: Vec<ResultsDir> = args
        .dirs
        .iter()
        .map(|d| ResultsDir::load(d))
        .collect::<anyhow::Result<_>>()?;
    let shards = merge::check_consistent(&inputs)?;
    for w in &shards.warnings {
        super::print_err(&format!("bench-sudoku: warning: {w}"));
    }
    if !args.allow_partial {
        merge::check_whole(&inputs, &shards)?;
    }
    let units = merge::merged_units(&inputs)?;
    let _claim = prepare_out(args)?;
    let meta = merge::merged_meta(&inputs, &shards);
    let with_csv = inputs.iter().filter(|d| d.has_puzzles_csv()).count();
    if with_csv == inputs.len() {
        merge::merge_puzzle_csv(&inputs, &args.out)?;
    } else if with_csv > 0 {
        super::print_err(
            "bench-sudoku: warning: some inputs have no puzzles.csv; the merged directory has none",
        );
    }
    let mut report = Report::new(&meta, &units).with_scatter(&args.out)?;
    // What the shards' later gate rounds found stays with the merged
    // units: a failure in any shard's later round is the merged unit's.
    for r in report.results.iter_mut() {
        r.later_rounds = merge::merged_later_rounds(&inputs, &r.dataset, &r.strategy);
    }
    report::finish::write(&report, &args.out)?;
    print_merged(&report, &inputs)?;
    super::print_text(&format!(
        "merged {} shards of {} into {}\n",
        inputs.len(),
        shards.n,
        args.out.display()
    ))?;
    Ok(0)
}

/// The merged table, its warnings, and what the merge could not keep: the
/// shards' paired statistics, a complete run.
fn print_merged(report: &Report, inputs: &[ResultsDir]) -> anyhow::Result<()> {
    super::print_text(&terminal::table(&report.results))?;
    for w in terminal::saturation_warnings(&report.results) {
        super::print_err(&format!("bench-sudoku: warning: {w}"));
    }
    let paired = inputs
        .iter()
        .any(|d| d.results.iter().any(|r| r.paired.is_some()));
    if paired && inputs.len() > 1 {
        super::print_err(
            "note: the shards' paired statistics (per-puzzle ratios to the baseline) are not merged; each shard's are in its own summary.json",
        );
    }
    let meta = report.meta;
    if !meta.complete {
        super::print_err(&format!(
            "merged results are incomplete ({})",
            meta.stopped.as_deref().unwrap_or("an input is incomplete")
        ));
    }
    Ok(())
}
