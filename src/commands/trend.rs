//! `trend DIR…`: results directories of different commits (or the same
//! commit run several times) side by side. Runs are ordered by their start
//! time and grouped by the commit they were built from; per dataset and
//! strategy the table gives each commit's mean (with the range across its
//! runs) and p99, and the change from the first commit to the last. With
//! `--out DIR`: trend.csv, trend.html and charts/trend-<dataset>.svg.

use super::CmdResult;
use crate::compare::load::ResultsDir;
use crate::report::{self, terminal::fmt_ns};
use crate::results::dest::Guard;
use anyhow::Context;
use clap::Args;
use serde::Serialize;
use std::path::PathBuf;

/// Options of `trend`.
#[derive(Debug, Clone, Args)]
pub struct TrendArgs {
    /// Results directories (of `run`, `merge` or a scan's value
    /// subdirectories), in any order; two or more.
    #[arg(required = true, num_args = 2.., value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Also write trend.csv, trend.html and charts/trend-<dataset>.svg
    /// into DIR.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Include runs that stopped early (refused otherwise: exit 2); they are
    /// marked `[incomplete]` in the table, the charts and the page, and
    /// `complete` is false in trend.csv.
    #[arg(long)]
    pub allow_incomplete: bool,
}

/// One (run, dataset, strategy) point, as written to trend.csv.
#[derive(Clone, Debug, Serialize)]
pub struct TrendRow {
    /// Position of the commit in time order (0 = oldest).
    pub commit_index: usize,
    pub commit: String,
    pub started: String,
    pub dir: String,
    pub dataset: String,
    pub strategy: String,
    pub puzzles: u64,
    pub solved: u64,
    pub mean_ns: f64,
    pub p99_ns: u64,
    pub guesses_mean: Option<f64>,
    /// The run and the unit finished.
    pub complete: bool,
}

/// A commit's label: the first 10 characters of the build's git commit
/// (with `-dirty`), or `unknown`.
fn commit_label(dir: &ResultsDir) -> String {
    match &dir.meta.git_commit {
        Some(c) => {
            let dirty = c.ends_with("-dirty");
            let hash: String = c.trim_end_matches("-dirty").chars().take(10).collect();
            if dirty {
                format!("{hash}-dirty")
            } else {
                hash
            }
        }
        None => "unknown".to_string(),
    }
}

/// The rows of all `dirs`, runs in start order, commits numbered in the
/// order of their first run.
pub fn rows(dirs: &[ResultsDir]) -> Vec<TrendRow> {
    let mut order: Vec<&ResultsDir> = dirs.iter().collect();
    order.sort_by(|a, b| a.meta.started.cmp(&b.meta.started));
    let mut commits: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for d in order {
        let c = commit_label(d);
        let index = match commits.iter().position(|x| *x == c) {
            Some(i) => i,
            None => {
                commits.push(c.clone());
                commits.len() - 1
            }
        };
        for r in &d.results {
            out.push(TrendRow {
                commit_index: index,
                commit: c.clone(),
                started: d.meta.started.clone(),
                dir: d.path.display().to_string(),
                dataset: r.dataset.clone(),
                strategy: r.strategy.clone(),
                puzzles: r.puzzles,
                solved: r.solved,
                mean_ns: (r.mean_ns * 10.0).round() / 10.0,
                p99_ns: r.p99_ns,
                guesses_mean: r.guesses_mean,
                complete: d.meta.complete && r.complete,
            });
        }
    }
    out
}

/// Per (dataset, strategy, commit): the mean of the runs' means, their
/// min and max, and the median p99.
#[derive(Clone, Debug)]
pub struct Point {
    pub commit_index: usize,
    pub commit: String,
    pub runs: usize,
    pub mean_ns: f64,
    pub min_ns: f64,
    pub max_ns: f64,
    pub p99_ns: f64,
    /// How many of its runs are incomplete.
    pub incomplete: usize,
}

/// What marks an incomplete run, after a commit's label.
pub const INCOMPLETE: &str = " [incomplete]";

