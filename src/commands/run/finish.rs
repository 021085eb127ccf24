//! A run's end: its reports written (meta.json last), the gate's verdict,
//! the tables and what the user must know printed, and the exit status.

use super::execute::Measured;
use super::outputs::Outputs;
use super::plan::Plan;
use super::{RunArgs, EXIT_PANIC};
use crate::bench::metrics::UnitStats;
use crate::bench::Stop;
use crate::commands::interrupt::EXIT_INTERRUPTED;
use crate::commands::{print_err, print_text};
use crate::compare::gate::Verdict;
use crate::report::{self, terminal, Report};
use crate::results::classes::ByClass;
use crate::results::meta::Meta;
use crate::results::record::LaterRounds;
use crate::results::ResultRecord;
use anyhow::Context;
use std::path::Path;

/// Writes every report of the run into `out` (meta.json last; a failure
/// leaves the directory marked incomplete) and the tracker files; returns
/// the results and the gate's verdict.
pub(super) fn reports(
    plan: &Plan,
    meta: &Meta,
    measured: &Measured,
    out: &Path,
    outputs: &Outputs,
) -> anyhow::Result<(Vec<ResultRecord>, Option<Verdict>, Option<ByClass>)> {
    let units: &[UnitStats] = &measured.results.units;
    let report = Report::new(meta, units).with_unit_scatter(meta.options.puzzle_csv);
    // The tables of slowest puzzles are read back from the puzzles.csv
    // just written, as `report DIR` reads them.
    let mut report = if meta.options.puzzle_csv {
        report.with_rows(out)?
    } else {
        report
    };
    let budgeted = measured.budgeted.as_ref();
    // Every round of a budgeted gate reaches the results: the later
    // rounds' outcomes beside the first round's times.
    for r in report.results.iter_mut() {
        if let Some((rounds, u)) = budgeted.and_then(|b| b.later_of(&r.dataset, &r.strategy)) {
            let mut later = LaterRounds::of(u, rounds);
            later.cache_across_rounds =
                budgeted.is_some_and(|b| b.cache_across_rounds(&r.dataset, &r.strategy));
            r.later_rounds = Some(later);
        }
    }
    let verdict = plan.gate.as_ref().map(|g| {
        let complete = measured.results.stopped.is_none();
        let v = Verdict::of(g, &report.results, complete, budgeted);
        match &report.by_class {
            Some(b) => v.with_classes(b),
            None => v,
        }
    });
    report.gate = verdict.as_ref().map(|v| v.record(budgeted));
    report::finish::write(&report, out)?;
    for (exporter, dest) in plan.trackers.iter().zip(&outputs.exports) {
        crate::commands::export::write_tracker(exporter.as_ref(), &report, dest)?;
    }
    Ok((report.results, verdict, report.by_class))
}

/// The result table: compact (within 120 columns, one line of legend), or
/// with `--details` every column, the paired table and the lines that
/// explain them.
pub(super) fn tables(
    args: &RunArgs,
    plan: &Plan,
    meta: &Meta,
    (results, by_class): (&[ResultRecord], Option<&ByClass>),
) -> anyhow::Result<()> {
    if !args.details {
        print_text(&terminal::compact_table(results))?;
        if plan.external {
            print_text(&format!("revisions: {}\n", meta.revisions().join("; ")))?;
        }
        print_classes(by_class, false)?;
        return Ok(());
    }
    let opts = &plan.opts;
    print_text(&terminal::table(results))?;
    let passes = opts.repeat + opts.warmup;
    if passes > 1 {
        print_text(&format!(
            "puzzles/s: puzzles × {passes} passes ({} measured, {} warm-up) / wall time\n",
            opts.repeat, opts.warmup
        ))?;
    }
    if opts.practised {
        print_text(&format!("times: {}\n", meta.options.time_kept))?;
    }
    if let Some(line) = terminal::spread_line(results) {
        print_text(&format!("{line}\n"))?;
    }
    print_text(&terminal::paired_table(results))?;
    if plan.external {
        print_text(&format!("revisions: {}\n", meta.revisions().join("; ")))?;
    }
    print_classes(by_class, true)?;
    Ok(())
}

