//! A parameter scan (`run -j 1,2,4`, `run --scan KEY=V1,V2,…`): the same
//! run once per value of one option, each value's results in a
//! subdirectory `KEY=VALUE` of the scan's directory.
//!
//! This module is the scan's plan and its order of work: what it varies
//! ([`Axis`]), each value checked as its option would be ([`Setting`]), the
//! runs in the order they go ([`Plan::steps`]: a warm-up round, then rounds
//! with the values alternating). [`rows`] keeps one round per value and
//! makes the scan's rows; [`spec`] sets a key in a strategy spec. The
//! command turns its options into a [`Plan`] and runs each step;
//! `report::scan` renders the scan's files.

pub mod rows;
pub mod spec;

pub use rows::{Scan, ScanRow, KEPT};

use std::path::{Path, PathBuf};

/// What a scan varies: a run option, or a key of the strategies' specs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    Threads,
    BatchSize,
    Repeat,
    Warmup,
    MaxGuesses,
    Count,
    /// A key of a built-in strategy with axes ([`SPEC_KEYS`]) or of a
    /// `lib=` spec ([`LIB_KEYS`]).
    Spec(&'static str),
}

/// The run options a scan can vary, in the order messages list them.
const RUN_AXES: [Axis; 6] = [
    Axis::Threads,
    Axis::BatchSize,
    Axis::Repeat,
    Axis::Warmup,
    Axis::MaxGuesses,
    Axis::Count,
];

/// The keys of a built-in strategy with axes that a scan may set.
pub const SPEC_KEYS: [&str; 5] = ["prop", "branch", "order", "root", "guess"];

/// The keys of a `lib=` spec that a scan may set (a library's own
/// parameter, `config=`, among them).
pub const LIB_KEYS: [&str; 5] = ["symbol", "solver", "config", "reentrant", "isolate"];

impl Axis {
    /// The axis named `key` (`j` is `threads`); `None` for a key no scan
    /// varies.
    pub fn parse(key: &str) -> Option<Axis> {
        let key = if key == "j" { "threads" } else { key };
        if let Some(a) = RUN_AXES.iter().find(|a| a.name() == key) {
            return Some(*a);
        }
        SPEC_KEYS
            .into_iter()
            .chain(LIB_KEYS)
            .find(|k| *k == key)
            .map(Axis::Spec)
    }

    /// The option's long name or the spec key: the `KEY` of the values'
    /// directories (`KEY=VALUE`) and of the scan's files.
    pub fn name(self) -> &'static str {
        match self {
            Axis::Threads => "threads",
            Axis::BatchSize => "batch-size",
            Axis::Repeat => "repeat",
            Axis::Warmup => "warmup",
            Axis::MaxGuesses => "max-guesses",
            Axis::Count => "count",
            Axis::Spec(key) => key,
        }
    }

    /// Every key a scan may vary: the run options, the built-in
    /// strategies' keys, then the `lib=` keys.
    pub fn known() -> Vec<&'static str> {
        RUN_AXES
            .iter()
            .map(|a| a.name())
            .chain(SPEC_KEYS)
            .chain(LIB_KEYS)
            .collect()
    }

    /// Why `values` name one value twice, if they do: each value's results
    /// go to one subdirectory, and a scan over equal values measures
    /// nothing. A run option's values are compared as numbers (`1` and
    /// `01` are one value), and for `threads` 0 is every one of `cores`.
    pub fn repeat(self, values: &[String], cores: usize) -> Option<String> {
        let numeric = !matches!(self, Axis::Spec(_));
        let same = |v: &str| -> String {
            if !numeric {
                return v.to_string();
            }
            match v.parse::<u64>() {
                Ok(0) if self == Axis::Threads => cores.to_string(),
                Ok(n) => n.to_string(),
                Err(_) => v.to_string(),
            }
        };
        let (i, w) = values.iter().enumerate().find_map(|(i, v)| {
            let w = values[..i].iter().find(|w| same(w) == same(v))?;
            Some((i, w))
        })?;
        let v = &values[i];
        Some(if w == v {
            format!("{v} is given twice")
        } else if self == Axis::Threads && (v == "0" || w == "0") {
            format!(
                "{w} and {v} are the same thread count (0 is every logical core: {} here)",
                same("0")
            )
        } else {
            format!("{w} and {v} are the same value")
        })
    }

    /// `value` checked as the option would check it, as what it sets in a
    /// run; for a spec key, every strategy of `strategies` with the key set
    /// where it takes it. The error says why the value is refused.
    pub fn setting(
        self,
        value: &str,
        limits: &Limits,
        strategies: &[String],
    ) -> Result<Setting, String> {
        let num = |what: &str| -> Result<u64, String> {
            value
                .parse::<u64>()
                .map_err(|_| format!("{what} must be a whole number"))
        };
        let passes = |lo: u64| -> Result<u32, String> {
            let n = num("a count")?;
            if n < lo || n > limits.passes {
                return Err(format!("{lo} to {}", limits.passes));
            }
            Ok(n as u32)
        };
        Ok(match self {
            Axis::Threads => {
                let n = num("a thread count")?;
                if n > limits.threads {
                    return Err(format!("at most {}", limits.threads));
                }
                Setting::Threads(n as usize)
            }
            Axis::BatchSize => {
                let n = num("a batch size")?;
                if !(1..=limits.batch).contains(&n) {
                    return Err(format!("1 to {}", limits.batch));
                }
                Setting::BatchSize(n as usize)
            }
            Axis::Repeat => Setting::Repeat(passes(1)?),
            Axis::Warmup => Setting::Warmup(passes(0)?),
            Axis::Count => Setting::Count(passes(1)?),
            Axis::MaxGuesses => Setting::MaxGuesses(num("a guess budget")?),
            Axis::Spec(key) => Setting::Strategies(spec::set_key(strategies, key, value)?),
        })
    }
}

