//! A run's measurement: every dataset through the pipeline with the rows
//! streamed to `puzzles.csv`, more rounds while a budgeted gate is
//! undecided, and `puzzles.csv` put in place only when every row reached it.

use super::plan::Plan;
use super::progress::{Bar, PlainProgress, ProgressMode, RunEta};
use super::RunArgs;
use crate::bench::{self, NoRows, Progress, PuzzleCsv, RowSink, Stop};
use crate::compare::gate::budget::{self, Budgeted};
use anyhow::Context;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

/// What the measurement gave.
pub(super) struct Measured {
    pub(super) results: bench::RunResults,
    /// A budgeted gate's rounds.
    pub(super) budgeted: Option<Budgeted>,
    /// `puzzles.csv` is in place.
    pub(super) puzzle_csv: bool,
}

/// Measures every dataset of `plan` into `out`; a `--budget` counts from
/// `started`.
pub(super) fn execute(
    args: &RunArgs,
    plan: &Plan,
    infos: &[bench::DatasetInfo],
    pool: &rayon::ThreadPool,
    out: &Path,
    stop: &Arc<AtomicBool>,
    started: Instant,
) -> anyhow::Result<Measured> {
    let partial = out.join("puzzles.csv.partial");
    // A supervised run writes the rows also without --no-puzzle-csv
    // (removed at the end): they are what is kept if the process dies.
    #[cfg(unix)]
    let rows_anyway = crate::board::this().is_some();
    #[cfg(not(unix))]
    let rows_anyway = false;
    let mut csv_sink = if args.no_puzzle_csv && !rows_anyway {
        None
    } else {
        Some(
            PuzzleCsv::create(&partial)
                .with_context(|| format!("{}: cannot create", partial.display()))?,
        )
    };
    let eta = RunEta::new(solves(plan, infos), plan.progress != ProgressMode::None);
    let bar = Bar::new(plan.progress == ProgressMode::Bar, eta.clone());
    let plain = PlainProgress::new(args.progress_interval, eta);
    let progress: &dyn Progress = if plan.progress == ProgressMode::Plain {
        &plain
    } else {
        &bar
    };
    let mut results = {
        let mut none = NoRows;
        let rows: &mut dyn RowSink = match csv_sink.as_mut() {
            Some(c) => c,
            None => &mut none,
        };
        bench::run_all(&plan.opts, infos, pool, rows, progress, stop)
    };
    // With a budget, more rounds until the gate is decided (their rows are
    // not written: the results describe the first round).
    let budgeted = match (&plan.gate, args.budget) {
        (Some(g), Some(limit)) if results.stopped.is_none() => {
            let bench = budget::Bench {
                opts: &plan.opts,
                infos,
                pool,
                progress,
                stop,
            };
            Some(budget::measure(g, &bench, started, limit, &mut results))
        }
        _ => None,
    };
    #[cfg(unix)]
    if let Some(b) = crate::board::this() {
        b.phase(crate::board::Phase::Writing);
    }
    let puzzle_csv = match csv_sink {
        Some(c) => place_rows(args, c, &partial, out, &mut results),
        None => false,
    };
    Ok(Measured {
        results,
        budgeted,
        puzzle_csv,
    })
}

/// Puts `puzzles.csv` in place when every row reached it; rows cut short
/// by a failed write are removed, and the run is then incomplete and says
/// why. Whether `puzzles.csv` is in place.
fn place_rows(
    args: &RunArgs,
    rows: PuzzleCsv,
    partial: &Path,
    out: &Path,
    results: &mut bench::RunResults,
) -> bool {
    let written = match results.stopped {
        Some(Stop::Output(_)) => Err(None),
        _ if args.no_puzzle_csv => Err(None),
        _ => rows
            .finish()
            .and_then(|()| std::fs::rename(partial, out.join("puzzles.csv")))
            .map_err(Some),
    };
    match written {
        Ok(()) => true,
        Err(e) => {
            let _ = std::fs::remove_file(partial);
            if let Some(e) = e {
                results.stopped.get_or_insert(Stop::Output(e));
            }
            false
        }
    }
}

/// The solves of the whole run (puzzles × strategies over every dataset),
/// when every dataset's size is known.
fn solves(plan: &Plan, infos: &[bench::DatasetInfo]) -> Option<u64> {
    let o = &plan.opts;
    infos.iter().try_fold(0u64, |sum, i| {
        Some(sum + i.expected(o)? * o.strategies.len() as u64)
    })
}
