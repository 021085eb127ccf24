//! The axes every chart is drawn on, and their tick labels: [`Axis`], a
//! linear f64 axis whose labelled ticks and grid lines are given (so a log
//! axis gets exactly the ticks a reader expects), [`LogTimeAxis`], a log10
//! time axis with 1-2-5 ticks, and the short labels of times and counts.

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use std::ops::Range;

/// A linear f64 axis whose ticks (labelled) and grid lines (light) are
/// given, so log axes get exactly the ticks a reader expects (decades,
/// 1-2-5 steps, the "nines" of a percentile axis).
#[derive(Clone)]
pub(super) struct Axis {
    pub lo: f64,
    pub hi: f64,
    bold: Vec<f64>,
    light: Vec<f64>,
}

impl Axis {
    /// An axis over `range` with labelled ticks at `bold` and no light
    /// grid lines.
    pub fn new(range: Range<f64>, bold: Vec<f64>) -> Self {
        Axis {
            lo: range.start,
            hi: range.end,
            bold,
            light: Vec::new(),
        }
    }
}

impl Ranged for Axis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let span = self.hi - self.lo;
        if span <= 0.0 {
            return (limit.0 + limit.1) / 2;
        }
        let f = (v - self.lo) / span;
        limit.0 + (f * (limit.1 - limit.0) as f64).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        let pts = if hint.weight().allow_light_points() {
            &self.light
        } else {
            &self.bold
        };
        pts.iter()
            .copied()
            .filter(|v| *v >= self.lo && *v <= self.hi)
            .collect()
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}

/// A log10 time axis over `[min_ns, max_ns]`: its range (in log10 ns),
/// labelled ticks at 1-2-5 steps (decades only on wide ranges) and light
/// grid lines at every multiple.
pub(super) struct LogTimeAxis {
    lo: f64,
    hi: f64,
    bold: Vec<f64>,
    light: Vec<f64>,
}

impl LogTimeAxis {
    pub fn new(min_ns: u64, max_ns: u64) -> Self {
        let lo = (min_ns.max(1) as f64).log10().floor() as i32;
        let mut hi = (max_ns.max(1) as f64).log10().ceil() as i32;
        if hi <= lo {
            hi = lo + 1;
        }
        let mut bold = Vec::new();
        let mut light = Vec::new();
        for d in lo..=hi {
            bold.push(d as f64);
            if d < hi {
                for m in 2..=9 {
                    let v = (m as f64).log10() + d as f64;
                    light.push(v);
                    if hi - lo <= 3 && (m == 2 || m == 5) {
                        bold.push(v);
                    }
                }
            }
        }
        bold.sort_by(f64::total_cmp);
        LogTimeAxis {
            lo: lo as f64,
            hi: hi as f64,
            bold,
            light,
        }
    }

    /// The tick label at `v` (log10 ns): `50 µs`.
    pub fn label(v: &f64) -> String {
        short_ns(10f64.powf(*v).round())
    }

    /// The axis to draw on.
    pub fn axis(&self) -> Axis {
        Axis {
            lo: self.lo,
            hi: self.hi,
            bold: self.bold.clone(),
            light: self.light.clone(),
        }
    }
}

/// log10 of a count or a time, 0 counted as 1 (a log axis has no 0).
pub(super) fn lg(v: u64) -> f64 {
    (v.max(1) as f64).log10()
}

/// A short tick label for a time: `50 µs`, `2 ms`.
pub fn short_ns(ns: f64) -> String {
    let (v, unit) = if ns < 1e3 {
        (ns, "ns")
    } else if ns < 1e6 {
        (ns / 1e3, "µs")
    } else if ns < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    if (v - v.round()).abs() < 1e-6 {
        format!("{v:.0} {unit}")
    } else {
        format!("{v:.1} {unit}")
    }
}

/// A short tick label for a count: `100`, `10k`, `1M`.
pub(super) fn short_count(n: f64) -> String {
    if n >= 1e6 {
        format!("{:.0}M", n / 1e6)
    } else if n >= 1e3 {
        format!("{:.0}k", n / 1e3)
    } else {
        format!("{n:.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        assert_eq!(short_ns(50_000.0), "50 µs");
        assert_eq!(short_ns(2_000_000.0), "2 ms");
    }
}
