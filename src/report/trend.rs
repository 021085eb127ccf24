//! What `trend` prints and writes, as text and bytes: the table (terminal
//! and Markdown), the steps in words, trend.csv, the charts and trend.html.

use super::charts::trend::{ratio_svg, time_svg, RatioLine, TimeLine};
use super::terminal::fmt_ns;
use crate::history::series::{Point, Series};
use crate::history::steps::Step;
use crate::judge::Weight;
use serde::Serialize;

/// `1.234× ±0.8% [1.180, 1.290]`: the ratio, the interval steps are
/// judged on (as ± percent) and the bootstrap interval over puzzles; or `—`.
fn ratio_text(p: &Point) -> String {
    let Some(r) = p.ratio else {
        return super::terminal::ABSENT.to_string();
    };
    let mut s = format!("{:.3}×", r.ratio);
    if let (Some(lo), Some(hi)) = (r.low, r.high) {
        let half = ((hi / r.ratio).max(r.ratio / lo) - 1.0) * 100.0;
        s.push_str(&format!(" ±{half:.1}%"));
    }
    match r.ci {
        Some((lo, hi)) => s.push_str(&format!(" [{lo:.3}, {hi:.3}]")),
        None => s.push_str(" [no interval]"),
    }
    s
}

/// A step in words: `hard/mine: stepped at r2: 2.000× [1.980, 2.020] → 2.200× [2.180, 2.220] of fast (+10.0%, slower)`.
pub fn step_text(s: &Series, step: &Step) -> String {
    let (b, blo, bhi) = step.before.ratio();
    let (a, alo, ahi) = step.after.ratio();
    let pct = step.change_pct();
    format!(
        "{}/{}: stepped at {}: {b:.3}× [{blo:.3}, {bhi:.3}] → {a:.3}× [{alo:.3}, {ahi:.3}] of {} ({pct:+.1}%, {})",
        s.dataset,
        s.name,
        s.points[step.at].revision,
        s.yardstick.as_deref().unwrap_or("the yardstick"),
        if pct > 0.0 { "slower" } else { "faster" }
    )
}

/// The step of `s` at point `i`, if one starts there.
fn step_at(s: &Series, i: usize) -> Option<&Step> {
    s.steps.iter().find(|st| st.at == i)
}

/// The table's cells, one row per (dataset, series, revision).
fn rows(series: &[Series]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for s in series {
        for (i, p) in s.points.iter().enumerate() {
            let range = if p.runs > 1 && p.mean_ns > 0.0 {
                format!("±{:.1}%", (p.max_ns - p.min_ns) / 2.0 / p.mean_ns * 100.0)
            } else {
                "-".into()
            };
            let runs = match p.untrusted {
                0 => p.runs.to_string(),
                k => format!("{} ({k} not judged)", p.runs),
            };
            let failed = s
                .findings
                .iter()
                .any(|(at, f)| *at == i && f.weight == Weight::Fail);
            let step = match step_at(s, i) {
                Some(st) => format!("STEP {:+.1}%", st.change_pct()),
                None if failed => "FAIL".into(),
                None if s.unjudged.contains(&i) && p.ratio.is_some() => "not judged".into(),
                None => String::new(),
            };
            out.push(vec![
                s.dataset.clone(),
                s.name.clone(),
                p.revision.clone(),
                runs,
                ratio_text(p),
                fmt_ns(p.mean_ns),
                range,
                fmt_ns(p.p99_ns),
                step,
            ]);
        }
    }
    out
}

const HEADER: [&str; 9] = [
    "dataset",
    "series",
    "revision",
    "runs",
    "vs yardstick ±noise [95% CI]",
    "mean",
    "range",
    "p99",
    "step",
];

