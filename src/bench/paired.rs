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
//! Its 95 % interval comes from a seeded **block bootstrap over chunks**:
//! a chunk (the puzzles one thread took, which every strategy solved in
//! turn) is the unit in which the strategies alternate, so noise that hits a
//! whole chunk while one strategy has it (a burst of load, a frequency
//! change) is shared by that chunk's pairs. Resampling whole chunks, with
//! replacement, lets such noise widen the interval as it should; resampling
//! single puzzles would treat a chunk's 32 or 64 correlated pairs as
//! independent and give an interval too narrow (several times too narrow
//! when the chunks share noise: docs/MEASUREMENT.md §4). A resample's statistic is
//! the mean log ratio of the pairs it holds; the interval is the
//! 2.5th–97.5th percentile of 2000 resamples.
//!
//! Memory does not grow with the dataset beyond one (count, sum) per chunk,
//! and not even that past [`MAX_BLOCKS`] chunks: then neighbouring blocks
//! are merged (larger blocks only make the interval more conservative). The
//! median, the wins / ties / losses and the chart come from the log ratios
//! kept in fine bins ([`BINS_PER_LOG`] per unit of natural log, about 0.1 %
//! wide).

use super::outcome::PuzzleOutcome;
use crate::solver::{Counter, CounterSet, Status};
use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Bins per unit of natural log of a ratio (one bin ≈ 0.1 %).
pub const BINS_PER_LOG: f64 = 1024.0;
/// Log ratios beyond ±16 (a factor of 8.9 million) land in the end bins.
const SPAN: i64 = 16 * 1024;
/// Bootstrap resamples.
pub const RESAMPLES: u32 = 2000;
/// Blocks kept for the bootstrap; beyond, neighbouring blocks are merged.
pub const MAX_BLOCKS: usize = 1 << 16;
/// The fewest blocks an interval is judged on (see
/// docs/MEASUREMENT.md §4 for the coverage that chose it).
pub const MIN_BLOCKS: u64 = 10;
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
the order changing from chunk to chunk and from pass to pass so that each strategy takes each turn, and comes right after each other, \
equally often (with repeats, each pass over a whole batch before the next); \
pairs are the same puzzle's times (minimum over the repeats); the interval resamples whole chunks";

/// How far a strategy's ratio to the baseline would move if the same
/// puzzles were measured again: timing noise alone, the puzzles held fixed.
/// From it, [`Paired::noise_half`], which is what a history of one
/// dataset's runs compares (the bootstrap interval also covers which
/// puzzles were drawn, the same in every run of a dataset).
///
/// With two or more measured passes every puzzle is timed twice over:
/// the minimum over its even passes and over its odd ones. Each chunk
/// gives the difference between its mean log ratio (strategy / baseline)
/// measured the one way and the other; the chunks' differences, spread by
/// noise alone, give σ of one half's mean, robustly (1.4826 × their median
/// absolute deviation: a chunk hit by a preemption in one half moves it
/// hardly at all). The full run's minimum over every pass is no noisier
/// than one half's, so the interval is on the safe side.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PassNoise {
    /// Per chunk: mean log ratio of the even half − of the odd half.
    diffs: Vec<f64>,
}

/// Chunk differences kept, at most; beyond, every other one is dropped
/// (the median of what is left is as good).
const NOISE_KEEP: usize = 1 << 16;

impl PassNoise {
    /// Adds one chunk: the sums of the pairs' log ratios measured by each
    /// half of the passes, over `pairs` pairs timed in both halves.
    pub fn add_chunk(&mut self, pairs: u32, sum_even: f64, sum_odd: f64) {
        if pairs == 0 {
            return;
        }
        self.diffs.push((sum_even - sum_odd) / f64::from(pairs));
        if self.diffs.len() >= NOISE_KEEP {
            let kept: Vec<f64> = self.diffs.iter().step_by(2).copied().collect();
            self.diffs = kept;
        }
    }

    pub fn merge(&mut self, other: &PassNoise) {
        for &d in &other.diffs {
            self.diffs.push(d);
        }
        if self.diffs.len() >= NOISE_KEEP {
            let kept: Vec<f64> = self.diffs.iter().step_by(2).copied().collect();
            self.diffs = kept;
        }
    }

