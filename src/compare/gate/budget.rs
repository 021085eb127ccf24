//! `run --gate BASE:CANDIDATE --budget D`: the run measures round after
//! round ([`crate::bench::rounds`]) until every dataset's time is decided
//! or another round would not end within the budget, and the gate judges
//! each dataset on every round's chunks at once, with the confidence
//! sequence of [`crate::compare::sequential`], which stays valid however many
//! rounds are looked at.
//!
//! A dataset stops being measured when its interval decides (regressed,
//! improved or unchanged), or when a round gives it a reason to fail
//! (rejected answers, faults, answers that differ, counters with
//! `--fail-on counters`) or not to be judged (a side that cannot be
//! believed): more rounds would change neither. Every round's answers are
//! verified like the first's. The first round's failures and notes are
//! the run's own (its records); a later round's are named by its number.

use super::{checks, BudgetFacts, Estimate, Gate};
use crate::bench::metrics::{UnitStats, CACHE_FACTOR};
use crate::bench::rounds::{self, End, Round};
use crate::bench::{DatasetInfo, Passes, Progress, RunOptions, RunResults};
use crate::compare::sequential::{Decision, Sums};
use crate::judge::{Finding, Findings, Rule, Weight};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One round of one dataset.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundFact {
    pub round: u32,
    pub transform: Option<u64>,
    pub pairs: u64,
    pub chunks: u64,
    /// The round's own geometric-mean ratio.
    pub ratio: f64,
    /// The round's wall time (every dataset it measured).
    pub seconds: f64,
}

/// What every round says about one dataset.
#[derive(Clone, Debug)]
pub struct Evidence {
    pub dataset: String,
    /// Every round's chunks.
    pub sums: Sums,
    /// The chunks the confidence sequence is tuned for (those the budget
    /// is expected to hold).
    pub target: f64,
    pub round_facts: Vec<RoundFact>,
    /// Reasons to fail or not to judge found by a later round.
    pub findings: Findings,
    /// The first round already failed or could not be judged.
    settled_first: bool,
    /// Each side's mean kept time in the first round (BASE, CANDIDATE).
    first_means: (f64, f64),
    /// The labels a later round found far faster than the first.
    pub cache_suspects: Vec<String>,
}

impl Evidence {
    fn new(dataset: &str) -> Self {
        Evidence {
            dataset: dataset.to_string(),
            sums: Sums::default(),
            target: 0.0,
            round_facts: Vec::new(),
            findings: Findings::default(),
            settled_first: false,
            first_means: (0.0, 0.0),
            cache_suspects: Vec::new(),
        }
    }

    /// The confidence sequence's interval over every round (`None`: too
    /// few chunks).
    pub fn estimate(&self) -> Option<Estimate> {
        let rounds = self.round_facts.len() as u32;
        self.sums
            .interval(self.target)
            .map(|i| Estimate::of_sequence(&i, rounds))
    }

    /// Rounds measured, pairs and chunks.
    pub fn rounds(&self) -> (u32, u64, u64) {
        (
            self.round_facts.len() as u32,
            self.sums.pairs,
            self.sums.chunks,
        )
    }

    /// Still to be measured: nothing settled it and its interval (if it
    /// has one yet) is undecided.
    fn open(&self, gate: &Gate) -> bool {
        !self.settled_first
            && !self.findings.any(Weight::Fail)
            && !self.findings.any(Weight::Unjudged)
            && self
                .estimate()
                .is_none_or(|e| e.decide(gate.threshold) == Decision::Undecided)
    }

