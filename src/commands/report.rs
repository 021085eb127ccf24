//! `bench-sudoku report DIR`: rebuilds `report.html` and `charts/*.svg` of an
//! existing results directory from what it holds on disk.

use super::CmdResult;
use crate::bench::metrics::{Mismatch, ResultRecord, Skipped, UnitStats};
use crate::bench::sysinfo::Meta;
use crate::cli::ReportArgs;
use crate::report::{charts::Charts, file_safe, html::HtmlReport, Exporter, Report};
use crate::solver::Status;
use anyhow::{anyhow, bail, Context};
use hdrhistogram::Histogram;
use serde::Deserialize;
use std::path::Path;

pub fn run(args: &ReportArgs) -> CmdResult {
    let dir = &args.dir;
    let loaded = load(dir)?;
    let report = loaded.report();
    for exporter in [&Charts as &dyn Exporter, &HtmlReport] {
        exporter
            .export(&report, dir)
            .with_context(|| format!("writing {} in {}", exporter.name(), dir.display()))?;
    }
    super::print_out(&format!("{}\n", dir.join("report.html").display()))?;
    Ok(0)
}

/// A results directory read back: the run's facts, its summary records and
/// per-unit aggregates rebuilt from the `.hdr` histograms and the listed
/// mismatches / skipped rows.
pub struct Loaded {
    pub meta: Meta,
    pub results: Vec<ResultRecord>,
    pub units: Vec<UnitStats>,
}

impl Loaded {
    /// The report the exporters render, with the records exactly as written.
    pub fn report(&self) -> Report<'_> {
        Report {
            meta: &self.meta,
            results: self.results.clone(),
            units: &self.units,
        }
    }
}

#[derive(Deserialize)]
struct SummaryFile {
    meta: Meta,
    results: Vec<ResultRecord>,
    #[serde(default)]
    mismatch_list: Vec<Listed<MismatchRow>>,
    #[serde(default)]
    skipped_rows: Vec<Listed<SkippedRow>>,
}

#[derive(Deserialize)]
struct Listed<T> {
    dataset: String,
    strategy: String,
    rows: Vec<T>,
}

#[derive(Deserialize)]
struct MismatchRow {
    index: u64,
    line: u64,
    status: String,
    detail: String,
}

#[derive(Deserialize)]
struct SkippedRow {
    line: Option<u64>,
    index: Option<u64>,
    error: String,
}

/// Reads `summary.json` and `histograms/*.hdr` of a results directory.
pub fn load(dir: &Path) -> anyhow::Result<Loaded> {
    if !dir.is_dir() {
        bail!("{}: not a directory", dir.display());
    }
    let path = dir.join("summary.json");
    if !path.is_file() {
        bail!(
            "{}: not a results directory (no summary.json; `bench-sudoku run` writes one)",
            dir.display()
        );
    }
    let bytes = std::fs::read(&path).with_context(|| format!("{}: cannot read", path.display()))?;
    let summary: SummaryFile = serde_json::from_slice(&bytes).with_context(|| {
        format!(
            "{}: not a bench-sudoku summary (a results directory written by `run`)",
            path.display()
        )
    })?;
    let mut units = Vec::with_capacity(summary.results.len());
    for r in &summary.results {
        let mut u = UnitStats::new(&r.dataset, &r.strategy, 1);
        let base = format!("{}-{}", file_safe(&r.dataset), file_safe(&r.strategy));
        for (suffix, h) in [
            ("", &mut u.time),
            (".guesses", &mut u.guesses),
            (".depth", &mut u.depth),
        ] {
            let p = dir.join("histograms").join(format!("{base}{suffix}.hdr"));
            if p.is_file() {
                *h = read_hdr(&p)?;
            }
        }
        u.puzzles = r.puzzles;
        u.complete = r.complete;
        for l in &summary.mismatch_list {
            if l.dataset == r.dataset && l.strategy == r.strategy {
                for m in &l.rows {
                    let status = Status::ALL
                        .into_iter()
                        .find(|s| s.as_str() == m.status)
                        .ok_or_else(|| {
                            anyhow!("{}: unknown status `{}`", path.display(), m.status)
                        })?;
                    u.mismatch_list.push(Mismatch {
                        index: m.index,
                        line: m.line,
                        status,
                        detail: m.detail.clone(),
                    });
                }
            }
        }
        for l in &summary.skipped_rows {
            if l.dataset == r.dataset && l.strategy == r.strategy {
                for s in &l.rows {
                    u.skipped_list.push(Skipped {
                        line: s.line,
                        index: s.index,
                        error: s.error.clone(),
                    });
                }
            }
        }
        units.push(u);
    }
    Ok(Loaded {
        meta: summary.meta,
        results: summary.results,
        units,
    })
}

fn read_hdr(path: &Path) -> anyhow::Result<Histogram<u64>> {
    let bytes = std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
    hdrhistogram::serialization::Deserializer::new()
        .deserialize(&mut &bytes[..])
        .map_err(|e| anyhow!("{}: not an HdrHistogram V2 file: {e:?}", path.display()))
}
