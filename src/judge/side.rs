//! One side of a verdict — a strategy's results on a dataset — and the
//! rules that decide whether its times can be believed, alone
//! ([`believable`]) and against the side it is compared with
//! ([`against`]).

use super::{Finding, Rule};
use crate::solver::Clock;

/// A solver's own clock that claims less than this share of the time the
/// harness measured around its passes is not believed (a solve that the
/// solver says took 1 ns of a 100 µs round trip).
pub const CLAIMED_SHARE_MIN: f64 = 0.02;

/// How far a solver's own clock may claim more than the harness measured
/// around its calls before it is called a lie: the harness's clock reads
/// and the solver's may disagree by a tick or two per call, never by half a
/// percent of a whole pass.
pub const CLAIM_SLACK: f64 = 0.005;

/// What a verdict needs to know of one side.
#[derive(Clone, Debug, PartialEq)]
pub struct Side {
    /// How the side is named in sentences (`CANDIDATE head`, `the
    /// baseline`, a revision).
    pub name: String,
    pub puzzles: u64,
    /// Puzzles with an accepted solution (solved, or several solutions).
    pub solved: u64,
    /// Puzzles it gave up on (search budget) or stalled on (no guessing):
    /// answers, but not solutions.
    pub unsolved: u64,
    /// Answers the harness rejected.
    pub rejected: u64,
    /// Puzzles it failed on (crash, timeout, protocol error, error).
    pub faults: u64,
    /// Answers with no solution written (only a count).
    pub unverified: u64,
    /// Repeated solves, and those far faster than their first.
    pub repeated: u64,
    pub repeat_far_faster: u64,
    /// A self-timed side's kept times (the least of each puzzle's
    /// measured passes) over its passes' mean total: near 1 for a solver
    /// whose claims vary as little as solve times do.
    pub kept_share: Option<f64>,
    /// A later round of a budgeted gate was far faster than the first on
    /// the same puzzles (or their isomorphs): a cache kept across rounds.
    pub cache_across_rounds: bool,
    pub clock: Clock,
    /// Its own clock's claims over the harness's time around its calls.
    pub claimed_share: Option<f64>,
    /// Its own clock's mean claim per solve, and the harness's time per
    /// call it leaves unclaimed (round trip, call overhead).
    pub claimed_mean_ns: Option<f64>,
    pub unclaimed_ns: Option<f64>,
    /// The standard error of `unclaimed_ns` (the chunks' spread).
    pub unclaimed_se_ns: Option<f64>,
    /// Per chunk, in chunk order, the unclaimed time per call: two sides of
    /// one interleaved run, which solved the same chunks one right after the
    /// other, are compared chunk by chunk.
    pub unclaimed_chunks: Vec<f32>,
    /// Measured passes over each puzzle (its kept time is their minimum);
    /// `None` where not recorded.
    pub measured_passes: Option<u32>,
}

impl Side {
    /// More than a quarter of its repeated solves far faster than their
    /// first: it may remember answers rather than solve them. (A practised
    /// solve of an honest solver is at most about a quarter faster, not
    /// [`CACHE_FACTOR`](crate::bench::metrics::CACHE_FACTOR) times; only
    /// the tiniest solves, where the first call's cold caches are most of
    /// the time, come near, so a share, not any one solve, is the sign.)
    pub fn cache_suspect(&self) -> bool {
        self.repeat_far_faster >= CACHE_MIN_SOLVES && 4 * self.repeat_far_faster > self.repeated
    }

    /// The share of repeated solves far faster than their first.
    fn far_faster_share(&self) -> Option<f64> {
        (self.repeated > 0).then(|| self.repeat_far_faster as f64 / self.repeated as f64)
    }
}

