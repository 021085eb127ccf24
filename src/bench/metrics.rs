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

pub use super::outcome::{MismatchKind, PuzzleOutcome, Repeats};

/// A repeated pass at least this many times faster than a puzzle's first
/// is "far" faster: more than an honest solver gains from warm caches and
/// a trained branch predictor (up to about 1.3×, docs/MEASUREMENT.md), as
/// much as a solver gains by remembering answers.
pub const CACHE_FACTOR: u64 = 4;
/// Below this much wall time a strategy's wall-clock figures (puzzles/s,
/// a scan's speedups) are not believed: the fixed cost of starting the
/// threads and the reader, and a single descheduling, are a large share
/// of it (docs/MEASUREMENT.md §2, measured with
/// scripts/short-run-noise.sh; hyperfine warns below 5 ms).
pub const SHORT_WALL_NS: u64 = 10_000_000;

/// A solver's own clock that claims less than this share of the time the
/// harness measured around its passes is not believed (a solve that the
/// solver says took 1 ns of a 100 µs round trip).
pub const CLAIMED_SHARE_MIN: f64 = 0.02;

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
    pub solve_ns_total: u64,
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
/// allocating the full 1 ns – 1 h range up front costs about 0.5 ms per
/// unit, inside its wall time.
fn histogram() -> Histogram<u64> {
    let mut h = Histogram::new_with_bounds(1, 1 << 16, SIGFIG).expect("valid histogram bounds");
    h.auto(true);
    h
}

