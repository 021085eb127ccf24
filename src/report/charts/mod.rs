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
mod scatter;
pub mod trend;

pub use axes::short_ns;
pub use frame::{legend_lines, SIZE};
pub use guesses::cumulative_guess_shares;
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
        let paired: Vec<PairedSeries> = report
            .results
            .iter()
            .filter(|r| r.dataset == ds)
            .filter_map(|r| {
                let p = r.paired.as_ref().filter(|p| p.pairs > 0)?;
                // The same legend entry as on the other charts.
                let label = units
                    .iter()
                    .find(|(u, _, _)| u.strategy == r.strategy)
                    .map_or(r.strategy.as_str(), |(_, _, l)| l);
                Some((label, color_of(&colors, &r.strategy), p))
            })
            .collect();
        if !paired.is_empty() {
            charts.push(Chart {
                dataset: ds.clone(),
                kind: ChartKind::Paired,
                svg: paired_svg(&ds, &paired)?,
            });
        }
    }
    Ok(charts)
}

/// A line's points.
type LinePoints = Vec<(f64, f64)>;

/// A strategy's paired comparison on the paired chart.
type PairedSeries<'a> = (&'a str, RGBColor, &'a crate::bench::paired::Paired);

/// The distribution of per-puzzle time ratios (strategy / baseline) on a
/// log2 axis, one line per strategy, with the geometric mean marked.
fn paired_svg(dataset: &str, series: &[PairedSeries]) -> anyhow::Result<String> {
    use crate::bench::paired::CHART_BIN_LOG2;
    let w = CHART_BIN_LOG2;
    let pairs: Vec<&crate::bench::paired::Paired> = series.iter().map(|s| s.2).collect();
    let (lo, hi) = paired_axis(&pairs);
    let (core_lo, core_hi) = paired_core(&pairs);
    let mut ymax = 1.0f64;
    // (label, colour, points, log2 of the geometric mean) per strategy.
    let mut lines: Vec<(&str, RGBColor, LinePoints, f64)> = Vec::new();
    for (name, color, p) in series {
        // Wider bins for fewer pairs (about 2·√n bins over the range
        // holding most ratios, at least 16, at most 160), so that the
        // curves show the shape, not the noise; the outliers beyond it
        // fall in bins of the same width, at most 1,000 over the axis.
        let n = p.pairs.max(1) as f64;
        let bins = (2.0f64 * n.sqrt()).clamp(16.0, 160.0);
        let width = (((core_hi - core_lo) / bins) / w)
            .ceil()
            .max(((hi - lo) / 1000.0 / w).ceil())
            .max(1.0)
            * w;
        let count = ((hi - lo) / width).ceil().max(1.0) as usize;
        let mut shares = vec![0.0f64; count];
        for &(edge, c) in &p.log2_histogram {
            let i = (((edge + w / 2.0 - lo) / width).floor().max(0.0) as usize).min(count - 1);
            shares[i] += c as f64 * 100.0 / n;
        }
        ymax = shares.iter().copied().fold(ymax, f64::max);
        let pts = shares
            .iter()
            .enumerate()
            .map(|(i, &v)| (lo + (i as f64 + 0.5) * width, v))
            .collect();
        lines.push((name, *color, pts, p.geomean_ratio.log2()));
    }
    // A tick at every power of two, or of 4, 16, … when the axis is wide.
    let mut step = 1;
    while (hi - lo) / f64::from(step) > 16.0 {
        step *= 2;
    }
    let xticks: Vec<f64> = (lo as i32..=hi as i32)
        .filter(|e| e.rem_euclid(step) == 0)
        .map(f64::from)
        .collect();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let entries: Vec<(&str, RGBColor)> = lines.iter().map(|(n, c, _, _)| (*n, *c)).collect();
        let baseline = series.first().map_or("", |s| s.2.baseline.as_str());
        let area = frame(
            &root,
            &format!("{dataset}: per-puzzle time ratio to {baseline}"),
            &entries,
            Marker::Line,
        )?;
        let mut chart = plot_builder(&area)
            .build_cartesian_2d(Axis::new(lo..hi, xticks), 0.0..ymax * 1.1)
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .x_desc(
                "time / the baseline's time, same puzzle (log scale, every ratio on the axis; dashed: geometric mean)",
            )
            .y_desc("share of puzzles (%)")
            .x_label_formatter(&|x: &f64| ratio_tick(*x))
            .y_label_formatter(&|y: &f64| format!("{y:.1}%"))
            .label_style((FONT, 17))
            .axis_desc_style((FONT, 19))
            .light_line_style(RGBColor(235, 235, 235))
            .bold_line_style(RGBColor(200, 200, 200))
            .draw()
            .map_err(plot_err)?;
        chart
            .draw_series(LineSeries::new(
                [(0.0, 0.0), (0.0, ymax * 1.1)],
                RGBColor(120, 120, 120).stroke_width(1),
            ))
            .map_err(plot_err)?;
        for (_, color, pts, mean) in &lines {
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
                .map_err(plot_err)?;
            // Always within the axis (paired_axis covers every mean).
            if mean.is_finite() {
                chart
                    .draw_series(DashedLineSeries::new(
                        [(*mean, 0.0), (*mean, ymax * 1.1)],
                        6,
                        4,
                        color.stroke_width(2),
                    ))
                    .map_err(plot_err)?;
            }
        }
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
}

