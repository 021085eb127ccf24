//! `<dataset>-guesses.svg`: per strategy, the share of puzzles solved with
//! fewer than 1, 2, 4, 8, … guesses, one line each (lines stay readable at
//! ten strategies where side-by-side bars would not). A line that rises
//! early belongs to a strategy that guesses little.

use super::axes::Axis;
use super::frame::{line_with_dots, render, Area, Chart2d, Frame, Marker, Plot};
use super::UnitSeries;
use crate::solver::Counter;
use plotters::prelude::*;

/// The guesses chart of one dataset (strategies that count no guesses
/// have no line).
pub(super) fn svg(dataset: &str, units: &[UnitSeries]) -> anyhow::Result<String> {
    let lines: Vec<(&str, RGBColor, Vec<f64>)> = units
        .iter()
        .filter(|(u, _, _)| u.counters.has(Counter::Guesses) && !u.guesses.is_empty())
        .map(|&(u, c, label)| (label, c, cumulative_guess_shares(&u.guesses)))
        .collect();
    let nbins = lines.iter().map(|l| l.2.len()).max().unwrap_or(1).max(2);
    render(&Guesses {
        dataset,
        lines,
        nbins,
    })
}

/// The guesses chart of a dataset, ready to draw.
struct Guesses<'a> {
    dataset: &'a str,
    /// Per strategy its label, colour and [`cumulative_guess_shares`].
    lines: Vec<(&'a str, RGBColor, Vec<f64>)>,
    /// Positions on the x axis: the most bins of any strategy, at least 2.
    nbins: usize,
}

impl Plot for Guesses<'_> {
    type X = Axis;
    type Y = Axis;

    fn frame(&self) -> Frame<'_> {
        let entries = self.lines.iter().map(|(n, c, _)| (*n, *c)).collect();
        let title = format!(
            "{}: puzzles solved within a number of guesses",
            self.dataset
        );
        // At most 16 labels: every `every`-th position.
        let every = self.nbins.div_ceil(16);
        let label = move |x: &f64| {
            let b = x.round() as usize;
            if b.is_multiple_of(every) {
                cumulative_label(b)
            } else {
                String::new()
            }
        };
        Frame::new(title, entries, Marker::Line)
            .x_axis(
                "guesses per puzzle, fewer than (log scale; Ki = 1024)",
                label,
            )
            .y_axis("share of puzzles (%, cumulative)", |y: &f64| {
                format!("{y:.0}%")
            })
            .grid(RGBColor(240, 240, 240), RGBColor(210, 210, 210))
    }

    fn axes(&self) -> (Axis, Axis) {
        let xticks: Vec<f64> = (0..self.nbins).map(|b| b as f64).collect();
        (
            Axis::new(-0.2..(self.nbins - 1) as f64 + 0.2, xticks),
            // Grid lines every 10 % only: the chart stays small.
            Axis::new(0.0..102.0, (0..=10).map(|k| f64::from(k) * 10.0).collect()),
        )
    }

    fn marks(&self, chart: &mut Chart2d<'_, '_, Axis, Axis>, _: &Area) -> anyhow::Result<()> {
        for (_, color, shares) in &self.lines {
            // Each line runs on at 100 % to the right end, so that a
            // strategy that never guessed much still shows as a line.
            let pts: Vec<(f64, f64)> = (0..self.nbins)
                .map(|b| (b as f64, shares.get(b).copied().unwrap_or(100.0)))
                .collect();
            line_with_dots(chart, &pts, *color, 3)?;
        }
        Ok(())
    }
}

/// Power-of-two bin of a guess count: 0 → 0, 1 → 1, 2–3 → 2, 4–7 → 3, …
fn guess_bin(g: u64) -> usize {
    if g == 0 {
        0
    } else {
        (64 - g.leading_zeros()) as usize
    }
}

/// The smallest guess count of bin `b`: `0`, `1`, `2`, `4`, … `1Ki`, `1Mi`.
fn bin_label(b: usize) -> String {
    if b == 0 {
        "0".to_string()
    } else {
        let lo = 1u64 << (b - 1);
        if lo >= 1 << 20 {
            format!("{}Mi", lo >> 20)
        } else if lo >= 1 << 10 {
            format!("{}Ki", lo >> 10)
        } else {
            lo.to_string()
        }
    }
}

/// The share of puzzles (%) solved with fewer than 2^b guesses, for each
/// power-of-two bin b from the guesses histogram (`[0]`: no guess at
/// all); the last value is 100.
pub fn cumulative_guess_shares(h: &hdrhistogram::Histogram<u64>) -> Vec<f64> {
    let mut counts: Vec<u64> = Vec::new();
    for v in h.iter_recorded() {
        let b = guess_bin(h.lowest_equivalent(v.value_iterated_to()));
        if counts.len() <= b {
            counts.resize(b + 1, 0);
        }
        counts[b] += v.count_at_value();
    }
    let n = h.len().max(1) as f64;
    let mut seen = 0u64;
    counts
        .iter()
        .map(|&k| {
            seen += k;
            seen as f64 * 100.0 / n
        })
        .collect()
}

/// The x label of [`cumulative_guess_shares`]'s position b: `0` (no
/// guess), then `<2`, `<4`, … `<1Ki`.
fn cumulative_label(b: usize) -> String {
    if b == 0 {
        "0".to_string()
    } else {
        format!("<{}", bin_label(b + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        assert_eq!(bin_label(0), "0");
        assert_eq!(bin_label(3), "4");
        assert_eq!(bin_label(11), "1Ki");
        assert_eq!(
            (guess_bin(0), guess_bin(1), guess_bin(3), guess_bin(4)),
            (0, 1, 2, 3)
        );
    }
}
