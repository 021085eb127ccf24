//! The files of a parameter scan ([`crate::results::scan`]): `scan.csv`,
//! `scan.json`, `scan.md` and `charts/scan-<dataset>.svg`, one exporter
//! each behind [`ScanExporter`] (bytes only, written by [`write`]), and the
//! scan's text table ([`table`]) that the terminal and `scan.md` show.

use super::charts::{scan_svg, ScanSeries};
use super::terminal::{fmt_ns, text_table};
use super::Output;
use crate::results::scan::{Axis, Plan, Scan, ScanRow, KEPT};
use crate::support::names::file_part;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// One output format of a scan, shaped as [`super::Exporter`]: it renders
/// bytes and writes nothing itself. It takes a [`Scan`] instead of a
/// [`super::Report`]: a report is one results directory (its summary, meta and
/// histograms), while a scan's files stand beside several results
/// directories, one per value, and hold rows across them.
pub trait ScanExporter {
    /// A short name for messages.
    fn name(&self) -> &'static str;
    /// The format's file(s).
    fn render(&self, scan: &Scan) -> anyhow::Result<Vec<Output>>;
    /// Renders and writes the files into `dir`; returns the paths written.
    fn export(&self, scan: &Scan, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
        super::write(&self.render(scan)?, dir)
    }
}

/// The files and folders the scan's exporters write in its directory
/// (besides one subdirectory per value).
pub const FILES: &[&str] = &["scan.csv", "scan.json", "scan.md", "charts"];

/// Every scan exporter, in the order they are written.
pub fn exporters() -> Vec<Box<dyn ScanExporter>> {
    vec![
        Box::new(ScanCsv),
        Box::new(ScanJson),
        Box::new(ScanMarkdown),
        Box::new(ScanCharts),
    ]
}

/// Writes every file of `scan` into `dir`, each atomically; `charts/` is
/// there even when no dataset has a chart. Returns the paths written.
pub fn write(scan: &Scan, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    use anyhow::Context;
    let mut written = Vec::new();
    for e in exporters() {
        written.extend(e.export(scan, dir)?);
    }
    let charts = dir.join("charts");
    std::fs::create_dir_all(&charts)
        .with_context(|| format!("{}: cannot create", charts.display()))?;
    Ok(written)
}

/// `scan.csv`: one line per row ([`ScanRow`]'s fields are the columns),
/// text cells a spreadsheet would run as formulas neutralised.
pub struct ScanCsv;

impl ScanExporter for ScanCsv {
    fn name(&self) -> &'static str {
        "scan.csv"
    }
    fn render(&self, scan: &Scan) -> anyhow::Result<Vec<Output>> {
        let text = |s: &str| crate::support::cells::neutral(s).into_owned();
        let mut w = csv::Writer::from_writer(Vec::new());
        for r in &scan.rows {
            w.serialize(ScanRow {
                key: text(&r.key),
                value: text(&r.value),
                dataset: text(&r.dataset),
                strategy: text(&r.strategy),
                spec: text(&r.spec),
                dir: text(&r.dir),
                rounds_puzzles_per_sec: r.rounds_puzzles_per_sec.clone(),
                ..r.clone()
            })?;
        }
        let bytes = w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?;
        Ok(vec![Output::new("scan.csv", bytes)])
    }
}

/// The whole scan, as written to `scan.json`.
#[derive(Debug, Serialize)]
struct ScanFile<'a> {
    key: &'a str,
    values: Vec<&'a str>,
    /// Rounds per value after the warm-up round, and which was kept.
    rounds: u32,
    kept: &'a str,
    rows: &'a [ScanRow],
}

/// `scan.json`: the key, the values, the rounds, which round was kept and
/// every row.
pub struct ScanJson;

impl ScanExporter for ScanJson {
    fn name(&self) -> &'static str {
        "scan.json"
    }
    fn render(&self, scan: &Scan) -> anyhow::Result<Vec<Output>> {
        let bytes = serde_json::to_vec_pretty(&ScanFile {
            key: scan.plan.key(),
            values: scan.plan.values(),
            rounds: scan.rounds,
            kept: KEPT,
            rows: &scan.rows,
        })?;
        Ok(vec![Output::new("scan.json", bytes)])
    }
}

/// `scan.md`: the scan's [`table`] under a title.
pub struct ScanMarkdown;

impl ScanExporter for ScanMarkdown {
    fn name(&self) -> &'static str {
        "scan.md"
    }
    fn render(&self, scan: &Scan) -> anyhow::Result<Vec<Output>> {
        let key = scan.plan.key();
        let md = format!(
            "# Scan of `{key}`\n\n```\n{}```\n\nEach value's full results (of its kept round) are in its subdirectory (`{key}=VALUE/`).\n",
            table(scan),
        );
        Ok(vec![Output::new("scan.md", md)])
    }
}