/// The paired chart's x axis, in log2 of the ratio: whole powers of two
/// around every ratio of every strategy (the first and last non-empty bins
/// of their histograms) and every geometric mean, and at least 1/2 to 2.
/// Nothing lies off it: a solver 2,000× slower than the baseline stretches
/// the axis to 2048×.
pub fn paired_axis(pairs: &[&crate::bench::paired::Paired]) -> (f64, f64) {
    use crate::bench::paired::CHART_BIN_LOG2;
    let (mut lo, mut hi) = (-1.0f64, 1.0f64);
    for p in pairs {
        if let (Some(first), Some(last)) = (p.log2_histogram.first(), p.log2_histogram.last()) {
            lo = lo.min(first.0);
            hi = hi.max(last.0 + CHART_BIN_LOG2);
        }
        let mean = p.geomean_ratio.log2();
        if mean.is_finite() {
            lo = lo.min(mean);
            hi = hi.max(mean);
        }
    }
    (lo.floor(), hi.ceil())
}

/// The range (log2) holding 99.8 % of each strategy's ratios, widened to
/// at least 1/2 to 2: what the bin width is chosen for.
fn paired_core(pairs: &[&crate::bench::paired::Paired]) -> (f64, f64) {
    let w = crate::bench::paired::CHART_BIN_LOG2;
    let (mut lo, mut hi) = (-1.0f64, 1.0f64);
    for p in pairs {
        let cut = (p.pairs as f64 * 0.001).floor() as u64;
        // The first bin (from either end) past the 0.1 % cut.
        let past_cut = |bins: &mut dyn Iterator<Item = &(f64, u64)>| {
            let mut seen = 0u64;
            for &(edge, c) in bins {
                seen += c;
                if seen > cut {
                    return Some(edge);
                }
            }
            None
        };
        if let Some(e) = past_cut(&mut p.log2_histogram.iter()) {
            lo = lo.min(e);
        }
        if let Some(e) = past_cut(&mut p.log2_histogram.iter().rev()) {
            hi = hi.max(e + w);
        }
    }
    (lo, hi)
}

/// A tick label of the paired chart at `2^x`: `4×`, `1/8`, `4Ki×` (a
/// multiple of 1,024), `1/2Ki`.
pub fn ratio_tick(x: f64) -> String {
    let whole = |r: f64| {
        let r = r.round() as u64;
        if r >= 1 << 20 && r.is_multiple_of(1 << 20) {
            format!("{}Mi", r >> 20)
        } else if r >= 1 << 10 && r.is_multiple_of(1 << 10) {
            format!("{}Ki", r >> 10)
        } else {
            r.to_string()
        }
    };
    let r = x.exp2();
    if r >= 1.0 {
        format!("{}×", whole(r))
    } else {
        format!("1/{}", whole(1.0 / r))
    }
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
