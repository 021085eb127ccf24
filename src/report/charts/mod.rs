//! `charts/`: the SVG charts, drawn with plotters (no external tools, no
//! fonts needed — the SVG viewer renders the text). Per dataset of a run:
//!
//! - `<dataset>-latency.svg` (`latency.rs`): the solve-time percentile
//!   distribution of every strategy, HdrHistogram style;
//! - `<dataset>-guesses.svg` (`guesses.rs`): the share of puzzles solved with
//!   fewer than 1, 2, 4, 8, … guesses, one line per strategy;
//! - `<dataset>-scatter.svg` (`scatter.rs`): solve time against guesses, one
//!   point per puzzle (at most [`SCATTER_MAX`] per strategy);
//! - `<dataset>-paired.svg` (`paired.rs`, interleaved runs only): the
//!   per-puzzle time ratios to the baseline;
//! - `<dataset>-classes.svg` (`classes.rs`, with a reference and
//!   puzzles.csv): each strategy's ratio to the reference by difficulty.
//!
//! and, for other commands, the chart of a parameter scan (`scan.rs`) and
//! the charts of `trend` (`trend/`).
//!
//! One chart a file: each describes its chart as a `Plot` (frame, axes,
//! marks) and `frame::render` draws it; the axes and their tick labels
//! (`axes.rs`) and the title, legend, colours and mesh (`frame.rs`) are
//! shared by all. This module keeps the exporter and the list of a
//! report's charts ([`render_all`]).
//!
//! Everything is drawn from the histograms and the samples of a
//! [`Report`]; `run` takes the samples from its aggregates and
//! `bench-sudoku report DIR` reads them back from `puzzles.csv`, and both
//! draw the same charts.

use super::{Exporter, Output, Report};
use crate::bench::metrics::UnitStats;
use crate::support::names::file_part;
use frame::{color_of, legend_label, strategy_colors};
use plotters::prelude::*;

mod axes;
mod classes;
mod frame;
mod guesses;
mod latency;
mod paired;
mod scan;
mod scatter;
pub mod trend;

pub use axes::short_ns;
pub use frame::{legend_lines, SIZE};
pub use guesses::cumulative_guess_shares;
pub use paired::{paired_axis, ratio_tick};
pub use scan::{scan_svg, ScanSeries};
pub use scatter::{read_samples, unit_samples, Samples, SCATTER_MAX};

/// A strategy's statistics on a dataset's charts, with its colour and its
/// legend entry (`frame::legend_label`).
type UnitSeries<'a> = (&'a UnitStats, RGBColor, &'a str);

/// The charts of a dataset (`Paired` only in interleaved runs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChartKind {
    Latency,
    Guesses,
    Scatter,
    Paired,
    Classes,
}

impl ChartKind {
    pub const ALL: [ChartKind; 5] = [
        ChartKind::Latency,
        ChartKind::Guesses,
        ChartKind::Scatter,
        ChartKind::Paired,
        ChartKind::Classes,
    ];

    /// The file-name suffix.
    pub fn slug(self) -> &'static str {
        match self {
            ChartKind::Latency => "latency",
            ChartKind::Guesses => "guesses",
            ChartKind::Scatter => "scatter",
            ChartKind::Paired => "paired",
            ChartKind::Classes => "classes",
        }
    }
}

/// One rendered chart.
#[derive(Clone, Debug)]
pub struct Chart {
    pub dataset: String,
    pub kind: ChartKind,
    /// A standalone SVG document.
    pub svg: String,
}

impl Chart {
    /// `charts/<dataset>-<kind>.svg`, relative to the results directory.
    pub fn rel_path(&self) -> String {
        format!(
            "charts/{}-{}.svg",
            file_part(&self.dataset),
            self.kind.slug()
        )
    }
}

/// Writes `charts/*.svg`.
pub struct Charts;

impl Exporter for Charts {
    fn name(&self) -> &'static str {
        "charts"
    }
    fn render(&self, report: &Report) -> anyhow::Result<Vec<Output>> {
        Ok(report
            .charts()?
            .iter()
            .map(|c| Output::new(c.rel_path(), c.svg.as_bytes()))
            .collect())
    }
}

/// The datasets of a report, in order of first appearance.
pub fn datasets(report: &Report) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in &report.results {
        if !out.contains(&r.dataset) {
            out.push(r.dataset.clone());
        }
    }
    out
}

/// Every chart of every dataset, in dataset order (latency, guesses,
/// scatter, paired). The scatter's points are the report's
/// ([`Report::with_scatter`]).
pub fn render_all(report: &Report) -> anyhow::Result<Vec<Chart>> {
    let colors = strategy_colors(report);
    let mut charts = Vec::new();
    for ds in datasets(report) {
        let units: Vec<(&UnitStats, RGBColor)> = report
            .units
            .iter()
            .filter(|u| u.dataset == ds)
            .map(|u| (u, color_of(&colors, &u.strategy)))
            .collect();
        let labels: Vec<String> = units.iter().map(|(u, _)| legend_label(u)).collect();
        let units: Vec<(&UnitStats, RGBColor, &str)> = units
            .iter()
            .zip(&labels)
            .map(|(&(u, c), l)| (u, c, l.as_str()))
            .collect();
        let chart = |kind, svg| Chart {
            dataset: ds.clone(),
            kind,
            svg,
        };
        charts.push(chart(ChartKind::Latency, latency::svg(&ds, &units)?));
        charts.push(chart(ChartKind::Guesses, guesses::svg(&ds, &units)?));
        let scatter = scatter::svg(&ds, &units, report.scatter())?;
        charts.push(chart(ChartKind::Scatter, scatter));
        if let Some(svg) = paired::svg(&ds, &report.results, &units, &colors)? {
            charts.push(chart(ChartKind::Paired, svg));
        }
        if let Some(b) = &report.by_class {
            if let Some(svg) = classes::svg(&ds, b, &|s| color_of(&colors, s))? {
                charts.push(chart(ChartKind::Classes, svg));
            }
        }
    }
    Ok(charts)
}