/// Whether one side's times can be believed: failures for rejected
/// answers, faults, unverifiable answers and a clock that claims more than
/// the call took; not judged for a possible answer cache, a clock that
/// claims almost nothing, or no puzzle solved.
pub fn believable(s: &Side) -> Vec<Finding> {
    let mut out = Vec::new();
    let n = &s.name;
    if s.rejected > 0 {
        out.push(Finding::fail(
            Rule::Rejected,
            format!(
                "{} answers of {n} rejected (a mismatch with the dataset, a broken rule, a wrong \
                 count, or an answer that changed between passes)",
                s.rejected
            ),
        ));
    }
    if s.faults > 0 {
        out.push(Finding::fail(
            Rule::Faulted,
            format!(
                "{} puzzles failed in {n} (crashed, timeout, protocol error or error)",
                s.faults
            ),
        ));
    }
    if s.unverified > 0 {
        out.push(Finding::fail(
            Rule::Unverified,
            format!(
                "{n} wrote no solution for {} answers (only a count): an answer that cannot be \
                 checked cannot be timed either",
                s.unverified
            ),
        ));
    }
    out.extend(clock_findings(s));
    if s.cache_across_rounds {
        out.push(Finding::unjudged(
            Rule::Cache,
            format!(
                "{n} may be caching answers: in a later round of the budgeted gate its mean time \
                 was at least {}× shorter than in the first on the same puzzles",
                crate::bench::metrics::CACHE_FACTOR
            ),
        ));
    }
    if s.cache_suspect() {
        out.push(Finding::unjudged(
            Rule::Cache,
            format!(
                "{n} may be caching answers: on {} of {} repeated solves (a later pass, or a puzzle \
                 the dataset repeats) it was at least {}× faster than the first, so its kept times \
                 may not be solves (an honest solver gains up to about 1.3× from warm caches); \
                 judge it on first calls (--repeat 1 --warmup 0) of a dataset without repeated \
                 puzzles, with --transform SEED and a new SEED so that no answer can be known \
                 from an earlier run",
                s.repeat_far_faster,
                s.repeated,
                crate::bench::metrics::CACHE_FACTOR
            ),
        ));
    }
    if s.solved == 0 {
        out.push(Finding::unjudged(
            Rule::SolvedNothing,
            format!(
                "{n} solved no puzzle with an accepted answer ({} puzzles), so its times are not \
                 times of solving",
                s.puzzles
            ),
        ));
    }
    out
}

/// A self-timed side's claims held against the harness's time around its
/// calls.
fn clock_findings(s: &Side) -> Vec<Finding> {
    let Some(share) = s.claimed_share else {
        return Vec::new();
    };
    let n = &s.name;
    if share > 1.0 + CLAIM_SLACK {
        return vec![Finding::fail(
            Rule::ClockClaimsMore,
            format!(
                "{n} is timed by its own clock, which claims {:.1}% of the time the harness \
                 measured around its calls: a solve cannot take longer than the call around it",
                share * 100.0
            ),
        )];
    }
    // Kept times far below the passes' totals: the least of a puzzle's
    // claims is kept, and a clock that claims little on some passes (time
    // moved from one pass's claim to another's) lowers it without
    // changing any total the harness checks.
    if let Some(k) = s.kept_share.filter(|&k| k < KEPT_SHARE_MIN) {
        return vec![Finding::unjudged(
            Rule::ClockClaimsTooLittle,
            format!(
                "{n} is timed by its own clock, and its kept times (the least of each puzzle's \
                 passes) add up to {:.0}% of its passes' mean total: its claims vary from pass \
                 to pass far more than a solve's time does, so the kept ones are not believable",
                k * 100.0
            ),
        )];
    }
    // Per chunk: claims beyond the harness's time around the chunk's
    // calls. Moving time from some chunks' claims to others' leaves the
    // total alone but puts many chunks over; a hiccup in a measured pass
    // that a warm-up pass did not have puts one over now and then, so a
    // share of the chunks, not one, is the sign.
    let over = -(CLAIM_SLACK * 10.0 * s.claimed_mean_ns.unwrap_or(0.0)).max(1.0);
    let n_over = s
        .unclaimed_chunks
        .iter()
        .filter(|&&u| f64::from(u) < over)
        .count();
    if s.unclaimed_chunks.len() >= 8 && 4 * n_over > s.unclaimed_chunks.len() {
        return vec![Finding::fail(
            Rule::ClockClaimsMore,
            format!(
                "{n} is timed by its own clock, whose claims exceed the time the harness \
                 measured around its calls in {n_over} of {} chunks: a solve cannot take longer \
                 than the call around it (time moved between puzzles' claims)",
                s.unclaimed_chunks.len()
            ),
        )];
    }
    if share < CLAIMED_SHARE_MIN {
        return vec![Finding::unjudged(
            Rule::ClockClaimsTooLittle,
            format!(
                "{n} is timed by its own clock, which claims {:.2}% of the time the harness \
                 measured around its calls: not believable",
                share * 100.0
            ),
        )];
    }
    Vec::new()
}

