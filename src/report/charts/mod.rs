//! `charts/`: per dataset, three SVG charts drawn with plotters (no external
//! tools, no fonts needed — the SVG viewer renders the text):
//!
//! - `<dataset>-latency.svg`: the solve-time percentile distribution of every
//!   strategy, HdrHistogram style (x = percentile on a log "nines" axis,
//!   i.e. `1/(1−p)` log-scaled; y = time, log-scaled);
//! - `<dataset>-guesses.svg`: the share of puzzles solved with fewer than
//!   1, 2, 4, 8, … guesses, one line per strategy;
//! - `<dataset>-scatter.svg`: solve time against guesses, one point per
//!   puzzle (at most [`SCATTER_MAX`] per strategy, the same puzzles for
//!   every strategy, sampled as `bench::points` describes), log axes.
//!
//! Everything is drawn from the histograms and the samples of a
//! [`Report`]; `run` takes the samples from its aggregates and
//! `bench-sudoku report DIR` reads them back from `puzzles.csv`, and both
//! draw the same charts.

use super::{file_part, Exporter, Output, Report};
use crate::bench::metrics::UnitStats;
use axes::Axis;
use frame::{
    color_of, legend_label, plot_builder, plot_err, strategy_colors, title_and_legend as frame,
    Marker, FONT, PALETTE,
};
use plotters::prelude::*;

mod axes;
mod frame;
mod guesses;
mod latency;
mod paired;
mod scatter;
pub mod trend;

pub use axes::short_ns;
pub use frame::{legend_lines, SIZE};
pub use guesses::cumulative_guess_shares;
pub use paired::{paired_axis, ratio_tick};
pub use scatter::{read_samples, unit_samples, Samples, SCATTER_MAX};

/// A strategy's statistics on a dataset's charts, with its colour and its
/// legend entry ([`frame::legend_label`]).
type UnitSeries<'a> = (&'a UnitStats, RGBColor, &'a str);

/// The charts of a dataset (`Paired` only in interleaved runs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChartKind {
    Latency,
    Guesses,
    Scatter,
    Paired,
}

impl ChartKind {
    pub const ALL: [ChartKind; 4] = [
        ChartKind::Latency,
        ChartKind::Guesses,
        ChartKind::Scatter,
        ChartKind::Paired,
    ];

    /// The file-name suffix.
    pub fn slug(self) -> &'static str {
        match self {
            ChartKind::Latency => "latency",
            ChartKind::Guesses => "guesses",
            ChartKind::Scatter => "scatter",
            ChartKind::Paired => "paired",
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
        charts.push(Chart {
            dataset: ds.clone(),
            kind: ChartKind::Latency,
            svg: latency::svg(&ds, &units)?,
        });
        charts.push(Chart {
            dataset: ds.clone(),
            kind: ChartKind::Guesses,
            svg: guesses::svg(&ds, &units)?,
        });
        charts.push(Chart {
            dataset: ds.clone(),
            kind: ChartKind::Scatter,
            svg: scatter::svg(&ds, &units, report.scatter())?,
        });
        if let Some(svg) = paired::svg(&ds, &report.results, &units, &colors)? {
            charts.push(Chart {
                dataset: ds.clone(),
                kind: ChartKind::Paired,
                svg,
            });
        }
    }
    Ok(charts)
}

/// One strategy's curve on a scan chart: `(value, y)` points.
pub type ScanSeries = (String, Vec<(f64, f64)>);

