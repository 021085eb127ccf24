//! The verdict of `run --gate BASE:CANDIDATE`: a CI gate on the paired
//! statistics of an interleaved run (see [`crate::bench::paired`]).
//!
//! Each dataset's time gets one of four verdicts, each a claim about the
//! interval of the geometric-mean ratio CANDIDATE / BASE and the
//! threshold t ([`Decision`]):
//! - **regressed**: the whole interval above 1 + t (a point estimate
//!   beyond it is not enough: noise alone puts it there now and then);
//! - **improved**: the whole interval below 1 − t;
//! - **unchanged**: the whole interval within 1 ± t (equivalence shown:
//!   the run could have seen a change of t, and saw none);
//! - **undecided**: none of these (the run could not tell).
//!
//! The interval is the first round's bootstrap interval (one look), or,
//! with a time budget, the confidence sequence over every round
//! ([`super::sequential`], [`budget`]), valid however many rounds
//! were looked at.
//!
//! Everything but the interval goes through the one judge
//! ([`crate::judge`]), whose findings each dataset's row keeps: a dataset
//! fails when a side has rejected answers, faults, unverifiable answers or
//! a clock that claims more than the harness measured, when the candidate
//! gave up on more puzzles or solved fewer than the base, when the two
//! sides' answers differ on some puzzle, or (with `fail_on_counters`) when
//! a search counter does. Its time is **not judged** when there is nothing
//! sound to judge it on: fewer than [`MIN_BLOCKS`] chunks
//! (docs/MEASUREMENT.md §4), no puzzle timed on both sides, a side that
//! solved nothing, sides timed by different clocks, or a side that cannot
//! be believed (an answer cache, a clock that claims almost nothing, two
//! self-timed sides that leave different time unclaimed).
//!
//! Exit status ([`Verdict::exit_code`]): 1 when any dataset failed
//! (regressed, or any failure above); else 2 when any was not judged (or
//! the run did not complete); else 3 ([`EXIT_UNDECIDED`]) when any was
//! undecided, unless undecided datasets pass (`--undecided pass`); else 0
//! (every dataset unchanged or improved).

use super::sequential::{resolution_pct, Decision, Interval};
use crate::bench::paired::{Paired, LEVEL, MIN_BLOCKS};
use crate::judge::{self, Finding, Findings, Rule, Weight};
use crate::results::ResultRecord;
use budget::{Budgeted, Evidence};

pub mod budget;
mod text;

/// The default threshold of `--gate`, in percent.
pub const DEFAULT_THRESHOLD: f64 = crate::judge::DEFAULT_THRESHOLD_PCT;

/// Exit status of a gate with an undecided dataset and nothing worse
/// (unless `--undecided pass`).
pub use crate::support::exit::EXIT_UNDECIDED;

/// What the gate compares.
#[derive(Clone, Debug, PartialEq)]
pub struct Gate {
    pub base: String,
    pub candidate: String,
    /// Percent.
    pub threshold: f64,
    pub fail_on_counters: bool,
    /// An undecided dataset passes (`--undecided pass`) instead of making
    /// the gate exit [`EXIT_UNDECIDED`].
    pub undecided_passes: bool,
}

impl Gate {
    /// Parses `BASE:CANDIDATE` (labels may not contain ':' here; the split
    /// is at the first ':' whose both sides are labels of the run).
    pub fn parse(spec: &str, labels: &[&str]) -> Result<(String, String), String> {
        let splits: Vec<(String, String)> = spec
            .match_indices(':')
            .map(|(i, _)| (spec[..i].to_string(), spec[i + 1..].to_string()))
            .collect();
        if splits.is_empty() {
            return Err(format!(
                "--gate {spec:?}: expected BASE:CANDIDATE, two strategy labels of the run"
            ));
        }
        if let Some(found) = splits
            .iter()
            .find(|(b, c)| labels.contains(&b.as_str()) && labels.contains(&c.as_str()))
        {
            if found.0 == found.1 {
                return Err(format!(
                    "--gate {spec:?}: BASE and CANDIDATE are the same strategy"
                ));
            }
            return Ok(found.clone());
        }
        Err(format!(
            "--gate {spec:?}: BASE and CANDIDATE must be labels of the run's strategies ({}); \
             give a strategy a label with name=LABEL, e.g. -s 'fast,name=base'",
            labels.join(", ")
        ))
    }
}

/// The interval a dataset's time verdict rests on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The geometric-mean ratio CANDIDATE / BASE and its interval.
    pub ratio: f64,
    pub low: f64,
    pub high: f64,
    pub level: f64,
    pub pairs: u64,
    pub chunks: u64,
    /// Rounds of the confidence sequence; 0: one look (the bootstrap
    /// interval of the run's one measurement).
    pub rounds: u32,
}

