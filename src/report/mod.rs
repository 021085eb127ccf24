//! Reports of a run: one exporter per format behind [`Exporter`], plus the
//! terminal table. Every file is written to a temporary name and renamed into
//! place, so a file that exists is a finished one.

pub mod bmf;
pub mod charts;
pub mod csv;
pub mod github;
pub mod hgrm;
pub mod html;
pub mod json;
pub mod markdown;
pub mod terminal;

use crate::bench::metrics::{ResultRecord, UnitStats};
use crate::bench::sysinfo::Meta;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Everything the exporters render.
pub struct Report<'a> {
    pub meta: &'a Meta,
    pub results: Vec<ResultRecord>,
    /// The aggregates behind `results` (histograms), same order.
    pub units: &'a [UnitStats],
}

impl<'a> Report<'a> {
    pub fn new(meta: &'a Meta, units: &'a [UnitStats]) -> Self {
        let results = units.iter().map(|u| u.summary(meta.threads)).collect();
        Report {
            meta,
            results,
            units,
        }
    }
}

/// One output format.
pub trait Exporter {
    /// A short name for messages.
    fn name(&self) -> &'static str;
    /// Writes the format's file(s) into `dir`; returns the paths written.
    fn export(&self, report: &Report, dir: &Path) -> anyhow::Result<Vec<PathBuf>>;
}

/// Every file exporter, in the order they are written.
pub fn exporters() -> Vec<Box<dyn Exporter>> {
    vec![
        Box::new(hgrm::Histograms),
        Box::new(csv::SummaryCsv),
        Box::new(json::SummaryJson),
        Box::new(markdown::SummaryMarkdown),
        Box::new(charts::Charts),
        Box::new(html::HtmlReport),
    ]
}

/// Formats of `--export FORMAT FILE` (benchmark trackers).
pub const TRACKER_FORMATS: [&str; 2] = ["bmf", "github-benchmark"];

/// The exporter of a benchmark-tracker format writing to `path`.
pub fn tracker_exporter(format: &str, path: &Path) -> anyhow::Result<Box<dyn Exporter>> {
    let path = path.to_path_buf();
    Ok(match format {
        "bmf" => Box::new(bmf::Bmf { path }),
        "github-benchmark" => Box::new(github::GithubBenchmark { path }),
        other => anyhow::bail!(
            "--export {other}: unknown format (expected one of: {})",
            TRACKER_FORMATS.join(", ")
        ),
    })
}

/// Writes `bytes` to `path` through a temporary file and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)
}

/// A file-name-safe form of a dataset or strategy name.
pub fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+') {
                c
            } else {
                '_'
            }
        })
        .collect()
}
