//! `summary.json`'s `gate`: the verdict of `run --gate BASE:CANDIDATE`
//! as a machine reads it (the same verdict as the terminal and `gate.md`).

use crate::judge::Finding;
use serde::{Deserialize, Serialize};

/// The gate of a run.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct GateRecord {
    pub base: String,
    pub candidate: String,
    /// `--threshold`, in percent.
    pub threshold_pct: f64,
    pub fail_on_counters: bool,
    /// `fail` (an undecided dataset exits 3) or `pass` (`--undecided pass`).
    pub undecided: String,
    /// `PASS`, `FAIL`, `NOT JUDGED` or `UNDECIDED`.
    pub verdict: String,
    /// The exit status the verdict gives the run (0, 1, 2 or 3).
    pub exit_code: i32,
    /// `bootstrap` (one look at the run's one measurement) or
    /// `confidence sequence` (`--budget`: every round, valid at each).
    pub interval: String,
    /// With `--budget`: the rounds measured and why they ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<BudgetRecord>,
    pub datasets: Vec<DatasetVerdict>,
}

/// What a run with a time budget did.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct BudgetRecord {
    pub budget_s: f64,
    /// Rounds measured, the first included.
    pub rounds: u32,
    /// From the start of the run to the end of the last round.
    pub elapsed_s: f64,
    pub longest_round_s: f64,
    /// `decided`, `budget spent` or `stopped`.
    pub ended: String,
    /// Each round solved new isomorphs (`--transform`) rather than the
    /// same puzzles.
    pub isomorphs: bool,
    /// The measured passes and warm-up passes of the rounds after the
    /// first, when they differ from the first's (a slow solver's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub later_repeat: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub later_warmup: Option<u32>,
}

/// One dataset's verdict.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DatasetVerdict {
    pub dataset: String,
    /// `regressed`, `improved`, `unchanged`, `undecided` or `not judged`.
    pub time: String,
    /// The dataset failed (regressed, rejected answers, faults, answers
    /// that differ, counters with `--fail-on counters`).
    pub failed: bool,
    /// The geometric-mean ratio CANDIDATE / BASE and its interval (absent
    /// when not judged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_low: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_high: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<f64>,
    /// The smallest change the run could have detected: the interval's
    /// half-width, in percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub half_width_pct: Option<f64>,
    /// Pairs and chunks the interval rests on (over every round).
    pub pairs: u64,
    pub chunks: u64,
    /// Rounds measured on this dataset (1 without a budget).
    pub rounds: u32,
    pub failures: Vec<String>,
    pub unjudged: Vec<String>,
    pub notes: Vec<String>,
    /// The same reasons with the name of the judge's rule each rests on
    /// (`rejected`, `gave-up`, `no-interval`, …) and its weight (`fail`,
    /// `unjudged`, `note`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<Reason>,
    /// With `--budget`: each round's own figures.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub round_list: Vec<RoundRecord>,
}

/// One reason of a verdict, as the judge gave it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Reason {
    pub rule: String,
    pub weight: String,
    pub text: String,
}

impl Reason {
    /// A finding of the judge as `summary.json` records it.
    pub fn of(f: &Finding) -> Self {
        Reason {
            rule: f.rule.name().to_string(),
            weight: f.weight.name().to_string(),
            text: f.text.clone(),
        }
    }
}

/// One round of a dataset.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RoundRecord {
    pub round: u32,
    /// The isomorphs' seed (`--transform`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transform: Option<u64>,
    pub pairs: u64,
    pub chunks: u64,
    /// The round's own geometric-mean ratio.
    pub ratio: f64,
    /// Its wall time (every dataset of the round).
    pub seconds: f64,
}