impl Estimate {
    /// One look: the bootstrap interval, when it rests on enough chunks.
    fn of_paired(p: &Paired) -> Option<Estimate> {
        (p.pairs > 0 && p.blocks.0 >= MIN_BLOCKS).then_some(Estimate {
            ratio: p.geomean_ratio,
            low: p.ci_low,
            high: p.ci_high,
            level: p.level,
            pairs: p.pairs,
            chunks: p.blocks.0,
            rounds: 0,
        })
    }

    /// The confidence sequence after `rounds` rounds.
    pub fn of_sequence(i: &Interval, rounds: u32) -> Estimate {
        Estimate {
            ratio: i.ratio(),
            low: i.low(),
            high: i.high(),
            level: LEVEL,
            pairs: i.pairs,
            chunks: i.chunks,
            rounds,
        }
    }

    /// `1.009× [1.006, 1.012]`.
    pub fn text(&self) -> String {
        use crate::bench::paired::ratio;
        format!(
            "{}× [{}, {}]",
            ratio(self.ratio),
            ratio(self.low),
            ratio(self.high)
        )
    }

    /// The smallest change the run could tell from none: the interval's
    /// half-width, in percent.
    pub fn resolution_pct(&self) -> f64 {
        resolution_pct(self.low, self.high)
    }

    pub fn decide(&self, threshold_pct: f64) -> Decision {
        Decision::of(self.low, self.high, threshold_pct)
    }
}

/// Why a dataset failed or passed.
#[derive(Clone, Debug, PartialEq)]
pub struct GateRow {
    pub dataset: String,
    pub paired: Option<Paired>,
    /// The time verdict ([`Decision::as_str`]) or `not judged`.
    pub time: &'static str,
    /// The interval the time verdict rests on (`None`: not judged).
    pub estimate: Option<Estimate>,
    /// The judge's findings: reasons to fail, reasons the time could not
    /// be judged, and facts that do not fail the gate.
    pub findings: Findings,
}

impl GateRow {
    /// Something failed the dataset.
    pub fn failed(&self) -> bool {
        self.findings.any(Weight::Fail)
    }

    /// Its time could not be judged.
    pub fn unjudged(&self) -> bool {
        self.findings.any(Weight::Unjudged)
    }

    /// The findings of weight `w` as `[rule] sentence` lines.
    pub fn lines(&self, w: Weight) -> Vec<String> {
        self.findings.lines(w)
    }

    /// Undecided, and nothing failed or kept it from being judged.
    pub fn undecided(&self) -> bool {
        !self.failed() && !self.unjudged() && self.time == Decision::Undecided.as_str()
    }
}

/// The gate over every dataset of a run.
#[derive(Clone, Debug)]
pub struct Verdict {
    pub gate: Gate,
    pub rows: Vec<GateRow>,
    /// The run was interrupted or failed.
    pub incomplete: bool,
    /// The rounds of a run with a time budget (`None`: one look).
    pub budget: Option<BudgetFacts>,
}

/// What a run with a time budget did, for the reports.
#[derive(Clone, Debug, PartialEq)]
pub struct BudgetFacts {
    pub budget: std::time::Duration,
    pub rounds: u32,
    pub elapsed: std::time::Duration,
    pub longest_round: std::time::Duration,
    /// `decided`, `budget spent` or `stopped`.
    pub end: &'static str,
    /// Rounds solved new isomorphs (`--transform`), not the same puzzles.
    pub isomorphs: bool,
    /// The later rounds' passes, when not the first's.
    pub later_passes: Option<crate::bench::Passes>,
}

impl Verdict {
    /// Judges the results of a run: `results` are its (first round's)
    /// records; `budgeted`, with a time budget, every round's evidence.
    pub fn of(
        gate: &Gate,
        results: &[ResultRecord],
        complete: bool,
        budgeted: Option<&Budgeted>,
    ) -> Verdict {
        let mut datasets: Vec<&str> = Vec::new();
        for r in results {
            if !datasets.contains(&r.dataset.as_str()) {
                datasets.push(&r.dataset);
            }
        }
        let rows = datasets
            .into_iter()
            .map(|d| {
                let find = |label: &str| {
                    results
                        .iter()
                        .find(|r| r.dataset == d && r.strategy == label)
                };
                let evidence = budgeted.and_then(|b| b.evidence(d));
                judge_dataset(gate, d, find(&gate.base), find(&gate.candidate), evidence)
            })
            .collect();
        Verdict {
            gate: gate.clone(),
            rows,
            incomplete: !complete,
            budget: budgeted.map(Budgeted::facts),
        }
    }

