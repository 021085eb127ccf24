//! `charts/trend-<dataset>.svg`: per series the mean solve time at each
//! revision, the spread of a revision's runs, and the p99, on a log time
//! axis.

use super::super::axes::{Axis, LogTimeAxis};
use super::super::frame::{line_with_dots, palette, plot_err, render, Area, Chart2d, Frame, Plot};
use super::{revision_axis, revision_frame};
use plotters::prelude::*;

/// One series on the time chart: its name and its points `(x, mean, the
/// smallest run's mean, the largest's, p99)`, in ns.
pub struct TimeLine<'a> {
    pub name: &'a str,
    pub points: Vec<(f64, f64, f64, f64, f64)>,
}

/// The time chart of one dataset: per series the mean solve time at each
/// revision (thick, with a bar from the smallest to the largest run's mean
/// when a revision ran several times) and the p99 (thin), log time axis.
pub fn time_svg(dataset: &str, revisions: &[String], lines: &[TimeLine]) -> anyhow::Result<String> {
    let values: Vec<f64> = lines
        .iter()
        .flat_map(|l| {
            l.points
                .iter()
                .flat_map(|&(_, m, lo, hi, p99)| [m, lo, hi, p99])
        })
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    let tmin = values.iter().copied().fold(f64::INFINITY, f64::min);
    let tmax = values.iter().copied().fold(0.0, f64::max);
    let (tmin, tmax) = if tmin.is_finite() && tmax >= tmin {
        (tmin as u64, tmax.ceil() as u64)
    } else {
        (1000, 1_000_000)
    };
    render(&TimeChart {
        dataset,
        revisions,
        lines,
        times: (tmin.max(1), tmax.max(2)),
    })
}

/// The time chart of a dataset, ready to draw.
struct TimeChart<'a> {
    dataset: &'a str,
    revisions: &'a [String],
    lines: &'a [TimeLine<'a>],
    /// The fastest and the slowest time on the chart, in ns.
    times: (u64, u64),
}

impl Plot for TimeChart<'_> {
    type X = Axis;
    type Y = Axis;

    fn frame(&self) -> Frame<'_> {
        let title = format!(
            "{}: mean (thick, dots) and p99 (thin) solve time by revision",
            self.dataset
        );
        revision_frame(title, self.lines.iter().map(|l| l.name), 0, self.revisions).log_time_y()
    }

    fn axes(&self) -> (Axis, Axis) {
        let (tmin, tmax) = self.times;
        (
            revision_axis(self.revisions).0,
            LogTimeAxis::new(tmin, tmax).axis(),
        )
    }

    fn marks(&self, chart: &mut Chart2d<'_, '_, Axis, Axis>, _: &Area) -> anyhow::Result<()> {
        let lgv = |v: f64| v.max(1.0).log10();
        for (i, l) in self.lines.iter().enumerate() {
            let c = palette(i);
            let means: Vec<(f64, f64)> = l.points.iter().map(|&(x, m, ..)| (x, lgv(m))).collect();
            line_with_dots(chart, &means, c, 4)?;
            chart
                .draw_series(
                    l.points
                        .iter()
                        .filter(|p| p.3 > p.2)
                        .map(|&(x, _, lo, hi, _)| {
                            PathElement::new(vec![(x, lgv(lo)), (x, lgv(hi))], c.stroke_width(2))
                        }),
                )
                .map_err(plot_err)?;
            chart
                .draw_series(LineSeries::new(
                    l.points.iter().map(|&(x, .., p99)| (x, lgv(p99))),
                    c.stroke_width(1),
                ))
                .map_err(plot_err)?;
        }
        Ok(())
    }
}
