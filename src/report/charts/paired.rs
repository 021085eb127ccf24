//! `<dataset>-paired.svg`, in interleaved runs: the distribution of the
//! per-puzzle time ratios (strategy / baseline, same puzzle) on a log2
//! axis, one line per strategy, with each geometric mean marked by a
//! dashed line. The axis reaches every ratio measured, however far.

use super::axes::Axis;
use super::frame::{color_of, plot_err, render, Area, Chart2d, Frame, Marker, Plot};
use super::UnitSeries;
use crate::bench::paired::{Paired, CHART_BIN_LOG2};
use crate::results::ResultRecord;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

/// The paired chart of one dataset, `None` when no strategy of it was
/// paired. Each strategy keeps the legend entry of `units` and the colour
/// it has among `colors` ([`super::frame::strategy_colors`]).
pub(super) fn svg(
    dataset: &str,
    results: &[ResultRecord],
    units: &[UnitSeries],
    colors: &[String],
) -> anyhow::Result<Option<String>> {
    let series: Vec<PairedSeries> = results
        .iter()
        .filter(|r| r.dataset == dataset)
        .filter_map(|r| {
            let p = r.paired.as_ref().filter(|p| p.pairs > 0)?;
            // The same legend entry as on the other charts.
            let label = units
                .iter()
                .find(|(u, _, _)| u.strategy == r.strategy)
                .map_or(r.strategy.as_str(), |(_, _, l)| l);
            Some((label, color_of(colors, &r.strategy), p))
        })
        .collect();
    if series.is_empty() {
        return Ok(None);
    }
    render(&PairedChart::new(dataset, &series)).map(Some)
}

/// A strategy's paired comparison on the paired chart.
type PairedSeries<'a> = (&'a str, RGBColor, &'a Paired);

/// A strategy's line: label, colour, points `(log2 ratio, share of
/// puzzles in %)`, and the log2 of its geometric mean.
type Line<'a> = (&'a str, RGBColor, Vec<(f64, f64)>, f64);

/// The paired chart of a dataset, ready to draw.
struct PairedChart<'a> {
    dataset: &'a str,
    baseline: &'a str,
    lines: Vec<Line<'a>>,
    /// The x axis, in log2 of the ratio ([`paired_axis`]).
    lo: f64,
    hi: f64,
    /// The largest share of any bin (at least 1 %).
    ymax: f64,
}

impl<'a> PairedChart<'a> {
    fn new(dataset: &'a str, series: &[PairedSeries<'a>]) -> Self {
        let pairs: Vec<&Paired> = series.iter().map(|s| s.2).collect();
        let (lo, hi) = paired_axis(&pairs);
        let core = paired_core(&pairs);
        let mut ymax = 1.0f64;
        let mut lines: Vec<Line> = Vec::new();
        for &(name, color, p) in series {
            let pts = shares(p, (lo, hi), core);
            ymax = pts.iter().map(|&(_, v)| v).fold(ymax, f64::max);
            lines.push((name, color, pts, p.geomean_ratio.log2()));
        }
        PairedChart {
            dataset,
            baseline: series.first().map_or("", |s| s.2.baseline.as_str()),
            lines,
            lo,
            hi,
            ymax,
        }
    }
}

/// The share of `p`'s puzzles (%) in each bin over the axis `(lo, hi)`, at
/// the bins' middles. Wider bins for fewer pairs (about 2·√n bins over the
/// `core` range holding most ratios, at least 16, at most 160), so that
/// the curves show the shape, not the noise; the outliers beyond it fall
/// in bins of the same width, at most 1,000 over the axis.
fn shares(p: &Paired, (lo, hi): (f64, f64), (core_lo, core_hi): (f64, f64)) -> Vec<(f64, f64)> {
    let w = CHART_BIN_LOG2;
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
    shares
        .iter()
        .enumerate()
        .map(|(i, &v)| (lo + (i as f64 + 0.5) * width, v))
        .collect()
}

impl Plot for PairedChart<'_> {
    type X = Axis;
    type Y = RangedCoordf64;

    fn frame(&self) -> Frame<'_> {
        let entries = self.lines.iter().map(|(n, c, _, _)| (*n, *c)).collect();
        let title = format!(
            "{}: per-puzzle time ratio to {}",
            self.dataset, self.baseline
        );
        Frame::new(title, entries, Marker::Line)
            .x_axis(
                "time / the baseline's time, same puzzle (log scale, every ratio on the axis; dashed: geometric mean)",
                |x: &f64| ratio_tick(*x),
            )
            .y_axis("share of puzzles (%)", |y: &f64| format!("{y:.1}%"))
    }

    fn axes(&self) -> (Axis, RangedCoordf64) {
        // A tick at every power of two, or of 4, 16, … when the axis is wide.
        let (lo, hi) = (self.lo, self.hi);
        let mut step = 1;
        while (hi - lo) / f64::from(step) > 16.0 {
            step *= 2;
        }
        let xticks: Vec<f64> = (lo as i32..=hi as i32)
            .filter(|e| e.rem_euclid(step) == 0)
            .map(f64::from)
            .collect();
        (Axis::new(lo..hi, xticks), (0.0..self.ymax * 1.1).into())
    }

    fn marks(
        &self,
        chart: &mut Chart2d<'_, '_, Axis, RangedCoordf64>,
        _: &Area,
    ) -> anyhow::Result<()> {
        let top = self.ymax * 1.1;
        // 1×: the baseline's time.
        chart
            .draw_series(LineSeries::new(
                [(0.0, 0.0), (0.0, top)],
                RGBColor(120, 120, 120).stroke_width(1),
            ))
            .map_err(plot_err)?;
        for (_, color, pts, mean) in &self.lines {
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
                .map_err(plot_err)?;
            // Always within the axis (paired_axis covers every mean).
            if mean.is_finite() {
                chart
                    .draw_series(DashedLineSeries::new(
                        [(*mean, 0.0), (*mean, top)],
                        6,
                        4,
                        color.stroke_width(2),
                    ))
                    .map_err(plot_err)?;
            }
        }
        Ok(())
    }
}

/// The paired chart's x axis, in log2 of the ratio: whole powers of two
/// around every ratio of every strategy (the first and last non-empty bins
/// of their histograms) and every geometric mean, and at least 1/2 to 2.
/// Nothing lies off it: a solver 2,000× slower than the baseline stretches
/// the axis to 2048×.
pub fn paired_axis(pairs: &[&Paired]) -> (f64, f64) {
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
fn paired_core(pairs: &[&Paired]) -> (f64, f64) {
    let w = CHART_BIN_LOG2;
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
