//! The charts of `trend`: per dataset, each series' ratio to the yardstick
//! by revision (with its interval and its steps), and its absolute solve
//! times by revision. The revisions are the x axis, oldest first.

use super::axes::{Axis, LogTimeAxis};
use super::frame::{
    plot_builder, plot_err, title_and_legend as frame, Marker, FONT, PALETTE, SIZE,
};
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

/// One series on the time chart: its name and its points `(x, mean, the
/// smallest run's mean, the largest's, p99)`, in ns.
pub struct TimeLine<'a> {
    pub name: &'a str,
    pub points: Vec<(f64, f64, f64, f64, f64)>,
}

/// At most this many revision labels under the x axis; the others get a
/// tick without a label.
const MAX_LABELS: usize = 14;
/// A revision label's longest length.
const LABEL_CHARS: usize = 14;

/// The x axis over `revisions` and the label of each position.
fn revision_axis(revisions: &[String]) -> (Axis, impl Fn(&f64) -> String + '_) {
    let n = revisions.len().max(1);
    let every = n.div_ceil(MAX_LABELS).max(1);
    let ticks: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let hi = (n.max(2) - 1) as f64;
    let label = move |x: &f64| {
        let i = x.round();
        if (x - i).abs() > 1e-6 || i < 0.0 {
            return String::new();
        }
        let i = i as usize;
        // The newest revision is always labelled.
        if !i.is_multiple_of(every) && i + 1 != revisions.len() {
            return String::new();
        }
        revisions.get(i).map_or_else(String::new, |r| {
            if r.chars().count() > LABEL_CHARS {
                let mut s: String = r.chars().take(LABEL_CHARS - 1).collect();
                s.push('…');
                s
            } else {
                r.clone()
            }
        })
    };
    (Axis::new(-0.3..hi + 0.3, ticks), label)
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
    let yaxis = ratio_axis(lo, hi);
    let (ytop, ybottom) = (yaxis.hi, yaxis.lo);
    let entries: Vec<(&str, RGBColor)> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| (l.name, PALETTE[(colour + i) % PALETTE.len()]))
        .collect();
    let (xaxis, label) = revision_axis(revisions);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let names: Vec<&str> = lines.iter().map(|l| l.name).collect();
        let title = format!(
            "{dataset}, {}: time / {yardstick}'s on the same puzzles (paired), by revision",
            names.join(", ")
        );
        let area = frame(&root, &title, &entries, Marker::Line)?;
        let mut chart = plot_builder(&area)
            .build_cartesian_2d(xaxis, yaxis)
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .x_desc("revision (oldest first)")
            .y_desc(format!("ratio to {yardstick} (95% interval)"))
            .x_label_formatter(&label)
            .y_label_formatter(&|v: &f64| format!("{v:.3}×"))
            .label_style((FONT, 15))
            .axis_desc_style((FONT, 19))
            .light_line_style(RGBColor(235, 235, 235))
            .bold_line_style(RGBColor(200, 200, 200))
            .draw()
            .map_err(plot_err)?;
        for (i, l) in lines.iter().enumerate() {
            let c = PALETTE[(colour + i) % PALETTE.len()];
            chart
                .draw_series(LineSeries::new(
                    l.points.iter().map(|&(x, r, ..)| (x, r)),
                    c.stroke_width(2),
                ))
                .map_err(plot_err)?;
            chart
                .draw_series(
                    l.points
                        .iter()
                        .map(|&(x, r, ..)| Circle::new((x, r), 4, c.filled())),
                )
                .map_err(plot_err)?;
            // The interval: a bar with short caps.
            for &(x, _, lo, hi) in l.points.iter().filter(|p| p.3 > p.2) {
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
            }
            for &(x, pct) in &l.steps {
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
            }
        }
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
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
    let yaxis = LogTimeAxis::new(tmin.max(1), tmax.max(2));
    let entries: Vec<(&str, RGBColor)> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| (l.name, PALETTE[i % PALETTE.len()]))
        .collect();
    let (xaxis, label) = revision_axis(revisions);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let area = frame(
            &root,
            &format!("{dataset}: mean (thick, dots) and p99 (thin) solve time by revision"),
            &entries,
            Marker::Line,
        )?;
        let mut chart = plot_builder(&area)
            .build_cartesian_2d(xaxis, yaxis.axis())
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .x_desc("revision (oldest first)")
            .y_desc("solve time (log scale)")
            .x_label_formatter(&label)
            .y_label_formatter(&LogTimeAxis::label)
            .label_style((FONT, 15))
            .axis_desc_style((FONT, 19))
            .light_line_style(RGBColor(235, 235, 235))
            .bold_line_style(RGBColor(200, 200, 200))
            .draw()
            .map_err(plot_err)?;
        let lgv = |v: f64| v.max(1.0).log10();
        for (i, l) in lines.iter().enumerate() {
            let c = PALETTE[i % PALETTE.len()];
            chart
                .draw_series(LineSeries::new(
                    l.points.iter().map(|&(x, m, ..)| (x, lgv(m))),
                    c.stroke_width(2),
                ))
                .map_err(plot_err)?;
            chart
                .draw_series(
                    l.points
                        .iter()
                        .map(|&(x, m, ..)| Circle::new((x, lgv(m)), 4, c.filled())),
                )
                .map_err(plot_err)?;
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
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
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

    #[test]
    fn long_revisions_are_cut_and_many_are_thinned() {
        let revs: Vec<String> = (0..40)
            .map(|i| format!("v1.0-{i}-gabcdef1234-dirty"))
            .collect();
        let (_, label) = revision_axis(&revs);
        let shown: Vec<String> = (0..40)
            .map(|i| label(&(i as f64)))
            .filter(|l| !l.is_empty())
            .collect();
        assert!(shown.len() <= MAX_LABELS + 1, "{}", shown.len());
        assert!(shown.iter().all(|l| l.chars().count() <= LABEL_CHARS));
        assert!(!label(&39.0).is_empty(), "the newest revision is labelled");
    }
}