    /// Takes a round's units of this dataset (none: it was not measured).
    fn take(&mut self, gate: &Gate, round: &Round, isomorphs: bool) {
        let find = |label: &str| {
            round
                .units
                .iter()
                .find(|u| u.dataset == self.dataset && u.strategy == label)
        };
        let (Some(base), Some(cand)) = (find(&gate.base), find(&gate.candidate)) else {
            return;
        };
        let (b, c) = (
            crate::results::ResultRecord::of(base, 0),
            crate::results::ResultRecord::of(cand, 0),
        );
        let found = checks(gate, Some(&b), Some(&c));
        if round.number == 1 {
            let f = &found.findings;
            self.settled_first = f.any(Weight::Fail) || f.any(Weight::Unjudged);
            self.first_means = (b.mean_ns, c.mean_ns);
        } else {
            let prefix = format!("round {}: ", round.number);
            self.findings.extend(
                found
                    .findings
                    .0
                    .into_iter()
                    .filter(|f| f.weight != Weight::Note)
                    .map(|f| f.prefixed(&prefix)),
            );
            // With --transform each round solves new isomorphs, but a
            // cache keyed by a canonical form of the grid would still
            // remember them: the check runs either way.
            self.cache_check(gate, round.number, (b.mean_ns, c.mean_ns), isomorphs);
        }
        self.add_chunks(gate, cand, round);
    }

    /// The candidate's chunks (paired with BASE) of a round and the round's
    /// own figures.
    fn add_chunks(&mut self, gate: &Gate, cand: &UnitStats, round: &Round) {
        let Some(p) = cand.paired_with(&gate.base) else {
            return;
        };
        for &(n, sum) in &p.block_sums {
            self.sums.add(n, sum);
        }
        self.round_facts.push(RoundFact {
            round: round.number,
            transform: round.transform,
            pairs: p.pairs,
            chunks: p.blocks.0,
            ratio: p.geomean_ratio,
            seconds: round.wall.as_secs_f64(),
        });
    }

    /// On the same puzzles (or their isomorphs) again, a side far faster
    /// than in the first round may be answering from a cache kept across
    /// rounds.
    fn cache_check(&mut self, gate: &Gate, number: u32, means: (f64, f64), isomorphs: bool) {
        let puzzles = if isomorphs {
            "on isomorphs of the same puzzles (a cache may key them by a canonical form)"
        } else {
            "on the same puzzles"
        };
        for (label, first, now) in [
            (&gate.base, self.first_means.0, means.0),
            (&gate.candidate, self.first_means.1, means.1),
        ] {
            if now > 0.0 && first > now * CACHE_FACTOR as f64 {
                if !self.cache_suspects.contains(label) {
                    self.cache_suspects.push(label.clone());
                }
                self.findings.push(Finding::unjudged(
                    Rule::Cache,
                    format!(
                        "round {number}: {label}'s mean time is {:.1}× shorter than in the first \
                         round {puzzles}: it may be caching answers across rounds; judge it on \
                         first calls of puzzles it has not seen",
                        first / now
                    ),
                ));
            }
        }
    }
}

/// Every round's evidence of a run with a time budget.
#[derive(Clone, Debug)]
pub struct Budgeted {
    pub budget: Duration,
    pub datasets: Vec<Evidence>,
    pub rounds: u32,
    /// From the start of the run to the end of its last round.
    pub elapsed: Duration,
    pub longest: Duration,
    pub end: End,
    /// `--transform`: each round solved new isomorphs.
    pub isomorphs: bool,
    /// The passes of the rounds after the first, when they differ from
    /// the first's ([`later_passes`]).
    pub later_passes: Option<Passes>,
    /// Every unit's outcomes over the rounds after the first (their
    /// rejected answers and faults named by round), for the results
    /// directory: what was measured is recorded, not only the first round.
    pub later: Vec<UnitStats>,
}

impl Budgeted {
    pub fn evidence(&self, dataset: &str) -> Option<&Evidence> {
        self.datasets.iter().find(|e| e.dataset == dataset)
    }

    pub fn facts(&self) -> BudgetFacts {
        BudgetFacts {
            budget: self.budget,
            rounds: self.rounds,
            elapsed: self.elapsed,
            longest_round: self.longest,
            end: self.end.as_str(),
            isomorphs: self.isomorphs,
            later_passes: self.later_passes,
        }
    }