/// `charts/scan-<dataset>.svg`: per dataset, one curve per strategy over
/// the values, of the speedup in a thread scan, of the mean solve time (in
/// µs) otherwise.
pub struct ScanCharts;

impl ScanExporter for ScanCharts {
    fn name(&self) -> &'static str {
        "charts/scan-*.svg"
    }
    fn render(&self, scan: &Scan) -> anyhow::Result<Vec<Output>> {
        let plan = scan.plan;
        let threads = plan.axis == Axis::Threads;
        let ticks = x_ticks(plan, crate::bench::sysinfo::logical_cores());
        let mut datasets: Vec<&str> = Vec::new();
        for r in &scan.rows {
            if !datasets.contains(&r.dataset.as_str()) {
                datasets.push(&r.dataset);
            }
        }
        let mut out = Vec::new();
        for ds in datasets {
            let mut series: Vec<ScanSeries> = Vec::new();
            for r in scan.rows.iter().filter(|r| r.dataset == ds) {
                let x = ticks
                    .iter()
                    .zip(&plan.points)
                    .find(|(_, p)| p.value == r.value)
                    .map_or(0.0, |((x, _), _)| *x);
                let y = if threads {
                    r.speedup.unwrap_or(0.0)
                } else {
                    r.mean_ns / 1000.0
                };
                match series.iter_mut().find(|(n, _)| *n == r.strategy) {
                    Some((_, pts)) => pts.push((x, y)),
                    None => series.push((r.strategy.clone(), vec![(x, y)])),
                }
            }
            let svg = scan_svg(ds, plan.key(), &series, &ticks, threads)?;
            out.push(Output::new(
                format!("charts/scan-{}.svg", file_part(ds)),
                svg,
            ));
        }
        Ok(out)
    }
}

/// Where each of the plan's values stands on the chart's x axis, and its
/// tick label: numbers at their value (0 threads at `cores`, the logical
/// cores it means), other values (`prop=naked,hidden`) at 1, 2, 3, …
/// under their own names. The axis has a tick at each value and nowhere
/// else, so a thread count is never labelled 1.5.
pub fn x_ticks(plan: &Plan, cores: usize) -> Vec<(f64, String)> {
    let numeric = plan.points.iter().all(|p| p.value.parse::<f64>().is_ok());
    plan.points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let v = &p.value;
            if plan.axis == Axis::Threads && v.parse::<u64>() == Ok(0) {
                (cores as f64, format!("{cores} (0 = all cores)"))
            } else if numeric {
                (v.parse::<f64>().unwrap_or(0.0), v.clone())
            } else {
                (i as f64 + 1.0, v.clone())
            }
        })
        .collect()
}

/// The scan as an aligned text table, with what its marks mean below it.
pub fn table(scan: &Scan) -> String {
    let header = [
        scan.plan.key(),
        "dataset",
        "strategy",
        "spec",
        "solved",
        "mean",
        "p99",
        "puzzles/s",
        "speedup",
        "guesses/puzzle",
        "puzzles/s by round",
    ];
    let cells: Vec<Vec<String>> = scan.rows.iter().map(table_row).collect();
    let mut out = text_table(&header, &cells, &[0, 1, 2, 3, 10]);
    out.push_str(&format!(
        "{} round(s) after a warm-up round, the values alternating; kept: {KEPT}.\n",
        scan.rounds
    ));
    if scan.rows.iter().any(|r| r.speedup_noise) {
        out.push_str(
            "(noise): a speedup above the thread count over the first value's (each at most the \
             logical cores) is not scaling: the first value's kept round was slowed by the machine\n",
        );
    }
    if scan.rows.iter().any(|r| r.too_short) {
        out.push_str(&format!(
            "(too short): under {} of wall time, puzzles/s and speedups are mostly thread start-up \
             and scheduler noise (docs/MEASUREMENT.md §2): give each value more work (more puzzles, \
             --repeat N)\n",
            fmt_ns(crate::results::record::SHORT_WALL_NS as f64)
        ));
    }
    out
}

