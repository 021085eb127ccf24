//! `summary.json`'s `results`: one record per (dataset, strategy) — its
//! outcomes, times and exact counters — made from a unit's aggregates
//! ([`ResultRecord::of`]) and turned back into them for a merge
//! ([`ResultRecord::to_unit`]).

use crate::bench::metrics::{UnitStats, ELIMINATIONS};
use crate::bench::paired::Paired;
use crate::judge::Side;
use crate::solver::{Clock, Counter, CounterSet, Status};
use hdrhistogram::Histogram;
use serde::Serialize;

/// Below this much wall time a strategy's wall-clock figures (puzzles/s,
/// a scan's speedups) are not believed: the fixed cost of starting the
/// threads and the reader, and a single descheduling, are a large share
/// of it (docs/MEASUREMENT.md §2, measured with
/// scripts/short-run-noise.sh; hyperfine warns below 5 ms).
pub const SHORT_WALL_NS: u64 = 10_000_000;

/// One (dataset, strategy) line of the summaries. Field names are a stable
/// interface (summary.json / summary.csv).
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize, PartialEq)]
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
    /// ([`crate::judge::CLAIMED_SHARE_MIN`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claimed_share: Option<f64>,
    /// For a strategy timed by its own clock, the harness's time per solve
    /// its claims leave out (pipes, wake-ups, the call): the median over
    /// its chunks. What the judge holds two self-timed sides' clocks
    /// against each other with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unclaimed_ns: Option<f64>,
    /// The standard error of that median (from the chunks' spread).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unclaimed_se_ns: Option<f64>,
    /// The chunks' unclaimed times themselves, in chunk order, for a judge
    /// of the same run that pairs two sides chunk by chunk (not written).
    #[serde(skip)]
    pub unclaimed_chunks: Vec<f32>,
    /// Rows skipped with --skip-invalid.
    pub skipped: u64,
    pub threads: usize,
    /// Wall time of the unit, reader start to last row written.
    pub wall_ns: u64,
    /// Sum of the per-puzzle solve times.
    pub solve_ns_total: u64,
    /// Which puzzle had which kept time and outcome, as one number
    /// ([`crate::bench::metrics::row_fingerprint`] summed over the accepted
    /// answers; 16 hexadecimal digits, so that no JSON reader rounds it):
    /// what `puzzles.csv`'s rows are held against row by row. Absent from
    /// summaries written without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows_fingerprint: Option<String>,
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
    /// With `run --gate … --budget`: what the rounds after the first
    /// found. The times above are the first round's; every round's answers
    /// were verified, and their rejections and faults are here (the judge
    /// counts them with the first round's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub later_rounds: Option<LaterRounds>,
}

/// The outcomes of one unit over the later rounds of a budgeted gate.
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize, PartialEq)]
pub struct LaterRounds {
    /// Rounds after the first that measured this unit.
    pub rounds: u32,
    /// Solves over those rounds.
    pub puzzles: u64,
    pub solved: u64,
    /// Gave up or stalled.
    pub unsolved: u64,
    pub rejected: u64,
    pub faults: u64,
    pub unverified: u64,
    pub repeated: u64,
    pub repeat_far_faster: u64,
    /// A later round was far faster than the first on the same puzzles
    /// (a cache kept across rounds).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cache_across_rounds: bool,
    /// The first rejected answers and faults, each with its round.
    pub examples: Vec<String>,
}

/// Rejected answers and faults listed per unit over the later rounds.
const LATER_EXAMPLES: usize = 20;

impl LaterRounds {
    /// The later rounds' outcomes merged into `u` (their lists' details
    /// already name their round), over `rounds` rounds.
    pub fn of(u: &UnitStats, rounds: u32) -> LaterRounds {
        let examples = u
            .mismatch_list
            .iter()
            .map(|m| format!("index {} (line {}): {}", m.index, m.line, m.detail))
            .chain(u.fault_list.iter().map(|f| {
                format!(
                    "index {} (line {}): {} {}",
                    f.index,
                    f.line,
                    f.status.as_str(),
                    f.detail
                )
            }))
            .take(LATER_EXAMPLES)
            .collect();
        LaterRounds {
            rounds,
            puzzles: u.puzzles,
            solved: u.count(Status::Solved) + u.count(Status::Multiple),
            unsolved: u.count(Status::GaveUp) + u.count(Status::Stalled),
            rejected: u.rejected,
            faults: Status::FAULTS.iter().map(|&s| u.count(s)).sum(),
            unverified: u.unverified,
            repeated: u.repeated,
            repeat_far_faster: u.repeat_far_faster,
            cache_across_rounds: false,
            examples,
        }
    }