/// The least share of its passes' mean total a self-timed side's kept
/// times may add up to (an honest solver's least of three cold passes is
/// within a few percent of their mean; a tenth of it under heavy noise).
pub const KEPT_SHARE_MIN: f64 = 0.6;

/// Whether one side's numbers may stand in a benchmark tracker as a clean
/// measurement: [`believable`], and no puzzle given up or stalled on
/// among solved ones (a tracker keeps one time per unit, which would stand
/// for solving them all and read faster than it is).
pub fn trackable(s: &Side) -> Vec<Finding> {
    let mut out = believable(s);
    if s.unsolved > 0 && s.solved > 0 {
        out.push(Finding::unjudged(
            Rule::GaveUp,
            format!(
                "{} gave up or stalled on {} of {} puzzles: its times are not times of solving \
                 the dataset",
                s.name, s.unsolved, s.puzzles
            ),
        ));
    }
    out
}

/// The fewest far faster repeated solves that can make a side a cache
/// suspect: on a handful of puzzles two or three cold first solves are
/// noise, not a sign (a cache of a five-puzzle dataset still makes five).
pub const CACHE_MIN_SOLVES: u64 = 5;

/// How far a side's share of far faster repeats may exceed its
/// baseline's before it may be caching (10 points: two honest builds of
/// one solver on the same puzzles differ by a few).
pub const CACHE_EXCESS: f64 = 0.10;

/// Whether `cand`'s times can be believed against `base`'s: a candidate
/// that gave up (or stalled) on more puzzles, or solved fewer, fails —
/// giving up is never faster; two sides timed by their own clocks whose
/// unclaimed time per call differs by more than half of `threshold_pct` of
/// the solve time are not judged.
pub fn against(base: &Side, cand: &Side, threshold_pct: f64) -> Vec<Finding> {
    let mut out = Vec::new();
    // A kept time is the least of a puzzle's measured passes: the side with
    // more passes has more draws to take the least of, and is favoured.
    if let (Some(b), Some(c)) = (base.measured_passes, cand.measured_passes) {
        if b != c {
            out.push(Finding::unjudged(
                Rule::OtherTiming,
                format!(
                    "{} made {c} measured passes over each puzzle and {} {b}: a kept time is the \
                     least of its passes, so the side with more is favoured; give both the same \
                     repeat= (or --repeat)",
                    cand.name, base.name
                ),
            ));
        }
    }
    if cand.unsolved > base.unsolved {
        out.push(Finding::fail(
            Rule::GaveUp,
            format!(
                "{} gave up or stalled on {} puzzles, {} on {}: giving up is not solving faster",
                cand.name, cand.unsolved, base.name, base.unsolved
            ),
        ));
    }
    // A side that remembers only some answers stays under the share of
    // `cache_suspect`; against a baseline solved on the same puzzles, a
    // share of far faster repeats well above the baseline's is the sign.
    if let (Some(b), Some(c)) = (base.far_faster_share(), cand.far_faster_share()) {
        if c > b + CACHE_EXCESS
            && cand.repeat_far_faster >= CACHE_MIN_SOLVES
            && !cand.cache_suspect()
        {
            out.push(Finding::unjudged(
                Rule::Cache,
                format!(
                    "{} may be caching answers: {:.0}% of its repeated solves were far faster than \
                     their first, {:.0}% of {}'s; judge it on first calls (--repeat 1 --warmup 0) \
                     of a dataset without repeated puzzles",
                    cand.name,
                    100.0 * c,
                    100.0 * b,
                    base.name
                ),
            ));
        }
    }
    let explained = cand.unsolved > base.unsolved || cand.rejected + cand.faults > 0;
    if cand.solved < base.solved && !explained {
        out.push(Finding::fail(
            Rule::FewerSolved,
            format!(
                "{} solved {} puzzles, {} solved {}",
                cand.name, cand.solved, base.name, base.solved
            ),
        ));
    }
    if base.clock != cand.clock {
        out.push(Finding::unjudged(
            Rule::OtherClock,
            format!(
                "the sides are timed by different clocks ({}: {}; {}: {}), so their times are \
                 not comparable",
                base.name,
                base.clock.describe(),
                cand.name,
                cand.clock.describe()
            ),
        ));
    } else if let Some(f) = unclaimed_differs(base, cand, threshold_pct) {
        out.push(f);
    }
    out
}

