//! `bench-sudoku export DIR --export FORMAT FILE…`: benchmark-tracker files
//! from an existing results directory (the same exporters as `run --export`).

use super::CmdResult;
use crate::compare::load::ResultsDir;
use crate::report::{self, Report};
use anyhow::Context;
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// A results directory (written by `run` or `merge`).
    #[arg(value_name = "RESULTS_DIR")]
    pub dir: PathBuf,
    /// Format and output file: `bmf` (Bencher Metric Format) or
    /// `github-benchmark` (github-action-benchmark customSmallerIsBetter).
    /// Repeat for several.
    #[arg(long = "export", num_args = 2, value_names = ["FORMAT", "FILE"], required = true)]
    pub export: Vec<String>,
}

/// Pairs (FORMAT, FILE) of a repeated `--export FORMAT FILE`, each format
/// checked.
pub fn tracker_exporters(values: &[String]) -> anyhow::Result<Vec<Box<dyn report::Exporter>>> {
    values
        .chunks(2)
        .map(|c| match c {
            [format, file] => report::tracker_exporter(format, std::path::Path::new(file)),
            _ => anyhow::bail!("--export needs FORMAT FILE"),
        })
        .collect()
}

pub fn run(args: &ExportArgs) -> CmdResult {
    let exporters = tracker_exporters(&args.export)?;
    let dir = ResultsDir::load(&args.dir)?;
    let report = Report::from_records(&dir.meta, dir.results.clone(), &[]);
    for e in exporters {
        for path in e
            .export(&report, &dir.path)
            .with_context(|| format!("writing the {} export", e.name()))?
        {
            super::print_text(&format!("wrote {}\n", path.display()))?;
        }
    }
    Ok(0)
}