    /// Adds another shard's later rounds of the same unit: counts summed,
    /// the rounds the most either shard ran, examples kept up to the cap.
    pub fn merge(&mut self, o: &LaterRounds) {
        self.rounds = self.rounds.max(o.rounds);
        self.puzzles += o.puzzles;
        self.solved += o.solved;
        self.unsolved += o.unsolved;
        self.rejected += o.rejected;
        self.faults += o.faults;
        self.unverified += o.unverified;
        self.repeated += o.repeated;
        self.repeat_far_faster += o.repeat_far_faster;
        self.cache_across_rounds |= o.cache_across_rounds;
        let room = LATER_EXAMPLES.saturating_sub(self.examples.len());
        self.examples.extend(o.examples.iter().take(room).cloned());
    }
}

/// The counters of a summary written before the record listed them: the
/// search counters, which every strategy reported then.
fn all_counters() -> CounterSet {
    CounterSet::SEARCH
}

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

    /// The result as one side of a verdict, named `name`.
    pub fn side(&self, name: &str) -> Side {
        let r = self;
        let timed = r.timed().max(1) as f64;
        let passes = r.pass_solve_ns.len().max(1) as f64;
        let claimed_pass = r.pass_solve_ns.iter().map(|&n| n as f64).sum::<f64>() / passes;
        let self_timed = r.clock == Clock::Solver;
        // The unclaimed time: the median over chunks where the run kept it
        // (robust to a descheduled chunk), else from the totals.
        let (claimed_mean_ns, unclaimed_ns) = match r.claimed_share {
            Some(share) if self_timed && share > 0.0 => (
                Some(claimed_pass / timed),
                r.unclaimed_ns
                    .or(Some((claimed_pass / share - claimed_pass) / timed)),
            ),
            _ => (None, None),
        };
        // The later rounds of a budgeted gate: their failures count with
        // the first round's (its times and counts are the first round's).
        let later = r.later_rounds.clone().unwrap_or_default();
        Side {
            name: name.to_string(),
            puzzles: r.puzzles,
            solved: r.solved + r.multiple,
            unsolved: r.gave_up + r.stalled + later.unsolved,
            rejected: r.wrong() + later.rejected,
            faults: r.faults() + later.faults,
            unverified: r.unverified + later.unverified,
            repeated: r.repeated + later.repeated,
            repeat_far_faster: r.repeat_far_faster + later.repeat_far_faster,
            cache_across_rounds: later.cache_across_rounds,
            kept_share: self_timed
                .then(|| {
                    let passes = r.pass_solve_ns.len();
                    let mean = r.pass_solve_ns.iter().map(|&t| t as f64).sum::<f64>()
                        / passes.max(1) as f64;
                    (passes > 1 && mean > 0.0).then(|| r.solve_ns_total as f64 / mean)
                })
                .flatten(),
            clock: r.clock,
            claimed_share: r.claimed_share,
            claimed_mean_ns,
            unclaimed_ns,
            unclaimed_se_ns: r.unclaimed_se_ns,
            unclaimed_chunks: r.unclaimed_chunks.clone(),
            measured_passes: (!r.pass_solve_ns.is_empty()).then_some(r.pass_solve_ns.len() as u32),
        }
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

    /// The record of a unit's aggregates (the `results` entries of
    /// summary.json); `threads` is the run's thread count.
    pub fn of(u: &UnitStats, threads: usize) -> ResultRecord {
        let solver_clock = u.clock == Clock::Solver;
        let mut r = ResultRecord {
            dataset: u.dataset.clone(),
            strategy: u.strategy.clone(),
            puzzles: u.puzzles,
            solved: u.count(Status::Solved),
            no_solution: u.count(Status::NoSolution),
            multiple: u.count(Status::Multiple),
            stalled: u.count(Status::Stalled),
            gave_up: u.count(Status::GaveUp),
            invalid: u.count(Status::Invalid),
            crashed: u.count(Status::Crashed),
            timeout: u.count(Status::Timeout),
            protocol_error: u.count(Status::ProtocolError),
            error: u.count(Status::Error),
            rejected: u.rejected,
            mismatches: u.mismatches,
            wrong_answers: u.wrong_answers,
            wrong_counts: u.wrong_counts,
            unstable_answers: u.unstable_answers,
            unstable_counters: u.unstable_counters,
            repeated: u.repeated,
            repeat_far_faster: u.repeat_far_faster,
            unverified: u.unverified,
            remeasured: u.remeasured,
            busy_ns: Some(u.busy_ns).filter(|&b| b > 0),
            claimed_share: u.claimed_share(),
            unclaimed_ns: u.unclaimed_median().filter(|_| solver_clock),
            unclaimed_se_ns: u.unclaimed_se().filter(|_| solver_clock),
            unclaimed_chunks: if solver_clock {
                u.unclaimed.clone()
            } else {
                Vec::new()
            },
            skipped: u.skipped,
            threads,
            wall_ns: u.wall_ns,
            complete: u.complete,
            counters: u.counters,
            clock: u.clock,
            paired: u.paired.clone(),
            paired_gate: u.paired_gate.clone(),
            too_short: u.wall_ns > 0 && u.wall_ns < SHORT_WALL_NS,
            later_rounds: None,
            ..ResultRecord::default()
        };
        r.set_times(u);
        r.set_search(u);
        r
    }

    /// The time fields: totals, throughput, mean and percentiles, passes.
    fn set_times(&mut self, u: &UnitStats) {
        // Means over the puzzles that have a time and counters (faults have
        // neither).
        let timed = u.timed();
        let q = |p: f64| crate::bench::metrics::time_percentile(&u.time, u.time_max, p);
        let (pmin, pmax) = (
            u.pass_ns.iter().copied().min().unwrap_or(0),
            u.pass_ns.iter().copied().max().unwrap_or(0),
        );
        self.solve_ns_total = u.solve_ns_total;
        self.rows_fingerprint = u.rows_fingerprint.map(|f| format!("{f:016x}"));
        self.puzzles_per_sec = if u.wall_ns == 0 {
            0.0
        } else {
            (u.puzzles * u.passes as u64) as f64 * 1e9 / u.wall_ns as f64
        };
        self.mean_ns = u.solve_ns_total as f64 / timed.max(1) as f64;
        (self.p50_ns, self.p90_ns) = (q(0.5), q(0.9));
        (self.p99_ns, self.p999_ns) = (q(0.99), q(0.999));
        self.max_ns = u.time_max;
        self.repeat_spread_pct = if pmin == 0 {
            0.0
        } else {
            (pmax - pmin) as f64 * 100.0 / pmin as f64
        };
        self.pass_solve_ns = u.pass_ns.clone();
    }

    /// The search counters' totals, means and maxima (each `None` where
    /// the strategy does not report it), and whether a total saturated.
    fn set_search(&mut self, u: &UnitStats) {
        let n = u.timed().max(1) as f64;
        let has = |c: Counter| u.counters.has(c);
        let total = |c: Counter, v: u64| has(c).then_some(v);
        let mean = |c: Counter, v: u64| has(c).then_some(v as f64 / n);
        self.guesses_total = total(Counter::Guesses, u.guesses_total);
        self.guesses_mean = mean(Counter::Guesses, u.guesses_total);
        self.guesses_max = total(Counter::Guesses, u.guesses_max);
        self.backtracks_total = total(Counter::Backtracks, u.backtracks_total);
        self.backtracks_mean = mean(Counter::Backtracks, u.backtracks_total);
        self.backtracks_max = total(Counter::Backtracks, u.backtracks_max);
        self.max_depth_max = total(Counter::MaxDepth, u.max_depth_max);
        self.max_depth_mean = has(Counter::MaxDepth).then(|| u.depth.mean());
        self.nodes_total = total(Counter::Nodes, u.nodes_total);
        self.naked_singles_total = total(Counter::NakedSingles, u.naked_total);
        self.hidden_singles_total = total(Counter::HiddenSingles, u.hidden_total);
        let e = ELIMINATIONS
            .iter()
            .zip(u.eliminations_total)
            .map(|(&c, v)| total(c, v))
            .collect::<Vec<_>>();
        self.locked_eliminations_total = e[0];
        self.subset_eliminations_total = e[1];
        self.fish_eliminations_total = e[2];
        self.wing_eliminations_total = e[3];
        self.chain_eliminations_total = e[4];
        self.no_guess_pct = has(Counter::Guesses).then(|| u.no_guess as f64 * 100.0 / n);
        self.counters_saturated = [
            u.solve_ns_total,
            u.guesses_total,
            u.backtracks_total,
            u.nodes_total,
            u.naked_total,
            u.hidden_total,
        ]
        .iter()
        .chain(&u.eliminations_total)
        .chain(&u.pass_ns)
        .any(|&t| t == u64::MAX);
    }

    /// Rebuilds the aggregates of a unit from what a results directory keeps:
    /// its summary record and its three histograms (the `.hdr` files).
    /// Everything [`ResultRecord::of`] reads is restored exactly except the
    /// `no_guess` count, which is recovered from its percentage (rounded; exact
    /// for any realistic unit size).
    pub fn to_unit(
        &self,
        time: Histogram<u64>,
        guesses: Histogram<u64>,
        depth: Histogram<u64>,
        passes: u32,
    ) -> UnitStats {
        let r = self;
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
            unclaimed: r.unclaimed_ns.map_or_else(Vec::new, |u| vec![u as f32]),
            solve_ns_total: r.solve_ns_total,
            // One that cannot be read makes the merged unit's unknown too
            // (the shard's rows are refused before that matters).
            rows_fingerprint: r
                .rows_fingerprint
                .as_deref()
                .and_then(|f| u64::from_str_radix(f, 16).ok()),
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::metrics::test_outcome as outcome;
    use crate::bench::metrics::*;

    #[test]
    fn later_rounds_count_with_the_first_rounds_failures() {
        // A unit whose first round was clean, and later rounds that found
        // two rejected answers and a fault.
        let mut first = UnitStats::new("d", "s", 1);
        first.record(&outcome(1000, 3, Status::Solved));
        let r = ResultRecord::of(&first, 1);
        assert_eq!(r.side("s").rejected + r.side("s").faults, 0);
        let mut later = UnitStats::new("d", "s", 1);
        later.record(&outcome(900, 3, Status::Solved));
        later.record(&outcome(10, 0, Status::Crashed));
        later.rejected = 2;
        let rounds = LaterRounds::of(&later, 2);
        assert_eq!(
            (
                rounds.rounds,
                rounds.puzzles,
                rounds.rejected,
                rounds.faults
            ),
            (2, 2, 2, 1)
        );
        let r = ResultRecord {
            later_rounds: Some(rounds),
            ..r
        };
        let side = r.side("s");
        assert_eq!((side.rejected, side.faults), (2, 1));
        // What the judge says of it: a failure, and it is kept in summary.json.
        assert!(crate::judge::believable(&side)
            .iter()
            .any(|f| f.weight == crate::judge::Weight::Fail));
        let json = serde_json::to_string(&r).unwrap();
        let back: ResultRecord = serde_json::from_str(&json).unwrap();
        assert_eq!(back.later_rounds, r.later_rounds);
    }

    #[test]
    fn histograms_grow_to_any_value_and_clamp_at_the_maximum() {
        let mut u = UnitStats::new("d", "s", 1);
        for t in [1u64, 70_000, 5_000_000_000, HIST_MAX * 10] {
            u.record(&outcome(t, 1_000_000, Status::Solved));
        }
        let r = ResultRecord::of(&u, 1);
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
    fn aggregates_are_exact() {
        let mut u = UnitStats::new("d", "s", 1);
        for i in 1..=1000u64 {
            u.record(&outcome(i * 1000, i % 3, Status::Solved));
        }
        u.wall_ns = 2_000_000;
        let r = ResultRecord::of(&u, 2);
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
        assert_eq!(ResultRecord::of(&whole, 1), ResultRecord::of(&merged, 1));
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
                ResultRecord::of(p, 1).to_unit(
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
        let (a, b) = (ResultRecord::of(&whole, 1), ResultRecord::of(&merged, 1));
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
