//! Aggregates of one (dataset, strategy) unit: status counts, exact counter
//! totals, and HdrHistograms of solve time, guesses and maximum depth.

use super::paired::Paired;
use super::points::PointSample;
use crate::solver::{Clock, Counter, CounterSet, Status};
use hdrhistogram::Histogram;
use serde::Serialize;

/// Significant figures kept by every histogram (0.1 % value precision).
pub const SIGFIG: u8 = 3;
/// Largest value the histograms hold (in ns); larger values are recorded
/// as this. Seven days: beyond any `--timeout` (at most 24 h); only a time
/// a solver reports on its own clock can exceed it, and a warning then
/// says that the percentiles are capped (`saturation_warnings`).
pub const HIST_MAX: u64 = 7 * 24 * 3_600_000_000_000;
/// At most this many mismatches / skipped rows are listed in the reports.
pub const LIST_CAP: usize = 1000;
/// Unclaimed-time samples kept per unit ([`UnitStats::unclaimed`]).
pub const UNCLAIMED_KEEP: usize = 1 << 16;

/// The median of `v`; `None` when empty.
pub fn median(v: &[f32]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let mut v = v.to_vec();
    v.sort_by(f32::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        f64::from(v[n / 2])
    } else {
        (f64::from(v[n / 2 - 1]) + f64::from(v[n / 2])) / 2.0
    })
}

/// The standard error of the median of `v`: 1.4826 × its median absolute
/// deviation (σ of normal samples, robust to outliers) × 1.2533 (the
/// median's efficiency) / √n; `None` with fewer than two samples.
pub fn median_se(v: &[f32]) -> Option<f64> {
    if v.len() < 2 {
        return None;
    }
    let m = median(v)?;
    let dev: Vec<f32> = v.iter().map(|&x| (f64::from(x) - m).abs() as f32).collect();
    Some(1.4826 * median(&dev)? * 1.2533 / (v.len() as f64).sqrt())
}

pub use super::outcome::{MismatchKind, PuzzleOutcome, Repeats};

/// A repeated pass at least this many times faster than a puzzle's first
/// is "far" faster: more than an honest solver gains from warm caches and
/// a trained branch predictor (up to about 1.3×, docs/MEASUREMENT.md), as
/// much as a solver gains by remembering answers.
pub const CACHE_FACTOR: u64 = 4;

/// A puzzle whose answer disagreed with the dataset's solution, the rules,
/// or bench-sudoku's own count of its solutions.
#[derive(Clone, Debug, Serialize)]
pub struct Mismatch {
    pub index: u64,
    pub line: u64,
    pub status: Status,
    pub kind: MismatchKind,
    pub detail: String,
}

/// A puzzle on which an external solver failed (crashed, timeout,
/// protocol_error, error).
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Fault {
    pub index: u64,
    pub line: u64,
    pub status: Status,
    pub detail: String,
}

/// A dataset row skipped with `--skip-invalid`.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Skipped {
    pub line: Option<u64>,
    pub index: Option<u64>,
    pub error: String,
}

