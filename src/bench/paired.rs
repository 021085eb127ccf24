//! Paired comparison of a strategy with a baseline on the same puzzles.
//!
//! In an interleaved run every chunk of puzzles is solved by every strategy
//! on one thread, one right after the other, so the machine's state (load,
//! clock frequency, caches of other processes) is shared by both sides of
//! each puzzle's pair. The statistic is the **geometric mean of the
//! per-puzzle time ratios** (strategy / baseline): the mean of the log
//! ratios, so that a puzzle twice as fast and one twice as slow cancel out,
//! and each puzzle weighs the same whatever its absolute time.
//!
//! Its 95 % interval comes from a seeded bootstrap over puzzles: a resample
//! draws as many pairs as there are, with replacement, and takes the mean
//! of their log ratios; the interval is the 2.5th–97.5th percentile of 2000
//! such means. The log ratios are kept in fine bins ([`BINS_PER_LOG`] per
//! unit of natural log, about 0.1 % wide) rather than one value per puzzle,
//! so memory does not grow with the dataset; a resample is a multinomial
//! draw over the bins. The point estimate is exact, and the interval is
//! shifted by the binning's (sub-0.1 %) offset of the mean.

use super::metrics::PuzzleOutcome;
use crate::solver::{Counter, CounterSet};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Binomial, Distribution};
use serde::{Deserialize, Serialize};

/// Bins per unit of natural log of a ratio (one bin ≈ 0.1 %).
pub const BINS_PER_LOG: f64 = 1024.0;
/// Log ratios beyond ±16 (a factor of 8.9 million) land in the end bins.
const SPAN: i64 = 16 * 1024;
/// Bootstrap resamples.
pub const RESAMPLES: u32 = 2000;
/// Confidence level of the interval.
pub const LEVEL: f64 = 0.95;
/// A per-puzzle ratio within ±1 % of 1 is a tie.
pub const TIE_PCT: f64 = 1.0;
/// Puzzle indexes kept as examples of each kind of difference.
const EXAMPLES: usize = 10;
/// Width of the chart histogram's bins, in log2 of the ratio.
pub const CHART_BIN_LOG2: f64 = 1.0 / 32.0;

/// How the pairs are made, stated in every report.
pub const METHOD: &str = "interleaved: each chunk of puzzles solved by every strategy in turn on one thread, \
the order rotating from chunk to chunk; pairs are the same puzzle's times (minimum over the repeats)";

/// The running tally of one strategy against the baseline.
#[derive(Clone, Debug)]
pub struct PairAcc {
    baseline: String,
    bins: Vec<u64>,
    pairs: u64,
    sum_log: f64,
    wins: u64,
    ties: u64,
    losses: u64,
    /// Puzzles without a pair: a fault on either side.
    unpaired: u64,
    /// Counters reported by both sides, summed over the pairs.
    compared: CounterSet,
    base_guesses: u64,
    guesses: u64,
    answers_differ: u64,
    counters_differ: u64,
    answer_examples: Vec<u64>,
    counter_examples: Vec<u64>,
}

impl PairAcc {
    /// A tally against `baseline`, comparing the counters both report.
    pub fn new(baseline: &str, base_counters: CounterSet, counters: CounterSet) -> Self {
        PairAcc {
            baseline: baseline.to_string(),
            bins: vec![0; (2 * SPAN + 1) as usize],
            pairs: 0,
            sum_log: 0.0,
            wins: 0,
            ties: 0,
            losses: 0,
            unpaired: 0,
            compared: CounterSet::from_bits(base_counters.bits() & counters.bits()),
            base_guesses: 0,
            guesses: 0,
            answers_differ: 0,
            counters_differ: 0,
            answer_examples: Vec::new(),
            counter_examples: Vec::new(),
        }
    }

    /// Adds one puzzle: the baseline's outcome and the strategy's.
    pub fn add(&mut self, base: &PuzzleOutcome, o: &PuzzleOutcome) {
        debug_assert_eq!(base.index, o.index);
        if base.status.is_fault() || o.status.is_fault() {
            self.unpaired += 1;
            return;
        }
        let log = ((o.time_ns.max(1)) as f64 / (base.time_ns.max(1)) as f64).ln();
        self.add_log(log);
        if base.status != o.status || base.solutions != o.solutions {
            self.answers_differ += 1;
            if self.answer_examples.len() < EXAMPLES {
                self.answer_examples.push(o.index);
            }
        }
        let differs = self
            .compared
            .iter()
            .any(|c| c.get(&base.counters) != c.get(&o.counters));
        if differs {
            self.counters_differ += 1;
            if self.counter_examples.len() < EXAMPLES {
                self.counter_examples.push(o.index);
            }
        }
        if self.compared.has(Counter::Guesses) {
            self.base_guesses += base.counters.guesses as u64;
            self.guesses += o.counters.guesses as u64;
        }
    }

