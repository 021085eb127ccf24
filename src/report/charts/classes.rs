//! `<dataset>-classes.svg`: per strategy, its paired ratio to the
//! reference in each effort class (`fast`'s guesses, easiest left), with
//! the class's interval as a vertical bar. A strategy that wins on easy
//! puzzles and loses on hard ones slopes upwards.

use super::axes::Axis;
use super::frame::{line_with_dots, plot_err, render, Area, Chart2d, Frame, Marker, Plot};
use super::paired::ratio_tick;
use crate::results::classes::{ByClass, EFFORT_CLASSES};
use plotters::prelude::*;

/// Per strategy: its label, colour and, per effort class with a ratio,
/// (class position, log2 ratio, log2 interval).
type Line<'a> = (&'a str, RGBColor, Vec<(f64, f64, Option<(f64, f64)>)>);

/// The chart of `dataset`, or `None` when no strategy has a ratio in two
/// effort classes or more.
pub(super) fn svg(
    dataset: &str,
    by_class: &ByClass,
    colors: &dyn Fn(&str) -> RGBColor,
) -> anyhow::Result<Option<String>> {
    let mut lines: Vec<Line> = Vec::new();
    let mut reference = String::new();
    for r in by_class
        .rows
        .iter()
        .filter(|r| r.dataset == dataset && r.scheme == "effort")
    {
        let (Some(ratio), Some(x)) = (&r.ratio, EFFORT_CLASSES.iter().position(|c| *c == r.class))
        else {
            continue;
        };
        reference.clone_from(&ratio.reference);
        let ci = ratio.low.zip(ratio.high).map(|(l, h)| (l.log2(), h.log2()));
        let point = (x as f64, ratio.geomean.log2(), ci);
        match lines.iter_mut().find(|l| l.0 == r.strategy) {
            Some(l) => l.2.push(point),
            None => lines.push((&r.strategy, colors(&r.strategy), vec![point])),
        }
    }
    lines.retain(|l| l.2.len() >= 2);
    if lines.is_empty() {
        return Ok(None);
    }
    render(&Classes {
        dataset,
        reference,
        lines,
    })
    .map(Some)
}

struct Classes<'a> {
    dataset: &'a str,
    reference: String,
    lines: Vec<Line<'a>>,
}

impl Plot for Classes<'_> {
    type X = Axis;
    type Y = Axis;

    fn frame(&self) -> Frame<'_> {
        let entries = self.lines.iter().map(|(n, c, _)| (*n, *c)).collect();
        let title = format!(
            "{}: time ratio to {} by difficulty (fast's guesses)",
            self.dataset, self.reference
        );
        Frame::new(title, entries, Marker::Line)
            .x_axis("puzzles by fast's guesses per puzzle", |x: &f64| {
                let i = x.round();
                if (x - i).abs() < 1e-6 && (0.0..EFFORT_CLASSES.len() as f64).contains(&i) {
                    EFFORT_CLASSES[i as usize].to_string()
                } else {
                    String::new()
                }
            })
            .y_axis(
                format!(
                    "time / {}'s (geometric mean, 95% interval; log scale)",
                    self.reference
                ),
                |y: &f64| ratio_tick(*y),
            )
    }

    fn axes(&self) -> (Axis, Axis) {
        let ys = self.lines.iter().flat_map(|l| {
            l.2.iter()
                .flat_map(|p| [Some(p.1), p.2.map(|c| c.0), p.2.map(|c| c.1)])
                .flatten()
        });
        let (lo, hi) = ys.fold((-1.0f64, 1.0f64), |(lo, hi), y| (lo.min(y), hi.max(y)));
        let (lo, hi) = (lo.floor(), hi.ceil());
        let yticks: Vec<f64> = (lo as i64..=hi as i64).map(|v| v as f64).collect();
        let xticks: Vec<f64> = (0..EFFORT_CLASSES.len()).map(|i| i as f64).collect();
        (
            Axis::new(-0.3..EFFORT_CLASSES.len() as f64 - 0.7, xticks),
            Axis::new(lo - 0.1..hi + 0.1, yticks),
        )
    }

    fn marks(&self, chart: &mut Chart2d<'_, '_, Axis, Axis>, _: &Area) -> anyhow::Result<()> {
        let n = self.lines.len().max(1) as f64;
        for (k, (_, color, pts)) in self.lines.iter().enumerate() {
            // Side by side within a class, so that the bars do not hide
            // one another.
            let dx = (k as f64 - (n - 1.0) / 2.0) * 0.06;
            let line: Vec<(f64, f64)> = pts.iter().map(|p| (p.0 + dx, p.1)).collect();
            line_with_dots(chart, &line, *color, 4)?;
            let bars = pts.iter().filter_map(|p| {
                p.2.map(|(lo, hi)| {
                    PathElement::new(vec![(p.0 + dx, lo), (p.0 + dx, hi)], color.stroke_width(2))
                })
            });
            chart.draw_series(bars).map_err(plot_err)?;
        }
        Ok(())
    }
}