    /// The half-width (log units) of the 95 % interval of the ratio from
    /// timing noise; `None` with fewer than [`MIN_BLOCKS`] chunks.
    pub fn half(&self) -> Option<f64> {
        let n = self.diffs.len();
        if (n as u64) < MIN_BLOCKS {
            return None;
        }
        let med = median_of(&self.diffs);
        let dev: Vec<f64> = self.diffs.iter().map(|d| (d - med).abs()).collect();
        // σ of a chunk's difference of the two halves; a half's mean over n
        // chunks has σ / √2 / √n.
        let sigma = 1.4826 * median_of(&dev);
        Some(1.959_964 * sigma / std::f64::consts::SQRT_2 / (n as f64).sqrt())
    }
}

fn median_of(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => 0.0,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}

/// The running tally of one strategy against the baseline.
#[derive(Clone, Debug)]
pub struct PairAcc {
    baseline: String,
    /// Counts of the fine bins `bins_lo ..`: only the range the ratios
    /// reached is held (a few thousand bins for ratios within 0.25–4, where
    /// the full range is 32,769), so every thread can keep its own.
    bins: Vec<u64>,
    bins_lo: usize,
    pairs: u64,
    sum_log: f64,
    /// (pairs, sum of their log ratios) of each block of chunks.
    blocks: Vec<(u32, f64)>,
    /// Chunks per block (doubles each time the blocks are merged).
    chunks_per_block: usize,
    /// The block being filled, and the chunks in it.
    open: (u32, f64),
    open_chunks: usize,
    wins: u64,
    ties: u64,
    losses: u64,
    /// Puzzles without a pair: a fault or a rejected answer on either side.
    unpaired: u64,
    /// Counters reported by both sides, summed over the pairs.
    compared: CounterSet,
    base_guesses: u64,
    guesses: u64,
    answers_differ: u64,
    counters_differ: u64,
    answer_examples: Vec<u64>,
    counter_examples: Vec<u64>,
    noise: PassNoise,
}

impl PairAcc {
    /// A tally against `baseline`, comparing the counters both report.
    pub fn new(baseline: &str, base_counters: CounterSet, counters: CounterSet) -> Self {
        PairAcc {
            baseline: baseline.to_string(),
            bins: Vec::new(),
            bins_lo: 0,
            pairs: 0,
            sum_log: 0.0,
            blocks: Vec::new(),
            chunks_per_block: 1,
            open: (0, 0.0),
            open_chunks: 0,
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
            noise: PassNoise::default(),
        }
    }

    /// Adds the pass-to-pass spread of chunks (by whoever knows them).
    pub fn add_noise(&mut self, noise: &PassNoise) {
        self.noise.merge(noise);
    }

    /// Adds one puzzle: the baseline's outcome and the strategy's. Its log
    /// ratio also goes to a bootstrap block through [`PairAcc::add_chunk`]
    /// (by whoever knows the chunks).
    pub fn add(&mut self, base: &PuzzleOutcome, o: &PuzzleOutcome) {
        debug_assert_eq!(base.index, o.index);
        let Some(log) = log_ratio(base, o) else {
            // A puzzle one side gave up on is not a pair, but it is an
            // answer that differs (giving up is never faster).
            let answered = |x: &PuzzleOutcome| !x.status.is_fault() && !x.rejected();
            if answered(base) && answered(o) && base.status != o.status {
                self.answers_differ += 1;
                keep_first(&mut self.answer_examples, o.index);
            }
            self.unpaired += 1;
            return;
        };
        self.tally(log);
        if base.status != o.status || base.solutions != o.solutions {
            self.answers_differ += 1;
            keep_first(&mut self.answer_examples, o.index);
        }
        let differs = self
            .compared
            .iter()
            .any(|c| c.get(&base.counters) != c.get(&o.counters));
        if differs {
            self.counters_differ += 1;
            keep_first(&mut self.counter_examples, o.index);
        }
        if self.compared.has(Counter::Guesses) {
            // Saturating: an external solver can report any u64.
            self.base_guesses = self.base_guesses.saturating_add(base.counters.guesses);
            self.guesses = self.guesses.saturating_add(o.counters.guesses);
        }
    }

    /// Adds one pair's log ratio (strategy / baseline) as a chunk of its
    /// own: independent pairs.
    pub fn add_log(&mut self, log: f64) {
        let log = finite(log);
        self.tally(log);
        self.add_chunk(1, log);
    }

