//! Reports of a run: one exporter per format behind [`Exporter`], plus the
//! terminal table; a parameter scan's files behind [`scan::ScanExporter`]. Every file is written to a temporary name and renamed into
//! place, so a file that exists is a finished one.

pub mod bmf;
pub mod charts;
pub mod classes;
pub mod comment;
pub mod csv;
pub mod finish;
pub mod github;
pub mod headline;
pub mod hgrm;
pub mod html;
pub mod json;
pub mod markdown;
pub mod rank;
pub mod scan;
pub mod terminal;
pub mod trend;
pub mod worst;

use crate::bench::metrics::UnitStats;
use crate::results::meta::Meta;
use crate::results::ResultRecord;
use std::path::{Path, PathBuf};

/// Everything the exporters render.
pub struct Report<'a> {
    pub meta: &'a Meta,
    pub results: Vec<ResultRecord>,
    /// The aggregates behind `results` (histograms), same order.
    pub units: &'a [UnitStats],
    /// The scatter chart's per-puzzle points ([`Report::with_scatter`],
    /// [`Report::with_unit_scatter`]); `None` when the run has no
    /// puzzles.csv. Set only by those two, which also forget the charts
    /// drawn.
    scatter: Option<charts::Samples>,
    /// The slowest puzzles and the candidates' largest losses
    /// ([`Report::with_rows`]); `None` when the run has no puzzles.csv.
    worst: Option<worst::Worst>,
    /// The charts, drawn once for every exporter that shows them
    /// ([`Report::charts`]).
    charts: std::cell::OnceCell<Vec<charts::Chart>>,
    /// The verdict of `run --gate`, for summary.json.
    pub gate: Option<crate::results::gate::GateRecord>,
    /// Every comparison by difficulty ([`Report::with_rows`]); `None`
    /// without puzzles.csv.
    pub by_class: Option<crate::results::classes::ByClass>,
}

impl<'a> Report<'a> {
    pub fn new(meta: &'a Meta, units: &'a [UnitStats]) -> Self {
        let results = units
            .iter()
            .map(|u| crate::results::ResultRecord::of(u, meta.threads))
            .collect();
        Report::from_records(meta, results, units)
    }

    /// A report of summary records as they were written (`units` holds
    /// their histograms, or is empty for exporters that need none).
    pub fn from_records(
        meta: &'a Meta,
        results: Vec<ResultRecord>,
        units: &'a [UnitStats],
    ) -> Self {
        Report {
            meta,
            results,
            units,
            scatter: None,
            worst: None,
            charts: std::cell::OnceCell::new(),
            gate: None,
            by_class: None,
        }
    }

    /// The same report under another meta (e.g. one marked incomplete):
    /// the same records, units and scatter points; charts drawn anew.
    pub fn with_meta<'b>(&'b self, meta: &'b Meta) -> Report<'b> {
        Report {
            meta,
            results: self.results.clone(),
            units: self.units,
            scatter: self.scatter.clone(),
            worst: self.worst.clone(),
            charts: std::cell::OnceCell::new(),
            gate: self.gate.clone(),
            by_class: self.by_class.clone(),
        }
    }

    /// The scatter chart's points, `None` without a `puzzles.csv`.
    pub fn scatter(&self) -> Option<&charts::Samples> {
        self.scatter.as_ref()
    }

    /// Every chart of the report ([`charts::render_all`]), drawn on the
    /// first call: `charts/*.svg` and the page embed the same drawings.
    pub fn charts(&self) -> anyhow::Result<&[charts::Chart]> {
        if let Some(c) = self.charts.get() {
            return Ok(c);
        }
        let drawn = charts::render_all(self)?;
        Ok(self.charts.get_or_init(|| drawn))
    }

    /// Adds what `dir/puzzles.csv` holds, when there is one: the scatter
    /// chart's points and what [`with_rows`](Self::with_rows) adds.
    pub fn with_scatter(mut self, dir: &Path) -> anyhow::Result<Self> {
        self.scatter = charts::read_samples(&dir.join("puzzles.csv"))?;
        self.charts = std::cell::OnceCell::new();
        self.with_rows(dir)
    }

