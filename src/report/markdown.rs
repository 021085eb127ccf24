//! `summary.md`: the comparison table and the run's facts, in Markdown.

use super::terminal::{clock_notes, paired_note, paired_rows, rows, COLUMNS, PAIRED_COLUMNS};
use super::{Exporter, Output, Report};
use std::fmt::Write as _;

pub struct SummaryMarkdown;

/// The Markdown text of a report: the run's lines, the comparison table
/// and its notes, the paired comparison, the warnings and what went wrong,
/// the slowest puzzles.
pub fn render(report: &Report) -> String {
    let mut s = String::new();
    run_lines(&mut s, report.meta);
    summary_table(&mut s, report);
    paired_section(&mut s, report);
    classes_section(&mut s, report);
    notes(&mut s, report);
    worst(report, &mut s);
    s
}

/// The comparison table and the paired comparison alone, without the
/// run's lines, notes and slowest puzzles (a pull-request comment's
/// details).
pub fn tables(report: &Report) -> String {
    let mut s = String::new();
    summary_table(&mut s, report);
    paired_section(&mut s, report);
    s
}

/// The title, the machine, the run's options and the revisions measured.
fn run_lines(s: &mut String, m: &crate::results::meta::Meta) {
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
        "Started {} · solution limit {} · guess budget {} · repeat {} (warm-up {}{}, per-puzzle time = {}){}{}\n",
        m.started,
        m.options.solution_limit,
        m.options.max_guesses,
        m.options.repeat,
        m.options.warmup,
        crate::support::text::md_cell(&m.options.own_passes_text()),
        m.options.time_kept,
        m.options
            .schedule
            .as_ref()
            .map_or(String::new(), |sch| format!(" · strategies {sch}")),
        if m.complete { "" } else { " · **INCOMPLETE RUN**" }
    );
    let revisions = m.revisions();
    if !revisions.is_empty() {
        let _ = writeln!(
            s,
            "Revisions: {}\n",
            crate::support::text::md_cell(&revisions.join("; "))
        );
    }
}

/// The comparison table (the terminal's columns, text left and numbers
/// right), what its times mean and what its last column compares.
fn summary_table(s: &mut String, report: &Report) {
    let header = super::terminal::columns(&report.results);
    let header: Vec<String> = header
        .iter()
        .map(|c| crate::support::text::md_cell(c))
        .collect();
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
        let cells: Vec<String> = row
            .iter()
            .map(|c| crate::support::text::md_cell(c))
            .collect();
        let _ = writeln!(s, "| {} |", cells.join(" | "));
    }
    let _ = writeln!(
        s,
        "\nTimes are per puzzle, around the solve call only (timer overhead {:.0} ns per pair of clock reads, not subtracted). \
         `puzzles/s` counts every solve (puzzles × passes, warm-up included) per second of wall time.",
        report.meta.timer_overhead_ns
    );
    if let Some(note) = super::headline::note(&report.results) {
        let _ = writeln!(
            s,
            "\nThe last column, {}.",
            crate::support::text::md_cell(&note)
        );
    }
}

/// The clocks of external solvers, the run's warnings, absent counters,
/// and the counts of wrong answers and solver faults.
fn notes(s: &mut String, report: &Report) {
    for note in clock_notes(&report.results) {
        let _ = writeln!(s, "\n{note}.");
    }
    for w in super::terminal::warnings(report.meta, &report.results) {
        let _ = writeln!(s, "\n> **Warning:** {}.", crate::support::text::md_cell(&w));
    }
    if report
        .results
        .iter()
        .any(|r| !r.counters.contains(crate::solver::CounterSet::SEARCH))
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
}

/// A Markdown table: a header, its alignment row (`text` columns left,
/// the others right) and the cells.
fn table<const N: usize>(s: &mut String, headers: &[&str], rows: &[[String; N]], text: &[usize]) {
    let _ = writeln!(s, "| {} |", headers.join(" | "));
    let align: Vec<&str> = (0..headers.len())
        .map(|i| if text.contains(&i) { "---" } else { "---:" })
        .collect();
    let _ = writeln!(s, "| {} |", align.join(" | "));
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .map(|c| crate::support::text::md_cell(c))
            .collect();
        let _ = writeln!(s, "| {} |", cells.join(" | "));
    }
}

/// The slowest puzzles and, in a paired run, each candidate's largest
/// losses ([`super::worst`]), or a note that they need puzzles.csv.
fn worst(report: &Report, s: &mut String) {
    use super::worst::{self, LOSS_COLUMNS, SLOWEST_COLUMNS};
    let md = crate::support::text::md_cell;
    let _ = writeln!(s, "\n## Slowest puzzles\n");
    let Some(w) = report.worst() else {
        let _ = writeln!(s, "{}", worst::NEEDS_CSV);
        return;
    };
    let _ = writeln!(
        s,
        "The {} slowest of each strategy. {}",
        worst::TOP,
        worst::SLOWEST_NOTE
    );
    for sl in &w.slowest {
        let _ = writeln!(s, "\n### {} · {}\n", md(&sl.dataset), md(&sl.strategy));
        let file = worst::dataset_file(report.meta, &sl.dataset);
        table(s, &SLOWEST_COLUMNS, &worst::slowest_rows(sl, file), &[2]);
    }
    if !report.results.iter().any(|r| r.paired.is_some()) {
        return;
    }
    let _ = writeln!(s, "\n## Where each strategy lost most to the baseline\n");
    let _ = writeln!(s, "{}", worst::LOSS_NOTE);
    for l in &w.losses {
        let _ = writeln!(
            s,
            "\n### {} · {} vs {}\n",
            md(&l.dataset),
            md(&l.strategy),
            md(&l.baseline)
        );
        if l.rows.is_empty() {
            let _ = writeln!(s, "Not slower than {} on any puzzle.", md(&l.baseline));
            continue;
        }
        let file = worst::dataset_file(report.meta, &l.dataset);
        table(s, &LOSS_COLUMNS, &worst::loss_rows(l, file), &[2]);
    }
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
            let cells: Vec<String> = row
                .iter()
                .map(|c| crate::support::text::md_cell(c))
                .collect();
            let _ = writeln!(s, "| {} |", cells.join(" | "));
        }
        let _ = writeln!(s, "\n{}", paired_note());
    }
}

/// Every comparison by difficulty, when the run has classes.
fn classes_section(s: &mut String, report: &Report) {
    use super::classes::{note, rows, COLUMNS, TEXT};
    let Some(b) = report.by_class.as_ref().filter(|b| !b.rows.is_empty()) else {
        return;
    };
    let _ = writeln!(s, "\n## By difficulty\n");
    table(s, &COLUMNS, &rows(b), &TEXT);
    let _ = writeln!(s, "\n{}", note(b));
}

impl Exporter for SummaryMarkdown {
    fn name(&self) -> &'static str {
        "summary.md"
    }
    fn render(&self, report: &Report) -> anyhow::Result<Vec<Output>> {
        Ok(vec![Output::new("summary.md", render(report))])
    }
}