    /// Adds a chunk's pairs (their number and the sum of their log ratios)
    /// to the bootstrap's blocks.
    pub fn add_chunk(&mut self, pairs: u32, sum_log: f64) {
        if pairs == 0 {
            return;
        }
        self.sum_log += sum_log;
        self.open.0 += pairs;
        self.open.1 += sum_log;
        self.open_chunks += 1;
        if self.open_chunks < self.chunks_per_block {
            return;
        }
        self.blocks.push(std::mem::take(&mut self.open));
        self.open_chunks = 0;
        if self.blocks.len() >= MAX_BLOCKS {
            let merged: Vec<(u32, f64)> = self
                .blocks
                .chunks(2)
                .map(|p| p.iter().fold((0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1)))
                .collect();
            self.blocks = merged;
            self.chunks_per_block *= 2;
        }
    }

    /// Counts one pair's log ratio: everything but the sum of the logs,
    /// which comes from the chunks ([`PairAcc::add_chunk`]) in input order,
    /// so that the geometric mean does not depend on which thread added
    /// which pair.
    fn tally(&mut self, log: f64) {
        self.pairs += 1;
        let tie = (1.0 + TIE_PCT / 100.0f64).ln();
        if log < -tie {
            self.wins += 1;
        } else if log > tie {
            self.losses += 1;
        } else {
            self.ties += 1;
        }
        self.bump(bin_of(log), 1);
    }

    /// Adds `n` to fine bin `i`, widening the range held when needed.
    fn bump(&mut self, i: usize, n: u64) {
        if self.bins.is_empty() {
            self.bins_lo = i;
        }
        if i < self.bins_lo {
            // Widen by at least half again, so that ratios that keep
            // falling cost amortised O(1) each.
            let lo = i.min(self.bins_lo.saturating_sub(self.bins.len() / 2));
            let more = self.bins_lo - lo;
            self.bins.splice(0..0, std::iter::repeat_n(0, more));
            self.bins_lo = lo;
        }
        let at = i - self.bins_lo;
        if at >= self.bins.len() {
            self.bins.resize(at + 1, 0);
        }
        self.bins[at] += n;
    }

    /// Adds the per-pair tallies of `other` (pairs added by another thread
    /// with [`PairAcc::add`]): counts, bins and examples. Its chunks are not
    /// taken: they reach `self` in input order through
    /// [`PairAcc::add_chunk`].
    pub fn merge_pairs(&mut self, other: &PairAcc) {
        debug_assert!(other.blocks.is_empty() && other.open.0 == 0);
        for (i, &n) in other.bins.iter().enumerate().filter(|(_, &n)| n > 0) {
            self.bump(other.bins_lo + i, n);
        }
        self.pairs += other.pairs;
        self.wins += other.wins;
        self.ties += other.ties;
        self.losses += other.losses;
        self.unpaired += other.unpaired;
        self.base_guesses = self.base_guesses.saturating_add(other.base_guesses);
        self.guesses = self.guesses.saturating_add(other.guesses);
        self.answers_differ += other.answers_differ;
        self.counters_differ += other.counters_differ;
        for (list, more) in [
            (&mut self.answer_examples, &other.answer_examples),
            (&mut self.counter_examples, &other.counter_examples),
        ] {
            list.extend(more);
            list.sort_unstable();
            list.truncate(EXAMPLES);
        }
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
            .map(|(i, &c)| (log_of(self.bins_lo + i), c))
            .collect();
        let mut blocks = self.blocks.clone();
        if self.open.0 > 0 {
            blocks.push(self.open);
        }
        let (lo, hi) = bootstrap(&blocks, mean, seed);
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
            answer_examples: first(&self.answer_examples),
            counters_compared: self.compared,
            counters_differ: self.counters_differ,
            counter_examples: first(&self.counter_examples),
            resamples: if n == 0 { 0 } else { RESAMPLES },
            blocks: (blocks.len() as u64, self.chunks_per_block as u64),
            seed,
            log2_histogram: chart_bins(&nonempty),
            noise_half: self.noise.half(),
            block_sums: blocks,
        }
    }
}

/// Adds a puzzle index to a list of examples that keeps the
/// [`EXAMPLES`] lowest (the first in input order, whatever order the pairs
/// arrive in); the list grows to twice that before it is cut.
fn keep_first(list: &mut Vec<u64>, index: u64) {
    list.push(index);
    if list.len() >= 2 * EXAMPLES {
        list.sort_unstable();
        list.truncate(EXAMPLES);
    }
}

