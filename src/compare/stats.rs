//! The timing statistics of `compare`: a seeded percentile bootstrap of the
//! ratio current / baseline of one statistic (mean or a percentile) of the
//! per-puzzle solve times.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The statistic of the per-puzzle times that is compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Metric {
    Mean,
    P50,
    P90,
    P99,
}

impl Metric {
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Mean => "mean",
            Metric::P50 => "p50",
            Metric::P90 => "p90",
            Metric::P99 => "p99",
        }
    }

    /// The statistic of `v` (reordered in place). Percentiles are
    /// nearest-rank: the smallest value with at least p·n values ≤ it.
    pub fn of(self, v: &mut [u64]) -> f64 {
        if v.is_empty() {
            return 0.0;
        }
        let p = match self {
            Metric::Mean => return v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64,
            Metric::P50 => 0.50,
            Metric::P90 => 0.90,
            Metric::P99 => 0.99,
        };
        let rank = ((p * v.len() as f64).ceil() as usize).clamp(1, v.len());
        *v.select_nth_unstable(rank - 1).1 as f64
    }

    /// The fewest timed puzzles each run needs for a verdict on this
    /// statistic: below it the bootstrap interval holds the true ratio
    /// clearly less than 90 % of the time (docs/MEASUREMENT.md §6 has the
    /// simulation). The p99 of fewer than 100 puzzles is their maximum,
    /// whose interval holds the truth some 85 % of the time whatever the
    /// count.
    pub fn min_puzzles(self) -> u64 {
        match self {
            Metric::P99 => 100,
            Metric::Mean | Metric::P50 | Metric::P90 => 10,
        }
    }

    /// The same statistic from a summary record (no samples).
    pub fn of_summary(self, r: &crate::results::ResultRecord) -> f64 {
        match self {
            Metric::Mean => r.mean_ns,
            Metric::P50 => r.p50_ns as f64,
            Metric::P90 => r.p90_ns as f64,
            Metric::P99 => r.p99_ns as f64,
        }
    }
}

/// Confidence level of the interval (two-sided, percentile method).
pub const LEVEL: f64 = 0.95;
/// Resamples when the samples are small enough.
pub const MAX_RESAMPLES: usize = 2000;
/// Fewest resamples, however large the samples.
pub const MIN_RESAMPLES: usize = 200;
/// Budget of resampled values per unit (resamples × puzzles).
const WORK: usize = 40_000_000;

/// Resamples used for `n` puzzles: 2000, fewer for very large units
/// (resamples × n ≤ 40 million), never below 200.
pub fn resamples_for(n: usize) -> usize {
    (WORK / n.max(1)).clamp(MIN_RESAMPLES, MAX_RESAMPLES)
}

/// A ratio current / baseline with its bootstrap interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    pub base: f64,
    pub current: f64,
    pub ratio: f64,
    pub lo: f64,
    pub hi: f64,
    pub resamples: usize,
    /// Puzzles resampled together (same index sets in both runs).
    pub paired: bool,
}