/// The ranges of the run options a scan may set: the command line's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most threads (0, every logical core, is allowed).
    pub threads: u64,
    /// Largest batch size (the smallest is 1).
    pub batch: u64,
    /// Most passes of `--repeat`, `--warmup` and `--count`.
    pub passes: u64,
}

/// What one value of a scan sets in its run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Setting {
    Threads(usize),
    BatchSize(usize),
    Repeat(u32),
    Warmup(u32),
    Count(u32),
    MaxGuesses(u64),
    /// The strategies to run: those that take the scanned key with it set
    /// (under a label that stays the same from value to value), the others
    /// unchanged.
    Strategies(Vec<String>),
}

/// One value of a scan: as given, and what it sets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Point {
    pub value: String,
    pub setting: Setting,
}

/// What a scan varies, and over which values, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub axis: Axis,
    pub points: Vec<Point>,
}

/// Where the rounds run, inside the scan's directory (removed at the end).
pub const ROUNDS_DIR: &str = ".scan-rounds";

/// Puzzles of the warm-up round, at most.
pub const WARMUP_PUZZLES: u64 = 1000;

/// One run of a scan: a value's round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The value's index in [`Plan::points`].
    pub point: usize,
    /// 0 for the warm-up round, else 1 to the rounds.
    pub round: u32,
    /// The run's results directory.
    pub out: PathBuf,
}

impl Step {
    /// The warm-up round: it brings the binary, the dataset's pages, the
    /// allocator and the clock frequency to where the measured rounds find
    /// them, and is discarded.
    pub fn warmup(&self) -> bool {
        self.round == 0
    }

    /// The puzzle limit of this step's run, given the run's own: a warm-up
    /// round solves at most [`WARMUP_PUZZLES`].
    pub fn limit(&self, limit: Option<u64>) -> Option<u64> {
        if self.warmup() {
            Some(limit.unwrap_or(WARMUP_PUZZLES).min(WARMUP_PUZZLES))
        } else {
            limit
        }
    }
}

impl Plan {
    /// The scanned key ([`Axis::name`]).
    pub fn key(&self) -> &'static str {
        self.axis.name()
    }

    /// The values, as given.
    pub fn values(&self) -> Vec<&str> {
        self.points.iter().map(|p| p.value.as_str()).collect()
    }

    /// The directory name of `value`'s results: `KEY=VALUE`, the value
    /// made safe for a file name.
    pub fn dir_name(&self, value: &str) -> String {
        format!("{}={}", self.key(), crate::support::names::file_part(value))
    }

    /// Every run of the scan in order, their directories under `work`: the
    /// warm-up round of every value, then `rounds` rounds of every value in
    /// turn (the values alternate, so that a slow spell of the machine
    /// falls on all of them).
    pub fn steps(&self, work: &Path, rounds: u32) -> Vec<Step> {
        let mut steps = Vec::new();
        for round in 0..=rounds {
            for (point, p) in self.points.iter().enumerate() {
                let name = self.dir_name(&p.value);
                let out = if round == 0 {
                    work.join(format!("warmup-{name}"))
                } else {
                    work.join(format!("{name}-round{round}"))
                };
                steps.push(Step { point, round, out });
            }
        }
        steps
    }
}

