//! `charts/scan-*.svg` of a parameter scan (`run --scan`, `-j 1,2,4`), one
//! per dataset: for `threads`, the speedup over the smallest thread count
//! (throughput ratio) with the ideal line y = x / x₀; for any other key,
//! the mean solve time per value. Drawn whatever the axis: all values
//! equal, a value of 0, one point or none, values that are not finite.

use super::axes::Axis;
use super::frame::{line_with_dots, palette, plot_err, render, Area, Chart2d, Frame, Marker, Plot};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

/// One strategy's curve on a scan chart: `(value, y)` points.
pub type ScanSeries = (String, Vec<(f64, f64)>);

/// The colour of the ideal line.
const IDEAL: RGBColor = RGBColor(150, 150, 150);

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
    let ticks: Vec<(f64, String)> = ticks
        .iter()
        .filter(|(x, _)| x.is_finite())
        .cloned()
        .collect();
    render(&Scan::new(dataset, key, series, ticks, speedup))
}

/// The chart of a scan on a dataset, ready to draw.
struct Scan<'a> {
    dataset: &'a str,
    key: &'a str,
    speedup: bool,
    /// The curves, finite points only.
    series: Vec<ScanSeries>,
    /// The labelled positions of the x axis and their labels.
    ticks: Vec<(f64, String)>,
    /// The smallest value (infinite when there is none).
    lo: f64,
    /// The x axis's range.
    x: (f64, f64),
    /// The ideal speedup at each point's value (none: not drawn).
    ideal: Vec<(f64, f64)>,
    /// The top of the y axis.
    ymax: f64,
}

impl<'a> Scan<'a> {
    fn new(
        dataset: &'a str,
        key: &'a str,
        series: Vec<ScanSeries>,
        ticks: Vec<(f64, String)>,
        speedup: bool,
    ) -> Self {
        let xs: Vec<f64> = series
            .iter()
            .flat_map(|(_, p)| p.iter().map(|&(x, _)| x))
            .collect();
        let (lo, hi) = xs
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
                (a.min(x), b.max(x))
            });
        // The ideal speedup over the first value is x / (that value's x):
        // only for a positive smallest value.
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
        Scan {
            dataset,
            key,
            speedup,
            series,
            ticks,
            lo,
            x: x_range(lo, hi),
            ideal,
            ymax: if ymax.is_finite() && ymax > 0.0 {
                ymax
            } else {
                1.0
            },
        }
    }
}

/// The x axis over the values `lo..=hi`; a single value (or none: `lo`
/// infinite) gets a unit-wide axis around it.
fn x_range(lo: f64, hi: f64) -> (f64, f64) {
    if !lo.is_finite() {
        (0.0, 1.0)
    } else if hi > lo {
        // A margin, so that the first and last points are not drawn on
        // the frame.
        let pad = (hi - lo) * 0.04;
        (lo - pad, hi + pad)
    } else {
        (lo - 0.5, lo + 0.5)
    }
}

impl Plot for Scan<'_> {
    type X = Axis;
    type Y = RangedCoordf64;

    fn frame(&self) -> Frame<'_> {
        let (dataset, key, lo) = (self.dataset, self.key, self.lo);
        let title = if !self.speedup {
            format!("{dataset}: mean solve time by {key}")
        } else if lo.is_finite() {
            format!("{dataset}: speedup over {lo} {key}")
        } else {
            format!("{dataset}: speedup by {key}")
        };
        let mut entries: Vec<(&str, RGBColor)> = self
            .series
            .iter()
            .enumerate()
            .map(|(i, (n, _))| (n.as_str(), palette(i)))
            .collect();
        if self.speedup {
            entries.push(("ideal (linear)", IDEAL));
        }
        let tick_label = |x: &f64| {
            self.ticks
                .iter()
                .find(|(t, _)| (t - x).abs() < 1e-9)
                .map_or_else(String::new, |(_, l)| l.clone())
        };
        Frame::new(title, entries, Marker::Line)
            .x_axis(key, tick_label)
            .y_desc(if self.speedup {
                "speedup (throughput / the first value's)"
            } else {
                "mean solve time (µs)"
            })
    }

    fn axes(&self) -> (Axis, RangedCoordf64) {
        let xaxis = Axis::new(
            self.x.0..self.x.1,
            self.ticks.iter().map(|(x, _)| *x).collect(),
        );
        (xaxis, (0.0..self.ymax).into())
    }

    fn marks(
        &self,
        chart: &mut Chart2d<'_, '_, Axis, RangedCoordf64>,
        _: &Area,
    ) -> anyhow::Result<()> {
        if self.speedup {
            let mut line = self.ideal.clone();
            line.sort_by(|a, b| a.0.total_cmp(&b.0));
            line.dedup();
            chart
                .draw_series(LineSeries::new(line, IDEAL.stroke_width(1)))
                .map_err(plot_err)?;
        }
        for (i, (_, pts)) in self.series.iter().enumerate() {
            line_with_dots(chart, pts, palette(i), 4)?;
        }
        Ok(())
    }
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