/// An empty histogram of the kind every unit keeps (for a counter a
/// strategy does not report).
pub fn empty_histogram() -> Histogram<u64> {
    histogram()
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
            solve_ns_total: 0,
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

    /// Rebuilds the aggregates of a unit from what a results directory keeps:
    /// its summary record and its three histograms (the `.hdr` files).
    /// Everything [`UnitStats::summary`] reads is restored exactly except the
    /// `no_guess` count, which is recovered from its percentage (rounded; exact
    /// for any realistic unit size).
    pub fn from_parts(
        r: &ResultRecord,
        time: Histogram<u64>,
        guesses: Histogram<u64>,
        depth: Histogram<u64>,
        passes: u32,
    ) -> Self {
        let mut status = [0u64; Status::ALL.len()];
        for st in Status::ALL {
            status[st as usize] = r.count(st);
        }
        let timed = r.timed();
        UnitStats {
            dataset: r.dataset.clone(),
            strategy: r.strategy.clone(),
            puzzles: r.puzzles,
            status,
            rejected: r.rejected,
            mismatches: r.mismatches,
            wrong_answers: r.wrong_answers,
            wrong_counts: r.wrong_counts,
            unstable_answers: r.unstable_answers,
            unstable_counters: r.unstable_counters,
            repeated: r.repeated,
            repeat_far_faster: r.repeat_far_faster,
            unverified: r.unverified,
            remeasured: r.remeasured,
            busy_ns: r.busy_ns.unwrap_or(0),
            solve_ns_total: r.solve_ns_total,
            time,
            guesses,
            depth,
            guesses_total: r.guesses_total.unwrap_or(0),
            guesses_max: r.guesses_max.unwrap_or(0),
            backtracks_total: r.backtracks_total.unwrap_or(0),
            backtracks_max: r.backtracks_max.unwrap_or(0),
            max_depth_max: r.max_depth_max.unwrap_or(0),
            nodes_total: r.nodes_total.unwrap_or(0),
            naked_total: r.naked_singles_total.unwrap_or(0),
            hidden_total: r.hidden_singles_total.unwrap_or(0),
            eliminations_total: r.eliminations().map(|v| v.unwrap_or(0)),
            no_guess: (r.no_guess_pct.unwrap_or(0.0) * timed.max(1) as f64 / 100.0).round() as u64,
            time_max: r.max_ns,
            pass_ns: r.pass_solve_ns.clone(),
            mismatch_list: Vec::new(),
            fault_list: Vec::new(),
            skipped: r.skipped,
            skipped_list: Vec::new(),
            wall_ns: r.wall_ns,
            passes,
            complete: r.complete,
            counters: r.counters,
            clock: r.clock,
            paired: r.paired.clone(),
            paired_gate: r.paired_gate.clone(),
            // Not kept in the summary: `puzzles.csv` has the points
            // (`report::Report::with_scatter` reads them back).
            points: None,
        }
    }

    /// Adds another unit's aggregates (a disjoint part of the same dataset
    /// and strategy, e.g. another shard): counts and totals summed, maxima
    /// maxed, histograms added, per-pass and wall times summed, lists
    /// concatenated (capped). Complete only if both are.
    pub fn merge(&mut self, o: &UnitStats) -> Result<(), hdrhistogram::AdditionError> {
        self.merge_outcomes(o)?;
        if self.pass_ns.len() < o.pass_ns.len() {
            self.pass_ns.resize(o.pass_ns.len(), 0);
        }
        for (a, b) in self.pass_ns.iter_mut().zip(&o.pass_ns) {
            *a = a.saturating_add(*b);
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
        self.solve_ns_total = self.solve_ns_total.saturating_add(o.solve_ns_total);
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

    pub fn count(&self, st: Status) -> u64 {
        self.status[st as usize]
    }

    /// See [`ResultRecord::claimed_share`].
    fn claimed_share(&self) -> Option<f64> {
        if self.clock != Clock::Solver || self.busy_ns == 0 || self.pass_ns.is_empty() {
            return None;
        }
        let claimed =
            self.pass_ns.iter().map(|&n| n as f64).sum::<f64>() / self.pass_ns.len() as f64;
        let per_pass = self.busy_ns as f64 / self.passes.max(1) as f64;
        Some(claimed / per_pass)
    }

    /// The summary record (the `results` entries of summary.json).
    pub fn summary(&self, threads: usize) -> ResultRecord {
        // Means over the puzzles that have a time and counters (faults have
        // neither).
        let timed = self.timed();
        let n = timed.max(1) as f64;
        // A percentile is the highest value of its histogram bucket, which
        // can lie above the largest time recorded: clamped to it, so that no
        // percentile exceeds the maximum.
        let q = |p: f64| {
            if timed == 0 {
                0
            } else {
                self.time.value_at_quantile(p).min(self.time_max)
            }
        };
        let has = |c: Counter| self.counters.has(c);
        let total = |c: Counter, v: u64| has(c).then_some(v);
        let mean = |c: Counter, v: u64| has(c).then_some(v as f64 / n);
        let (pmin, pmax) = (
            self.pass_ns.iter().copied().min().unwrap_or(0),
            self.pass_ns.iter().copied().max().unwrap_or(0),
        );
        ResultRecord {
            dataset: self.dataset.clone(),
            strategy: self.strategy.clone(),
            puzzles: self.puzzles,
            solved: self.count(Status::Solved),
            no_solution: self.count(Status::NoSolution),
            multiple: self.count(Status::Multiple),
            stalled: self.count(Status::Stalled),
            gave_up: self.count(Status::GaveUp),
            invalid: self.count(Status::Invalid),
            crashed: self.count(Status::Crashed),
            timeout: self.count(Status::Timeout),
            protocol_error: self.count(Status::ProtocolError),
            error: self.count(Status::Error),
            rejected: self.rejected,
            mismatches: self.mismatches,
            wrong_answers: self.wrong_answers,
            wrong_counts: self.wrong_counts,
            unstable_answers: self.unstable_answers,
            unstable_counters: self.unstable_counters,
            repeated: self.repeated,
            repeat_far_faster: self.repeat_far_faster,
            unverified: self.unverified,
            remeasured: self.remeasured,
            busy_ns: Some(self.busy_ns).filter(|&b| b > 0),
            claimed_share: self.claimed_share(),
            skipped: self.skipped,
            threads,
            wall_ns: self.wall_ns,
            solve_ns_total: self.solve_ns_total,
            puzzles_per_sec: if self.wall_ns == 0 {
                0.0
            } else {
                (self.puzzles * self.passes as u64) as f64 * 1e9 / self.wall_ns as f64
            },
            mean_ns: self.solve_ns_total as f64 / n,
            p50_ns: q(0.5),
            p90_ns: q(0.9),
            p99_ns: q(0.99),
            p999_ns: q(0.999),
            max_ns: self.time_max,
            guesses_total: total(Counter::Guesses, self.guesses_total),
            guesses_mean: mean(Counter::Guesses, self.guesses_total),
            guesses_max: total(Counter::Guesses, self.guesses_max),
            backtracks_total: total(Counter::Backtracks, self.backtracks_total),
            backtracks_mean: mean(Counter::Backtracks, self.backtracks_total),
            backtracks_max: total(Counter::Backtracks, self.backtracks_max),
            max_depth_max: total(Counter::MaxDepth, self.max_depth_max),
            max_depth_mean: has(Counter::MaxDepth).then(|| self.depth.mean()),
            nodes_total: total(Counter::Nodes, self.nodes_total),
            naked_singles_total: total(Counter::NakedSingles, self.naked_total),
            hidden_singles_total: total(Counter::HiddenSingles, self.hidden_total),
            locked_eliminations_total: total(ELIMINATIONS[0], self.eliminations_total[0]),
            subset_eliminations_total: total(ELIMINATIONS[1], self.eliminations_total[1]),
            fish_eliminations_total: total(ELIMINATIONS[2], self.eliminations_total[2]),
            wing_eliminations_total: total(ELIMINATIONS[3], self.eliminations_total[3]),
            chain_eliminations_total: total(ELIMINATIONS[4], self.eliminations_total[4]),
            no_guess_pct: has(Counter::Guesses).then(|| self.no_guess as f64 * 100.0 / n),
            repeat_spread_pct: if pmin == 0 {
                0.0
            } else {
                (pmax - pmin) as f64 * 100.0 / pmin as f64
            },
            pass_solve_ns: self.pass_ns.clone(),
            complete: self.complete,
            counters: self.counters,
            clock: self.clock,
            paired: self.paired.clone(),
            paired_gate: self.paired_gate.clone(),
            counters_saturated: [
                self.solve_ns_total,
                self.guesses_total,
                self.backtracks_total,
                self.nodes_total,
                self.naked_total,
                self.hidden_total,
            ]
            .iter()
            .chain(&self.eliminations_total)
            .chain(&self.pass_ns)
            .any(|&t| t == u64::MAX),
            too_short: self.wall_ns > 0 && self.wall_ns < SHORT_WALL_NS,
        }
    }
}

/// One (dataset, strategy) line of the summaries. Field names are a stable
/// interface (summary.json / summary.csv).
#[derive(Clone, Debug, Serialize, serde::Deserialize, PartialEq)]
pub struct ResultRecord {
    pub dataset: String,
    pub strategy: String,
    pub puzzles: u64,
    /// Verified answers by status: a rejected answer is counted in
    /// `rejected` and nowhere here.
    pub solved: u64,
    pub no_solution: u64,
    pub multiple: u64,
    pub stalled: u64,
    pub gave_up: u64,
    pub invalid: u64,
    /// Faults of external solvers: the process died, did not answer in
    /// time, broke the protocol, or replied `error`.
    #[serde(default)]
    pub crashed: u64,
    #[serde(default)]
    pub timeout: u64,
    #[serde(default)]
    pub protocol_error: u64,
    #[serde(default)]
    pub error: u64,
    /// Puzzles whose answer the harness rejected, each counted once
    /// (the kinds below may overlap): no time, no counters, no pair.
    #[serde(default)]
    pub rejected: u64,
    /// Answers that disagree with the dataset's solution column.
    pub mismatches: u64,
    /// Returned grids that break a rule or a given (engine bugs).
    pub wrong_answers: u64,
    /// Solution counts that differ from bench-sudoku's own.
    #[serde(default)]
    pub wrong_counts: u64,
    /// Answers that changed from one pass to another.
    #[serde(default)]
    pub unstable_answers: u64,
    /// Accepted answers whose search counters changed between passes (the
    /// first pass's counters are reported).
    #[serde(default)]
    pub unstable_counters: u64,
    /// Accepted answers solved in two or more passes, and how many of them
    /// were at least `CACHE_FACTOR` times faster on a later pass than on
    /// the first (a sign of a solver that remembers answers).
    #[serde(default)]
    pub repeated: u64,
    #[serde(default)]
    pub repeat_far_faster: u64,
    /// Accepted answers that carried no solution grid (tdoku's signature
    /// with a limit above 1): only their solution count was checked.
    #[serde(default)]
    pub unverified: u64,
    /// Puzzles whose kept time was an outlier against puzzles of like
    /// search effort and was measured again, the minimum kept
    /// (docs/MEASUREMENT.md, "Spikes").
    #[serde(default)]
    pub remeasured: u64,
    /// The time the harness measured around the strategy's passes over its
    /// chunks (every pass, round trips to a solver process included):
    /// what a solver's own clock is held against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busy_ns: Option<u64>,
    /// For a strategy timed by its own clock: the share of the harness's
    /// measured time per pass that its claimed times account for. An
    /// honest solver's claims cover most of each round trip (over a pipe,
    /// about two thirds for `fast` served: docs/PERFORMANCE.md, External
    /// solvers); a tiny share is a clock that cannot be believed
    /// ([`CLAIMED_SHARE_MIN`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claimed_share: Option<f64>,
    /// Rows skipped with --skip-invalid.
    pub skipped: u64,
    pub threads: usize,
    /// Wall time of the unit, reader start to last row written.
    pub wall_ns: u64,
    /// Sum of the per-puzzle solve times.
    pub solve_ns_total: u64,
    /// Solves per second of wall time (puzzles × passes / wall time).
    pub puzzles_per_sec: f64,
    /// Exact mean of the per-puzzle solve times (of the puzzles that have
    /// one: every puzzle but the faults).
    pub mean_ns: f64,
    pub p50_ns: u64,
    pub p90_ns: u64,
    pub p99_ns: u64,
    pub p999_ns: u64,
    /// Exact maximum.
    pub max_ns: u64,
    /// Search-effort counters; `None` (null) when the strategy does not
    /// report the counter (see `counters`).
    pub guesses_total: Option<u64>,
    pub guesses_mean: Option<f64>,
    pub guesses_max: Option<u64>,
    pub backtracks_total: Option<u64>,
    pub backtracks_mean: Option<f64>,
    pub backtracks_max: Option<u64>,
    pub max_depth_max: Option<u64>,
    pub max_depth_mean: Option<f64>,
    pub nodes_total: Option<u64>,
    pub naked_singles_total: Option<u64>,
    pub hidden_singles_total: Option<u64>,
    /// Candidates removed by each inference level of the generic engine
    /// (`prop=locked` and above); null for the other engines.
    #[serde(default)]
    pub locked_eliminations_total: Option<u64>,
    #[serde(default)]
    pub subset_eliminations_total: Option<u64>,
    #[serde(default)]
    pub fish_eliminations_total: Option<u64>,
    #[serde(default)]
    pub wing_eliminations_total: Option<u64>,
    #[serde(default)]
    pub chain_eliminations_total: Option<u64>,
    /// Share of puzzles solved without a single guess (needs guesses).
    pub no_guess_pct: Option<f64>,
    /// (slowest − fastest) / fastest measured pass, in percent.
    pub repeat_spread_pct: f64,
    /// Total solve time of each measured pass.
    pub pass_solve_ns: Vec<u64>,
    pub complete: bool,
    /// The counters the strategy reports (the others are null above).
    #[serde(default = "all_counters")]
    pub counters: CounterSet,
    /// Where the solve times come from: `harness` (the harness's monotonic
    /// clock around an in-process call), `solver` (the solver's own), or
    /// `round_trip` (request to reply through a pipe).
    #[serde(default)]
    pub clock: Clock,
    /// The paired comparison with the baseline of an interleaved run
    /// (absent for the baseline itself and in sequential runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paired: Option<Paired>,
    /// The gate's candidate's paired comparison with the gate's BASE, when
    /// BASE is not the baseline (`run --gate BASE:CANDIDATE --baseline
    /// OTHER`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paired_gate: Option<Paired>,
    /// A total (of a search counter or of the solve times) reached
    /// u64::MAX, the most it holds: it stopped there, so it and the means
    /// made from it are lower bounds. Happens only with an external solver
    /// that reports absurd values ([`ResultRecord::saturated`] names them).
    /// Written only when true.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub counters_saturated: bool,
    /// The strategy's share of the run's wall time (`wall_ns`) was under
    /// [`SHORT_WALL_NS`]: too short to time, its wall-clock figures
    /// (`puzzles_per_sec`, `wall_ns`) are mostly start-up and scheduler
    /// noise ([`ResultRecord::short_timing`]).
    #[serde(default)]
    pub too_short: bool,
}

/// The counters of a summary written before the record listed them: the
/// search counters, which every strategy reported then.
fn all_counters() -> CounterSet {
    CounterSet::SEARCH
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

impl ResultRecord {
    /// The elimination totals, in the order of [`ELIMINATIONS`].
    pub fn eliminations(&self) -> [Option<u64>; 5] {
        [
            self.locked_eliminations_total,
            self.subset_eliminations_total,
            self.fish_eliminations_total,
            self.wing_eliminations_total,
            self.chain_eliminations_total,
        ]
    }

    /// The paired comparison with strategy `reference`: the one with the
    /// baseline, or the gate's with its BASE.
    pub fn paired_with(&self, reference: &str) -> Option<&Paired> {
        [self.paired.as_ref(), self.paired_gate.as_ref()]
            .into_iter()
            .flatten()
            .find(|p| p.baseline == reference)
    }

    /// Too short to time: a wall time measured, and under
    /// [`SHORT_WALL_NS`] (computed from `wall_ns`, so that a summary
    /// written before the flag existed is judged the same way).
    pub fn short_timing(&self) -> bool {
        self.wall_ns > 0 && self.wall_ns < SHORT_WALL_NS
    }

    /// The number of puzzles with outcome `st`.
    pub fn count(&self, st: Status) -> u64 {
        match st {
            Status::Solved => self.solved,
            Status::NoSolution => self.no_solution,
            Status::Multiple => self.multiple,
            Status::Invalid => self.invalid,
            Status::Stalled => self.stalled,
            Status::GaveUp => self.gave_up,
            Status::Crashed => self.crashed,
            Status::Timeout => self.timeout,
            Status::ProtocolError => self.protocol_error,
            Status::Error => self.error,
        }
    }

    /// Puzzles the solver failed on.
    pub fn faults(&self) -> u64 {
        Status::FAULTS.iter().map(|&s| self.count(s)).sum()
    }

    /// Rejected answers: mismatches with the dataset's solution, answers
    /// that break the rules, counts that disagree, answers that changed
    /// between passes (each puzzle once).
    pub fn wrong(&self) -> u64 {
        if self.rejected > 0 {
            self.rejected
        } else {
            // A summary written before rejected answers were counted apart
            // has only the kinds (then at most one per puzzle).
            self.mismatches + self.wrong_answers + self.wrong_counts + self.unstable_answers
        }
    }

    /// Puzzles with a time: the accepted answers.
    pub fn timed(&self) -> u64 {
        self.puzzles.saturating_sub(self.faults() + self.rejected)
    }

    /// For a strategy timed by its own clock, the share of the harness's
    /// time its claims account for ([`ResultRecord::claimed_share`]).
    pub fn claimed_share(&self) -> Option<f64> {
        self.claimed_share
    }

    /// Its own clock claims too little of the harness's time to be believed.
    pub fn implausible_clock(&self) -> bool {
        self.claimed_share.is_some_and(|s| s < CLAIMED_SHARE_MIN)
    }

    /// A strategy whose repeated passes were far faster than its first on
    /// most puzzles: it may remember answers rather than solve.
    pub fn cache_suspect(&self) -> bool {
        self.repeated > 0 && 2 * self.repeat_far_faster > self.repeated
    }

    /// The totals that reached u64::MAX (see `counters_saturated`).
    pub fn saturated(&self) -> Vec<&'static str> {
        let full = |v: Option<u64>| v == Some(u64::MAX);
        [
            ("solve_ns_total", Some(self.solve_ns_total)),
            ("guesses_total", self.guesses_total),
            ("backtracks_total", self.backtracks_total),
            ("nodes_total", self.nodes_total),
            ("naked_singles_total", self.naked_singles_total),
            ("hidden_singles_total", self.hidden_singles_total),
            ("locked_eliminations_total", self.locked_eliminations_total),
            ("subset_eliminations_total", self.subset_eliminations_total),
            ("fish_eliminations_total", self.fish_eliminations_total),
            ("wing_eliminations_total", self.wing_eliminations_total),
            ("chain_eliminations_total", self.chain_eliminations_total),
        ]
        .into_iter()
        .filter(|&(_, v)| full(v))
        .map(|(name, _)| name)
        .chain(
            self.pass_solve_ns
                .contains(&u64::MAX)
                .then_some("pass_solve_ns"),
        )
        .collect()
    }

    /// Answers that count against the run (rejected answers and faults),
    /// each puzzle once.
    pub fn bad(&self) -> u64 {
        self.wrong() + self.faults()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::Counters;

    fn outcome(time_ns: u64, guesses: u64, status: Status) -> PuzzleOutcome {
        PuzzleOutcome {
            index: 0,
            line: 1,
            status,
            solutions: 1,
            time_ns,
            counters: Counters {
                guesses,
                backtracks: guesses,
                max_depth: guesses.min(5) as u32,
                nodes: guesses + 1,
                naked_singles: 10,
                hidden_singles: 2,
                ..Counters::default()
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

    #[test]
    fn histograms_grow_to_any_value_and_clamp_at_the_maximum() {
        let mut u = UnitStats::new("d", "s", 1);
        for t in [1u64, 70_000, 5_000_000_000, HIST_MAX * 10] {
            u.record(&outcome(t, 1_000_000, Status::Solved));
        }
        let r = u.summary(1);
        assert_eq!(r.max_ns, HIST_MAX * 10, "the exact maximum is kept");
        assert_eq!(u.time.len(), 4);
        // Within 0.1 % (3 significant figures), the top value clamped.
        let close = |a: u64, b: u64| (a as f64 - b as f64).abs() <= b as f64 * 1e-3;
        assert!(close(u.time.value_at_quantile(0.5), 70_000));
        assert!(close(u.time.value_at_quantile(0.75), 5_000_000_000));
        assert!(close(u.time.max(), HIST_MAX));
        assert!(close(u.guesses.max(), 1_000_000));
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
        assert_eq!(direct.summary(1), counted.summary(1));
    }

    #[test]
    fn aggregates_are_exact() {
        let mut u = UnitStats::new("d", "s", 1);
        for i in 1..=1000u64 {
            u.record(&outcome(i * 1000, i % 3, Status::Solved));
        }
        u.wall_ns = 2_000_000;
        let r = u.summary(2);
        assert_eq!(r.puzzles, 1000);
        assert_eq!(r.solved, 1000);
        assert_eq!(r.solve_ns_total, 500_500_000);
        assert_eq!(r.mean_ns, 500_500.0);
        assert_eq!(r.max_ns, 1_000_000);
        // 3 significant figures: within 0.1 %.
        assert!((r.p50_ns as f64 - 500_000.0).abs() <= 500.0, "{}", r.p50_ns);
        assert!((r.p99_ns as f64 - 990_000.0).abs() <= 990.0, "{}", r.p99_ns);
        assert_eq!(r.guesses_total, Some(1000));
        assert_eq!(r.guesses_max, Some(2));
        assert!((r.no_guess_pct.unwrap() - 33.3).abs() < 0.01);
        assert_eq!(r.puzzles_per_sec, 500_000.0);
    }

    #[test]
    fn per_thread_parts_in_any_order_merge_to_the_whole_with_the_same_lists() {
        use rand::seq::SliceRandom;
        use rand::SeedableRng;
        // 5,000 puzzles, every third one wrong and every seventh a fault:
        // more than the lists keep, so which ones are kept matters.
        let outcomes: Vec<PuzzleOutcome> = (0..5000u64)
            .map(|i| {
                let st = if i % 7 == 0 {
                    Status::Crashed
                } else {
                    Status::Solved
                };
                let mut o = outcome(i * 997 % 100_000 + 1, i % 90, st);
                o.index = i;
                o.line = i + 2;
                if i % 3 == 0 {
                    o.matches_solution = Some(false);
                }
                o
            })
            .collect();
        let mut whole = UnitStats::new("d", "s", 1);
        for o in &outcomes {
            whole.record(o);
        }
        // Batches of 64 finished by four threads in a shuffled order.
        let mut batches: Vec<&[PuzzleOutcome]> = outcomes.chunks(64).collect();
        batches.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(7));
        let mut parts: Vec<(UnitStats, SmallCounts)> = (0..4)
            .map(|_| (UnitStats::new("d", "s", 1), SmallCounts::default()))
            .collect();
        for (i, b) in batches.iter().enumerate() {
            let (u, small) = &mut parts[i % 4];
            for o in b.iter() {
                u.record_counting(o, small);
            }
        }
        let mut merged = UnitStats::new("d", "s", 1);
        for (mut u, mut small) in parts {
            small.flush(&mut u);
            merged.merge_outcomes(&u).unwrap();
        }
        whole.settle();
        assert_eq!(whole.summary(1), merged.summary(1));
        assert_eq!(whole.time, merged.time);
        assert_eq!(whole.guesses, merged.guesses);
        assert_eq!(whole.mismatch_list.len(), LIST_CAP);
        let key = |m: &Mismatch| (m.index, m.kind.as_str(), m.detail.clone());
        let (a, b): (Vec<_>, Vec<_>) = (
            whole.mismatch_list.iter().map(key).collect(),
            merged.mismatch_list.iter().map(key).collect(),
        );
        assert_eq!(a, b);
        let first: Vec<u64> = merged.mismatch_list[..6].iter().map(|m| m.index).collect();
        assert_eq!(first, [3, 6, 9, 12, 15, 18]);
        let faults = |u: &UnitStats| u.fault_list.iter().map(|f| f.index).collect::<Vec<_>>();
        assert_eq!(faults(&whole), faults(&merged));
        assert_eq!(faults(&merged)[..3], [0, 7, 14]);
    }

    #[test]
    fn parts_rebuilt_and_merged_equal_the_whole() {
        let outcomes: Vec<PuzzleOutcome> = (1..=600u64)
            .map(|i| {
                let st = if i % 50 == 0 {
                    Status::GaveUp
                } else {
                    Status::Solved
                };
                outcome(i * 997 % 100_000 + 1, i * 7 % 23, st)
            })
            .collect();
        let mut whole = UnitStats::new("d", "s", 1);
        let mut parts = [
            UnitStats::new("d", "s", 1),
            UnitStats::new("d", "s", 1),
            UnitStats::new("d", "s", 1),
        ];
        for (i, o) in outcomes.iter().enumerate() {
            whole.record(o);
            parts[i % 3].record(o);
        }
        let passes = 1;
        let rebuilt: Vec<UnitStats> = parts
            .iter_mut()
            .map(|p| {
                p.pass_ns = vec![p.solve_ns_total];
                p.complete = true;
                UnitStats::from_parts(
                    &p.summary(1),
                    p.time.clone(),
                    p.guesses.clone(),
                    p.depth.clone(),
                    passes,
                )
            })
            .collect();
        let mut merged = rebuilt[0].clone();
        for r in &rebuilt[1..] {
            merged.merge(r).unwrap();
        }
        whole.pass_ns = vec![whole.solve_ns_total];
        whole.complete = true;
        let (a, b) = (whole.summary(1), merged.summary(1));
        assert_eq!(a, b);
        assert_eq!(whole.time, merged.time);
        assert_eq!(whole.no_guess, merged.no_guess);
    }

    #[test]
    fn hgrm_has_the_standard_shape() {
        let mut u = UnitStats::new("d", "s", 1);
        for i in 1..=100u64 {
            u.record(&outcome(i * 1000, 0, Status::Solved));
        }
        let text = hgrm_text(&u.time, 1000.0);
        let first = text.lines().next().unwrap();
        assert!(first.contains("Value") && first.contains("1/(1-Percentile)"));
        let rows: Vec<&str> = text
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.contains("Value"))
            .collect();
        assert!(rows.len() > 10);
        let last: Vec<&str> = rows.last().unwrap().split_whitespace().collect();
        assert_eq!(last[1], "1.000000000000");
        assert_eq!(last[2], "100");
        assert!(text.contains("#[Max     ="));
        // The V2 bytes read back to the same histogram.
        let bytes = v2_bytes(&u.time);
        let back: Histogram<u64> = hdrhistogram::serialization::Deserializer::new()
            .deserialize(&mut &bytes[..])
            .unwrap();
        assert_eq!(back, u.time);
    }
}