/// The terminal table, then the steps and notes in words.
pub fn table(series: &[Series]) -> String {
    let mut out = super::terminal::text_table(&HEADER, &rows(series), &[0, 1, 2, 8]);
    for line in notes(series) {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The table in GitHub-flavoured Markdown (for a job summary), then the
/// steps and notes.
pub fn markdown(series: &[Series]) -> String {
    let esc = crate::support::text::md_cell;
    let mut out = format!("| {} |\n|", HEADER.map(esc).join(" | "));
    for i in 0..HEADER.len() {
        out.push_str(if [0, 1, 2, 8].contains(&i) {
            "---|"
        } else {
            "---:|"
        });
    }
    out.push('\n');
    for row in rows(series) {
        let cells: Vec<String> = row.iter().map(|c| esc(c)).collect();
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    out.push('\n');
    for line in notes(series) {
        out.push_str(&format!("- {}\n", esc(&line)));
    }
    out
}

/// What the ratio column means.
pub const RATIO_NOTE: &str =
    "vs yardstick: the series' time / the yardstick's on the same puzzles in \
the same run (geometric mean of the per-puzzle ratios); ±noise: its 95% interval from timing noise \
with the puzzles held fixed, as they are in every run of a dataset (from the disagreement of the \
even and odd measured passes, or the bootstrap interval when narrower), which steps are judged on; \
[95% CI]: the bootstrap interval over chunks of puzzles";

/// The steps in words, and what a reader must know about the series.
pub fn notes(series: &[Series]) -> Vec<String> {
    let mut out = vec![RATIO_NOTE.to_string()];
    for s in series {
        out.extend(s.steps.iter().map(|st| step_text(s, st)));
        for (i, f) in &s.findings {
            let word = match f.weight {
                Weight::Fail => "FAIL",
                Weight::Unjudged => "not judged",
                Weight::Note => "note",
            };
            out.push(format!(
                "{}/{} at {}: {word}: {}",
                s.dataset,
                s.name,
                s.points[*i].revision,
                f.line()
            ));
        }
        if s.mixed_datasets {
            out.push(format!(
                "{}/{}: its runs read different puzzles under one dataset name (content hashes differ): \
                 their times are not comparable",
                s.dataset, s.name
            ));
        }
    }
    if series
        .iter()
        .all(|s| s.points.iter().all(|p| p.ratio.is_none()))
    {
        out.push(
            "no series has a paired ratio to a yardstick (run the solver beside a yardstick such as \
             fast, paired: -s fast -s SOLVER): no steps are looked for"
                .into(),
        );
    }
    out
}

/// One point of trend.csv.
#[derive(Serialize)]
struct CsvRow {
    dataset: String,
    series: String,
    revision: String,
    position: usize,
    runs: usize,
    not_judged: usize,
    yardstick: String,
    ratio: Option<f64>,
    /// The interval revisions are compared with.
    ratio_low: Option<f64>,
    ratio_high: Option<f64>,
    ci_low: Option<f64>,
    ci_high: Option<f64>,
    mean_ns: f64,
    min_mean_ns: f64,
    max_mean_ns: f64,
    p99_ns: f64,
    guesses_total: Option<u64>,
    step_pct: Option<f64>,
    machines: String,
}

/// trend.csv: one row per (dataset, series, revision), text cells a
/// spreadsheet would run as formulas neutralised.
pub fn csv(series: &[Series]) -> anyhow::Result<Vec<u8>> {
    let text = |s: &str| crate::support::cells::neutral(s).into_owned();
    let mut w = ::csv::Writer::from_writer(Vec::new());
    for s in series {
        for (i, p) in s.points.iter().enumerate() {
            w.serialize(CsvRow {
                dataset: text(&s.dataset),
                series: text(&s.name),
                revision: text(&p.revision),
                position: p.x,
                runs: p.runs,
                not_judged: p.untrusted,
                yardstick: text(s.yardstick.as_deref().unwrap_or("")),
                ratio: p.ratio.map(|r| r.ratio),
                ratio_low: p.ratio.and_then(|r| r.low),
                ratio_high: p.ratio.and_then(|r| r.high),
                ci_low: p.ratio.and_then(|r| r.ci).map(|c| c.0),
                ci_high: p.ratio.and_then(|r| r.ci).map(|c| c.1),
                mean_ns: (p.mean_ns * 10.0).round() / 10.0,
                min_mean_ns: (p.min_ns * 10.0).round() / 10.0,
                max_mean_ns: (p.max_ns * 10.0).round() / 10.0,
                p99_ns: p.p99_ns,
                guesses_total: p.guesses_total,
                step_pct: step_at(s, i).map(|st| (st.change_pct() * 100.0).round() / 100.0),
                machines: text(&p.machines.join("; ")),
            })?;
        }
    }
    w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))
}

/// The charts of one dataset, `(file name stem, svg)`: each series' ratio
/// to the yardstick on a chart of its own (series of one dataset can be
/// at 1× and at 40×: on one axis the smaller one's steps would not show),
/// then every series' times on one.
pub fn charts(
    dataset: &str,
    revisions: &[String],
    series: &[Series],
) -> anyhow::Result<Vec<(String, String)>> {
    let mine: Vec<&Series> = series.iter().filter(|s| s.dataset == dataset).collect();
    let mut out = Vec::new();
    for (i, s) in mine.iter().enumerate() {
        if s.points.iter().all(|p| p.ratio.is_none()) {
            continue;
        }
        let line = RatioLine {
            name: &s.name,
            points: s
                .points
                .iter()
                .filter_map(|p| {
                    let r = p.ratio?;
                    let lo = r.low.unwrap_or(r.ratio);
                    Some((p.x as f64, r.ratio, lo, r.high.unwrap_or(r.ratio)))
                })
                .collect(),
            steps: s
                .steps
                .iter()
                .map(|st| (s.points[st.at].x as f64, st.change_pct()))
                .collect(),
        };
        let yardstick = s.yardstick.as_deref().unwrap_or("the yardstick");
        out.push((
            format!(
                "trend-{}-{}-ratio",
                crate::support::names::file_part(dataset),
                crate::support::names::file_part(&s.name)
            ),
            ratio_svg(dataset, yardstick, revisions, &[line], i)?,
        ));
    }
    let lines: Vec<TimeLine> = mine
        .iter()
        .map(|s| TimeLine {
            name: &s.name,
            points: s
                .points
                .iter()
                .map(|p| (p.x as f64, p.mean_ns, p.min_ns, p.max_ns, p.p99_ns))
                .collect(),
        })
        .collect();
    out.push((
        format!("trend-{}", crate::support::names::file_part(dataset)),
        time_svg(dataset, revisions, &lines)?,
    ));
    Ok(out)
}

/// The captions of the two charts, by file-name stem.
fn caption(stem: &str) -> &'static str {
    if stem.ends_with("-ratio") {
        "The series' solve time divided by the yardstick's on the same puzzles, in the same run \
         (the geometric mean of the per-puzzle ratios; the bars are the 95% interval steps are \
         judged on): a slower or faster runner moves both alike, so this line follows the solver, \
         not the machine. ▲ marks a step to slower, ▼ to faster (beyond the threshold, the \
         intervals apart), at the first revision of the new level."
    } else {
        "Per series the mean solve time (thick line; a bar spans the smallest to the largest run's \
         mean when a revision was run several times) and the p99 (thin line), log scale. Absolute \
         times move with the machine: compare runs of one runner only."
    }
}

