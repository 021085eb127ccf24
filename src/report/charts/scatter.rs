//! `<dataset>-scatter.svg`: solve time against guesses, one point per
//! puzzle, log axes; at most [`SCATTER_MAX`] points per strategy, the same
//! puzzles for every strategy, sampled as `bench::points` describes. The
//! samples come from the run's aggregates ([`unit_samples`]) or, for
//! `bench-sudoku report DIR`, from `puzzles.csv` ([`read_samples`]): both
//! draw the same chart.

use super::axes::{lg, short_count, Axis, LogTimeAxis};
use super::frame::{plot_err, render, Area, Chart2d, Frame, Marker, Plot, FONT};
use super::UnitSeries;
use crate::bench::metrics::UnitStats;
use crate::bench::points::PointSample;
use plotters::prelude::*;
use std::collections::HashMap;
use std::path::Path;

/// Points per (dataset, strategy) on the scatter chart, at most.
pub const SCATTER_MAX: usize = crate::bench::points::CAP;

/// Opacity of one scatter point.
const SCATTER_ALPHA: f64 = 0.45;

/// A strategy's points on the scatter: `(guesses, time_ns)`.
type ScatterSeries<'a> = (&'a str, RGBColor, &'a [(u64, u64)]);

/// The scatter of one dataset: each unit's points from `samples` (none
/// without a `puzzles.csv`: the chart then says so).
pub(super) fn svg(
    dataset: &str,
    units: &[UnitSeries],
    samples: Option<&Samples>,
) -> anyhow::Result<String> {
    let none = Samples::new();
    let given = samples.unwrap_or(&none);
    let sampled: Vec<Vec<(u64, u64)>> = units
        .iter()
        .map(|(u, _, _)| {
            given
                .get(&(dataset.to_string(), u.strategy.clone()))
                .map(PointSample::points)
                .unwrap_or_default()
        })
        .collect();
    let points: Vec<ScatterSeries> = units
        .iter()
        .zip(&sampled)
        .map(|((_, c, label), pts)| (*label, *c, pts.as_slice()))
        .collect();
    series_svg(dataset, &points, samples.is_some())
}

/// The scatter of a dataset, ready to draw.
struct Scatter<'a> {
    dataset: &'a str,
    series: &'a [ScatterSeries<'a>],
    csv_present: bool,
    /// Points over all series.
    shown: usize,
    /// The right end of the x axis: the decade of the most guesses.
    xhi: f64,
    yaxis: LogTimeAxis,
}

/// The time-vs-guesses scatter of `series`; `csv_present` says whether the
/// run wrote the `puzzles.csv` the points come from.
fn series_svg(
    dataset: &str,
    series: &[ScatterSeries],
    csv_present: bool,
) -> anyhow::Result<String> {
    let (mut tmin, mut tmax, mut gmax) = (u64::MAX, 0u64, 1u64);
    let mut shown = 0usize;
    for (_, _, pts) in series {
        for &(g, t) in pts.iter() {
            tmin = tmin.min(t.max(1));
            tmax = tmax.max(t);
            gmax = gmax.max(g);
            shown += 1;
        }
    }
    if tmin > tmax {
        (tmin, tmax) = (1000, 1_000_000);
    }
    render(&Scatter {
        dataset,
        series,
        csv_present,
        shown,
        xhi: lg(gmax).ceil().max(1.0),
        yaxis: LogTimeAxis::new(tmin, tmax),
    })
}

impl Plot for Scatter<'_> {
    type X = Axis;
    type Y = Axis;

    fn frame(&self) -> Frame<'_> {
        let dataset = self.dataset;
        let title = if self.csv_present {
            format!("{dataset}: solve time vs guesses, one point per puzzle")
        } else {
            format!("{dataset}: solve time vs guesses (no puzzles.csv in this run)")
        };
        let entries = self.series.iter().map(|(n, c, _)| (*n, *c)).collect();
        let xlabel = |x: &f64| {
            if *x < 0.0 {
                "0".to_string()
            } else {
                short_count(10f64.powf(*x).round())
            }
        };
        Frame::new(title, entries, Marker::Dot)
            .x_axis(
                "guesses (log scale; puzzles solved without a guess at 0)",
                xlabel,
            )
            .log_time_y()
    }

    fn axes(&self) -> (Axis, Axis) {
        let mut xticks = vec![-0.5];
        xticks.extend((0..=self.xhi as u32).map(f64::from));
        (Axis::new(-0.8..self.xhi + 0.1, xticks), self.yaxis.axis())
    }

    fn marks(&self, chart: &mut Chart2d<'_, '_, Axis, Axis>, area: &Area) -> anyhow::Result<()> {
        for (_, color, pts) in self.series {
            let dots = one_per_pixel(chart, pts);
            chart
                .draw_series(dots.iter().map(|&(p, k)| {
                    Circle::new(p, 2, color.mix(stacked_opacity(SCATTER_ALPHA, k)).filled())
                }))
                .map_err(plot_err)?;
        }
        if self.shown == 0 {
            area.draw(&Text::new(
                "no per-puzzle data (run without --no-puzzle-csv to draw this chart)",
                (220, 240),
                (FONT, 21),
            ))
            .map_err(plot_err)?;
        }
        Ok(())
    }
}