/// The (dataset, strategy) series of `rows`, in first-appearance order.
pub fn series(rows: &[TrendRow]) -> Vec<((String, String), Vec<Point>)> {
    let mut keys: Vec<(String, String)> = Vec::new();
    for r in rows {
        let k = (r.dataset.clone(), r.strategy.clone());
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.into_iter()
        .map(|k| {
            let mine: Vec<&TrendRow> = rows
                .iter()
                .filter(|r| r.dataset == k.0 && r.strategy == k.1)
                .collect();
            let mut idx: Vec<usize> = mine.iter().map(|r| r.commit_index).collect();
            idx.sort_unstable();
            idx.dedup();
            let points = idx
                .into_iter()
                .map(|i| {
                    let at: Vec<&&TrendRow> = mine.iter().filter(|r| r.commit_index == i).collect();
                    let means: Vec<f64> = at.iter().map(|r| r.mean_ns).collect();
                    let mut p99: Vec<u64> = at.iter().map(|r| r.p99_ns).collect();
                    p99.sort_unstable();
                    Point {
                        commit_index: i,
                        commit: at[0].commit.clone(),
                        runs: at.len(),
                        mean_ns: means.iter().sum::<f64>() / means.len() as f64,
                        min_ns: means.iter().copied().fold(f64::INFINITY, f64::min),
                        max_ns: means.iter().copied().fold(0.0, f64::max),
                        p99_ns: p99[p99.len() / 2] as f64,
                        incomplete: at.iter().filter(|r| !r.complete).count(),
                    }
                })
                .collect();
            (k, points)
        })
        .collect()
}

/// The compact terminal table: one line per (dataset, strategy, commit).
pub fn table(series: &[((String, String), Vec<Point>)]) -> String {
    let header = [
        "dataset", "strategy", "commit", "runs", "mean", "range", "p99", "vs first",
    ];
    let mut cells: Vec<[String; 8]> = Vec::new();
    for ((ds, st), pts) in series {
        let first = pts.first().map_or(0.0, |p| p.mean_ns);
        for p in pts {
            let range = if p.runs > 1 {
                format!(
                    "±{:.1}%",
                    (p.max_ns - p.min_ns) / 2.0 / p.mean_ns.max(1e-9) * 100.0
                )
            } else {
                "-".into()
            };
            let change = if p.commit_index == pts[0].commit_index || first <= 0.0 {
                "-".into()
            } else {
                format!("{:+.1}%", (p.mean_ns / first - 1.0) * 100.0)
            };
            cells.push([
                ds.clone(),
                st.clone(),
                if p.incomplete > 0 {
                    format!("{}{INCOMPLETE}", p.commit)
                } else {
                    p.commit.clone()
                },
                match p.incomplete {
                    0 => p.runs.to_string(),
                    k => format!("{} ({k} incomplete)", p.runs),
                },
                fmt_ns(p.mean_ns),
                range,
                fmt_ns(p.p99_ns),
                change,
            ]);
        }
    }
    let rows: Vec<Vec<String>> = cells.into_iter().map(Vec::from).collect();
    crate::report::terminal::text_table(&header, &rows, &[0, 1, 2])
}

/// Runs `trend`.
pub fn run(args: &TrendArgs) -> CmdResult {
    // One run counted twice would weigh twice in its commit's mean.
    let mut seen: Vec<(PathBuf, &PathBuf)> = Vec::new();
    for d in &args.dirs {
        let c = crate::results::dest::canonical_lenient(d);
        if let Some((_, first)) = seen.iter().find(|(x, _)| *x == c) {
            anyhow::bail!(
                "{} and {}: the same results directory given twice",
                first.display(),
                d.display()
            );
        }
        seen.push((c, d));
    }
    let dirs: Vec<ResultsDir> = args
        .dirs
        .iter()
        .map(|d| ResultsDir::load(d).with_context(|| format!("{}: cannot load", d.display())))
        .collect::<anyhow::Result<_>>()?;
    if !args.allow_incomplete {
        for d in &dirs {
            d.require_complete("--allow-incomplete to include it, marked [incomplete]")?;
        }
    }
    if let Some(out) = &args.out {
        let mut guard = Guard::new();
        for d in &args.dirs {
            guard.reads_results(d);
        }
        guard.dir("--out", out, &["trend.csv", "trend.html", "charts"])?;
    }
    let rows = rows(&dirs);
    let series = series(&rows);
    super::print_text(&table(&series))?;
    if let Some(out) = &args.out {
        write(out, &rows, &series)?;
        super::print_text(&format!("trend in {}\n", out.display()))?;
    }
    Ok(0)
}

/// trend.csv, charts/trend-<dataset>.svg and trend.html (the table and the
/// charts, escaped by the report's one escaping function).
fn write(
    out: &std::path::Path,
    rows: &[TrendRow],
    series: &[((String, String), Vec<Point>)],
) -> anyhow::Result<()> {
    let charts = out.join("charts");
    std::fs::create_dir_all(&charts)
        .with_context(|| format!("cannot create {}", charts.display()))?;
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        // Text cells a spreadsheet would run as formulas are neutralised.
        let text = |s: &str| report::csv::neutral(s).into_owned();
        w.serialize(TrendRow {
            commit: text(&r.commit),
            started: text(&r.started),
            dir: text(&r.dir),
            dataset: text(&r.dataset),
            strategy: text(&r.strategy),
            ..r.clone()
        })?;
    }
    report::write_atomic(
        &out.join("trend.csv"),
        &w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?,
    )?;
    let mut datasets: Vec<&str> = Vec::new();
    for ((ds, _), _) in series {
        if !datasets.contains(&ds.as_str()) {
            datasets.push(ds);
        }
    }
    let mut commits: Vec<(usize, String)> = series
        .iter()
        .flat_map(|(_, pts)| pts.iter().map(|p| (p.commit_index, p.commit.clone())))
        .collect();
    commits.sort();
    commits.dedup();
    let labels: Vec<String> = commits
        .iter()
        .map(|(i, c)| {
            if rows.iter().any(|r| r.commit_index == *i && !r.complete) {
                format!("{c}{INCOMPLETE}")
            } else {
                c.clone()
            }
        })
        .collect();
    let mut incomplete: Vec<&str> = rows
        .iter()
        .filter(|r| !r.complete)
        .map(|r| r.dir.as_str())
        .collect();
    incomplete.dedup();
    let mut figures: Vec<(String, String)> = Vec::new();
    for ds in datasets {
        let lines: Vec<report::charts::TrendSeries> = series
            .iter()
            .filter(|((d, _), _)| d == ds)
            .map(|((_, st), pts)| {
                (
                    st.clone(),
                    pts.iter()
                        .map(|p| {
                            (
                                p.commit_index as f64,
                                p.mean_ns,
                                p.min_ns,
                                p.max_ns,
                                p.p99_ns,
                            )
                        })
                        .collect(),
                )
            })
            .collect();
        let svg = report::charts::trend_svg(ds, &labels, &lines)?;
        report::write_atomic(
            &charts.join(format!("trend-{}.svg", report::file_part(ds))),
            svg.as_bytes(),
        )?;
        figures.push((ds.to_string(), svg));
    }
    // maud escapes every text; the SVG charts (plotters escapes its own
    // text) and the CSS go in as they are.
    let page = maud::html! {
        (maud::DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { "bench-sudoku trend" }
                // The report's style, so that both pages look alike.
                style { (maud::PreEscaped(report::html::CSS)) }
            }
            body {
                h1 { "bench-sudoku trend" }
                @if !incomplete.is_empty() {
                    div.banner {
                        "INCOMPLETE RUNS (marked [incomplete]): "
                        (incomplete.join(", "))
                        " — their numbers cover only what was measured before they stopped."
                    }
                }
                p.sub { (rows.len()) " points from " (commits.len()) " commit(s), oldest first." }
                @for (ds, svg) in &figures {
                    h2 { "Dataset " (ds) }
                    figure {
                        (maud::PreEscaped(report::html::inline_svg(svg)))
                        figcaption {
                            "Per strategy: the mean solve time (thick line; a bar spans the smallest to the largest run's mean when a commit was run several times) and the p99 (thin line), log scale."
                        }
                    }
                }
                h2 { "Table" }
                pre { (table(series)) }
            }
        }
    };
    report::write_atomic(&out.join("trend.html"), page.into_string().as_bytes())?;
    Ok(())
}