/// Bootstrap of metric(current) / metric(baseline).
///
/// Paired (both sample sets hold the same puzzles in the same order): each
/// resample draws n puzzle positions with replacement and takes both runs'
/// times of those puzzles, so puzzle difficulty cancels out. Otherwise each
/// run is resampled on its own. The interval is the 2.5th–97.5th percentile
/// of the resampled ratios. `seed` makes it reproducible.
pub fn bootstrap_ratio(
    base: &[u64],
    current: &[u64],
    paired: bool,
    metric: Metric,
    seed: u64,
) -> Interval {
    let point = |v: &[u64]| metric.of(&mut v.to_vec()).max(f64::MIN_POSITIVE);
    let (b0, c0) = (point(base), point(current));
    let paired = paired && base.len() == current.len();
    let n = base.len().max(current.len());
    let resamples = resamples_for(n);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut sb = vec![0u64; base.len()];
    let mut sc = vec![0u64; current.len()];
    let mut ratios = Vec::with_capacity(resamples);
    if !base.is_empty() && !current.is_empty() {
        for _ in 0..resamples {
            if paired {
                for (b, c) in sb.iter_mut().zip(sc.iter_mut()) {
                    let i = rng.random_range(0..base.len());
                    *b = base[i];
                    *c = current[i];
                }
            } else {
                for b in sb.iter_mut() {
                    *b = base[rng.random_range(0..base.len())];
                }
                for c in sc.iter_mut() {
                    *c = current[rng.random_range(0..current.len())];
                }
            }
            let (mb, mc) = (metric.of(&mut sb), metric.of(&mut sc));
            ratios.push(mc / mb.max(f64::MIN_POSITIVE));
        }
    }
    ratios.sort_by(f64::total_cmp);
    let ratio = c0 / b0;
    let (lo, hi) = if ratios.is_empty() {
        (ratio, ratio)
    } else {
        let tail = (1.0 - LEVEL) / 2.0;
        let at = |q: f64| ratios[((q * ratios.len() as f64) as usize).min(ratios.len() - 1)];
        (at(tail), at(1.0 - tail))
    };
    Interval {
        base: b0,
        current: c0,
        ratio,
        lo,
        hi,
        resamples,
        paired,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let mut v: Vec<u64> = (1..=100).rev().collect();
        assert_eq!(Metric::P50.of(&mut v), 50.0);
        assert_eq!(Metric::P90.of(&mut v), 90.0);
        assert_eq!(Metric::P99.of(&mut v), 99.0);
        assert_eq!(Metric::Mean.of(&mut v), 50.5);
        assert_eq!(Metric::P50.of(&mut [7]), 7.0);
    }

    fn noisy(n: usize, scale: f64, seed: u64) -> Vec<u64> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..n)
            .map(|i| ((1000 + (i % 37) * 100) as f64 * scale * rng.random_range(0.9..1.1)) as u64)
            .collect()
    }

    #[test]
    fn same_distribution_straddles_one_and_shifts_do_not() {
        let a = noisy(500, 1.0, 1);
        let b = noisy(500, 1.0, 2);
        for paired in [true, false] {
            let i = bootstrap_ratio(&a, &b, paired, Metric::P50, 0);
            assert!(i.lo < 1.0 && i.hi > 1.0, "{i:?}");
            assert!(i.hi - i.lo < 0.2, "{i:?}");
        }
        let slow = noisy(500, 1.2, 3);
        let i = bootstrap_ratio(&a, &slow, true, Metric::Mean, 0);
        assert!(i.lo > 1.1 && i.hi < 1.3, "{i:?}");
        // Reproducible.
        assert_eq!(i, bootstrap_ratio(&a, &slow, true, Metric::Mean, 0));
    }

    /// The share of `runs` A/A comparisons of two runs of `n` puzzles each
    /// (times drawn from one log-normal distribution, σ 1: puzzle times
    /// spread over two orders of magnitude, as in `datasets/hard.csv`)
    /// whose interval holds the true ratio 1.
    fn compare_coverage(n: usize, runs: u64, metric: Metric) -> f64 {
        let mut covered = 0;
        for run in 0..runs {
            let mut rng = ChaCha8Rng::seed_from_u64(run ^ ((n as u64) << 32));
            let mut times = || -> Vec<u64> {
                (0..n)
                    .map(|_| {
                        let u: f64 = 1.0 - rng.random::<f64>();
                        let v: f64 = rng.random::<f64>();
                        let z = (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos();
                        (10_000.0 * z.exp()) as u64
                    })
                    .collect()
            };
            let (a, b) = (times(), times());
            let i = bootstrap_ratio(&a, &b, false, metric, run);
            covered += u64::from(i.lo <= 1.0 && 1.0 <= i.hi);
        }
        covered as f64 / runs as f64
    }

    #[test]
    fn the_interval_covers_about_90_percent_from_the_minimum_of_puzzles() {
        // Below the minimum: the mean of 3 puzzles, the p90 of 9 (their
        // maximum), the p99 of 20 (their maximum) cover too rarely.
        for (metric, n) in [(Metric::Mean, 3), (Metric::P90, 9), (Metric::P99, 20)] {
            let few = compare_coverage(n, 300, metric);
            assert!(few < 0.87, "{metric:?}: {n} puzzles cover {few}");
        }
        for metric in [Metric::Mean, Metric::P50, Metric::P90] {
            let n = metric.min_puzzles();
            let enough = compare_coverage(n as usize, 300, metric);
            assert!(enough >= 0.87, "{metric:?}: {n} puzzles cover {enough}");
        }
    }

    /// The table of docs/MEASUREMENT.md §6 (slow in a debug build):
    /// `cargo test --release --lib compare_coverage_table -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn compare_coverage_table() {
        let runs = std::env::var("COVERAGE_RUNS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(2000);
        println!("puzzles  mean    p50     p90     p99     ({runs} runs each)");
        // COVERAGE_N=40,100: only these counts.
        let counts: Vec<usize> = match std::env::var("COVERAGE_N") {
            Ok(v) => v.split(',').filter_map(|n| n.trim().parse().ok()).collect(),
            Err(_) => (2..=30).chain([40, 50, 75, 100, 150, 200]).collect(),
        };
        for n in counts {
            let c: Vec<String> = [Metric::Mean, Metric::P50, Metric::P90, Metric::P99]
                .iter()
                .map(|&m| format!("{:>5.1}%", 100.0 * compare_coverage(n, runs, m)))
                .collect();
            println!("{n:>7}  {}", c.join("  "));
        }
    }

    #[test]
    fn resamples_shrink_for_huge_units() {
        assert_eq!(resamples_for(1000), 2000);
        assert_eq!(resamples_for(100_000), 400);
        assert_eq!(resamples_for(10_000_000), 200);
    }
}
