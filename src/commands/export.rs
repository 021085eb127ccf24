//! `bench-sudoku export DIR --export FORMAT FILE…`: benchmark-tracker files
//! from an existing results directory (the same exporters as `run --export`).

use super::CmdResult;
use crate::report::{self, Report};
use crate::results::dest::{Dest, Guard};
use crate::results::ResultsDir;
use anyhow::Context;
use clap::Args;
use std::path::{Path, PathBuf};

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
    /// Export a run that stopped early (refused otherwise: exit 2); its
    /// units are named `[incomplete]` in the files.
    #[arg(long)]
    pub allow_incomplete: bool,
    /// Export units the judge fails or cannot judge (refused otherwise:
    /// exit 1 for a failure — rejected answers, faults, unverifiable
    /// answers, a clock that claims more than the harness measured —, 2
    /// for what cannot be judged); they are named `[untrusted]` in the
    /// files.
    #[arg(long)]
    pub allow_untrusted: bool,
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

/// Renders a tracker export and writes it to its checked destination.
pub fn write_tracker(
    exporter: &dyn report::Exporter,
    report: &Report,
    dest: &Dest,
) -> anyhow::Result<()> {
    for o in exporter
        .render(report)
        .with_context(|| format!("rendering the {} export", exporter.name()))?
    {
        dest.write(&o.bytes).with_context(|| {
            format!(
                "--export {} {}: cannot write",
                exporter.name(),
                dest.path().display()
            )
        })?;
    }
    Ok(())
}

pub fn run(args: &ExportArgs) -> CmdResult {
    let exporters = tracker_exporters(&args.export)?;
    let dir = ResultsDir::load(&args.dir)?;
    dir.require_rows_agree()?;
    if !args.allow_incomplete {
        dir.require_complete(
            "--allow-incomplete to export it anyway (its units named [incomplete])",
        )?;
    }
    let mut guard = Guard::new();
    guard.reads_results(&args.dir);
    let dests: Vec<Dest> = args
        .export
        .chunks(2)
        .filter_map(|c| c.get(1))
        .map(|file| guard.file("--export", Path::new(file)))
        .collect::<anyhow::Result<_>>()?;
    if !args.allow_untrusted {
        let code = untrusted(&dir);
        if code != 0 {
            return Ok(code);
        }
    }
    let report = Report::from_records(&dir.meta, dir.results.clone(), &[]);
    for (e, dest) in exporters.iter().zip(&dests) {
        write_tracker(e.as_ref(), &report, dest)?;
        super::print_text(&format!("wrote {}\n", dest.path().display()))?;
    }
    Ok(0)
}

/// Says on stderr which units the judge fails or cannot judge; the exit
/// status that refusing them gives (0: none).
fn untrusted(dir: &crate::results::ResultsDir) -> i32 {
    let mut findings = crate::judge::Findings::default();
    for r in &dir.results {
        let unit = format!("{}/{}", r.dataset, r.strategy);
        findings.extend(crate::judge::trackable(&r.side(&unit)));
    }
    let code = findings.exit_code();
    if code != 0 {
        for f in &findings.0 {
            super::print_err(&format!("bench-sudoku: {}", f.line()));
        }
        super::print_err(&format!(
            "{}: not exported: a tracker would record these numbers as a clean measurement \
             (--allow-untrusted to export them named [untrusted])",
            dir.path.display()
        ));
    }
    code
}
