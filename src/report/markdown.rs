//! `summary.md`: the comparison table and the run's facts, in Markdown.

use super::terminal::{clock_notes, paired_note, paired_rows, rows, COLUMNS, PAIRED_COLUMNS};
use super::{Exporter, Output, Report};
use std::fmt::Write as _;

pub struct SummaryMarkdown;

/// The Markdown text of a report.
pub fn render(report: &Report) -> String {
    let m = report.meta;
    let mut s = String::new();
    let _ = writeln!(s, "# bench-sudoku results\n");
    let _ = writeln!(
        s,
        "{} · {} logical cores · {} threads · {} · commit {}\n",
        m.cpu_model,
        m.logical_cores,
        m.threads,
        m.os,
        m.git_commit.as_deref().unwrap_or("unknown")
    );
    let _ = writeln!(
        s,
        "Started {} · solution limit {} · guess budget {} · repeat {} (warm-up {}, per-puzzle time = {}){}{}\n",
        m.started,
        m.options.solution_limit,
        m.options.max_guesses,
        m.options.repeat,
        m.options.warmup,
        m.options.time_kept,
        m.options
            .schedule
            .as_ref()
            .map_or(String::new(), |sch| format!(" · strategies {sch}")),
        if m.complete { "" } else { " · **INCOMPLETE RUN**" }
    );
    let header = super::terminal::columns(&report.results);
    let header: Vec<String> = header.iter().map(|c| crate::report::md_cell(c)).collect();
    let _ = writeln!(s, "| {} |", header.join(" | "));
    let align: Vec<&str> = COLUMNS
        .iter()
        .enumerate()
        .map(|(i, _)| {
            if i < 2 || i == 4 || i == 13 {
                "---"
            } else {
                "---:"
            }
        })
        .collect();
    let _ = writeln!(s, "| {} |", align.join(" | "));
    for row in rows(&report.results) {
        let cells: Vec<String> = row.iter().map(|c| crate::report::md_cell(c)).collect();
        let _ = writeln!(s, "| {} |", cells.join(" | "));
    }
    let _ = writeln!(
        s,
        "\nTimes are per puzzle, around the solve call only (timer overhead {:.0} ns per pair of clock reads, not subtracted). \
         `puzzles/s` counts every solve (puzzles × passes, warm-up included) per second of wall time.",
        m.timer_overhead_ns
    );
    if let Some(note) = super::headline::note(&report.results) {
        let _ = writeln!(s, "\nThe last column, {}.", crate::report::md_cell(&note));
    }
    paired_section(&mut s, report);
    for note in clock_notes(&report.results) {
        let _ = writeln!(s, "\n{note}.");
    }
    for w in super::terminal::warnings(report.meta, &report.results) {
        let _ = writeln!(s, "\n> **Warning:** {}.", crate::report::md_cell(&w));
    }
    if report
        .results
        .iter()
        .any(|r| r.counters != crate::solver::CounterSet::ALL)
    {
        let _ = writeln!(
            s,
            "\nA counter shown as {} is one the strategy does not report.",
            super::terminal::ABSENT
        );
    }
    let total_mismatch: u64 = report.results.iter().map(|r| r.wrong()).sum();
    if total_mismatch > 0 {
        let _ = writeln!(
            s,
            "\n**{total_mismatch} answers disagree with the dataset, the rules or bench-sudoku's count of solutions**; see `summary.json` (`mismatch_list`)."
        );
    }
    let faults: u64 = report.results.iter().map(|r| r.faults()).sum();
    if faults > 0 {
        let _ = writeln!(
            s,
            "\n**{faults} puzzles failed in external solvers** (crashed, timeout, protocol_error, error); see `summary.json` (`fault_list`)."
        );
    }
    s
}

/// The paired comparison's table and note (nothing when no strategy has
/// one).
fn paired_section(s: &mut String, report: &Report) {
    let paired = paired_rows(&report.results);
    if !paired.is_empty() {
        let _ = writeln!(s, "\n## Paired with the baseline\n");
        let _ = writeln!(s, "| {} |", PAIRED_COLUMNS.join(" | "));
        let _ = writeln!(s, "|---|---|---|---:|---:|---:|---:|---:|---:|");
        for row in paired {
            let cells: Vec<String> = row.iter().map(|c| crate::report::md_cell(c)).collect();
            let _ = writeln!(s, "| {} |", cells.join(" | "));
        }
        let _ = writeln!(s, "\n{}", paired_note());
    }
}

impl Exporter for SummaryMarkdown {
    fn name(&self) -> &'static str {
        "summary.md"
    }
    fn render(&self, report: &Report) -> anyhow::Result<Vec<Output>> {
        Ok(vec![Output::new("summary.md", render(report))])
    }
}