    /// Each dataset's classes of difficulty judged one by one: a
    /// regression confined to one class (beyond the threshold, with the
    /// class's interval widened for the number of classes so that the
    /// chance of a false regression in any class stays the gate's) fails
    /// the dataset, whatever its whole-dataset verdict. Rows already
    /// failed or not judged are left as they are.
    pub fn with_classes(mut self, by_class: &crate::results::classes::ByClass) -> Verdict {
        let pair = (self.gate.base.as_str(), self.gate.candidate.as_str());
        for row in &mut self.rows {
            if row.failed() || row.unjudged() {
                continue;
            }
            let alpha = 1.0 - crate::bench::paired::LEVEL;
            let Some((class, r)) =
                by_class.worst_regression(&row.dataset, pair, self.gate.threshold, alpha)
            else {
                continue;
            };
            row.findings.push(Finding::fail(
                Rule::ClassRegressed,
                format!(
                    "regressed on the puzzles of class {class} ({} pairs): {}× [{:.3}, {:.3}] \
                     with the whole {:.1}% interval above +{}% (the level widened for the \
                     classes judged, so that a false regression in any class stays as rare as \
                     the gate's)",
                    r.pairs,
                    crate::bench::paired::ratio(r.geomean),
                    r.low.unwrap_or(f64::NAN),
                    r.high.unwrap_or(f64::NAN),
                    r.level * 100.0,
                    self.gate.threshold
                ),
            ));
        }
        self
    }

    /// Datasets that failed.
    pub fn failed(&self) -> usize {
        self.rows.iter().filter(|r| r.failed()).count()
    }

    /// Datasets whose time was not judged and that did not fail.
    pub fn not_judged(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| !r.failed() && r.unjudged())
            .count()
    }

    /// Datasets judged undecided (nothing failed or unjudged).
    pub fn undecided(&self) -> usize {
        self.rows.iter().filter(|r| r.undecided()).count()
    }

    /// Datasets whose time verdict is `d` and that did not fail.
    pub fn count(&self, d: Decision) -> usize {
        self.rows
            .iter()
            .filter(|r| !r.failed() && !r.unjudged() && r.time == d.as_str())
            .count()
    }

    pub fn passed(&self) -> bool {
        self.exit_code() == 0
    }

    /// 1 when any dataset failed; else 2 when any was not judged, the run
    /// did not complete or it has no dataset; else
    /// [`EXIT_UNDECIDED`] when any was undecided (unless undecided
    /// datasets pass); else 0.
    pub fn exit_code(&self) -> i32 {
        if self.failed() > 0 {
            1
        } else if self.incomplete || self.rows.is_empty() || self.not_judged() > 0 {
            2
        } else if self.undecided() > 0 && !self.gate.undecided_passes {
            EXIT_UNDECIDED
        } else {
            0
        }
    }

    /// The verdict in one word: `PASS`, `FAIL`, `NOT JUDGED`, `UNDECIDED`.
    pub fn word(&self) -> &'static str {
        match self.exit_code() {
            0 => "PASS",
            1 => "FAIL",
            EXIT_UNDECIDED => "UNDECIDED",
            _ => "NOT JUDGED",
        }
    }
}

/// The verdict on one dataset: BASE's and CANDIDATE's results on it (the
/// first round's), and with a time budget the evidence of every round.
fn judge_dataset(
    gate: &Gate,
    dataset: &str,
    base: Option<&ResultRecord>,
    cand: Option<&ResultRecord>,
    evidence: Option<&Evidence>,
) -> GateRow {
    let c = checks(gate, base, cand);
    let mut row = GateRow {
        dataset: dataset.to_string(),
        paired: c.paired,
        time: "not judged",
        estimate: None,
        findings: c.findings,
    };
    if let Some(e) = evidence {
        row.findings.extend(e.findings.0.iter().cloned());
    }
    if row.unjudged() {
        return row;
    }
    let estimate = match evidence {
        Some(e) => e.estimate(),
        None => row.paired.as_ref().and_then(Estimate::of_paired),
    };
    let Some(est) = estimate else {
        row.findings.push(Finding::unjudged(
            Rule::NoInterval,
            no_interval(row.paired.as_ref(), evidence.map(|e| e.rounds())),
        ));
        return row;
    };
    let decision = est.decide(gate.threshold);
    if decision == Decision::Regressed {
        row.findings.push(Finding::fail(
            Rule::Regressed,
            format!(
                "regressed: {} with the whole {:.0}% interval above +{}% (the smallest change \
                 this run could detect: ±{:.2}%)",
                est.text(),
                est.level * 100.0,
                gate.threshold,
                est.resolution_pct()
            ),
        ));
    }
    row.time = decision.as_str();
    row.estimate = Some(est);
    row
}

/// What one round's records of the two sides say, the time aside.
pub(crate) struct Checks {
    pub findings: Findings,
    pub paired: Option<Paired>,
}

