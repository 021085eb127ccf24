//! `<dataset>-latency.svg`: the solve-time percentile distribution of every
//! strategy, HdrHistogram style: x = percentile on a log "nines" axis (i.e.
//! `1/(1−p)` log-scaled), y = time, log-scaled.

use super::axes::{lg, Axis, LogTimeAxis};
use super::frame::{plot_err, render, Area, Chart2d, Frame, Marker, Plot};
use super::UnitSeries;
use plotters::prelude::*;

/// The latency percentile chart of one dataset.
pub(super) fn svg(dataset: &str, units: &[UnitSeries]) -> anyhow::Result<String> {
    render(&Latency::new(dataset, units))
}

/// A strategy's percentile curve: `(log10 1/(1−p), log10 ns)`.
type LineData<'a> = (&'a str, RGBColor, Vec<(f64, f64)>);

/// The latency chart of a dataset, ready to draw.
struct Latency<'a> {
    dataset: &'a str,
    series: Vec<LineData<'a>>,
    /// The right end of the x axis: the decade of the largest count.
    xhi: f64,
    yaxis: LogTimeAxis,
}

impl<'a> Latency<'a> {
    fn new(dataset: &'a str, units: &[UnitSeries<'a>]) -> Self {
        let mut series: Vec<LineData> = Vec::new();
        let (mut tmin, mut tmax, mut nmax) = (u64::MAX, 0u64, 1u64);
        for &(u, c, label) in units {
            let h = &u.time;
            if h.is_empty() {
                series.push((label, c, Vec::new()));
                continue;
            }
            tmin = tmin.min(h.min());
            tmax = tmax.max(h.max());
            nmax = nmax.max(h.len());
            series.push((label, c, curve(h)));
        }
        if tmin > tmax {
            (tmin, tmax) = (1000, 1_000_000);
        }
        Latency {
            dataset,
            series,
            xhi: lg(nmax).ceil().max(1.0),
            yaxis: LogTimeAxis::new(tmin, tmax),
        }
    }
}

/// The percentile curve of a time histogram: from the fastest puzzle at 0
/// to the slowest at `log10 n` (the last puzzle's "nines").
fn curve(h: &hdrhistogram::Histogram<u64>) -> Vec<(f64, f64)> {
    let xend = lg(h.len());
    let mut pts = vec![(0.0, lg(h.min()))];
    for v in h.iter_quantiles(5) {
        let q = v.quantile_iterated_to();
        let x = if q >= 1.0 {
            xend
        } else {
            (-(1.0 - q).log10()).min(xend)
        };
        pts.push((x, lg(v.value_iterated_to())));
    }
    pts.push((xend, lg(h.max())));
    pts
}

impl Plot for Latency<'_> {
    type X = Axis;
    type Y = Axis;

    fn frame(&self) -> Frame<'_> {
        let entries = self.series.iter().map(|(n, c, _)| (*n, *c)).collect();
        let title = format!("{}: solve time by percentile", self.dataset);
        Frame::new(title, entries, Marker::Line)
            .x_axis(
                "percentile (log scale of 1/(1−p): 50% → 90% → 99% → 99.9% …)",
                nines_label,
            )
            .log_time_y()
    }

    fn axes(&self) -> (Axis, Axis) {
        // The decades of 1/(1−p), plus the median and the upper quartile.
        let mut xticks: Vec<f64> = (0..=self.xhi as u32).map(f64::from).collect();
        xticks.extend([2f64.log10(), 4f64.log10()]);
        xticks.sort_by(f64::total_cmp);
        (Axis::new(0.0..self.xhi, xticks), self.yaxis.axis())
    }

    fn marks(&self, chart: &mut Chart2d<'_, '_, Axis, Axis>, _: &Area) -> anyhow::Result<()> {
        for (_, color, pts) in &self.series {
            let style = color.stroke_width(2);
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), style))
                .map_err(plot_err)?;
        }
        Ok(())
    }
}

/// The "nines" label of `x = log10(1/(1−p))`: 0 → 0%, 1 → 90%, 2 → 99%, …
/// Other positions (the 50% and 75% ticks) read as plain percentages.
fn nines_label(x: &f64) -> String {
    let k = x.round();
    if k < 0.0 {
        return String::new();
    }
    if (x - k).abs() > 1e-9 {
        return format!("{:.0}%", (1.0 - 10f64.powf(-x)) * 100.0);
    }
    match k as u32 {
        0 => "0%".to_string(),
        1 => "90%".to_string(),
        k => format!("99.{}%", "9".repeat(k as usize - 2)).replace("99.%", "99%"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        assert_eq!(nines_label(&0.0), "0%");
        assert_eq!(nines_label(&1.0), "90%");
        assert_eq!(nines_label(&2.0), "99%");
        assert_eq!(nines_label(&4.0), "99.99%");
        assert_eq!(nines_label(&2f64.log10()), "50%");
        assert_eq!(nines_label(&4f64.log10()), "75%");
    }
}