/// A plan of `axis` over `values` whose settings do not matter (for the
/// tests of what renders or measures a plan).
#[cfg(test)]
pub(crate) fn test_plan(axis: Axis, values: &[&str]) -> Plan {
    Plan {
        axis,
        points: values
            .iter()
            .map(|v| Point {
                value: v.to_string(),
                setting: Setting::Strategies(Vec::new()),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        threads: 64,
        batch: 1024,
        passes: 10,
    };

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn axes_are_named_by_their_options_and_spec_keys() {
        assert_eq!(Axis::parse("j"), Some(Axis::Threads));
        assert_eq!(Axis::parse("threads"), Some(Axis::Threads));
        assert_eq!(Axis::parse("batch-size"), Some(Axis::BatchSize));
        assert_eq!(Axis::parse("prop"), Some(Axis::Spec("prop")));
        assert_eq!(Axis::parse("config"), Some(Axis::Spec("config")));
        assert_eq!(Axis::parse("thread"), None);
        assert_eq!(Axis::parse("name"), None);
        for key in Axis::known() {
            assert_eq!(Axis::parse(key).map(Axis::name), Some(key));
        }
        assert_eq!(Axis::known().len(), 16);
    }

    #[test]
    fn a_value_given_twice_is_found() {
        let r = |a: Axis, v: &[&str]| a.repeat(&strings(v), 8);
        assert_eq!(r(Axis::Threads, &["1", "2", "4"]), None);
        assert_eq!(
            r(Axis::Threads, &["2", "1", "2"]).as_deref(),
            Some("2 is given twice")
        );
        assert_eq!(
            r(Axis::Threads, &["1", "01"]).as_deref(),
            Some("1 and 01 are the same value")
        );
        assert_eq!(
            r(Axis::Threads, &["0", "8"]).as_deref(),
            Some("0 and 8 are the same thread count (0 is every logical core: 8 here)")
        );
        // 0 is no thread count for another option.
        assert_eq!(r(Axis::BatchSize, &["0", "8"]), None);
        // Spec values are compared as written.
        assert_eq!(r(Axis::Spec("config"), &["1", "01"]), None);
        assert_eq!(
            r(Axis::Spec("prop"), &["hidden", "hidden"]).as_deref(),
            Some("hidden is given twice")
        );
    }

    #[test]
    fn values_are_checked_as_their_options_are() {
        let s = |a: Axis, v: &str| a.setting(v, &LIMITS, &[]);
        assert_eq!(s(Axis::Threads, "0"), Ok(Setting::Threads(0)));
        assert_eq!(s(Axis::Threads, "65"), Err("at most 64".into()));
        assert_eq!(
            s(Axis::Threads, "x"),
            Err("a thread count must be a whole number".into())
        );
        assert_eq!(s(Axis::BatchSize, "0"), Err("1 to 1024".into()));
        assert_eq!(s(Axis::BatchSize, "1024"), Ok(Setting::BatchSize(1024)));
        assert_eq!(s(Axis::Warmup, "0"), Ok(Setting::Warmup(0)));
        assert_eq!(s(Axis::Repeat, "0"), Err("1 to 10".into()));
        assert_eq!(s(Axis::Count, "11"), Err("1 to 10".into()));
        assert_eq!(s(Axis::Count, "3"), Ok(Setting::Count(3)));
        assert_eq!(
            s(Axis::MaxGuesses, "-1"),
            Err("a guess budget must be a whole number".into())
        );
        assert_eq!(
            s(Axis::MaxGuesses, "123456789012"),
            Ok(Setting::MaxGuesses(123_456_789_012))
        );
    }

    #[test]
    fn the_warm_up_round_comes_first_then_the_values_alternate() {
        let plan = Plan {
            axis: Axis::Spec("prop"),
            points: ["naked", "hidden,locked"]
                .iter()
                .map(|v| Point {
                    value: v.to_string(),
                    setting: Setting::Strategies(Vec::new()),
                })
                .collect(),
        };
        assert_eq!(plan.values(), ["naked", "hidden,locked"]);
        let steps = plan.steps(Path::new("w"), 2);
        let seen: Vec<(usize, u32, String)> = steps
            .iter()
            .map(|s| (s.point, s.round, s.out.display().to_string()))
            .collect();
        let name = plan.dir_name("hidden,locked");
        assert_eq!(
            seen,
            [
                (0, 0, "w/warmup-prop=naked".to_string()),
                (1, 0, format!("w/warmup-{name}")),
                (0, 1, "w/prop=naked-round1".to_string()),
                (1, 1, format!("w/{name}-round1")),
                (0, 2, "w/prop=naked-round2".to_string()),
                (1, 2, format!("w/{name}-round2")),
            ]
        );
        assert!(steps[0].warmup() && !steps[2].warmup());
        assert_eq!(steps[0].limit(None), Some(WARMUP_PUZZLES));
        assert_eq!(steps[0].limit(Some(20)), Some(20));
        assert_eq!(steps[0].limit(Some(5000)), Some(WARMUP_PUZZLES));
        assert_eq!(steps[2].limit(None), None);
        assert_eq!(steps[2].limit(Some(5000)), Some(5000));
    }
}