/// Everything but the time, by the judge's rules ([`crate::judge`]): each
/// side believable on its own and against the other (rejected answers,
/// faults, unverifiable answers, a lying or unbelievable clock, a cache,
/// nothing solved, giving up), answers and counters that differ, and what
/// keeps the time from being judged (a missing side, different clocks,
/// pairs made with another baseline).
pub(crate) fn checks(
    gate: &Gate,
    base: Option<&ResultRecord>,
    cand: Option<&ResultRecord>,
) -> Checks {
    let mut c = Checks {
        findings: Findings::default(),
        paired: cand.and_then(|c| c.paired_with(&gate.base).or(c.paired.as_ref()).cloned()),
    };
    let side = |role: &str, label: &str, r: &ResultRecord| r.side(&format!("{role} {label}"));
    let b = base.map(|r| side("BASE", &gate.base, r));
    let k = cand.map(|r| side("CANDIDATE", &gate.candidate, r));
    for (role, label, s) in [("BASE", &gate.base, &b), ("CANDIDATE", &gate.candidate, &k)] {
        match s {
            Some(s) => c.findings.extend(judge::believable(s)),
            None => c.findings.push(Finding::unjudged(
                Rule::Missing,
                format!("{role} {label} has no results on this dataset"),
            )),
        }
    }
    if let (Some(b), Some(k)) = (&b, &k) {
        c.findings.extend(judge::against(b, k, gate.threshold));
    }
    match c.paired.clone() {
        Some(p) if p.baseline != gate.base => c.findings.push(Finding::unjudged(
            Rule::Other,
            format!("paired with {} rather than {}", p.baseline, gate.base),
        )),
        Some(p) => pair_checks(gate, &p, &mut c.findings),
        None if base.is_some() && cand.is_some() => c.findings.push(Finding::unjudged(
            Rule::Other,
            "no paired statistics (not an interleaved run)",
        )),
        None => {}
    }
    c
}

/// Answers and counters that differ between the sides, and puzzles left
/// out of the pairs.
fn pair_checks(gate: &Gate, p: &Paired, f: &mut Findings) {
    if p.answers_differ > 0 {
        f.push(Finding::fail(
            Rule::AnswersDiffer,
            format!(
                "answers differ on {} puzzles (status or solution count; e.g. index {})",
                p.answers_differ,
                examples(&p.answer_examples)
            ),
        ));
    }
    if p.counters_differ > 0 {
        let what = format!(
            "search counters ({}) differ on {} puzzles (e.g. index {})",
            p.counters_compared.names().join(", "),
            p.counters_differ,
            examples(&p.counter_examples)
        );
        f.push(if gate.fail_on_counters {
            Finding::fail(
                Rule::CountersDiffer,
                format!("{what}; failing: --fail-on counters"),
            )
        } else {
            Finding::note(
                Rule::CountersDiffer,
                format!("{what}: a behaviour change, not noise"),
            )
        });
    }
    if p.unpaired > 0 {
        f.push(Finding::note(
            Rule::Other,
            format!(
                "{} puzzles left out of the pairs (no accepted solution on one side)",
                p.unpaired
            ),
        ));
    }
}

/// Why there is no interval to judge the time on: no pairs, or too few
/// chunks (over `rounds` rounds, with a budget), and how to get one: chunks
/// hold at most 64 puzzles, and never more than a batch.
fn no_interval(p: Option<&Paired>, rounds: Option<(u32, u64, u64)>) -> String {
    let Some(p) = p.filter(|p| p.pairs > 0) else {
        return "no puzzle timed on both sides".into();
    };
    // A small dataset's chunks shrink to MIN_CHUNK puzzles; a chunk never
    // spans two batches.
    let how = match p.pairs / MIN_BLOCKS {
        0 => format!("at least {MIN_BLOCKS} puzzles with --batch-size 1"),
        b => format!(
            "at least {} puzzles, or --batch-size {b} or less (a batch holds one chunk or more)",
            MIN_BLOCKS as usize * crate::bench::MIN_CHUNK
        ),
    };
    let (pairs, chunks, over) = match rounds {
        Some((r, pairs, chunks)) if r > 1 => (pairs, chunks, format!(" over {r} rounds")),
        _ => (p.pairs, p.blocks.0, String::new()),
    };
    format!(
        "{pairs} pairs in {chunks} chunk{}{over}: too few to judge. The interval resamples whole chunks \
         and needs at least {MIN_BLOCKS} of them to hold the true ratio about 90% of the time \
         (docs/MEASUREMENT.md §4); give {how}{}",
        if chunks == 1 { "" } else { "s" },
        if rounds.is_some() { ", or a longer --budget" } else { "" }
    )
}

fn examples(v: &[u64]) -> String {
    v.iter()
        .take(3)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests;