/// A row's cells in [`table`].
fn table_row(r: &ScanRow) -> Vec<String> {
    let short = if r.too_short { " (too short)" } else { "" };
    let speedup = r.speedup.map_or("-".into(), |s| {
        let noise = if r.speedup_noise { " (noise)" } else { "" };
        format!("{s:.2}×{noise}{short}")
    });
    vec![
        r.value.clone(),
        r.dataset.clone(),
        r.strategy.clone(),
        r.spec.clone(),
        format!("{}/{}", r.solved, r.puzzles),
        fmt_ns(r.mean_ns),
        fmt_ns(r.p99_ns as f64),
        format!("{}{short}", r.puzzles_per_sec),
        speedup,
        r.guesses_mean.map_or("-".into(), |g| format!("{g:.2}")),
        format!(
            "{} (kept {})",
            r.rounds_puzzles_per_sec.replace(';', " "),
            r.round
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::scan::test_plan as plan;

    fn row(value: &str, dataset: &str, strategy: &str) -> ScanRow {
        ScanRow {
            key: "threads".into(),
            value: value.into(),
            dataset: dataset.into(),
            strategy: strategy.into(),
            spec: strategy.into(),
            puzzles: 10,
            solved: 10,
            mean_ns: 1500.0,
            p50_ns: 1400,
            p99_ns: 3000,
            puzzles_per_sec: 1000,
            wall_ns: 20_000_000,
            guesses_mean: None,
            speedup: Some(1.0),
            speedup_noise: false,
            too_short: false,
            round: 1,
            rounds_puzzles_per_sec: "990;1000".into(),
            dir: format!("threads={value}"),
        }
    }

    fn text(o: &Output) -> &str {
        std::str::from_utf8(&o.bytes).unwrap()
    }

    #[test]
    fn ticks_stand_at_numbers_or_in_order() {
        let ticks = |a: Axis, v: &[&str]| x_ticks(&plan(a, v), 8);
        assert_eq!(
            ticks(Axis::Threads, &["1", "0"]),
            [
                (1.0, "1".to_string()),
                (8.0, "8 (0 = all cores)".to_string())
            ]
        );
        assert_eq!(
            ticks(Axis::BatchSize, &["16", "256"]),
            [(16.0, "16".to_string()), (256.0, "256".to_string())]
        );
        assert_eq!(
            ticks(Axis::Spec("prop"), &["naked", "2"]),
            [(1.0, "naked".to_string()), (2.0, "2".to_string())]
        );
    }

    #[test]
    fn the_table_says_what_its_marks_mean() {
        let p = plan(Axis::Threads, &["1", "2"]);
        let mut rows = vec![row("1", "d", "s"), row("2", "d", "s")];
        let t = table(&Scan::new(&p, 3, rows.clone()));
        assert!(t.starts_with("threads  dataset  strategy"), "{t}");
        assert!(t.contains("990 1000 (kept 1)"), "{t}");
        assert!(t.contains("3 round(s) after a warm-up round"), "{t}");
        assert!(!t.contains("(noise)") && !t.contains("(too short)"), "{t}");
        rows[1].speedup = Some(9.0);
        rows[1].speedup_noise = true;
        rows[1].too_short = true;
        let t = table(&Scan {
            plan: &p,
            rounds: 1,
            rows,
        });
        assert!(t.contains("9.00× (noise) (too short)"), "{t}");
        assert!(t.contains("1000 (too short)"), "{t}");
        assert!(t.contains("\n(noise): a speedup above"), "{t}");
        assert!(t.contains("\n(too short): under 10.00 ms"), "{t}");
    }

    #[test]
    fn every_file_of_a_scan_is_rendered() {
        let p = plan(Axis::Threads, &["1", "2"]);
        let mut rows = vec![
            row("1", "easy", "s"),
            row("2", "easy", "s"),
            row("1", "=hard", "s"),
        ];
        rows[2].strategy = "=cmd".into();
        let scan = Scan {
            plan: &p,
            rounds: 1,
            rows,
        };
        let outputs: Vec<Output> = exporters()
            .iter()
            .flat_map(|e| e.render(&scan).unwrap())
            .collect();
        let paths: Vec<String> = outputs
            .iter()
            .map(|o| o.path.display().to_string())
            .collect();
        let hard = format!("charts/scan-{}.svg", file_part("=hard"));
        assert_eq!(
            paths,
            [
                "scan.csv",
                "scan.json",
                "scan.md",
                "charts/scan-easy.svg",
                hard.as_str()
            ]
        );
        let csv = text(&outputs[0]);
        assert!(csv.starts_with("key,value,dataset,strategy,spec,puzzles,solved,mean_ns,"));
        assert_eq!(csv.lines().count(), 4);
        // A cell a spreadsheet would run as a formula is neutralised.
        assert!(!csv.contains(",=hard,") && !csv.contains(",=cmd,"), "{csv}");
        let json: serde_json::Value = serde_json::from_slice(&outputs[1].bytes).unwrap();
        assert_eq!(json["key"], "threads");
        assert_eq!(json["values"], serde_json::json!(["1", "2"]));
        assert_eq!(json["kept"], KEPT);
        assert_eq!(json["rows"][2]["dataset"], "=hard");
        let md = text(&outputs[2]);
        assert!(md.starts_with("# Scan of `threads`\n\n```\nthreads  dataset"));
        assert!(md.ends_with("subdirectory (`threads=VALUE/`).\n"));
        assert!(text(&outputs[3]).contains("ideal (linear)"));
    }
}
