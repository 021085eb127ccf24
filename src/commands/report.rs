//! `bench-sudoku report DIR`: rebuilds `report.html` and `charts/*.svg` of an
//! existing results directory from what it holds on disk.

use super::CmdResult;
use crate::bench::metrics::{ResultRecord, UnitStats};
use crate::bench::sysinfo::Meta;
use crate::report::{charts::Charts, html::HtmlReport, Exporter, Report};
use crate::results::claim::Claim;
use crate::support::names::unit_file_base_in;
use anyhow::{anyhow, Context};
use clap::Args;
use hdrhistogram::Histogram;
use std::path::Path;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A results directory written by `bench-sudoku run`.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

pub fn run(args: &ReportArgs) -> CmdResult {
    let dir = &args.dir;
    let loaded = load(dir)?;
    // No run or merge writes the directory while its page is rebuilt.
    let _claim = Claim::take(dir).map_err(|r| r.into_error("report", dir))?;
    let report = loaded.report().with_scatter(dir)?;
    for exporter in [&Charts as &dyn Exporter, &HtmlReport] {
        exporter
            .export(&report, dir)
            .with_context(|| format!("writing {} in {}", exporter.name(), dir.display()))?;
    }
    super::print_text(&format!("{}\n", dir.join("report.html").display()))?;
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
        Report::from_records(&self.meta, self.results.clone(), &self.units)
    }
}

/// Reads `summary.json` and `histograms/*.hdr` of a results directory.
pub fn load(dir: &Path) -> anyhow::Result<Loaded> {
    let summary = crate::results::Summary::read(dir)?;
    let path = dir.join("summary.json");
    let mut units = Vec::with_capacity(summary.results.len());
    for r in &summary.results {
        let mut u = UnitStats::new(&r.dataset, &r.strategy, 1).reporting(r.counters, r.clock);
        let base = unit_file_base_in(&dir.join("histograms"), &r.dataset, &r.strategy);
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
        let ours = |d: &str, s: &str| d == r.dataset && s == r.strategy;
        for l in summary
            .mismatch_list
            .iter()
            .filter(|l| ours(&l.dataset, &l.strategy))
        {
            for m in &l.rows {
                u.mismatch_list.push(
                    m.to_mismatch().ok_or_else(|| {
                        anyhow!("{}: unknown status `{}`", path.display(), m.status)
                    })?,
                );
            }
        }
        for l in summary
            .skipped_rows
            .iter()
            .filter(|l| ours(&l.dataset, &l.strategy))
        {
            u.skipped_list.extend(l.rows.iter().cloned());
        }
        for l in summary
            .fault_list
            .iter()
            .filter(|l| ours(&l.dataset, &l.strategy))
        {
            u.fault_list.extend(l.rows.iter().cloned());
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