/// Running aggregates of one unit.
#[derive(Clone, Debug)]
pub struct UnitStats {
    pub dataset: String,
    pub strategy: String,
    pub puzzles: u64,
    /// Accepted answers and faults by status (a rejected answer is in
    /// `rejected`, not here).
    pub status: [u64; Status::ALL.len()],
    /// Puzzles whose answer was rejected ([`PuzzleOutcome::rejected`]),
    /// each counted once, whatever the reasons.
    pub rejected: u64,
    pub mismatches: u64,
    pub wrong_answers: u64,
    /// Solution counts that differ from bench-sudoku's own.
    pub wrong_counts: u64,
    /// Answers that changed from one pass to another.
    pub unstable_answers: u64,
    /// Accepted answers whose search counters changed from one pass to
    /// another (the first pass's are kept).
    pub unstable_counters: u64,
    /// Accepted answers solved more than once, and those whose later
    /// passes were far faster than the first ([`Repeats::far_faster`]).
    pub repeated: u64,
    pub repeat_far_faster: u64,
    /// Accepted answers that carried no grid (only their count was
    /// checked).
    pub unverified: u64,
    /// Puzzles whose kept time was an outlier and was measured again.
    pub remeasured: u64,
    /// The time the harness measured around the strategy's passes over its
    /// chunks (every pass, the clock reads and, for a solver process, the
    /// round trips included).
    pub busy_ns: u64,
    /// A self-timed strategy's harness time per solve that its own clock
    /// does not claim, one sample per chunk (at most [`UNCLAIMED_KEEP`]:
    /// beyond, every other one is dropped).
    pub unclaimed: Vec<f32>,
    pub solve_ns_total: u64,
    /// The wrapping sum of [`row_fingerprint`] over the accepted answers:
    /// which puzzle had which kept time and outcome, in one number that
    /// any order of aggregation gives alike, for holding `puzzles.csv`'s
    /// rows against the summary row by row. `None` for a unit rebuilt from
    /// a summary that has none.
    pub rows_fingerprint: Option<u64>,
    pub time: Histogram<u64>,
    pub guesses: Histogram<u64>,
    pub depth: Histogram<u64>,
    pub guesses_total: u64,
    pub guesses_max: u64,
    pub backtracks_total: u64,
    pub backtracks_max: u64,
    pub max_depth_max: u64,
    pub nodes_total: u64,
    pub naked_total: u64,
    pub hidden_total: u64,
    /// Candidates removed by each inference level of the generic engine,
    /// in the order of [`ELIMINATIONS`].
    pub eliminations_total: [u64; 5],
    pub no_guess: u64,
    pub time_max: u64,
    /// Total solve time of each measured pass (spread across repeats).
    pub pass_ns: Vec<u64>,
    pub mismatch_list: Vec<Mismatch>,
    pub fault_list: Vec<Fault>,
    pub skipped: u64,
    pub skipped_list: Vec<Skipped>,
    pub wall_ns: u64,
    /// Passes over every puzzle (warm-up + measured), for throughput.
    pub passes: u32,
    /// False when the run was interrupted or failed before the unit ended.
    pub complete: bool,
    /// The counters the strategy reports; the others are absent from the
    /// summary (they are recorded as 0 here, and never shown).
    pub counters: CounterSet,
    /// Where the solve times come from.
    pub clock: Clock,
    /// The paired comparison with the run's baseline (interleaved runs,
    /// strategies other than the baseline).
    pub paired: Option<Paired>,
    /// The gate's candidate only, when the gate's BASE is not the baseline
    /// (`run --gate BASE:CANDIDATE --baseline OTHER`): its paired
    /// comparison with BASE.
    pub paired_gate: Option<Paired>,
    /// The scatter chart's sample of (guesses, time) points: puzzles with
    /// a time, of a strategy that reports guesses (the rows of
    /// `puzzles.csv` that have both). `None` when nothing is sampled: the
    /// unit writes no `puzzles.csv` rows or reports no guesses (see
    /// [`UnitStats::sampling`]).
    pub points: Option<PointSample>,
}

/// Adds `item` to a list that keeps the [`LIST_CAP`] items of lowest `key`
/// (the first in input order, whatever order the items arrive in: each
/// thread aggregates the batches it finished). The list grows to twice the
/// cap before it is sorted and cut, so each item costs amortised O(log
/// cap); [`settle`] cuts it to the cap.
fn keep_first<T, K: Ord>(list: &mut Vec<T>, item: T, key: impl Fn(&T) -> K) {
    list.push(item);
    if list.len() >= 2 * LIST_CAP {
        settle(list, key);
    }
}

/// Sorts a list by `key` (stably: one puzzle's items keep their order) and
/// keeps the first [`LIST_CAP`].
fn settle<T, K: Ord>(list: &mut Vec<T>, key: impl Fn(&T) -> K) {
    list.sort_by_key(key);
    list.truncate(LIST_CAP);
}

/// An empty histogram that grows as values arrive (up to [`HIST_MAX`], where
/// [`UnitStats::record`] clamps). Starting small keeps a unit's start cheap:
/// the counts are written when a histogram is made, so every page of them
/// is faulted in then, inside the unit's wall time (the full 1 ns – 1 h
/// range would cost about 0.5 ms a histogram). 2^11 is the smallest range
/// of a histogram of three significant digits (16 KiB of counts).
fn histogram() -> Histogram<u64> {
    let mut h = Histogram::new_with_bounds(1, 1 << 11, SIGFIG).expect("valid histogram bounds");
    h.auto(true);
    h
}

/// An empty histogram of the kind every unit keeps (for a counter a
/// strategy does not report).
pub fn empty_histogram() -> Histogram<u64> {
    histogram()
}