/// The table by difficulty: the effort classes (with `details`, the
/// rating classes too), when the run has a reference and two classes or
/// more.
fn print_classes(by_class: Option<&ByClass>, details: bool) -> anyhow::Result<()> {
    use crate::report::classes::{rows, COLUMNS, TEXT};
    let Some(b) = by_class else {
        return Ok(());
    };
    let shown: Vec<Vec<String>> = rows(b)
        .into_iter()
        .zip(&b.rows)
        .filter(|(_, r)| details || r.scheme == "effort")
        .map(|(row, _)| row.to_vec())
        .collect();
    let classes: std::collections::HashSet<&str> =
        b.rows.iter().map(|r| r.class.as_str()).collect();
    if shown.is_empty() || classes.len() < 2 || b.rows.iter().all(|r| r.ratio.is_none()) {
        return Ok(());
    }
    print_text("\nby difficulty (fast's guesses per puzzle):\n")?;
    print_text(&terminal::text_table(&COLUMNS, &shown, &TEXT))?;
    Ok(())
}

/// The gate's verdict: gate.md, `--gate-summary`, the terminal.
pub(super) fn verdict(v: &Verdict, out: &Path, outputs: &Outputs) -> anyhow::Result<()> {
    let md = v.markdown();
    crate::support::files::write_atomic(&out.join("gate.md"), md.as_bytes())
        .with_context(|| format!("{}: cannot write gate.md", out.display()))?;
    if let Some(dest) = &outputs.gate_summary {
        dest.append(md.as_bytes())
            .with_context(|| format!("--gate-summary {}: cannot append", dest.path().display()))?;
    }
    print_text(&v.terminal())?;
    Ok(())
}

/// Where the results are and what went wrong, if anything: skipped rows,
/// an incomplete run, rejected answers, faults.
pub(super) fn closing(
    args: &RunArgs,
    stopped: Option<&Stop>,
    results: &[ResultRecord],
    shown: &Path,
) -> anyhow::Result<()> {
    let skipped: u64 = results.iter().map(|r| r.skipped).sum();
    if skipped > 0 {
        print_err(&format!(
            "{skipped} invalid rows skipped (listed in summary.json)"
        ));
    }
    match stopped {
        None if args.scan_round => {}
        None => print_text(&format!("results in {}\n", shown.display()))?,
        Some(Stop::Dataset(e)) => print_err(&format!("bench-sudoku: error: {e}")),
        Some(Stop::Output(e)) => {
            print_err(&format!("bench-sudoku: error: writing puzzles.csv: {e}"))
        }
        Some(Stop::Panic(what)) => print_err(&format!("bench-sudoku: error: {what}")),
        Some(Stop::Environment(why)) => print_err(&format!("bench-sudoku: error: {why}")),
        Some(Stop::Interrupted) => {}
    }
    if stopped.is_some() {
        print_err(&format!(
            "run incomplete: what was measured before it stopped is in {} (meta.json has \"complete\": false)",
            shown.display()
        ));
    }
    let (bad, faults) = bad_and_faults(results);
    if bad > 0 {
        print_err(&format!(
            "{bad} answers rejected: they break the rules, disagree with the dataset's solution or bench-sudoku's count of solutions, or changed between passes; they count as neither solved nor timed (see mismatch_list in {}/summary.json)",
            shown.display()
        ));
    }
    if faults > 0 {
        print_err(&format!(
            "{faults} puzzles failed in external solvers (crashed, timeout, protocol_error, error; see fault_list in {}/summary.json)",
            shown.display()
        ));
    }
    Ok(())
}

/// Rejected answers and faults over every result.
fn bad_and_faults(results: &[ResultRecord]) -> (u64, u64) {
    (
        results.iter().map(|r| r.wrong()).sum(),
        results.iter().map(|r| r.faults()).sum(),
    )
}

/// The run's exit status: an interrupt, a panic, bad input or output, then
/// rejected answers and faults, then the gate's verdict.
pub(super) fn exit_code(
    stopped: Option<&Stop>,
    results: &[ResultRecord],
    verdict: Option<&Verdict>,
) -> i32 {
    let (bad, faults) = bad_and_faults(results);
    match stopped {
        Some(Stop::Interrupted) => EXIT_INTERRUPTED,
        Some(Stop::Panic(_)) => EXIT_PANIC,
        Some(Stop::Dataset(_) | Stop::Output(_) | Stop::Environment(_)) => 2,
        None if bad + faults > 0 => 1,
        None => verdict.map_or(0, |v| v.exit_code()),
    }
}
