//! The one judge of every verdict. `run --gate` (and each round of a
//! budgeted gate), `compare`, `trend --fail-on-step`, `history add`,
//! `merge` and `export` ask it the same three questions before they say
//! anything about a time, and it answers with the same rules for all:
//!
//! 1. **Comparable?** ([`comparable`]) Two measurements are one experiment
//!    only when they solved the same puzzles (the dataset's content hash:
//!    the same puzzles at the same positions, so the same subset and
//!    order; the same `--transform`), under the same solving semantics
//!    (solution limit, search budget, `--timeout`), timed the same way
//!    (cold or practised, the time kept, repeats and warm-up) and, for a
//!    ratio, against the same yardstick. Anything else is *not comparable*:
//!    not judged (exit 2), naming the field.
//! 2. **Believable?** ([`believable`]) A side with rejected answers,
//!    faults or answers it wrote no solution for *fails* (exit 1): its
//!    times are not times of solving. A side whose own clock claims more
//!    than the harness measured around its calls fails too (a clock cannot
//!    measure more than the call took). A side that may be caching answers,
//!    that solved nothing, or whose clock claims almost none of the
//!    harness's time is *not judged* (exit 2).
//! 3. **Believable against the other side?** ([`against`]) A candidate
//!    that gave up on (or stalled on) more puzzles than the base, or solved
//!    fewer, *fails*: giving up is never faster. Two sides timed by their
//!    own clocks must leave the same time per call unclaimed (the time the
//!    harness measured around a call minus what the solver claims): a
//!    difference beyond half the threshold of the solve time could be the
//!    clock rather than the solver, and the time is not judged.
//!
//! Every finding is a [`Finding`]: a named [`Rule`], how it weighs
//! ([`Weight`]) and a sentence. Commands print them as `[rule] sentence`
//! and write them to JSON with the rule's name, so that a CI log, a job
//! summary and a machine reading `summary.json` see the same reasons.

mod experiment;
mod side;

pub use experiment::{comparable, puzzles_recorded, Experiment};
pub use side::{against, believable, trackable, Side, CLAIMED_SHARE_MIN, CLAIM_SLACK};

use serde::{Deserialize, Serialize};

/// The threshold, in percent, of a verdict whose command sets none: the
/// gate's default, and what a run's headline holds two clocks to.
pub const DEFAULT_THRESHOLD_PCT: f64 = 3.0;

/// How a finding weighs on a verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Weight {
    /// Something worth knowing that changes no verdict.
    Note,
    /// The time cannot be judged (exit 2 unless something failed).
    Unjudged,
    /// The verdict fails (exit 1).
    Fail,
}

impl Weight {
    pub fn name(self) -> &'static str {
        match self {
            Weight::Note => "note",
            Weight::Unjudged => "unjudged",
            Weight::Fail => "fail",
        }
    }
}

/// Every rule a verdict rests on, by a stable name (`[other-puzzles]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// Comparable: the puzzles differ (content hash, hence subset or order).
    OtherPuzzles,
    /// Comparable: shards read from different dataset files.
    OtherSource,
    /// Comparable: different `--transform`.
    OtherTransform,
    /// Comparable: a different solution limit (`--count`).
    OtherSolutionLimit,
    /// Comparable: a different search budget (`--max-guesses`, `--timeout`).
    OtherSearchBudget,
    /// Comparable: timed another way (cold/practised, time kept, repeats,
    /// warm-up).
    OtherTiming,
    /// Comparable: ratios to different yardsticks.
    OtherYardstick,
    /// Comparable: times from different clocks.
    OtherClock,
    /// A run that did not finish.
    Incomplete,
    /// A side with no results to compare.
    Missing,
    /// Believable: answers the harness rejected.
    Rejected,
    /// Believable: puzzles the solver failed on (crash, timeout, …).
    Faulted,
    /// Believable: answers with no solution written, which cannot be checked.
    Unverified,
    /// Believable: a clock that claims more than the harness measured.
    ClockClaimsMore,
    /// Believable: a clock that claims almost none of the harness's time.
    ClockClaimsTooLittle,
    /// Believable: two self-timed sides that leave different time unclaimed.
    ClockSharesDiffer,
    /// Believable: repeated solves far faster than the first.
    Cache,
    /// Believable: no puzzle solved with an accepted answer.
    SolvedNothing,
    /// Against: gave up or stalled on more puzzles than the base.
    GaveUp,
    /// Against: fewer puzzles solved than the base.
    FewerSolved,
    /// The two sides' answers differ.
    AnswersDiffer,
    /// The two sides' search counters differ.
    CountersDiffer,
    /// Too little data for an interval that holds.
    NoInterval,
    /// No per-puzzle data (no `puzzles.csv`), so no honest interval.
    NoPerPuzzleData,
    /// The dataset repeats puzzles.
    DuplicatePuzzles,
    /// The time regressed beyond the threshold.
    Regressed,
    /// The time regressed beyond the threshold in one class of difficulty.
    ClassRegressed,
    /// The per-puzzle interval and the passes' totals point different ways.
    RepeatsDisagree,
    /// A results directory's `puzzles.csv` and `summary.json` disagree.
    FilesDisagree,
    /// The two sides are one run (a directory, or a copy of it, given twice).
    SameRun,
    /// A verdict-specific fact (left-out puzzles, a later round).
    Other,
}