    /// The slowest puzzles and each candidate's largest losses, `None`
    /// without a `puzzles.csv`.
    pub fn worst(&self) -> Option<&worst::Worst> {
        self.worst.as_ref()
    }

    /// Adds what is read back from `dir/puzzles.csv`, when there is one, in
    /// one pass shared by both: the tables of slowest puzzles and of each
    /// paired candidate's largest losses to its baseline (their lines found
    /// in the datasets), and the classes of difficulty.
    pub fn with_rows(mut self, dir: &Path) -> anyhow::Result<Self> {
        let path = dir.join("puzzles.csv");
        if !path.is_file() {
            return Ok(self);
        }
        let pairs: Vec<(String, String, String)> = self
            .results
            .iter()
            .filter_map(|r| {
                let p = r.paired.as_ref().filter(|p| p.pairs > 0)?;
                Some((r.dataset.clone(), r.strategy.clone(), p.baseline.clone()))
            })
            .collect();
        let mut first = worst::FirstPass::new(&pairs);
        let mut classes = crate::results::classes::ClassRows::new(self.meta);
        crate::results::puzzles::PuzzleRows::feed(&path, &mut [&mut first, &mut classes])?;
        let mut worst = worst::Worst::after(&path, first)?;
        worst.locate(&self.meta.datasets);
        self.worst = Some(worst);
        self.by_class = Some(crate::results::classes::ByClass::of_rows(
            classes, self.meta,
        ));
        self.charts = std::cell::OnceCell::new();
        Ok(self)
    }

    /// Adds the scatter chart's points the units sampled while they ran
    /// (the points [`with_scatter`](Self::with_scatter) would read back
    /// from the `puzzles.csv` they wrote), when there is a `puzzles.csv`.
    pub fn with_unit_scatter(mut self, wrote_puzzles_csv: bool) -> Self {
        self.scatter = wrote_puzzles_csv.then(|| charts::unit_samples(self.units));
        self.charts = std::cell::OnceCell::new();
        self
    }
}

/// A file an exporter renders: where it goes (relative to the results
/// directory, or absolute) and its bytes.
pub struct Output {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

impl Output {
    pub fn new(path: impl Into<PathBuf>, bytes: impl Into<Vec<u8>>) -> Self {
        Output {
            path: path.into(),
            bytes: bytes.into(),
        }
    }
}

/// One output format: it turns a report into bytes and writes nothing
/// itself; [`write`] puts the files in place.
pub trait Exporter {
    /// A short name for messages.
    fn name(&self) -> &'static str;
    /// The format's file(s).
    fn render(&self, report: &Report) -> anyhow::Result<Vec<Output>>;
    /// Renders and writes the files into `dir`; returns the paths written.
    fn export(&self, report: &Report, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
        write(&self.render(report)?, dir)
    }
}

/// Writes rendered files under `dir` (each atomically, parent directories
/// created); returns their paths. The one place exporters' files reach the
/// disk.
pub fn write(outputs: &[Output], dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    use anyhow::Context;
    let mut written = Vec::with_capacity(outputs.len());
    for o in outputs {
        let path = dir.join(&o.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("{}: cannot create", parent.display()))?;
        }
        crate::support::files::write_atomic(&path, &o.bytes)
            .with_context(|| format!("{}: cannot write", path.display()))?;
        written.push(path);
    }
    Ok(written)
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
///
/// The file is the user's, named from the working directory: its path is
/// made absolute here, so that [`write`] does not put it in the results
/// directory.
pub fn tracker_exporter(format: &str, path: &Path) -> anyhow::Result<Box<dyn Exporter>> {
    use anyhow::Context;
    let path = std::path::absolute(path)
        .with_context(|| format!("--export {}: not a usable path", path.display()))?;
    Ok(match format {
        "bmf" => Box::new(bmf::Bmf { path }),
        "github-benchmark" => Box::new(github::GithubBenchmark { path }),
        other => anyhow::bail!(
            "--export {other}: unknown format (expected one of: {})",
            TRACKER_FORMATS.join(", ")
        ),
    })
}
