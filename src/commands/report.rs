//! `bench-sudoku report DIR`: rebuilds `report.html` and `charts/*.svg` of an
//! existing results directory from what it holds on disk.

use super::CmdResult;
use crate::bench::metrics::UnitStats;
use crate::report::{charts::Charts, html::HtmlReport, Exporter, Report};
use crate::results::claim::Claim;
use crate::results::meta::Meta;
use crate::results::{ResultRecord, ResultsDir};
use anyhow::Context;
use clap::Args;
use std::path::{Path, PathBuf};

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

/// A results directory read back as `report DIR` renders it: the run's
/// facts, its summary records exactly as written and each unit's
/// aggregates ([`ResultsDir::units`]).
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

/// Reads a results directory through the one reader.
pub fn load(dir: &Path) -> anyhow::Result<Loaded> {
    let d = ResultsDir::load(dir)?;
    let units = d.units()?;
    Ok(Loaded {
        meta: d.meta,
        results: d.results,
        units,
    })
}
