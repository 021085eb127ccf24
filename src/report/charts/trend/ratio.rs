//! `charts/trend-<dataset>-ratio.svg`: per series the paired ratio to the
//! yardstick at each revision with its 95 % interval, and a marked step
//! where the ratio stepped.

use super::super::axes::Axis;
use super::super::frame::{
    line_with_dots, palette, plot_err, render, Area, Chart2d, Frame, Plot, FONT,
};
use super::{revision_axis, revision_frame};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One series on the ratio chart: its name, its points `(x, ratio, low,
/// high)` (no interval: low = high = ratio) and its steps `(x, change in
/// percent)`.
pub struct RatioLine<'a> {
    pub name: &'a str,
    pub points: Vec<(f64, f64, f64, f64)>,
    pub steps: Vec<(f64, f64)>,
}

/// The ratio chart of one dataset: per series the paired ratio to the
/// yardstick at each revision with its 95 % interval, and a marked step
/// where the ratio stepped (▲ slower, ▼ faster, with the change).
/// `colour` is the palette index of the first line (a series keeps its
/// colour from chart to chart).
pub fn ratio_svg(
    dataset: &str,
    yardstick: &str,
    revisions: &[String],
    lines: &[RatioLine],
    colour: usize,
) -> anyhow::Result<String> {
    let values: Vec<f64> = lines
        .iter()
        .flat_map(|l| l.points.iter().flat_map(|&(_, r, lo, hi)| [r, lo, hi]))
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(0.0, f64::max);
    let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.5, 1.5) };
    render(&RatioChart {
        dataset,
        yardstick,
        revisions,
        lines,
        colour,
        yaxis: ratio_axis(lo, hi),
    })
}

/// The ratio chart of a dataset, ready to draw.
struct RatioChart<'a> {
    dataset: &'a str,
    yardstick: &'a str,
    revisions: &'a [String],
    lines: &'a [RatioLine<'a>],
    /// The palette index of the first line.
    colour: usize,
    yaxis: Axis,
}

impl Plot for RatioChart<'_> {
    type X = Axis;
    type Y = Axis;

    fn frame(&self) -> Frame<'_> {
        let (dataset, yardstick) = (self.dataset, self.yardstick);
        let names: Vec<&str> = self.lines.iter().map(|l| l.name).collect();
        let title = format!(
            "{dataset}, {}: time / {yardstick}'s on the same puzzles (paired), by revision",
            names.join(", ")
        );
        revision_frame(title, names.into_iter(), self.colour, self.revisions)
            .y_axis(format!("ratio to {yardstick} (95% interval)"), |v: &f64| {
                format!("{v:.3}×")
            })
    }

    fn axes(&self) -> (Axis, Axis) {
        (revision_axis(self.revisions).0, self.yaxis.clone())
    }

    fn marks(&self, chart: &mut Chart2d<'_, '_, Axis, Axis>, _: &Area) -> anyhow::Result<()> {
        let (ytop, ybottom) = (self.yaxis.hi, self.yaxis.lo);
        for (i, l) in self.lines.iter().enumerate() {
            let c = palette(self.colour + i);
            let ratios: Vec<(f64, f64)> = l.points.iter().map(|&(x, r, ..)| (x, r)).collect();
            line_with_dots(chart, &ratios, c, 4)?;
            for &(x, _, lo, hi) in l.points.iter().filter(|p| p.3 > p.2) {
                interval(chart, x, (lo, hi), c)?;
            }
            for &(x, pct) in &l.steps {
                step(chart, x, pct, (ybottom, ytop), c)?;
            }
        }
        Ok(())
    }
}

/// The interval `lo..hi` at `x`: a bar with short caps.
fn interval(
    chart: &mut Chart2d<'_, '_, Axis, Axis>,
    x: f64,
    (lo, hi): (f64, f64),
    c: RGBColor,
) -> anyhow::Result<()> {
    let cap = 0.08;
    for seg in [
        vec![(x, lo), (x, hi)],
        vec![(x - cap, lo), (x + cap, lo)],
        vec![(x - cap, hi), (x + cap, hi)],
    ] {
        chart
            .draw_series(std::iter::once(PathElement::new(seg, c.stroke_width(2))))
            .map_err(plot_err)?;
    }
    Ok(())
}

/// A step of `pct` percent at revision `x`: a thin line just before it,
/// across the y axis `(ybottom, ytop)`, and `▲ +10.0%` near the top (slower)
/// or `▼ -10.0%` near the bottom (faster).
fn step(
    chart: &mut Chart2d<'_, '_, Axis, Axis>,
    x: f64,
    pct: f64,
    (ybottom, ytop): (f64, f64),
    c: RGBColor,
) -> anyhow::Result<()> {
    let slower = pct > 0.0;
    let y = if slower {
        ytop - (ytop - ybottom) * 0.06
    } else {
        ybottom + (ytop - ybottom) * 0.06
    };
    let text = format!("{} {:+.1}%", if slower { "▲" } else { "▼" }, pct);
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(x - 0.5, ybottom), (x - 0.5, ytop)],
            c.stroke_width(1),
        )))
        .map_err(plot_err)?;
    chart
        .draw_series(std::iter::once(Text::new(
            text,
            (x, y),
            (FONT, 16)
                .into_font()
                .color(&c)
                .pos(Pos::new(HPos::Center, VPos::Center)),
        )))
        .map_err(plot_err)?;
    Ok(())
}

/// A linear axis over `[lo, hi]` with ticks at a 1-2-5 step.
fn ratio_axis(lo: f64, hi: f64) -> Axis {
    let (lo, hi) = if hi > lo {
        (lo, hi)
    } else {
        (lo - 0.05, hi + 0.05)
    };
    let pad = (hi - lo) * 0.08;
    let (lo, hi) = ((lo - pad).max(0.0), hi + pad);
    let raw = (hi - lo) / 6.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let mut ticks = Vec::new();
    let mut t = (lo / step).ceil() * step;
    while t <= hi + 1e-12 {
        ticks.push(t);
        t += step;
    }
    Axis::new(lo..hi, ticks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratio_charts_draw_intervals_and_steps() {
        let revs: Vec<String> = ["r1", "r2", "r3"].map(String::from).to_vec();
        let line = RatioLine {
            name: "mine",
            points: vec![
                (0.0, 2.0, 1.98, 2.02),
                (1.0, 2.2, 2.18, 2.22),
                (2.0, 2.2, 2.2, 2.2),
            ],
            steps: vec![(1.0, 10.0)],
        };
        let svg = ratio_svg("hard", "fast", &revs, &[line], 0).unwrap();
        assert!(svg.contains("▲ +10.0%"), "the step is marked");
        assert!(svg.contains("r1") && svg.contains("r3"));
        assert!(svg.contains("ratio to fast"));
        // One point, no points: still a chart.
        for pts in [vec![(0.0, 1.0, 1.0, 1.0)], vec![]] {
            let l = RatioLine {
                name: "x",
                points: pts,
                steps: vec![],
            };
            assert!(ratio_svg("d", "fast", &revs[..1], &[l], 3)
                .unwrap()
                .starts_with("<svg"));
        }
    }
}