/// trend.html: every chart, the steps, the table; in the report's style.
pub fn page(
    series: &[Series],
    revisions: &[String],
    figures: &[(String, Vec<(String, String)>)],
    threshold_pct: f64,
) -> String {
    let notes = notes(series);
    let table_rows: Vec<[String; 9]> = rows(series)
        .into_iter()
        .filter_map(|r| r.try_into().ok())
        .collect();
    let incomplete: usize = series
        .iter()
        .flat_map(|s| s.points.iter())
        .map(|p| p.untrusted)
        .sum();
    maud::html! {
        (maud::DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { "bench-sudoku trend" }
                style { (maud::PreEscaped(super::html::CSS)) }
            }
            body {
                h1 { "bench-sudoku trend" }
                @if incomplete > 0 {
                    div.banner {
                        (incomplete) " run(s) are not judged (incomplete, rejected answers or faults): \
                         drawn, but kept out of the ratio and of the steps."
                    }
                }
                p.sub {
                    (series.len()) " series over " (revisions.len())
                    " revision(s), oldest first. Steps: the ratio to the yardstick changed by more than "
                    (format!("{threshold_pct}%")) " with the 95% intervals apart."
                }
                @if !notes.is_empty() {
                    ul { @for n in &notes { li { (n) } } }
                }
                @for (ds, charts) in figures {
                    h2 { "Dataset " (ds) }
                    @for (stem, svg) in charts {
                        figure {
                            (maud::PreEscaped(super::html::inline_svg(svg)))
                            figcaption { (caption(stem)) }
                        }
                    }
                }
                h2 { "Table" }
                (super::html::boxed_table(&HEADER, &table_rows, &[0, 1, 2, 8]))
            }
        }
    }
    .into_string()
}