/// The first [`EXAMPLES`] of a list kept by [`keep_first`].
fn first(list: &[u64]) -> Vec<u64> {
    let mut v = list.to_vec();
    v.sort_unstable();
    v.truncate(EXAMPLES);
    v
}

fn bin_of(log: f64) -> usize {
    (((log * BINS_PER_LOG).round() as i64).clamp(-SPAN, SPAN) + SPAN) as usize
}

fn log_of(bin: usize) -> f64 {
    (bin as i64 - SPAN) as f64 / BINS_PER_LOG
}

/// A pair's log ratio (strategy / baseline), or `None` when either side
/// has no accepted answer (a fault, an answer the harness rejected, or a
/// search given up or stalled: none is a solve, and the time it took to
/// stop is not a time of solving). Times of 0 count as 1 ns.
pub fn log_ratio(base: &PuzzleOutcome, o: &PuzzleOutcome) -> Option<f64> {
    let unsolved = |x: &PuzzleOutcome| {
        x.status.is_fault() || x.rejected() || matches!(x.status, Status::GaveUp | Status::Stalled)
    };
    if unsolved(base) || unsolved(o) {
        return None;
    }
    Some(log_ratio_of_times(base.time_ns, o.time_ns))
}

/// The log ratio of a pair's kept times, strategy `time_ns` / baseline
/// `base_ns` (0 counts as 1 ns), as every pairing takes it: in the run,
/// and when a reader holds the summary's pairing against the rows.
pub fn log_ratio_of_times(base_ns: u64, time_ns: u64) -> f64 {
    finite((time_ns.max(1) as f64 / base_ns.max(1) as f64).ln())
}

fn finite(log: f64) -> f64 {
    if log.is_finite() {
        log
    } else {
        0.0
    }
}