/// The chart of a parameter scan on one dataset: for `threads`, the speedup
/// over the smallest thread count (throughput ratio) with the ideal line
/// y = x / x₀; for any other key, the mean solve time per value. `ticks`
/// are the x axis's labelled positions, the scanned values (a thread count
/// is a whole number: the axis has no tick between two values).
pub fn scan_svg(
    dataset: &str,
    key: &str,
    series: &[ScanSeries],
    ticks: &[(f64, String)],
    speedup: bool,
) -> anyhow::Result<String> {
    // Only finite points are drawn: an infinite or NaN coordinate would
    // give the axes no finite range to lay ticks on.
    let series: Vec<ScanSeries> = series
        .iter()
        .map(|(n, p)| {
            let finite = p
                .iter()
                .copied()
                .filter(|(x, y)| x.is_finite() && y.is_finite());
            (n.clone(), finite.collect())
        })
        .collect();
    let xs: Vec<f64> = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|&(x, _)| x))
        .collect();
    let (lo, hi) = xs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    // The axis spans the values; a single value (or none) gets a unit-wide
    // axis around it.
    let (xmin, xmax) = if !lo.is_finite() {
        (0.0, 1.0)
    } else if hi > lo {
        // A margin, so that the first and last points are not drawn on
        // the frame.
        let pad = (hi - lo) * 0.04;
        (lo - pad, hi + pad)
    } else {
        (lo - 0.5, lo + 0.5)
    };
    let ticks: Vec<(f64, String)> = ticks
        .iter()
        .filter(|(x, _)| x.is_finite())
        .cloned()
        .collect();
    let tick_label = |x: &f64| {
        ticks
            .iter()
            .find(|(t, _)| (t - x).abs() < 1e-9)
            .map_or_else(String::new, |(_, l)| l.clone())
    };
    // The ideal speedup over the first value is x / (that value's x): only
    // for a positive smallest value.
    let ideal: Vec<(f64, f64)> = if speedup && lo.is_finite() && lo > 0.0 {
        xs.iter().map(|&x| (x, x / lo)).collect()
    } else {
        Vec::new()
    };
    let ymax = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|&(_, y)| y))
        .chain(ideal.iter().map(|&(_, y)| y))
        .fold(0f64, f64::max)
        * 1.1;
    let ymax = if ymax.is_finite() && ymax > 0.0 {
        ymax
    } else {
        1.0
    };
    let names: Vec<String> = series.iter().map(|(n, _)| n.clone()).collect();
    let palette = |i: usize| PALETTE[i % PALETTE.len()];
    let mut entries: Vec<(&str, RGBColor)> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), palette(i)))
        .collect();
    if speedup {
        entries.push(("ideal (linear)", RGBColor(150, 150, 150)));
    }
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let title = if speedup {
            if lo.is_finite() {
                format!("{dataset}: speedup over {lo} {key}")
            } else {
                format!("{dataset}: speedup by {key}")
            }
        } else {
            format!("{dataset}: mean solve time by {key}")
        };
        let area = frame(&root, &title, &entries, Marker::Line)?;
        let xaxis = Axis::new(xmin..xmax, ticks.iter().map(|(x, _)| *x).collect());
        let mut chart = plot_builder(&area)
            .build_cartesian_2d(xaxis, 0.0..ymax)
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .x_desc(key)
            .x_label_formatter(&tick_label)
            .y_desc(if speedup {
                "speedup (throughput / the first value's)"
            } else {
                "mean solve time (µs)"
            })
            .label_style((FONT, 17))
            .axis_desc_style((FONT, 19))
            .light_line_style(RGBColor(235, 235, 235))
            .bold_line_style(RGBColor(200, 200, 200))
            .draw()
            .map_err(plot_err)?;
        if speedup {
            let mut line = ideal.clone();
            line.sort_by(|a, b| a.0.total_cmp(&b.0));
            line.dedup();
            chart
                .draw_series(LineSeries::new(
                    line,
                    RGBColor(150, 150, 150).stroke_width(1),
                ))
                .map_err(plot_err)?;
        }
        for (i, (_, pts)) in series.iter().enumerate() {
            let c = palette(i);
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), c.stroke_width(2)))
                .map_err(plot_err)?;
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 4, c.filled())))
                .map_err(plot_err)?;
        }
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Draws a scan chart on another thread; panics if it takes more than
    /// 20 seconds (a chart over a degenerate axis used to loop for ever).
    fn scan_within_time(series: Vec<ScanSeries>, speedup: bool) -> String {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let ticks: Vec<(f64, String)> = series
                .iter()
                .flat_map(|(_, p)| p.iter().map(|&(x, _)| (x, format!("{x}"))))
                .collect();
            let _ = tx.send(scan_svg("d", "threads", &series, &ticks, speedup));
        });
        rx.recv_timeout(std::time::Duration::from_secs(20))
            .expect("the scan chart is drawn in time")
            .expect("the scan chart is drawn")
    }

    #[test]
    fn a_scan_chart_over_a_degenerate_axis_is_drawn() {
        // Every x equal (a thread list with one value twice), x = 0, one
        // point, no point, and values that are not finite.
        for pts in [
            vec![(1.0, 1.0), (1.0, 1.02)],
            vec![(0.0, 1.0), (2.0, 1.9)],
            vec![(0.0, 1.0), (0.0, 1.0)],
            vec![(4.0, 3.0)],
            vec![],
            vec![(f64::NAN, 1.0), (2.0, f64::INFINITY), (3.0, 1.5)],
        ] {
            for speedup in [true, false] {
                let svg = scan_within_time(vec![("s".to_string(), pts.clone())], speedup);
                assert!(svg.starts_with("<svg"), "{pts:?}");
            }
        }
    }
}