/// Two self-timed sides: the harness's time per call that each side's
/// claims leave out (pipes, wake-ups, the call) is the same for two builds
/// of one solver measured together. When the data show (at 95 %) that it
/// differs by more than half the threshold of the smaller claimed solve
/// time, the claimed ratio could be the clocks' doing by as much as that,
/// and is not judged.
///
/// Two sides of one interleaved run are compared chunk by chunk (each
/// chunk solved by both, one right after the other, under the same load):
/// the median of the chunks' differences and its standard error. Sides of
/// two runs have no common chunks, and the unclaimed time follows the
/// machine's load from one run to the other: their medians are compared,
/// with half the larger of them allowed for that drift besides the noise.
fn unclaimed_differs(base: &Side, cand: &Side, threshold_pct: f64) -> Option<Finding> {
    let (ub, uc) = (base.unclaimed_ns?, cand.unclaimed_ns?);
    let mean = base.claimed_mean_ns?.min(cand.claimed_mean_ns?);
    let bound = threshold_pct / 200.0 * mean;
    let (b, c) = (&base.unclaimed_chunks, &cand.unclaimed_chunks);
    let (diff, se, drift) = if !b.is_empty() && b.len() == c.len() {
        let d: Vec<f32> = c.iter().zip(b).map(|(x, y)| x - y).collect();
        let se = crate::bench::metrics::median_se(&d).unwrap_or(0.0);
        (crate::bench::metrics::median(&d).unwrap_or(0.0), se, 0.0)
    } else {
        let se = base
            .unclaimed_se_ns
            .unwrap_or(0.0)
            .hypot(cand.unclaimed_se_ns.unwrap_or(0.0));
        (uc - ub, se, ub.max(uc) / 2.0)
    };
    let allowed = bound + drift + 2.0 * se;
    (diff.abs() > allowed).then(|| {
        Finding::unjudged(
            Rule::ClockSharesDiffer,
            format!(
                "both sides are timed by their own clocks, and the harness's time per call that \
                 their claims leave out differs: {ub:.0} ns for {}, {uc:.0} ns for {} (claims of \
                 {:.1}% and {:.1}% of the harness's time): {diff:+.0} ns ± {:.0} ns, beyond half \
                 the threshold of a {mean:.0} ns solve ({bound:.0} ns){}: the claimed ratio could \
                 be the clocks' rather than the solvers'",
                base.name,
                cand.name,
                base.claimed_share.unwrap_or(0.0) * 100.0,
                cand.claimed_share.unwrap_or(0.0) * 100.0,
                2.0 * se,
                if drift > 0.0 {
                    format!(" and the {drift:.0} ns two runs' loads may differ by")
                } else {
                    String::new()
                }
            ),
        )
    })
}