impl Rule {
    /// The rule's name as written in every output (`other-puzzles`).
    pub fn name(self) -> &'static str {
        use Rule::*;
        match self {
            OtherPuzzles => "other-puzzles",
            OtherSource => "other-source",
            OtherTransform => "other-transform",
            OtherSolutionLimit => "other-solution-limit",
            OtherSearchBudget => "other-search-budget",
            OtherTiming => "other-timing",
            OtherYardstick => "other-yardstick",
            OtherClock => "other-clock",
            Incomplete => "incomplete",
            Missing => "missing",
            Rejected => "rejected",
            Faulted => "faulted",
            Unverified => "unverified",
            ClockClaimsMore => "clock-claims-more",
            ClockClaimsTooLittle => "clock-claims-too-little",
            ClockSharesDiffer => "clock-shares-differ",
            Cache => "cache",
            SolvedNothing => "solved-nothing",
            GaveUp => "gave-up",
            FewerSolved => "fewer-solved",
            AnswersDiffer => "answers-differ",
            CountersDiffer => "counters-differ",
            NoInterval => "no-interval",
            NoPerPuzzleData => "no-per-puzzle-data",
            DuplicatePuzzles => "duplicate-puzzles",
            Regressed => "regressed",
            ClassRegressed => "class-regressed",
            RepeatsDisagree => "repeats-disagree",
            FilesDisagree => "files-disagree",
            SameRun => "same-run",
            Other => "other",
        }
    }
}

/// One reason a verdict gives.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub rule: Rule,
    pub weight: Weight,
    pub text: String,
}

impl Finding {
    pub fn fail(rule: Rule, text: impl Into<String>) -> Self {
        Finding {
            rule,
            weight: Weight::Fail,
            text: text.into(),
        }
    }

    pub fn unjudged(rule: Rule, text: impl Into<String>) -> Self {
        Finding {
            rule,
            weight: Weight::Unjudged,
            text: text.into(),
        }
    }

    pub fn note(rule: Rule, text: impl Into<String>) -> Self {
        Finding {
            rule,
            weight: Weight::Note,
            text: text.into(),
        }
    }

    /// `[rule] sentence`, as every output shows it.
    pub fn line(&self) -> String {
        format!("[{}] {}", self.rule.name(), self.text)
    }

    /// The same finding with `prefix` before its sentence (`round 3: `).
    pub fn prefixed(mut self, prefix: &str) -> Self {
        self.text = format!("{prefix}{}", self.text);
        self
    }
}

/// The findings of one verdict.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Findings(pub Vec<Finding>);

impl Findings {
    pub fn push(&mut self, f: Finding) {
        self.0.push(f);
    }

    pub fn extend(&mut self, f: impl IntoIterator<Item = Finding>) {
        self.0.extend(f);
    }

    /// The findings of weight `w`, as `[rule] sentence` lines.
    pub fn lines(&self, w: Weight) -> Vec<String> {
        self.0
            .iter()
            .filter(|f| f.weight == w)
            .map(Finding::line)
            .collect()
    }

    pub fn any(&self, w: Weight) -> bool {
        self.0.iter().any(|f| f.weight == w)
    }

    /// The heaviest weight found (`None`: nothing found).
    pub fn worst(&self) -> Option<Weight> {
        self.0.iter().map(|f| f.weight).max()
    }

    /// 1 when anything fails, 2 when anything keeps the verdict from being
    /// judged, else 0.
    pub fn exit_code(&self) -> i32 {
        match self.worst() {
            Some(Weight::Fail) => 1,
            Some(Weight::Unjudged) => 2,
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests;