/// The points of a series as dots, one per pixel of `chart` with the
/// number of points on it, in order of first appearance.
///
/// Points that land on one pixel are drawn as one circle, as opaque as
/// all of them stacked: k circles of one colour with opacity a cover what
/// one with 1 − (1 − a)^k does, and circles of one colour composite in
/// any order alike, so the picture is the same with far fewer elements
/// (many puzzles share a guess count and a time to the pixel).
fn one_per_pixel(
    chart: &Chart2d<'_, '_, Axis, Axis>,
    pts: &[(u64, u64)],
) -> Vec<((f64, f64), u32)> {
    let mut at: HashMap<(i32, i32), usize> = HashMap::new();
    let mut dots: Vec<((f64, f64), u32)> = Vec::new();
    for &(g, t) in pts.iter() {
        let p = (scatter_x(g), lg(t));
        let i = *at.entry(chart.backend_coord(&p)).or_insert_with(|| {
            dots.push((p, 0));
            dots.len() - 1
        });
        dots[i].1 += 1;
    }
    dots
}

/// The opacity of `k` stacked layers of opacity `a` (k ≥ 1; one layer
/// keeps `a` exactly), to four decimals (finer than a screen shows).
fn stacked_opacity(a: f64, k: u32) -> f64 {
    if k <= 1 {
        a
    } else {
        ((1.0 - (1.0 - a).powi(k as i32)) * 1e4).round() / 1e4
    }
}

/// x position of a guess count on the scatter: log10, with 0 set apart.
fn scatter_x(g: u64) -> f64 {
    if g == 0 {
        -0.5
    } else {
        (g as f64).log10()
    }
}

/// Per (dataset, strategy), the scatter chart's sample of `(guesses,
/// time_ns)` points (`bench::points`: the same points whether drawn while
/// the run aggregates or read back from `puzzles.csv`).
pub type Samples = HashMap<(String, String), PointSample>;

/// The samples of a run's units, as the run aggregated them.
pub fn unit_samples(units: &[UnitStats]) -> Samples {
    let mut out = Samples::new();
    for u in units {
        if let Some(p) = &u.points {
            out.entry((u.dataset.clone(), u.strategy.clone()))
                .or_default()
                .merge(p);
        }
    }
    out
}

/// The samples of `puzzles.csv`; `None` when the file does not exist.
/// Rows without a time (faults of external solvers) or without guesses (a
/// solver that does not report them) have no point.
pub fn read_samples(path: &Path) -> anyhow::Result<Option<Samples>> {
    if !path.is_file() {
        return Ok(None);
    }
    // Rows come in runs of one (dataset, strategy): the unit of the last
    // row is looked up first, and no key is built per row.
    let mut units: Vec<(String, String, PointSample)> = Vec::new();
    let mut last = 0;
    let mut rows = crate::results::puzzles::PuzzleRows::open(path)?;
    while let Some(row) = rows.next_row()? {
        let (Some(t), Some(g)) = (row.time_ns, row.guesses) else {
            continue;
        };
        let is = |u: &(String, String, PointSample)| u.0 == row.dataset && u.1 == row.strategy;
        if !units.get(last).is_some_and(is) {
            last = match units.iter().position(is) {
                Some(i) => i,
                None => {
                    units.push((
                        row.dataset.to_string(),
                        row.strategy.to_string(),
                        PointSample::default(),
                    ));
                    units.len() - 1
                }
            };
        }
        units[last].2.offer(row.index, g, t);
    }
    Ok(Some(
        units
            .into_iter()
            .map(|(d, s, points)| ((d, s), points))
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stacked_points_are_as_opaque_as_the_layers_they_replace() {
        assert_eq!(stacked_opacity(0.45, 1), 0.45);
        assert!((stacked_opacity(0.45, 2) - (0.45 + 0.55 * 0.45)).abs() < 1e-12);
        // Two points at one pixel and one elsewhere: two circles, the
        // first as opaque as two layers.
        let pts = [(3u64, 10_000u64), (3, 10_000), (40, 900_000)];
        let svg = series_svg("d", &[("s", super::super::frame::palette(0), &pts)], true).unwrap();
        let dots: Vec<&str> = svg
            .split("<circle")
            .skip(1)
            .filter(|c| c.contains(r#"r="2""#))
            .collect();
        assert_eq!(dots.len(), 2, "{svg}");
        assert!(dots[0].contains(r#"opacity="0.6975""#), "{}", dots[0]);
        assert!(dots[1].contains(r#"opacity="0.45""#), "{}", dots[1]);
    }
}
