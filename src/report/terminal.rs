//! The comparison table shared by the terminal and `summary.md`: one row per
//! (dataset, strategy) with throughput, latency percentiles, search effort and
//! the headline comparison of each strategy (src/report/headline.rs).

use crate::judge::Rule;
use crate::results::meta::{Meta, NOISY_SPREAD_PCT};
use crate::results::ResultRecord;

/// Human-readable duration from nanoseconds.
pub fn fmt_ns(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.0} ns")
    } else if ns < 1e6 {
        format!("{:.2} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

/// How a counter a strategy does not report is shown.
pub const ABSENT: &str = "—";

/// Outcome counts other than `solved`, e.g. `3 gave_up, 1 multiple`.
pub fn outcomes(r: &ResultRecord) -> String {
    let mut parts = Vec::new();
    for (n, label) in [
        (r.multiple, "multiple"),
        (r.no_solution, "no_solution"),
        (r.invalid, "invalid"),
        (r.stalled, "stalled"),
        (r.gave_up, "gave_up"),
        (r.crashed, "CRASHED"),
        (r.timeout, "TIMEOUT"),
        (r.protocol_error, "PROTOCOL_ERROR"),
        (r.error, "ERROR"),
        (r.rejected, "REJECTED"),
        (r.mismatches, "MISMATCH"),
        (r.wrong_answers, "WRONG"),
        (r.wrong_counts, "WRONG_COUNT"),
        (r.unstable_answers, "UNSTABLE"),
        (r.skipped, "skipped"),
    ] {
        if n > 0 {
            parts.push(format!("{n} {label}"));
        }
    }
    if parts.is_empty() {
        "-".to_string()
    } else {
        parts.join(", ")
    }
}

pub const COLUMNS: [&str; 14] = [
    "dataset",
    "strategy",
    "puzzles",
    "solved",
    "other",
    "puzzles/s",
    "mean",
    "p50",
    "p90",
    "p99",
    "max",
    "guesses/puzzle",
    "no-guess",
    "comparison",
];

/// The table's header: [`COLUMNS`] with the headline column named for what
/// it holds ([`super::headline::column`]).
pub fn columns(results: &[ResultRecord]) -> Vec<String> {
    let mut h: Vec<String> = COLUMNS.iter().map(|c| c.to_string()).collect();
    h[COLUMNS.len() - 1] = super::headline::column(results);
    h
}

pub use super::rank::{
    fastest_mean, fastest_record, rank_mark, relative_range, trusted, unfinished,
};

/// The table cells, one row per result, in result order. The last is the
/// headline comparison ([`super::headline::cell`]): paired with the
/// baseline in an interleaved run, the ratio of means to the fastest
/// otherwise; a strategy that did not finish every puzzle is marked, never
/// the reference.
pub fn rows(results: &[ResultRecord]) -> Vec<[String; 14]> {
    results
        .iter()
        .map(|r| {
            let relative = super::headline::cell(results, r);
            // No accepted answer: no time or counter to show.
            let timed = r.timed() > 0;
            let time = |ns: f64| if timed { fmt_ns(ns) } else { "-".to_string() };
            let absent = |v: Option<String>| match v {
                Some(_) if !timed => "-".to_string(),
                Some(v) => v,
                None => ABSENT.to_string(),
            };
            [
                r.dataset.clone(),
                r.strategy.clone(),
                r.puzzles.to_string(),
                r.solved.to_string(),
                outcomes(r),
                if r.short_timing() {
                    format!("{:.0} (too short)", r.puzzles_per_sec)
                } else {
                    format!("{:.0}", r.puzzles_per_sec)
                },
                time(r.mean_ns),
                time(r.p50_ns as f64),
                time(r.p90_ns as f64),
                time(r.p99_ns as f64),
                time(r.max_ns as f64),
                absent(r.guesses_mean.map(|g| format!("{g:.2}"))),
                absent(r.no_guess_pct.map(|p| format!("{p:.1}%"))),
                relative,
            ]
        })
        .collect()
}

/// An aligned text table (the `comfy-table` crate, no borders): two spaces
/// between columns, the columns in `left` left-aligned and the others
/// right-aligned, no trailing blanks. Every cell is
/// [`printable`](crate::support::text::printable): a name with a line break or an escape
/// sequence stays one cell of one line.
pub fn text_table<S: AsRef<str>>(header: &[&str], rows: &[Vec<S>], left: &[usize]) -> String {
    use crate::support::text::printable;
    use comfy_table::{CellAlignment, ContentArrangement, Table};
    let mut t = Table::new();
    t.load_preset(comfy_table::presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(header.iter().map(|h| printable(h)));
    for row in rows {
        t.add_row(row.iter().map(|c| printable(c.as_ref())));
    }
    let last = header.len().saturating_sub(1);
    for (i, col) in t.column_iter_mut().enumerate() {
        col.set_cell_alignment(if left.contains(&i) {
            CellAlignment::Left
        } else {
            CellAlignment::Right
        });
        col.set_padding((0, if i == last { 0 } else { 2 }));
    }
    let mut out = String::new();
    for line in t.lines() {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The result table for the terminal (columns [`COLUMNS`]), with the
/// clock notes of external solvers below it.
pub fn table(results: &[ResultRecord]) -> String {
    let rows: Vec<Vec<String>> = rows(results).into_iter().map(Vec::from).collect();
    let header = columns(results);
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut out = text_table(&header, &rows, &[0, 1, 4, COLUMNS.len() - 1]);
    if let Some(note) = super::headline::note(results) {
        out.push_str(&note);
        out.push('\n');
    }
    for note in clock_notes(results) {
        out.push_str(&note);
        out.push('\n');
    }
    out
}

/// The columns of the compact table: who, how many solved, the typical
/// times, the search effort and the headline comparison.
const COMPACT: [usize; 8] = [0, 1, 3, 6, 7, 9, 11, 13];

/// Widest the compact table gets: a long name wraps within its column.
pub const COMPACT_WIDTH: u16 = 120;

/// The result table a run prints by default: [`COMPACT`]'s columns of
/// [`rows`] (solved as `solved/puzzles`, what was not solved in the next
/// line of the cell), within [`COMPACT_WIDTH`] columns, and one line saying
/// what the comparison is; `--details` prints [`table`] instead.
pub fn compact_table(results: &[ResultRecord]) -> String {
    let all = columns(results);
    let header: Vec<&str> = COMPACT.iter().map(|&i| all[i].as_str()).collect();
    let rows: Vec<Vec<String>> = rows(results)
        .into_iter()
        .zip(results)
        .map(|(row, r)| {
            COMPACT
                .iter()
                .map(|&i| match i {
                    3 if row[4] != "-" => format!("{}/{} ({})", r.solved, r.puzzles, row[4]),
                    3 => format!("{}/{}", r.solved, r.puzzles),
                    _ => row[i].clone(),
                })
                .collect()
        })
        .collect();
    let mut out = fitted_table(&header, &rows, &[0, 1, 2, COMPACT.len() - 1]);
    if let Some(line) = super::headline::short_note(results) {
        out.push_str(&line);
        out.push('\n');
    }
    for note in clock_notes(results) {
        out.push_str(&note);
        out.push('\n');
    }
    out
}

/// [`text_table`] within [`COMPACT_WIDTH`] columns: cells too long wrap
/// within their column.
fn fitted_table(header: &[&str], rows: &[Vec<String>], left: &[usize]) -> String {
    use crate::support::text::printable;
    use comfy_table::{CellAlignment, ContentArrangement, Table};
    let mut t = Table::new();
    t.load_preset(comfy_table::presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Dynamic)
        // Some slack: a word longer than its column's share can overrun
        // the width comfy-table was given by a column or two.
        .set_width(COMPACT_WIDTH - 4)
        .set_header(header.iter().map(|h| printable(h)));
    for row in rows {
        t.add_row(row.iter().map(|c| printable(c)));
    }
    let last = header.len().saturating_sub(1);
    for (i, col) in t.column_iter_mut().enumerate() {
        col.set_cell_alignment(if left.contains(&i) {
            CellAlignment::Left
        } else {
            CellAlignment::Right
        });
        col.set_padding((0, if i == last { 0 } else { 2 }));
    }
    let mut out = String::new();
    for line in t.lines() {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The spread between measured passes, one entry per result that has two
/// or more (`dataset/strategy 2.1%`), or `None` when no result does.
pub fn spread_line(results: &[ResultRecord]) -> Option<String> {
    let parts: Vec<String> = results
        .iter()
        .filter(|r| r.pass_solve_ns.len() > 1)
        .map(|r| format!("{}/{} {:.1}%", r.dataset, r.strategy, r.repeat_spread_pct))
        .collect();
    (!parts.is_empty()).then(|| {
        format!(
            "repeat spread (slowest measured pass / fastest − 1): {}",
            parts.join(", ")
        )
    })
}

/// Everything a reader of the figures should be warned about: the run's
/// conditions ([`Meta::warnings`]) and a spread between repeats above
/// [`NOISY_SPREAD_PCT`].
pub fn warnings(meta: &Meta, results: &[ResultRecord]) -> Vec<String> {
    let mut w = meta.warnings();
    let noisy: Vec<String> = results
        .iter()
        .filter(|r| r.pass_solve_ns.len() > 1 && r.repeat_spread_pct > NOISY_SPREAD_PCT)
        .map(|r| format!("{}/{} {:.1}%", r.dataset, r.strategy, r.repeat_spread_pct))
        .collect();
    if !noisy.is_empty() {
        let advice = match super::headline::Basis::of(results) {
            // Already paired: the pairs share the noise and the interval
            // includes it; only the unpaired figures moved with it.
            super::headline::Basis::Paired => {
                "puzzles/s, the mean times and the ratios of means moved with it; the paired ratios, \
                 which compare each puzzle's strategies at the same moment, share the noise, and \
                 their intervals include it"
            }
            super::headline::Basis::MeanRatio => {
                "compare medians of several runs, or run the strategies interleaved (without \
                 --sequential) for paired ratios"
            }
        };
        w.push(format!(
            "the repeats disagree by more than {NOISY_SPREAD_PCT}% ({}): the machine was noisy; \
             {advice} (docs/MEASUREMENT.md)",
            noisy.join(", ")
        ));
    }
    for d in meta.datasets.iter().filter(|d| d.repeated_puzzles > 0) {
        w.push(format!(
            "dataset {} repeats {} puzzles (a grid seen before in it): each repeat counts as a \
             repeated solve, so a solver that remembers answers is caught as on a repeated pass, \
             but a repeat's time is not of a puzzle the solver has not seen; remove the \
             duplicates to time first solves only",
            d.name, d.repeated_puzzles
        ));
    }
    w.extend(short_warning(results));
    w.extend(answer_warnings(results));
    w.extend(saturation_warnings(results));
    w
}

/// The results too short to time ([`ResultRecord::short_timing`]), in one
/// warning that says why their wall-clock figures are not believed.
pub fn short_warning(results: &[ResultRecord]) -> Option<String> {
    let short: Vec<String> = results
        .iter()
        .filter(|r| r.short_timing())
        .map(|r| format!("{}/{} {}", r.dataset, r.strategy, fmt_ns(r.wall_ns as f64)))
        .collect();
    (!short.is_empty()).then(|| {
        format!(
            "too short to time: {} of wall time, under {}: puzzles/s (marked \"too short\") and wall \
             times are mostly start-up and scheduler noise (docs/MEASUREMENT.md §2); per-puzzle times \
             are fine but few: give the run more puzzles or --repeat N",
            short.join(", "),
            fmt_ns(crate::results::record::SHORT_WALL_NS as f64)
        )
    })
}

/// Warnings about what a strategy's repeated passes showed: answers that
/// changed, counters that changed, and passes far faster than the first
/// (a solver that may remember answers).
pub fn answer_warnings(results: &[ResultRecord]) -> Vec<String> {
    let mut w = Vec::new();
    for r in results {
        let unit = format!("{}/{}", r.dataset, r.strategy);
        if r.unstable_answers > 0 {
            w.push(format!(
                "{unit}: {} answers changed from one pass to another; each such answer is rejected \
                 (unstable in summary.json's mismatch_list)",
                r.unstable_answers
            ));
        }
        if r.unstable_counters > 0 {
            w.push(format!(
                "{unit}: search counters changed between passes on {} puzzles; the first pass's \
                 counters are reported",
                r.unstable_counters
            ));
        }
        // What the judge does not believe, in its words.
        for f in crate::judge::believable(&r.side(&unit)) {
            if matches!(
                f.rule,
                Rule::Unverified | Rule::ClockClaimsMore | Rule::ClockClaimsTooLittle | Rule::Cache
            ) {
                w.push(f.line());
            }
        }
    }
    w
}

/// One warning per result whose totals reached u64::MAX
/// (`counters_saturated`), and per result with times beyond what the
/// histograms hold (its percentiles are capped).
pub fn saturation_warnings(results: &[ResultRecord]) -> Vec<String> {
    let capped = results
        .iter()
        .filter(|r| r.max_ns > crate::bench::metrics::HIST_MAX)
        .map(|r| {
            format!(
                "{}/{}: times up to {} were reported (a solver's own clock), beyond the {} the \
                 histograms hold: its percentiles stop at {} (the mean and the maximum are exact)",
                r.dataset,
                r.strategy,
                fmt_ns(r.max_ns as f64),
                fmt_ns(crate::bench::metrics::HIST_MAX as f64),
                fmt_ns(crate::bench::metrics::HIST_MAX as f64),
            )
        });
    results
        .iter()
        .filter(|r| r.counters_saturated)
        .map(|r| {
            format!(
                "{}/{}: {} reached {}, the most a total holds (the solver reported absurdly large \
                 counters or times): they stopped there, so they and the means made from them are lower bounds \
                 (counters_saturated in summary.json)",
                r.dataset,
                r.strategy,
                r.saturated().join(", "),
                u64::MAX
            )
        })
        .chain(capped)
        .collect()
}

/// Columns of the paired comparison with the baseline.
pub const PAIRED_COLUMNS: [&str; 9] = [
    "dataset",
    "strategy",
    "vs",
    "pairs",
    "geomean ratio [95% CI]",
    "median ratio",
    "wins/ties/losses",
    "guesses ratio",
    "ratio of means",
];

/// The paired comparison's cells: one row per strategy that has one.
pub fn paired_rows(results: &[ResultRecord]) -> Vec<[String; 9]> {
    results
        .iter()
        .filter_map(|r| {
            let p = r.paired.as_ref()?;
            Some([
                r.dataset.clone(),
                r.strategy.clone(),
                p.baseline.clone(),
                p.pairs.to_string(),
                if p.pairs == 0 {
                    "-".to_string()
                } else {
                    p.ratio_text()
                },
                if p.pairs == 0 {
                    "-".to_string()
                } else {
                    p.median_text()
                },
                format!("{}/{}/{}", p.wins, p.ties, p.losses),
                p.guesses_text().unwrap_or_else(|| ABSENT.to_string()),
                super::headline::mean_ratio_cell(results, r),
            ])
        })
        .collect()
}

/// What the paired table means, in one paragraph.
pub fn paired_note() -> String {
    format!(
        "Paired per puzzle ({}). Ratio = strategy time / baseline time (above 1 = slower); geometric mean with a 95% \
         bootstrap interval (whole chunks resampled, 2000 times, seeded by --seed); wins/ties/losses count the puzzles \
         where the strategy was faster / within ±1% / slower; guesses ratio = total guesses / baseline's; \
         ratio of means = mean time / baseline's mean time (unpaired: it weighs the slowest puzzles most).",
        crate::bench::paired::METHOD
    )
}

/// The paired comparison as an aligned text table and its note (empty when
/// no strategy has one).
pub fn paired_table(results: &[ResultRecord]) -> String {
    let rows: Vec<Vec<String>> = paired_rows(results).into_iter().map(Vec::from).collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut out = text_table(&PAIRED_COLUMNS, &rows, &[0, 1, 2]);
    out.push_str(&paired_note());
    out.push('\n');
    out
}

/// One line per strategy whose times do not come from the harness's own
/// clock around an in-process call (external solvers), saying where they
/// come from: their times are not measured the same way as the others'.
pub fn clock_notes(results: &[ResultRecord]) -> Vec<String> {
    let mut seen: Vec<&str> = Vec::new();
    let mut notes = Vec::new();
    for r in results {
        if r.clock == crate::solver::Clock::Harness || seen.contains(&r.strategy.as_str()) {
            continue;
        }
        seen.push(&r.strategy);
        notes.push(format!(
            "times of {}: {} ({})",
            r.strategy,
            r.clock.describe(),
            r.clock.as_str()
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_well() {
        assert_eq!(fmt_ns(850.0), "850 ns");
        assert_eq!(fmt_ns(12_345.0), "12.35 µs");
        assert_eq!(fmt_ns(2_500_000.0), "2.50 ms");
        assert_eq!(fmt_ns(3e9), "3.00 s");
    }
}