    /// The datasets (indexes) still to be measured.
    fn open(&self, gate: &Gate) -> Vec<usize> {
        (0..self.datasets.len())
            .filter(|&i| self.datasets[i].open(gate))
            .collect()
    }

    fn take(&mut self, gate: &Gate, round: &Round) {
        let isomorphs = self.isomorphs;
        for e in &mut self.datasets {
            e.take(gate, round, isomorphs);
        }
        if round.number > 1 {
            self.keep_outcomes(round);
        }
    }

    /// Adds a later round's outcomes to [`Budgeted::later`].
    fn keep_outcomes(&mut self, round: &Round) {
        for u in round.units {
            let mut mine = u.clone();
            let named = |d: &str| format!("round {}: {d}", round.number);
            for m in &mut mine.mismatch_list {
                m.detail = named(&m.detail);
            }
            for f in &mut mine.fault_list {
                f.detail = named(&f.detail);
            }
            let at = self
                .later
                .iter()
                .position(|l| l.dataset == u.dataset && l.strategy == u.strategy);
            match at {
                // Outcomes only: the histograms of one unit always add.
                Some(i) => {
                    let _ = self.later[i].merge_outcomes(&mine);
                }
                None => self.later.push(mine),
            }
        }
    }

    /// The rounds after the first that measured unit (`dataset`,
    /// `strategy`), and their outcomes.
    /// Whether a later round found `strategy` far faster than the first
    /// on `dataset`.
    pub fn cache_across_rounds(&self, dataset: &str, strategy: &str) -> bool {
        self.evidence(dataset)
            .is_some_and(|e| e.cache_suspects.iter().any(|s| s == strategy))
    }

    pub fn later_of(&self, dataset: &str, strategy: &str) -> Option<(u32, &UnitStats)> {
        let u = self
            .later
            .iter()
            .find(|u| u.dataset == dataset && u.strategy == strategy)?;
        let rounds = self
            .evidence(dataset)
            .map_or(0, |e| e.round_facts.len().saturating_sub(1) as u32);
        Some((rounds, u))
    }
}

/// The rounds a confidence sequence is tuned for: the square root of the
/// rounds as long as the first that fit in the budget (at least 1).
pub fn target_rounds(budget: Duration, first: Duration) -> f64 {
    (budget.as_secs_f64() / first.as_secs_f64().max(1e-3))
        .max(1.0)
        .sqrt()
}

/// The mean kept time (ns) of both of the gate's sides from which later
/// rounds make [`SLOW_PASSES`].
pub const SLOW_NS: f64 = 50_000.0;

/// The passes of a later round for a slow solver: two measured, no
/// warm-up. A round's certainty per second of it was measured best so
/// (docs/MEASUREMENT.md §5, "Passes"): a warm-up pass costs a quarter
/// of a round and buys nothing where one solve takes longer than the
/// caches and branch predictor remember, and the minimum of two passes
/// removes most of what the minimum of three does at two thirds of the
/// cost.
pub const SLOW_PASSES: Passes = Passes {
    warmup: 0,
    repeat: 2,
};

/// The passes of the rounds after the first, chosen from the first round
/// (`units`, made with the passes `first`): [`SLOW_PASSES`] when both sides
/// of the gate kept a mean time of at least [`SLOW_NS`] on every dataset,
/// unless the passes were `given` (`--repeat`, `--warmup`, `--practised`,
/// or a side's own `repeat=`/`warmup=`); `None`: the first round's.
///
/// The choice is made before any later round is seen, so the confidence
/// sequence stays valid, for what it then estimates: the pairs' average of
/// the rounds' own log ratios. Fewer passes can move a round's ratio a
/// little where the two sides' times spread differently from pass to pass
/// (the minimum of fewer passes keeps more of the spread); both sides'
/// minima move alike when they spread alike, and an A/A run's ratio is 1
/// whatever the passes.
pub fn later_passes(
    gate: &Gate,
    first: Passes,
    given: bool,
    units: &[UnitStats],
) -> Option<Passes> {
    let sides: Vec<&UnitStats> = units
        .iter()
        .filter(|u| u.strategy == gate.base || u.strategy == gate.candidate)
        .collect();
    let slow = !sides.is_empty()
        && sides
            .iter()
            .all(|u| crate::results::ResultRecord::of(u, 0).mean_ns >= SLOW_NS);
    (slow && !given && first != SLOW_PASSES).then_some(SLOW_PASSES)
}