/// The percentile interval of the mean log ratio, resampling whole blocks
/// with replacement (a resample's mean is its pairs' total log ratio over
/// their number). With a single block there is nothing to resample: the
/// interval is the point itself.
fn bootstrap(blocks: &[(u32, f64)], mean: f64, seed: u64) -> (f64, f64) {
    if blocks.len() < 2 {
        return (mean, mean);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut means = Vec::with_capacity(RESAMPLES as usize);
    for _ in 0..RESAMPLES {
        let (mut n, mut sum) = (0u64, 0.0);
        for _ in 0..blocks.len() {
            let (c, s) = blocks[rng.random_range(0..blocks.len())];
            n += c as u64;
            sum += s;
        }
        means.push(sum / n.max(1) as f64);
    }
    means.sort_by(f64::total_cmp);
    let tail = (1.0 - LEVEL) / 2.0;
    let at = |q: f64| means[((q * means.len() as f64) as usize).min(means.len() - 1)];
    (at(tail), at(1.0 - tail))
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
    /// Puzzles left out: a fault or a rejected answer on either side.
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
    /// The bootstrap's blocks: how many, and chunks per block.
    #[serde(default)]
    pub blocks: (u64, u64),
    pub seed: u64,
    /// Distribution of log2(ratio): (lower edge, pairs) of bins
    /// [`CHART_BIN_LOG2`] wide, non-empty only.
    pub log2_histogram: Vec<(f64, u64)>,
    /// The half-width, in log units, of the ratio's 95 % interval from
    /// timing noise alone, the puzzles held fixed ([`PassNoise`]): what
    /// another run of the same binaries on the same puzzles would be within.
    /// Absent with one measured pass or fewer than [`MIN_BLOCKS`] chunks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise_half: Option<f64>,
    /// The bootstrap's blocks in input order: (pairs, sum of their log
    /// ratios) of each chunk (of each group of chunks past
    /// [`MAX_BLOCKS`]). What a sequential gate adds up round after round
    /// (`compare::sequential`); not written to summary.json.
    #[serde(skip)]
    pub block_sums: Vec<(u32, f64)>,
}

impl Paired {
    /// The guesses ratio as text, `no guesses` when the baseline made none;
    /// `None` when a side does not report guesses.
    pub fn guesses_text(&self) -> Option<String> {
        match self.guesses_ratio {
            Some(g) => Some(format!("{}×", ratio(g))),
            None if self.counters_compared.has(Counter::Guesses) => Some("no guesses".to_string()),
            None => None,
        }
    }

    /// `1.023× [1.011, 1.035]`; `1.040× [no interval: 3 chunks]` when the
    /// pairs fill fewer than [`MIN_BLOCKS`] chunks, too few for an interval
    /// that holds (the gate does not judge them either).
    pub fn ratio_text(&self) -> String {
        if self.too_few_chunks() {
            let n = self.blocks.0;
            return format!(
                "{}× [no interval: {n} chunk{}]",
                ratio(self.geomean_ratio),
                if n == 1 { "" } else { "s" }
            );
        }
        format!(
            "{}× [{}, {}]",
            ratio(self.geomean_ratio),
            ratio(self.ci_low),
            ratio(self.ci_high)
        )
    }

    /// The pairs fill fewer than [`MIN_BLOCKS`] chunks. (A summary written
    /// before the chunks were recorded has none recorded: not this.)
    pub fn too_few_chunks(&self) -> bool {
        self.pairs > 0 && self.blocks.0 > 0 && self.blocks.0 < MIN_BLOCKS
    }

    /// `1.002×`.
    pub fn median_text(&self) -> String {
        format!("{}×", ratio(self.median_ratio))
    }
}

/// A ratio with three decimals, or three significant digits below 0.01
/// (`0.000412` rather than `0.000`).
pub fn ratio(r: f64) -> String {
    if r == 0.0 || r.abs() >= 0.01 {
        format!("{r:.3}")
    } else {
        let digits = (2.0 - r.abs().log10().floor()) as usize;
        format!("{r:.digits$}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_added_by_several_threads_in_any_order_give_the_same_statistics() {
        use crate::solver::{Counters, Status};
        use rand::seq::SliceRandom;
        let outcome = |index: u64, time_ns: u64, guesses: u64, solutions: u32| PuzzleOutcome {
            index,
            line: index + 1,
            status: if index.is_multiple_of(11) {
                Status::Crashed
            } else {
                Status::Solved
            },
            solutions,
            time_ns,
            counters: Counters {
                guesses,
                ..Counters::default()
            },
            givens: 25,
            matches_solution: None,
            wrong: None,
            wrong_count: None,
            fault: None,
            repeats: Default::default(),
            unverified: false,
        };
        let pairs: Vec<(PuzzleOutcome, PuzzleOutcome)> = (0..3000u64)
            .map(|i| {
                (
                    outcome(i, 1000 + i % 977, 5, 1),
                    outcome(
                        i,
                        1000 + i * 31 % 1409,
                        5 + i % 3,
                        1 + u32::from(i % 5 == 0),
                    ),
                )
            })
            .collect();
        // Chunks of 32: their (pairs, sum) go to the bootstrap in order.
        let chunks: Vec<&[(PuzzleOutcome, PuzzleOutcome)]> = pairs.chunks(32).collect();
        let sums: Vec<(u32, f64)> = chunks
            .iter()
            .map(|c| {
                let logs: Vec<f64> = c.iter().filter_map(|(b, o)| log_ratio(b, o)).collect();
                (logs.len() as u32, logs.iter().sum())
            })
            .collect();
        let mut whole = PairAcc::new("a", CounterSet::ALL, CounterSet::ALL);
        for (b, o) in &pairs {
            whole.add(b, o);
        }
        for &(n, sum) in &sums {
            whole.add_chunk(n, sum);
        }
        let mut order: Vec<usize> = (0..chunks.len()).collect();
        order.shuffle(&mut ChaCha8Rng::seed_from_u64(3));
        let mut threads: Vec<PairAcc> = (0..3)
            .map(|_| PairAcc::new("a", CounterSet::ALL, CounterSet::ALL))
            .collect();
        for (i, &c) in order.iter().enumerate() {
            for (b, o) in chunks[c] {
                threads[i % 3].add(b, o);
            }
        }
        let mut merged = PairAcc::new("a", CounterSet::ALL, CounterSet::ALL);
        for t in &threads {
            merged.merge_pairs(t);
        }
        for &(n, sum) in &sums {
            merged.add_chunk(n, sum);
        }
        let (a, b) = (whole.result(9), merged.result(9));
        assert_eq!(a, b);
        assert!(a.answers_differ > 10 && a.counters_differ > 10 && a.unpaired > 0);
        assert_eq!(a.answer_examples, [5, 10, 15, 20, 25, 30, 35, 40, 45, 50]);
    }

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
        assert!(
            (half - 1.96 * 0.000_816).abs() < 0.000_2,
            "half-width {half}"
        );
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
        let none = acc_of(std::iter::repeat_n(0.0, 100)).result(0);
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
    fn small_ratios_keep_three_significant_digits() {
        assert_eq!(ratio(1.0234), "1.023");
        assert_eq!(ratio(0.0123), "0.012");
        assert_eq!(ratio(0.004123), "0.00412");
        assert_eq!(ratio(0.000_412_3), "0.000412");
        assert_eq!(ratio(0.0), "0.000");
    }

    #[test]
    fn extreme_ratios_are_clamped_not_lost() {
        let p = acc_of([1e6, -1e6, f64::NAN]).result(0);
        assert_eq!(p.pairs, 3);
        assert_eq!(p.log2_histogram.iter().map(|b| b.1).sum::<u64>(), 3);
    }

    #[test]
    fn chunk_blocks_widen_the_interval_when_a_chunk_shares_its_noise() {
        // A/A pairs: 40 chunks of 32, each chunk's pairs shifted together by
        // ±3 % (load while one side had the chunk) plus ±1 % of their own.
        let mut covered = (0, 0);
        for run in 0..100u64 {
            let mut rng = ChaCha8Rng::seed_from_u64(run);
            let mut blocks = PairAcc::new("a", CounterSet::ALL, CounterSet::ALL);
            let mut single = PairAcc::new("a", CounterSet::ALL, CounterSet::ALL);
            for _ in 0..40 {
                let shared: f64 = rng.random_range(-0.03..0.03);
                let logs: Vec<f64> = (0..32)
                    .map(|_| shared + rng.random_range(-0.01..0.01))
                    .collect();
                for &l in &logs {
                    single.add_log(l);
                    blocks.tally(l);
                }
                blocks.add_chunk(32, logs.iter().sum());
            }
            let b = blocks.result(run);
            assert_eq!(b.blocks, (40, 1));
            covered.0 += usize::from(b.ci_low <= 1.0 && 1.0 <= b.ci_high);
            // (The bootstrap over 1280 single pairs is slow in a debug
            // build: a fifth of the runs.)
            if run % 5 == 0 {
                let s = single.result(run);
                // The same sum, added chunk by chunk or pair by pair.
                assert!((b.geomean_ratio / s.geomean_ratio - 1.0).abs() < 1e-12);
                covered.1 += usize::from(s.ci_low <= 1.0 && 1.0 <= s.ci_high);
            }
        }
        // Chunk blocks: about 95 % of the intervals hold the true ratio.
        // Single pairs: about 30 % (their interval is some 5 times too
        // narrow).
        assert!(covered.0 >= 85, "blocks cover {} / 100", covered.0);
        assert!(covered.1 <= 12, "single pairs cover {} / 20", covered.1);
    }

    /// How the simulated log ratios of one chunk are drawn.
    #[derive(Clone, Copy, Debug)]
    enum Noise {
        /// Normal: chunk-shared sd 3 %, per-pair sd 1 %.
        Normal,
        /// Student's t with 3 degrees of freedom (heavy tails), same scales.
        HeavyTailed,
        /// Bursts: one chunk in ten is shifted by ±20 % (a burst of load
        /// during one side's turn, either side alike), the others by a
        /// normal 1 %; per-pair normal 1 %.
        Bursts,
        /// A chunk-shared shift drawn from a centred log-normal (σ 0.5,
        /// sd 3 %: right-skewed, one side now and then much slower);
        /// per-pair normal 1 %.
        Skewed,
    }

    fn normal(rng: &mut ChaCha8Rng) -> f64 {
        // Box–Muller.
        let u: f64 = 1.0 - rng.random::<f64>();
        let v: f64 = rng.random::<f64>();
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }

    /// Student's t, 3 degrees of freedom, scaled to unit variance.
    fn t3(rng: &mut ChaCha8Rng) -> f64 {
        let chi2: f64 = (0..3).map(|_| normal(rng).powi(2)).sum();
        normal(rng) / (chi2 / 3.0).sqrt() / 3f64.sqrt()
    }

    impl Noise {
        /// A chunk's shared shift.
        fn shared(self, rng: &mut ChaCha8Rng) -> f64 {
            match self {
                Noise::Normal => 0.03 * normal(rng),
                Noise::HeavyTailed => 0.03 * t3(rng),
                Noise::Bursts => {
                    let burst = if rng.random_range(0..10) == 0 {
                        if rng.random::<bool>() {
                            0.2
                        } else {
                            -0.2
                        }
                    } else {
                        0.0
                    };
                    burst + 0.01 * normal(rng)
                }
                Noise::Skewed => {
                    // exp(N(0, 0.5²)): mean e^0.125, sd 0.5329.
                    let sd = ((0.25f64).exp() - 1.0).sqrt() * 0.125f64.exp();
                    0.03 * ((0.5 * normal(rng)).exp() - 0.125f64.exp()) / sd
                }
            }
        }

        /// A pair's own noise.
        fn own(self, rng: &mut ChaCha8Rng) -> f64 {
            match self {
                Noise::HeavyTailed => 0.01 * t3(rng),
                _ => 0.01 * normal(rng),
            }
        }
    }

    /// The share of `runs` A/A runs of `blocks` chunks of 32 pairs (true
    /// mean log ratio 0) whose 95 % block-bootstrap interval holds the true
    /// ratio: the interval the gate uses, computed by [`bootstrap`].
    fn block_coverage(blocks: usize, runs: u64, noise: Noise) -> f64 {
        let mut covered = 0;
        for run in 0..runs {
            let mut rng = ChaCha8Rng::seed_from_u64(run ^ ((blocks as u64) << 32));
            let chunks: Vec<(u32, f64)> = (0..blocks)
                .map(|_| {
                    let shared = noise.shared(&mut rng);
                    let sum: f64 = (0..32).map(|_| shared + noise.own(&mut rng)).sum();
                    (32, sum)
                })
                .collect();
            let mean = chunks.iter().map(|c| c.1).sum::<f64>() / (32 * blocks) as f64;
            let (lo, hi) = bootstrap(&chunks, mean, run);
            covered += u64::from(lo <= 0.0 && 0.0 <= hi);
        }
        covered as f64 / runs as f64
    }

    const NOISES: [Noise; 4] = [
        Noise::Normal,
        Noise::HeavyTailed,
        Noise::Bursts,
        Noise::Skewed,
    ];

    #[test]
    fn the_interval_covers_at_least_90_percent_from_the_minimum_of_blocks() {
        // Below the minimum the percentile interval is too narrow: it holds
        // the true ratio far less often than 95 % of the time. (Skewed
        // chunk noise needs more blocks still: the table below.)
        for noise in [Noise::Normal, Noise::HeavyTailed, Noise::Bursts] {
            let few = block_coverage(3, 300, noise);
            assert!(few < 0.8, "{noise:?}: 3 blocks cover {few}");
            let enough = block_coverage(MIN_BLOCKS as usize, 300, noise);
            assert!(
                enough >= 0.87,
                "{noise:?}: {MIN_BLOCKS} blocks cover {enough}"
            );
        }
    }

    /// The table of docs/MEASUREMENT.md §4 (slow in a debug build):
    /// `cargo test --release --lib block_bootstrap_coverage_table -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn block_bootstrap_coverage_table() {
        let runs = std::env::var("COVERAGE_RUNS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(2000);
        println!("blocks  normal  heavy-tailed  bursts  skewed  ({runs} runs each)");
        for blocks in 2..=30 {
            let c: Vec<String> = NOISES
                .iter()
                .map(|&n| format!("{:.1}%", 100.0 * block_coverage(blocks, runs, n)))
                .collect();
            println!(
                "{blocks:>6}  {:>6}  {:>12}  {:>6}  {:>6}",
                c[0], c[1], c[2], c[3]
            );
        }
    }

    #[test]
    fn blocks_are_merged_past_the_cap_and_still_sum_every_pair() {
        let mut a = PairAcc::new("a", CounterSet::ALL, CounterSet::ALL);
        for i in 0..(MAX_BLOCKS * 2 + 3) {
            a.add_chunk(2, if i % 2 == 0 { 0.02 } else { -0.01 });
        }
        assert!(a.blocks.len() < MAX_BLOCKS && a.chunks_per_block == 4);
        let total: u64 = a.blocks.iter().map(|b| b.0 as u64).sum::<u64>() + a.open.0 as u64;
        assert_eq!(total, (MAX_BLOCKS as u64 * 2 + 3) * 2);
    }
}