/// One accepted answer's share of [`UnitStats::rows_fingerprint`]: its
/// puzzle's index, kept time and outcome, mixed so that moving a time to
/// another puzzle, or changing a time or an outcome, changes the sum
/// (unless by a chance of about one in 2^64).
#[inline]
pub fn row_fingerprint(index: u64, time_ns: u64, status: Status) -> u64 {
    let mut z = index.wrapping_mul(0x9e37_79b9_7f4a_7c15)
        ^ time_ns.wrapping_mul(0xd6e8_feb8_6659_fd93)
        ^ (status as u64) << 58;
    // The finaliser of splitmix64: every input bit moves every output bit.
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Records a kept solve time in a unit's time histogram as
/// [`UnitStats::record`] does (clamped to `1..=HIST_MAX`), for rebuilding
/// that histogram from `puzzles.csv`'s rows.
pub fn record_time(h: &mut Histogram<u64>, ns: u64) {
    grow_record(h, ns.clamp(1, HIST_MAX));
}

/// The percentile `q` (0..=1) of a unit's times: its histogram's value at
/// `q`, which is the highest value of its bucket and can lie above the
/// largest time recorded, so it is clamped to that largest time `max` (no
/// percentile exceeds the maximum). 0 when nothing was timed.
pub fn time_percentile(h: &Histogram<u64>, max: u64, q: f64) -> u64 {
    if h.is_empty() {
        0
    } else {
        h.value_at_quantile(q).min(max)
    }
}

/// Values counted by [`UnitStats::record_counting`] and not yet added to
/// the unit's histograms: guess and depth values below 64, and solve times
/// below [`TIME_COUNTED`] per histogram class ([`time_class`]).
#[derive(Clone, Debug)]
pub struct SmallCounts {
    guesses: [u64; 64],
    depth: [u64; 64],
    /// By class index; grows to the highest class seen.
    time: Vec<u64>,
}

impl Default for SmallCounts {
    fn default() -> Self {
        SmallCounts {
            guesses: [0; 64],
            depth: [0; 64],
            time: Vec::new(),
        }
    }
}

impl SmallCounts {
    /// Adds the counts to `u`'s histograms and clears them.
    pub fn flush(&mut self, u: &mut UnitStats) {
        let record = |h: &mut Histogram<u64>, v: u64, n: u64| {
            if n > 0 && h.record_n(v, n).is_err() {
                h.saturating_record_n(v, n);
            }
        };
        for (h, counts) in [
            (&mut u.guesses, &mut self.guesses),
            (&mut u.depth, &mut self.depth),
        ] {
            for (v, n) in counts.iter_mut().enumerate() {
                record(h, v as u64, std::mem::take(n));
            }
        }
        for (i, n) in self.time.iter_mut().enumerate() {
            record(&mut u.time, class_lowest(i), std::mem::take(n));
        }
    }

    /// Counts a solve time (already clamped to `1..=HIST_MAX`) in its class,
    /// or records it in `h` when it is not below [`TIME_COUNTED`].
    #[inline(always)]
    fn count_time(&mut self, h: &mut Histogram<u64>, v: u64) {
        if v >= TIME_COUNTED {
            return grow_record(h, v);
        }
        let (i, _) = time_class(v);
        match self.time.get_mut(i) {
            Some(n) => *n += 1,
            None => {
                self.time.resize(i + 1, 0);
                self.time[i] = 1;
            }
        }
    }
}

/// Solve times below this (about 1 ms) are counted per class before they
/// reach the histogram: at most 11,264 classes.
const TIME_COUNTED: u64 = 1 << 20;

// `time_class` describes the classes of a histogram of 3 significant digits.
const _: () = assert!(SIGFIG == 3);

/// The class of `v` in a histogram of 3 significant digits (2048
/// sub-buckets): values that the histogram cannot tell apart, recorded in
/// one counter. Below 2048 every value is its own class; from `2^(10 + k)`
/// to `2^(11 + k)` a class spans `2^k` values. Returns a dense class index
/// and the class's lowest value. Recording that value `n` times is the same
/// as recording the class's `n` values (tested against the histogram's own
/// `lowest_equivalent`, and by comparing histograms built both ways).
#[inline(always)]
fn time_class(v: u64) -> (usize, u64) {
    let k = 63 - (v | 2047).leading_zeros() - 10;
    let sub = v >> k;
    (1024 * k as usize + sub as usize, sub << k)
}

/// The lowest value of class `i` (the inverse of [`time_class`]).
fn class_lowest(i: usize) -> u64 {
    let k = (i / 1024).saturating_sub(1);
    ((i - 1024 * k) as u64) << k
}

/// Records `v`, growing the histogram's range when needed (values are
/// clamped to [`HIST_MAX`] by the caller, so growing cannot fail; if it did,
/// the value would be saturated rather than lost).
#[inline]
fn grow_record(h: &mut Histogram<u64>, v: u64) {
    if h.record(v).is_err() {
        h.saturating_record(v);
    }
}

/// The elimination counters, in the order of
/// [`UnitStats::eliminations_total`].
pub const ELIMINATIONS: [Counter; 5] = [
    Counter::LockedEliminations,
    Counter::SubsetEliminations,
    Counter::FishEliminations,
    Counter::WingEliminations,
    Counter::ChainEliminations,
];

impl UnitStats {
    /// The paired comparison with strategy `reference`: the one with the
    /// baseline, or the gate's with its BASE.
    pub fn paired_with(&self, reference: &str) -> Option<&Paired> {
        [self.paired.as_ref(), self.paired_gate.as_ref()]
            .into_iter()
            .flatten()
            .find(|p| p.baseline == reference)
    }

    pub fn new(dataset: &str, strategy: &str, repeat: u32) -> Self {
        UnitStats {
            dataset: dataset.to_string(),
            strategy: strategy.to_string(),
            puzzles: 0,
            status: [0; Status::ALL.len()],
            rejected: 0,
            mismatches: 0,
            wrong_answers: 0,
            wrong_counts: 0,
            unstable_answers: 0,
            unstable_counters: 0,
            repeated: 0,
            repeat_far_faster: 0,
            unverified: 0,
            remeasured: 0,
            busy_ns: 0,
            unclaimed: Vec::new(),
            solve_ns_total: 0,
            rows_fingerprint: Some(0),
            time: histogram(),
            guesses: histogram(),
            depth: histogram(),
            guesses_total: 0,
            guesses_max: 0,
            backtracks_total: 0,
            backtracks_max: 0,
            max_depth_max: 0,
            nodes_total: 0,
            naked_total: 0,
            hidden_total: 0,
            eliminations_total: [0; 5],
            no_guess: 0,
            time_max: 0,
            pass_ns: vec![0; repeat.max(1) as usize],
            mismatch_list: Vec::new(),
            fault_list: Vec::new(),
            skipped: 0,
            skipped_list: Vec::new(),
            wall_ns: 0,
            passes: 1,
            complete: false,
            counters: CounterSet::ALL,
            clock: Clock::Harness,
            paired: None,
            paired_gate: None,
            points: None,
        }
    }

    /// Samples the scatter chart's points when `rows` (the unit writes
    /// `puzzles.csv` rows, the file the chart stands for) and the strategy
    /// reports guesses; call after [`reporting`](Self::reporting).
    pub fn sampling(mut self, rows: bool) -> Self {
        self.points = (rows && self.counters.has(Counter::Guesses)).then(PointSample::default);
        self
    }

    /// Says which counters the unit's strategy reports and which clock
    /// times it.
    pub fn reporting(mut self, counters: CounterSet, clock: Clock) -> Self {
        self.counters = counters;
        self.clock = clock;
        self
    }

    /// Adds one puzzle's outcome.
    pub fn record(&mut self, o: &PuzzleOutcome) {
        if o.status.is_fault() {
            return self.record_fault(o);
        }
        if o.rejected() {
            return self.record_rejected(o);
        }
        self.record_most(o);
        grow_record(&mut self.time, o.time_ns.clamp(1, HIST_MAX));
        grow_record(&mut self.guesses, o.counters.guesses.min(HIST_MAX));
        grow_record(&mut self.depth, o.counters.max_depth as u64);
    }

    /// Like [`record`](Self::record), but small guess and depth values and
    /// solve times below about 1 ms are only counted in `small`, which must
    /// be [flushed](SmallCounts::flush) into `self` before the histograms
    /// are read (array increments instead of three histogram updates).
    #[inline]
    pub fn record_counting(&mut self, o: &PuzzleOutcome, small: &mut SmallCounts) {
        if o.status.is_fault() {
            return self.record_fault(o);
        }
        if o.rejected() {
            return self.record_rejected(o);
        }
        self.record_most(o);
        small.count_time(&mut self.time, o.time_ns.clamp(1, HIST_MAX));
        let (g, d) = (o.counters.guesses, o.counters.max_depth as u64);
        match small.guesses.get_mut(g as usize) {
            Some(n) => *n += 1,
            None => grow_record(&mut self.guesses, g.min(HIST_MAX)),
        }
        match small.depth.get_mut(d as usize) {
            Some(n) => *n += 1,
            None => grow_record(&mut self.depth, d),
        }
    }

    /// A puzzle the solver failed on: counted and listed, with no time and
    /// no counters.
    #[cold]
    fn record_fault(&mut self, o: &PuzzleOutcome) {
        self.puzzles += 1;
        self.status[o.status as usize] += 1;
        keep_first(
            &mut self.fault_list,
            Fault {
                index: o.index,
                line: o.line,
                status: o.status,
                detail: o.fault.as_deref().unwrap_or("").to_string(),
            },
            |f| f.index,
        );
    }

    /// A puzzle whose answer the harness rejected: counted and listed,
    /// with no time and no counters (neither belongs to a solve).
    #[cold]
    fn record_rejected(&mut self, o: &PuzzleOutcome) {
        self.puzzles += 1;
        self.rejected += 1;
        self.record_mismatch(o);
    }

    /// Everything of [`record`](Self::record) but the histograms, for an
    /// accepted answer.
    #[inline(always)]
    fn record_most(&mut self, o: &PuzzleOutcome) {
        let c = &o.counters;
        self.puzzles += 1;
        self.status[o.status as usize] += 1;
        // Totals saturate (an external solver can report any u64): a total
        // at u64::MAX is flagged in the summary (`counters_saturated`).
        self.solve_ns_total = self.solve_ns_total.saturating_add(o.time_ns);
        self.time_max = self.time_max.max(o.time_ns);
        if let Some(f) = &mut self.rows_fingerprint {
            *f = f.wrapping_add(row_fingerprint(o.index, o.time_ns, o.status));
        }
        self.guesses_total = self.guesses_total.saturating_add(c.guesses);
        self.guesses_max = self.guesses_max.max(c.guesses);
        self.backtracks_total = self.backtracks_total.saturating_add(c.backtracks);
        self.backtracks_max = self.backtracks_max.max(c.backtracks);
        self.max_depth_max = self.max_depth_max.max(c.max_depth as u64);
        self.nodes_total = self.nodes_total.saturating_add(c.nodes);
        self.naked_total = self.naked_total.saturating_add(c.naked_singles);
        self.hidden_total = self.hidden_total.saturating_add(c.hidden_singles);
        for (t, k) in self.eliminations_total.iter_mut().zip(ELIMINATIONS) {
            *t = t.saturating_add(k.get(c));
        }
        if c.guesses == 0 && matches!(o.status, Status::Solved | Status::Multiple) {
            self.no_guess += 1;
        }
        if let Some(points) = &mut self.points {
            points.offer(o.index, c.guesses, o.time_ns);
        }
        self.unverified += u64::from(o.unverified);
        let r = &o.repeats;
        self.remeasured += u64::from(r.remeasured);
        if r.repeated {
            self.repeated += 1;
            self.repeat_far_faster += u64::from(r.far_faster);
            if r.counters_changed > 0 {
                self.unstable_counters += 1;
            }
        }
    }

    /// Counts and lists a puzzle whose answer is wrong in one or more ways.
    #[cold]
    fn record_mismatch(&mut self, o: &PuzzleOutcome) {
        let mut listed = |kind: MismatchKind, detail: String| {
            keep_first(
                &mut self.mismatch_list,
                Mismatch {
                    index: o.index,
                    line: o.line,
                    status: o.status,
                    kind,
                    detail,
                },
                |m| m.index,
            );
        };
        if let Some(w) = &o.wrong {
            self.wrong_answers += 1;
            listed(MismatchKind::WrongGrid, format!("invalid answer: {w}"));
        } else if o.matches_solution == Some(false) {
            self.mismatches += 1;
            listed(
                MismatchKind::Differs,
                match o.status {
                    Status::Solved | Status::Multiple => {
                        "returned solution differs from the dataset's".to_string()
                    }
                    st => format!("dataset has a solution, engine says {st}"),
                },
            );
        }
        if let Some(n) = o.wrong_count {
            self.wrong_counts += 1;
            listed(
                MismatchKind::WrongCount,
                format!(
                    "said {} solution{}, bench-sudoku's engine counts {n} (up to the same limit)",
                    o.solutions,
                    if o.solutions == 1 { "" } else { "s" }
                ),
            );
        }
        if o.repeats.answer_changed > 0 {
            self.unstable_answers += 1;
            listed(
                MismatchKind::Unstable,
                format!(
                    "pass {} answered otherwise than pass 1 (status, solution count or grid)",
                    o.repeats.answer_changed
                ),
            );
        }
    }

    /// Puzzles the solver failed on (every fault outcome).
    pub fn faults(&self) -> u64 {
        Status::FAULTS.iter().map(|&s| self.count(s)).sum()
    }

    /// Puzzles with a solve time: accepted answers (not the faults, not
    /// the rejected answers).
    pub fn timed(&self) -> u64 {
        self.puzzles - self.faults() - self.rejected
    }

    /// Puzzles that count against the run, each once: rejected answers and
    /// faults (any of them makes a run exit 1).
    pub fn bad(&self) -> u64 {
        self.rejected + self.faults()
    }

    pub fn skip(&mut self, s: Skipped) {
        self.skipped += 1;
        keep_first(&mut self.skipped_list, s, |s| (s.line, s.index));
    }

    /// Sorts the lists by puzzle and keeps the first [`LIST_CAP`] of each
    /// (they may hold up to twice as many, in any order, while outcomes
    /// arrive).
    pub fn settle(&mut self) {
        settle(&mut self.mismatch_list, |m| m.index);
        settle(&mut self.fault_list, |f| f.index);
        settle(&mut self.skipped_list, |s| (s.line, s.index));
    }

    /// Adds another unit's aggregates (a disjoint part of the same dataset
    /// and strategy, e.g. another shard): counts and totals summed, maxima
    /// maxed, histograms added, per-pass and wall times summed, lists
    /// concatenated (capped). Complete only if both are.
    pub fn merge(&mut self, o: &UnitStats) -> Result<(), hdrhistogram::AdditionError> {
        self.merge_outcomes(o)?;
        if self.pass_ns.is_empty() || o.pass_ns.is_empty() {
            // A part whose pass totals are unknown (rebuilt from its rows
            // after its run was cut short) leaves the whole's unknown.
            self.pass_ns.clear();
        } else {
            if self.pass_ns.len() < o.pass_ns.len() {
                self.pass_ns.resize(o.pass_ns.len(), 0);
            }
            for (a, b) in self.pass_ns.iter_mut().zip(&o.pass_ns) {
                *a = a.saturating_add(*b);
            }
        }
        self.skipped += o.skipped;
        self.skipped_list.extend(o.skipped_list.iter().cloned());
        self.settle();
        self.wall_ns += o.wall_ns;
        self.complete &= o.complete;
        // Pairs of different parts cannot be pooled from their summaries.
        self.paired = None;
        self.paired_gate = None;
        Ok(())
    }

    /// Adds what another part's puzzle outcomes made (everything
    /// [`record`](Self::record) touches: counts, totals, maxima, histograms,
    /// mismatch and fault lists), and nothing else.
    pub fn merge_outcomes(&mut self, o: &UnitStats) -> Result<(), hdrhistogram::AdditionError> {
        // Histograms read back from files have a fixed range; let them grow.
        for h in [&mut self.time, &mut self.guesses, &mut self.depth] {
            h.auto(true);
        }
        self.time.add(&o.time)?;
        self.guesses.add(&o.guesses)?;
        self.depth.add(&o.depth)?;
        self.puzzles += o.puzzles;
        for (a, b) in self.status.iter_mut().zip(o.status) {
            *a += b;
        }
        self.rejected += o.rejected;
        self.mismatches += o.mismatches;
        self.wrong_answers += o.wrong_answers;
        self.wrong_counts += o.wrong_counts;
        self.unstable_answers += o.unstable_answers;
        self.unstable_counters += o.unstable_counters;
        self.repeated += o.repeated;
        self.repeat_far_faster += o.repeat_far_faster;
        self.unverified += o.unverified;
        self.remeasured += o.remeasured;
        self.busy_ns = self.busy_ns.saturating_add(o.busy_ns);
        self.add_unclaimed(&o.unclaimed);
        self.solve_ns_total = self.solve_ns_total.saturating_add(o.solve_ns_total);
        self.rows_fingerprint = match (self.rows_fingerprint, o.rows_fingerprint) {
            (Some(a), Some(b)) => Some(a.wrapping_add(b)),
            _ => None,
        };
        self.guesses_total = self.guesses_total.saturating_add(o.guesses_total);
        self.guesses_max = self.guesses_max.max(o.guesses_max);
        self.backtracks_total = self.backtracks_total.saturating_add(o.backtracks_total);
        self.backtracks_max = self.backtracks_max.max(o.backtracks_max);
        self.max_depth_max = self.max_depth_max.max(o.max_depth_max);
        self.nodes_total = self.nodes_total.saturating_add(o.nodes_total);
        self.naked_total = self.naked_total.saturating_add(o.naked_total);
        self.hidden_total = self.hidden_total.saturating_add(o.hidden_total);
        for (t, &x) in self
            .eliminations_total
            .iter_mut()
            .zip(&o.eliminations_total)
        {
            *t = t.saturating_add(x);
        }
        self.no_guess += o.no_guess;
        self.time_max = self.time_max.max(o.time_max);
        self.mismatch_list.extend(o.mismatch_list.iter().cloned());
        self.fault_list.extend(o.fault_list.iter().cloned());
        if let Some(p) = &o.points {
            self.points.get_or_insert_default().merge(p);
        }
        self.settle();
        Ok(())
    }

    /// [`UnitStats::merge_outcomes`] for accumulators the caller is done
    /// with: their point sample is taken over rather than copied
    /// ([`PointSample::absorb`]).
    pub fn merge_outcomes_from(
        &mut self,
        o: &mut UnitStats,
    ) -> Result<(), hdrhistogram::AdditionError> {
        let points = o.points.take();
        self.merge_outcomes(o)?;
        if let Some(p) = points {
            self.points.get_or_insert_default().absorb(p);
        }
        Ok(())
    }

    pub fn count(&self, st: Status) -> u64 {
        self.status[st as usize]
    }

    /// Adds chunks' unclaimed times per solve ([`UnitStats::unclaimed`]).
    pub fn add_unclaimed(&mut self, more: &[f32]) {
        self.unclaimed.extend_from_slice(more);
        if self.unclaimed.len() >= UNCLAIMED_KEEP {
            let kept: Vec<f32> = self.unclaimed.iter().step_by(2).copied().collect();
            self.unclaimed = kept;
        }
    }

    /// The median of [`UnitStats::unclaimed`] (robust to a chunk that was
    /// descheduled), `None` without samples.
    pub fn unclaimed_median(&self) -> Option<f64> {
        median(&self.unclaimed)
    }

    /// The standard error of [`UnitStats::unclaimed_median`], from the
    /// samples' median absolute deviation; `None` with fewer than two.
    pub fn unclaimed_se(&self) -> Option<f64> {
        median_se(&self.unclaimed)
    }

    /// See [`ResultRecord::claimed_share`].
    pub fn claimed_share(&self) -> Option<f64> {
        if self.clock != Clock::Solver || self.busy_ns == 0 || self.pass_ns.is_empty() {
            return None;
        }
        let claimed =
            self.pass_ns.iter().map(|&n| n as f64).sum::<f64>() / self.pass_ns.len() as f64;
        let per_pass = self.busy_ns as f64 / self.passes.max(1) as f64;
        Some(claimed / per_pass)
    }
}

/// The percentile-distribution text of HdrHistogram (`.hgrm`), values
/// divided by `scale` (1000.0 prints nanoseconds as microseconds).
pub fn hgrm_text(h: &Histogram<u64>, scale: f64) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:>12} {:>14} {:>10} {:>14}\n",
        "Value", "Percentile", "TotalCount", "1/(1-Percentile)"
    );
    if h.is_empty() {
        return s;
    }
    let mut total = 0u64;
    for v in h.iter_quantiles(5) {
        total += v.count_since_last_iteration();
        let q = v.quantile_iterated_to();
        let value = v.value_iterated_to() as f64 / scale;
        if q < 1.0 {
            let _ = writeln!(
                s,
                "{value:>12.3} {q:>2.12} {total:>10} {:>14.2}",
                1.0 / (1.0 - q)
            );
        } else {
            let _ = writeln!(s, "{value:>12.3} {q:>2.12} {total:>10}");
        }
    }
    let _ = writeln!(
        s,
        "#[Mean    = {:>12.3}, StdDeviation   = {:>12.3}]",
        h.mean() / scale,
        h.stdev() / scale
    );
    let _ = writeln!(
        s,
        "#[Max     = {:>12.3}, Total count    = {:>12}]",
        h.max() as f64 / scale,
        h.len()
    );
    let _ = writeln!(
        s,
        "#[Buckets = {:>12}, SubBuckets     = {:>12}]",
        h.buckets(),
        (2 * 10u64.pow(h.sigfig() as u32)).next_power_of_two()
    );
    s
}