    /// Adds one pair's log ratio (strategy / baseline).
    pub fn add_log(&mut self, log: f64) {
        let log = if log.is_finite() { log } else { 0.0 };
        self.pairs += 1;
        self.sum_log += log;
        let tie = (1.0 + TIE_PCT / 100.0f64).ln();
        if log < -tie {
            self.wins += 1;
        } else if log > tie {
            self.losses += 1;
        } else {
            self.ties += 1;
        }
        self.bins[bin_of(log)] += 1;
    }

    /// The statistics, with a bootstrap seeded by `seed`.
    pub fn result(&self, seed: u64) -> Paired {
        let n = self.pairs;
        let mean = if n == 0 { 0.0 } else { self.sum_log / n as f64 };
        let nonempty: Vec<(f64, u64)> = self
            .bins
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(i, &c)| (log_of(i), c))
            .collect();
        let (lo, hi) = bootstrap(&nonempty, n, mean, seed);
        let median = median_log(&nonempty, n);
        Paired {
            baseline: self.baseline.clone(),
            method: METHOD.to_string(),
            pairs: n,
            unpaired: self.unpaired,
            geomean_ratio: mean.exp(),
            ci_low: lo.exp(),
            ci_high: hi.exp(),
            level: LEVEL,
            median_ratio: median.exp(),
            wins: self.wins,
            ties: self.ties,
            losses: self.losses,
            tie_pct: TIE_PCT,
            guesses_ratio: (self.compared.has(Counter::Guesses) && self.base_guesses > 0)
                .then(|| self.guesses as f64 / self.base_guesses as f64),
            answers_differ: self.answers_differ,
            answer_examples: self.answer_examples.clone(),
            counters_compared: self.compared,
            counters_differ: self.counters_differ,
            counter_examples: self.counter_examples.clone(),
            resamples: if n == 0 { 0 } else { RESAMPLES },
            seed,
            log2_histogram: chart_bins(&nonempty),
        }
    }
}

fn bin_of(log: f64) -> usize {
    (((log * BINS_PER_LOG).round() as i64).clamp(-SPAN, SPAN) + SPAN) as usize
}

fn log_of(bin: usize) -> f64 {
    (bin as i64 - SPAN) as f64 / BINS_PER_LOG
}

/// The percentile interval of the mean log ratio: resampled means of the
/// binned values, shifted by the difference between the exact mean and the
/// binned one.
fn bootstrap(bins: &[(f64, u64)], n: u64, mean: f64, seed: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 0.0);
    }
    let binned_mean = bins.iter().map(|&(v, c)| v * c as f64).sum::<f64>() / n as f64;
    let shift = mean - binned_mean;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut means = Vec::with_capacity(RESAMPLES as usize);
    for _ in 0..RESAMPLES {
        // A multinomial draw of n pairs over the bins, as a chain of
        // binomials: each bin takes its share of what the bins before it
        // left over.
        let mut left = n;
        let mut mass = n;
        let mut sum = 0.0;
        for &(v, c) in bins {
            if left == 0 {
                break;
            }
            let k = if c >= mass {
                left
            } else {
                match Binomial::new(left, c as f64 / mass as f64) {
                    Ok(b) => b.sample(&mut rng),
                    Err(_) => 0,
                }
            };
            sum += v * k as f64;
            left -= k;
            mass -= c;
        }
        means.push(sum / n as f64);
    }
    means.sort_by(f64::total_cmp);
    let tail = (1.0 - LEVEL) / 2.0;
    let at = |q: f64| means[((q * means.len() as f64) as usize).min(means.len() - 1)];
    (at(tail) + shift, at(1.0 - tail) + shift)
}

/// The median log ratio (the lower middle value; to the bin's precision).
fn median_log(bins: &[(f64, u64)], n: u64) -> f64 {
    let half = n.div_ceil(2);
    let mut seen = 0;
    for &(v, c) in bins {
        seen += c;
        if seen >= half {
            return v;
        }
    }
    0.0
}

/// The log ratios regrouped into [`CHART_BIN_LOG2`]-wide bins of log2 of
/// the ratio: (bin's lower edge, count), non-empty bins only.
fn chart_bins(bins: &[(f64, u64)]) -> Vec<(f64, u64)> {
    let mut out: Vec<(f64, u64)> = Vec::new();
    for &(v, c) in bins {
        let log2 = v / std::f64::consts::LN_2;
        let edge = (log2 / CHART_BIN_LOG2).floor() * CHART_BIN_LOG2;
        match out.last_mut() {
            Some(last) if last.0 == edge => last.1 += c,
            _ => out.push((edge, c)),
        }
    }
    out
}