/// The options of the rounds after the first ([`later_passes`]) and the
/// time one is expected to take: the first round's, `first`, scaled by
/// their passes (the deadline rule then takes the longest round so far).
fn later_rounds(
    gate: &Gate,
    opts: &RunOptions,
    units: &[UnitStats],
    first: Duration,
) -> (RunOptions, Option<Passes>, Duration) {
    let mut later = opts.clone();
    let first_passes = Passes {
        warmup: opts.warmup,
        repeat: opts.repeat.max(1),
    };
    let own = |label: &str| opts.strategy_passes.iter().any(|(n, _)| n == label);
    let given = opts.passes_given || opts.practised || own(&gate.base) || own(&gate.candidate);
    let passes = later_passes(gate, first_passes, given, units);
    let mut expected = first;
    if let Some(p) = passes {
        expected = first.mul_f64(f64::from(p.total()) / f64::from(first_passes.total()));
        (later.repeat, later.warmup) = (p.repeat, p.warmup);
    }
    (later, passes, expected)
}

/// What a budgeted gate measures with: the run's options, datasets, pool,
/// progress display and stop flag.
pub struct Bench<'a> {
    pub opts: &'a RunOptions,
    pub infos: &'a [DatasetInfo],
    pub pool: &'a rayon::ThreadPool,
    pub progress: &'a dyn Progress,
    pub stop: &'a Arc<AtomicBool>,
}

/// After the run's first round (`results`, which started at `started`),
/// measures more rounds until every dataset is decided or `budget` (from
/// `started`) would be overrun, and returns every round's evidence. A
/// round that stops (an interrupt, a panic) stops the run: `results`
/// then says why.
pub fn measure(
    gate: &Gate,
    bench: &Bench,
    started: Instant,
    budget: Duration,
    results: &mut RunResults,
) -> Budgeted {
    let first = started.elapsed();
    let mut b = Budgeted {
        budget,
        datasets: bench.infos.iter().map(|i| Evidence::new(&i.name)).collect(),
        rounds: 1,
        elapsed: first,
        longest: first,
        end: End::Decided,
        isomorphs: bench.opts.transform.is_some(),
        later_passes: None,
        later: Vec::new(),
    };
    b.take(
        gate,
        &Round {
            number: 1,
            transform: bench.opts.transform,
            units: &results.units,
            wall: first,
        },
    );
    let (later, expected);
    (later, b.later_passes, expected) = later_rounds(gate, bench.opts, &results.units, first);
    // The sequence is tuned (before any later round is seen) to be
    // narrowest between the first look and the last the budget should
    // hold: at the geometric mean of their chunks, the first round's
    // times the square root of the rounds that fit. Its width is then
    // within about 12 % of the narrowest a sequence could have at either
    // end (for 30 rounds), where one tuned for the last round would be
    // 1.8 times wider at the first.
    let fit = target_rounds(budget, expected);
    for e in &mut b.datasets {
        e.target = e.sums.chunks as f64 * fit;
    }
    let open = b.open(gate);
    let done = rounds::more(
        &later,
        bench.infos,
        bench.pool,
        bench.progress,
        bench.stop,
        started + budget,
        expected,
        open,
        &mut |round| {
            b.take(gate, round);
            b.open(gate)
        },
    );
    (b.rounds, b.end, b.longest) = (done.rounds, done.end, done.longest.max(first));
    if b.rounds == 1 {
        // No later round was measured: no passes of one to report.
        b.later_passes = None;
    }
    b.elapsed = started.elapsed();
    if let Some(s) = done.stopped {
        results.stopped.get_or_insert(s);
    }
    b
}