/// Serializes a histogram in the HdrHistogram V2 binary format.
pub fn v2_bytes(h: &Histogram<u64>) -> Vec<u8> {
    use hdrhistogram::serialization::{Serializer, V2Serializer};
    let mut out = Vec::new();
    V2Serializer::new()
        .serialize(h, &mut out)
        .expect("serializing to memory cannot fail");
    out
}

/// A solved puzzle's outcome with the given time and guesses, for tests.
#[cfg(test)]
pub(crate) fn test_outcome(time_ns: u64, guesses: u64, status: Status) -> PuzzleOutcome {
    PuzzleOutcome {
        index: 0,
        line: 1,
        status,
        solutions: 1,
        time_ns,
        counters: crate::solver::Counters {
            guesses,
            backtracks: guesses,
            max_depth: guesses.min(5) as u32,
            nodes: guesses + 1,
            naked_singles: 10,
            hidden_singles: 2,
            ..Default::default()
        },
        givens: 25,
        matches_solution: None,
        wrong: None,
        wrong_count: None,
        fault: None,
        repeats: Default::default(),
        unverified: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use test_outcome as outcome;

    #[test]
    fn a_part_with_unknown_pass_totals_leaves_the_wholes_unknown() {
        let part = |passes: Vec<u64>| {
            let mut u = UnitStats::new("d", "s", 2);
            u.record(&test_outcome(1000, 1, Status::Solved));
            u.pass_ns = passes;
            u
        };
        let mut whole = part(vec![10, 20]);
        whole.merge(&part(vec![1, 2])).unwrap();
        assert_eq!(whole.pass_ns, vec![11, 22]);
        for (a, b) in [(vec![10, 20], vec![]), (vec![], vec![1, 2])] {
            let mut whole = part(a);
            whole.merge(&part(b)).unwrap();
            assert!(whole.pass_ns.is_empty(), "{:?}", whole.pass_ns);
            assert_eq!(
                whole.rows_fingerprint,
                part(vec![]).rows_fingerprint.map(|f| f.wrapping_mul(2))
            );
        }
    }

    #[test]
    fn time_classes_are_the_histograms_own() {
        let h = histogram();
        let mut values: Vec<u64> = (1..5000).collect();
        for k in 11..20 {
            for d in [0u64, 1, 2, 3] {
                values.extend([(1 << k) - d, (1 << k) + d, (3 << (k - 1)) + d]);
            }
        }
        values.extend((0..20_000u64).map(|i| 1 + i * i % TIME_COUNTED));
        let mut last = (0, 0);
        for v in values.into_iter().filter(|&v| v < TIME_COUNTED) {
            let (i, low) = time_class(v);
            assert_eq!(low, h.lowest_equivalent(v), "{v}");
            assert_eq!(class_lowest(i), low, "{v}");
            // Dense: classes of increasing values have increasing indices.
            if v > last.0 {
                assert!(i >= last.1, "{v}");
            }
            last = (v, i);
        }
        assert!(time_class(TIME_COUNTED - 1).0 < 11_264);
    }

    #[test]
    fn counting_small_values_then_flushing_equals_recording() {
        let mut direct = UnitStats::new("d", "s", 1);
        let mut counted = UnitStats::new("d", "s", 1);
        let mut small = SmallCounts::default();
        // Times from 1 ns to 4 ms, spread over every class size (below and
        // above the counted 1 ms); guesses and depths below and above 64.
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for i in 0..20_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let t = 1 + (x >> (42 + i % 22));
            let mut o = outcome(t, (i * 7) % 150, Status::Solved);
            o.counters.max_depth = (i % 100) as u32;
            direct.record(&o);
            counted.record_counting(&o, &mut small);
            if i == 7_000 {
                small.flush(&mut counted);
            }
        }
        small.flush(&mut counted);
        assert_eq!(direct.time, counted.time);
        assert_eq!(direct.time.max(), counted.time.max());
        assert_eq!(direct.time.min_nz(), counted.time.min_nz());
        assert_eq!(direct.time.mean(), counted.time.mean());
        assert_eq!(v2_bytes(&direct.time), v2_bytes(&counted.time));
        // Guesses and depths below, at and above the 64 of the fast path.
        assert_eq!(direct.guesses, counted.guesses);
        assert_eq!(direct.depth, counted.depth);
        assert_eq!(direct.status, counted.status);
        assert_eq!(direct.solve_ns_total, counted.solve_ns_total);
        assert_eq!(direct.time_max, counted.time_max);
        assert_eq!(
            (direct.guesses_total, direct.guesses_max, direct.no_guess),
            (counted.guesses_total, counted.guesses_max, counted.no_guess)
        );
        assert_eq!(direct.max_depth_max, counted.max_depth_max);
    }
}
