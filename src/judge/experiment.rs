//! What makes two measurements one experiment, and the rule that refuses
//! to compare two that are not ([`comparable`]).

use super::{Finding, Rule};
use serde::{Deserialize, Serialize};

/// The facts that make a measurement of one dataset the experiment it is.
/// A field that is `None` was not recorded (results or history lines
/// written before it was) and is not compared.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Experiment {
    /// The dataset's content hash: the same puzzles at the same positions
    /// (so the same file, subset, shard and order).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub puzzles: Option<String>,
    /// The hash of every record of the file a shard was read from (all
    /// shards of one file have the same).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// `--transform SEED`, or `none`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transform: Option<String>,
    /// Solutions counted per solve (1: first solution; 2: uniqueness).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solution_limit: Option<u32>,
    /// `--max-guesses` and `--timeout`: where a solve is cut short.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search_budget: Option<String>,
    /// How times were taken: cold or practised, which time is kept, the
    /// measured passes and the warm-up passes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<String>,
    /// The strategy paired ratios are to (the run's baseline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub yardstick: Option<String>,
    /// What that strategy is: its kind and spec (`builtin fast`, `cmd …`),
    /// so that another solver under the yardstick's label is another
    /// yardstick.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub yardstick_spec: Option<String>,
}

impl Experiment {
    /// The same experiment without its yardstick: for verdicts on times
    /// rather than on ratios to a yardstick.
    pub fn without_yardstick(mut self) -> Experiment {
        self.yardstick = None;
        self.yardstick_spec = None;
        self
    }

    /// The same experiment without the puzzles' identity, for the shards of
    /// one run (each reads other puzzles of the same file).
    pub fn without_puzzles(mut self) -> Experiment {
        self.puzzles = None;
        self
    }
}

/// Why `a` and `b` are not one experiment (empty: they are): one
/// not-judged finding per field recorded on both sides with different
/// values. `names` say which measurement is which (`the baseline`, a
/// directory, a revision).
pub fn comparable(a: &Experiment, b: &Experiment, names: [&str; 2]) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut field = |rule: Rule, what: &str, x: Option<String>, y: Option<String>| {
        if let (Some(x), Some(y)) = (x, y) {
            if x != y {
                out.push(Finding::unjudged(
                    rule,
                    format!(
                        "not the same experiment: {what} is {x} in {} and {y} in {}",
                        names[0], names[1]
                    ),
                ));
            }
        }
    };
    field(
        Rule::OtherPuzzles,
        "the dataset's content (other puzzles, another order, or another --limit/--shard)",
        a.puzzles.clone(),
        b.puzzles.clone(),
    );
    field(
        Rule::OtherSource,
        "the dataset file read (its hash over every record)",
        a.source.clone(),
        b.source.clone(),
    );
    field(
        Rule::OtherTransform,
        "--transform",
        a.transform.clone(),
        b.transform.clone(),
    );
    field(
        Rule::OtherSolutionLimit,
        "the solution limit (--count)",
        a.solution_limit.map(|n| n.to_string()),
        b.solution_limit.map(|n| n.to_string()),
    );
    field(
        Rule::OtherSearchBudget,
        "the search budget",
        a.search_budget.clone(),
        b.search_budget.clone(),
    );
    field(
        Rule::OtherTiming,
        "the timing",
        a.timing.clone(),
        b.timing.clone(),
    );
    field(
        Rule::OtherYardstick,
        "the yardstick (the strategy ratios are to)",
        a.yardstick.clone(),
        b.yardstick.clone(),
    );
    field(
        Rule::OtherYardstick,
        "the yardstick's solver (its kind and spec)",
        a.yardstick_spec.clone(),
        b.yardstick_spec.clone(),
    );
    out
}

/// Why two measurements cannot be held to be of the same puzzles: either
/// does not record its dataset's content (a results directory whose
/// meta.json lost it, or one written before it was recorded). Verdicts
/// on two results directories require it; `comparable` alone passes a
/// field recorded on neither side.
pub fn puzzles_recorded(a: &Experiment, b: &Experiment, names: [&str; 2]) -> Vec<Finding> {
    [(a, names[0]), (b, names[1])]
        .into_iter()
        .filter(|(e, _)| e.puzzles.is_none())
        .map(|(_, name)| {
            Finding::unjudged(
                Rule::OtherPuzzles,
                format!(
                    "{name} does not record its dataset's content (meta.json's content_hash): \
                     whether both measured the same puzzles cannot be checked"
                ),
            )
        })
        .collect()
}