/// A strategy's paired comparison with the baseline (in summary.json's
/// results as `paired`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Paired {
    /// The strategy compared with.
    pub baseline: String,
    /// How the pairs were made.
    pub method: String,
    /// Puzzles with a time on both sides.
    pub pairs: u64,
    /// Puzzles left out: a fault on either side.
    pub unpaired: u64,
    /// Geometric mean of the per-puzzle ratios time / baseline's time.
    pub geomean_ratio: f64,
    /// The bootstrap interval of `geomean_ratio`.
    pub ci_low: f64,
    pub ci_high: f64,
    /// Its confidence level.
    pub level: f64,
    /// Median of the per-puzzle ratios (to about 0.1 %).
    pub median_ratio: f64,
    /// Pairs where this strategy was faster (ratio below 1 − `tie_pct`).
    pub wins: u64,
    /// Pairs within ± `tie_pct` percent.
    pub ties: u64,
    /// Pairs where this strategy was slower.
    pub losses: u64,
    pub tie_pct: f64,
    /// Total guesses / the baseline's, over the pairs (when both report
    /// guesses).
    pub guesses_ratio: Option<f64>,
    /// Pairs whose status or solution count differ.
    pub answers_differ: u64,
    /// The first such puzzles' indexes.
    pub answer_examples: Vec<u64>,
    /// Counters both sides report, compared per puzzle.
    pub counters_compared: CounterSet,
    /// Pairs where any compared counter differs.
    pub counters_differ: u64,
    pub counter_examples: Vec<u64>,
    pub resamples: u32,
    pub seed: u64,
    /// Distribution of log2(ratio): (lower edge, pairs) of bins
    /// [`CHART_BIN_LOG2`] wide, non-empty only.
    pub log2_histogram: Vec<(f64, u64)>,
}

impl Paired {
    /// `1.023× [1.011, 1.035]`.
    pub fn ratio_text(&self) -> String {
        format!(
            "{:.3}× [{:.3}, {:.3}]",
            self.geomean_ratio, self.ci_low, self.ci_high
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    fn acc_of(logs: impl IntoIterator<Item = f64>) -> PairAcc {
        let mut a = PairAcc::new("base", CounterSet::ALL, CounterSet::ALL);
        for l in logs {
            a.add_log(l);
        }
        a
    }

    #[test]
    fn a_known_ratio_is_found_and_its_interval_holds_it() {
        // Per-puzzle ratios of exactly 1.05 times noise of ±10 % (uniform in
        // log): the geometric mean is 1.05 up to the noise's mean.
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let logs: Vec<f64> = (0..5000)
            .map(|_| 1.05f64.ln() + rng.random_range(-0.1..0.1))
            .collect();
        let exact = (logs.iter().sum::<f64>() / logs.len() as f64).exp();
        let p = acc_of(logs).result(1);
        assert!((p.geomean_ratio - exact).abs() < 1e-12, "{p:?}");
        assert!(p.ci_low < exact && exact < p.ci_high, "{p:?}");
        assert!(p.ci_low > 1.04 && p.ci_high < 1.06, "{p:?}");
        // The interval's half-width is about 1.96 standard errors:
        // 0.1/sqrt(3)/sqrt(5000) = 0.00082 in log.
        let half = (p.ci_high.ln() - p.ci_low.ln()) / 2.0;
        assert!((half - 1.96 * 0.000_816).abs() < 0.000_2, "half-width {half}");
        assert!((p.median_ratio - 1.05).abs() < 0.005, "{p:?}");
        assert_eq!(p.pairs, 5000);
        assert_eq!(p.wins + p.ties + p.losses, 5000);
        assert!(p.losses > 3 * p.wins, "{p:?}");
    }

    #[test]
    fn identical_times_give_a_ratio_of_one_and_the_bootstrap_is_seeded() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let logs: Vec<f64> = (0..2000).map(|_| rng.random_range(-0.3..0.3)).collect();
        let a = acc_of(logs.clone());
        let p = a.result(5);
        assert!(p.ci_low < 1.0 && p.ci_high > 1.0, "{p:?}");
        assert_eq!(p, a.result(5), "reproducible for a seed");
        assert_ne!(p.ci_low, a.result(6).ci_low, "the seed matters");
        let none = acc_of(std::iter::repeat(0.0).take(100)).result(0);
        assert_eq!(
            (none.geomean_ratio, none.ci_low, none.ci_high),
            (1.0, 1.0, 1.0)
        );
        assert_eq!((none.wins, none.ties, none.losses), (0, 100, 0));
    }

    #[test]
    fn wins_ties_losses_and_the_chart_bins() {
        let p = acc_of([0.5f64.ln(), 2f64.ln(), 2f64.ln(), 1.005f64.ln()]).result(0);
        assert_eq!((p.wins, p.ties, p.losses), (1, 1, 2));
        // Three bins: about log2 = -1, 0 and 1 (to the fine bins' 0.1 %).
        let counts: Vec<u64> = p.log2_histogram.iter().map(|b| b.1).collect();
        assert_eq!(counts, [1, 1, 2], "{:?}", p.log2_histogram);
        for (&(edge, _), centre) in p.log2_histogram.iter().zip([-1.0, 0.0, 1.0]) {
            assert!(edge <= centre + 0.002 && centre < edge + CHART_BIN_LOG2 + 0.002);
        }
        // Median of {0.5, 1.005, 2, 2}: the lower middle value.
        assert!((p.median_ratio - 1.005).abs() < 0.001, "{p:?}");
    }

    #[test]
    fn extreme_ratios_are_clamped_not_lost() {
        let p = acc_of([1e6, -1e6, f64::NAN]).result(0);
        assert_eq!(p.pairs, 3);
        assert_eq!(p.log2_histogram.iter().map(|b| b.1).sum::<u64>(), 3);
    }
}
