//! `meta.json` (and `summary.json`'s `meta`): the facts of a run — the
//! tool and machine, the options that shape its numbers, each strategy and
//! dataset, what the harness cost — as one typed record that `run` and
//! `merge` write and every reader of a results directory reads back.

use crate::bench::sysinfo::busy;
use crate::judge::Experiment;
use serde::{Deserialize, Serialize};

/// The `meta` object of a results directory.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Meta {
    pub tool: String,
    pub version: String,
    /// Git commit of the build, when built from a checkout (`-dirty` when the
    /// tree had uncommitted changes).
    pub git_commit: Option<String>,
    /// `run --revision`: the revision of the solver under test, given for
    /// the run (each strategy's own is in `options.strategy_details`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
    pub command_line: Vec<String>,
    pub cpu_model: String,
    pub logical_cores: usize,
    pub threads: usize,
    pub os: String,
    pub arch: String,
    pub rustc: String,
    pub target: String,
    /// Target features the binary was compiled for.
    pub target_features: Vec<String>,
    /// CPU features detected at run time that the binary may dispatch to.
    pub cpu_features: Vec<String>,
    pub started: String,
    /// A random identifier of the run (of the merge, for merged results),
    /// so that two runs started in the same second are told apart (`history
    /// add` adds a run once). Absent in results written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    pub finished: Option<String>,
    /// Median cost of one pair of monotonic clock reads around a solve.
    pub timer_overhead_ns: f64,
    /// Resolution of the monotonic clock, as observed (smallest nonzero step).
    pub timer_resolution_ns: u64,
    pub options: RunOptionsMeta,
    pub datasets: Vec<DatasetMeta>,
    /// Puzzles × strategies processed when the run ended.
    pub processed: u64,
    pub complete: bool,
    /// Why the run ended early, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// The results directories a `merge` combined (empty for a run).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<String>,
    /// What the harness cost beside the solves (absent in merged results).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harness: Option<HarnessMeta>,
    /// The binary was built without optimizations (a debug build): its
    /// times are not representative. Absent (false) in release builds.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub debug_build: bool,
    /// The one-minute load average when the run started (Unix).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_average: Option<f64>,
}

/// How times were taken, in words: the experiment's `timing`.
fn timing_text(o: &RunOptionsMeta, repeat: u32, warmup: u32) -> String {
    format!(
        "{}, {}, {repeat} measured pass{}, {warmup} warm-up",
        o.timing,
        o.time_kept,
        if repeat == 1 { "" } else { "es" },
    )
}

/// Repeat spread (per-pass totals, max / min − 1) above which a run is
/// called noisy: docs/MEASUREMENT.md.
pub const NOISY_SPREAD_PCT: f64 = 5.0;

impl Meta {
    /// The experiment of dataset `dataset` in this run ([`Experiment`]).
    pub fn experiment(&self, dataset: &str) -> Experiment {
        let meta = self;
        let o = &meta.options;
        let ds = meta.datasets.iter().find(|d| d.name == dataset);
        Experiment {
            puzzles: ds.and_then(|d| d.content_hash.clone()),
            source: ds.and_then(|d| d.source_hash.clone()),
            transform: Some(o.transform.map_or("none".into(), |s| s.to_string())),
            solution_limit: Some(o.solution_limit),
            search_budget: Some(format!(
                "--max-guesses {}, --timeout {}",
                o.max_guesses,
                o.timeout.as_deref().unwrap_or("none")
            )),
            timing: Some(timing_text(o, o.repeat, o.warmup)),
            yardstick: o.baseline.clone(),
            yardstick_spec: o.baseline.as_ref().and_then(|b| {
                o.strategy_details
                    .iter()
                    .find(|d| &d.name == b)
                    // A built-in engine by its axes; an external solver by
                    // its kind alone (its spec holds paths that differ
                    // between checkouts of one project).
                    .map(|d| match d.kind.as_str() {
                        "builtin" => format!("builtin {}", d.spec),
                        kind => kind.to_string(),
                    })
            }),
        }
    }

    /// The experiment of strategy `strategy` on dataset `dataset`: the
    /// run's, with the passes that strategy made (`repeat=`, `warmup=`).
    pub fn experiment_of(&self, dataset: &str, strategy: &str) -> Experiment {
        let p = self.options.passes_of(strategy);
        Experiment {
            timing: Some(timing_text(&self.options, p.repeat, p.warmup)),
            ..self.experiment(dataset)
        }
    }

    /// Each strategy's revision in words (`mine a1b2c3d (git describe in
    /// DIR)`), external solvers first; the built-in strategies share one
    /// entry (bench-sudoku's build). Empty for results written before
    /// revisions were recorded.
    pub fn revisions(&self) -> Vec<String> {
        let details = &self.options.strategy_details;
        let mut out: Vec<String> = details
            .iter()
            .filter(|d| d.kind != "builtin")
            .map(|d| match (&d.revision, &d.revision_from) {
                (Some(r), Some(from)) => format!("{} {r} ({from})", d.name),
                (Some(r), None) => format!("{} {r}", d.name),
                _ => format!("{} (revision unknown)", d.name),
            })
            .collect();
        if let Some(r) = details
            .iter()
            .find(|d| d.kind == "builtin")
            .and_then(|d| d.revision.as_ref())
        {
            out.push(format!("built-in strategies {r} (bench-sudoku's build)"));
        }
        out
    }

    /// What a reader of this run's figures should be warned about, known
    /// before the results: a debug build, more threads than logical cores,
    /// a machine already busy when the run started.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        if self.debug_build {
            w.push(
                "debug build: the binary is not optimized and its times are 10-50x slower than a \
                 release build (cargo build --release)"
                    .to_string(),
            );
        }
        if self.threads > self.logical_cores {
            w.push(format!(
                "{} threads on {} logical cores: threads share cores and the times include waiting",
                self.threads, self.logical_cores
            ));
        }
        if let Some(w2) = self.options.practised_warning() {
            w.push(w2);
        }
        if let Some(load) = self.load_average {
            if busy(load, self.logical_cores) {
                w.push(format!(
                    "the machine was busy at the start (load {load:.2} on {} cores): times may be noisy",
                    self.logical_cores
                ));
            }
        }
        w
    }
}

/// Solves between two of one puzzle by one strategy from which the second
/// is as slow as the first: on the corpora a repeat 256 puzzles later is
/// within 1-2 % of the first solve, one 16 later is 10-35 % faster
/// (`examples/cold_distance.rs`, docs/MEASUREMENT.md "Cold by default").
pub const COLD_SOLVES: usize = 256;

impl RunOptionsMeta {
    /// The strategies that made other passes than the run's, in words
    /// (`; python: repeat 1, warm-up 0`), or nothing.
    pub fn own_passes_text(&self) -> String {
        self.strategy_details
            .iter()
            .filter_map(|d| {
                let p = d.passes?;
                Some(format!(
                    "; {}: repeat {}, warm-up {}",
                    d.name, p.repeat, p.warmup
                ))
            })
            .collect()
    }

    /// A cold run whose batches are too small for cold repeats: a
    /// strategy's repeats of a puzzle are a batch of its own solves apart
    /// (the other strategies' solves in between do not count: they leave
    /// the puzzle warm for it).
    pub fn practised_warning(&self) -> Option<String> {
        let gap = self.batch_size;
        (self.timing == "cold" && self.repeat + self.warmup > 1 && gap < COLD_SOLVES).then(|| {
            format!(
                "--batch-size {gap}: a strategy's repeats of a puzzle are only {gap} of its own \
                 solves apart, fewer than the {COLD_SOLVES} that make a repeat cold: the times \
                 are partly practised"
            )
        })
    }
}

/// What the harness cost beside the solves: its layout, its serial stages
/// (what one thread at a time must do for every puzzle, which bounds the
/// throughput however many cores there are) and the process's CPU time.
/// "Per puzzle" is per puzzle × strategy processed.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct HarnessMeta {
    /// `helpers` (a reading thread and finishing threads beside the solver
    /// threads) or `workers-only` (the solver threads do everything).
    pub layout: String,
    pub solver_threads: usize,
    pub helper_threads: usize,
    /// Reading the dataset (one reader at a time: cutting it into rows;
    /// parsing them is done in parallel), ns of the reading thread's CPU
    /// time per puzzle.
    pub read_ns_per_puzzle: f64,
    /// The ordered writer (one thread at a time), ns per puzzle.
    pub write_ns_per_puzzle: f64,
    /// Both serial stages, ns per puzzle. With `t` ns of solving per
    /// puzzle, no number of threads can go faster than one puzzle per
    /// `max(read, write)` ns, and a layout where one thread does both runs
    /// at most `t / serial` threads' worth of solving.
    pub serial_ns_per_puzzle: f64,
    /// CPU time of the process (user + system) while the units ran, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_ns: Option<u64>,
    /// CPU time beyond the measured solve times, as a percentage of them:
    /// the harness's whole cost (timing, reading, verification, rows,
    /// aggregation, writing, waiting threads that spin). Only with one pass
    /// over each puzzle, like `solve_loop_ns_per_puzzle`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harness_cpu_pct: Option<f64>,
    /// The solving loop beyond the measured solve times, ns per puzzle: the
    /// clock reads around each solve, the chunk loop, storing each result
    /// (by the chunks' own clocks). Only with one pass over each puzzle (no
    /// `--warmup`, no `--repeat`), where the measured solve times are every
    /// solve's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solve_loop_ns_per_puzzle: Option<f64>,
    /// Solves (of built-in engines, and of libraries whose batch ran on
    /// the calling thread alone) that the kernel preempted and that were
    /// given the CPU time they used (the undisturbed timing of slow solves,
    /// docs/MEASUREMENT.md §1), re-measurements and every round of a gate
    /// included; absent when none was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preempted_solves: Option<u64>,
    /// Batches of a library's slow calls that could not be timed
    /// undisturbed because threads or processes other than the harness's
    /// worked, started or ended while they ran, or the process had a child
    /// (`solver::alone`): their solves kept their wall times. Absent when
    /// none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withdrawn_batches: Option<u64>,
    /// CPU time of the other per-puzzle stages, ns per puzzle, when the run
    /// was made with `BENCH_SUDOKU_STAGE_TIMES=1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stages: Option<StagesMeta>,
}

/// Where the CPU time per puzzle went in the stages besides reading,
/// solving and the ordered writer (every thread's CPU time in the stage,
/// summed, divided by the puzzles × strategies solved). With
/// `read_ns_per_puzzle` and `solve_loop_ns_per_puzzle` these account for
/// most of `harness_cpu_pct`; the rest is handing batches between threads
/// and what a group costs once (threads, histograms).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StagesMeta {
    /// Parsing batches (and `--transform`, `--shuffle`).
    pub prepare_ns_per_puzzle: f64,
    /// Verification, statistics, rows, the ordered writer and the write.
    pub finish_ns_per_puzzle: f64,
}

fn practised() -> String {
    "practised".into()
}

/// The options that shape the numbers.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RunOptionsMeta {
    pub strategies: Vec<String>,
    pub repeat: u32,
    pub warmup: u32,
    /// Solution limit per solve (1: first solution; 2: proves uniqueness).
    pub solution_limit: u32,
    pub max_guesses: u64,
    pub limit: Option<u64>,
    pub shuffle: bool,
    pub seed: u64,
    pub batch_size: usize,
    pub puzzle_csv: bool,
    pub skip_invalid: bool,
    /// Which per-puzzle time is kept over the measured repeats.
    pub time_kept: String,
    /// `cold` (every pass over a whole batch before the next, so repeats
    /// of a puzzle are a batch of solves apart) or `practised` (`run
    /// --practised`: each chunk's passes back to back). Results written
    /// before the field existed were practised.
    #[serde(default = "practised")]
    pub timing: String,
    /// `--shard K/N` when the run covered one part of every dataset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// How each strategy ran: built-in or external, its spec, what it
    /// reports and which clock times it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub strategy_details: Vec<StrategyMeta>,
    /// The per-puzzle time limit of external solvers (`--timeout`), when
    /// the run has any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,
    /// How the strategies of a dataset ran: `interleaved` (each chunk by
    /// every strategy in turn on one thread) or `sequential`. Absent in runs
    /// of one strategy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<String>,
    /// The strategy the others are paired with (interleaved runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// `--transform SEED`: every puzzle was solved as a random isomorph
    /// (ChaCha8 seeded with SEED on the stream of the puzzle's index), its
    /// answer mapped back and verified against the puzzle as read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transform: Option<u64>,
}

/// One strategy of a run, as `meta.json` records it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct StrategyMeta {
    pub name: String,
    /// `builtin`, `lib` or `cmd`.
    pub kind: String,
    /// The axes of a built-in strategy; an external solver's canonical spec.
    pub spec: String,
    pub description: String,
    pub counters: crate::solver::CounterSet,
    pub clock: crate::solver::Clock,
    /// The compiled build of the engine this run used, for engines with
    /// several ([`crate::solver::Strategy::code_path`]). Absent for the
    /// others and in results written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_path: Option<String>,
    /// The revision of the solver the run measured (`rev=`, `run
    /// --revision`, `git describe` of its work tree, or bench-sudoku's build
    /// for a built-in strategy); absent when unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
    /// Where `revision` came from, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision_from: Option<String>,
    /// The passes this strategy made when they differ from the run's
    /// (`repeat=`, `warmup=` in its spec); absent when it made the run's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passes: Option<crate::bench::Passes>,
}

impl StrategyMeta {
    pub fn of(s: &crate::solver::Strategy) -> Self {
        let caps = s.capabilities();
        StrategyMeta {
            name: s.name().to_string(),
            kind: s.kind(),
            spec: s.axes(),
            description: s.description(),
            counters: caps.counters,
            clock: caps.clock,
            code_path: s.code_path().map(str::to_string),
            revision: s.revision().map(|r| r.id.clone()),
            revision_from: s.revision().map(|r| r.from.text()),
            passes: None,
        }
    }
}

impl RunOptionsMeta {
    /// The passes strategy `name` made: its own when they differ from the
    /// run's, else the run's.
    pub fn passes_of(&self, name: &str) -> crate::bench::Passes {
        self.strategy_details
            .iter()
            .find(|d| d.name == name)
            .and_then(|d| d.passes)
            .unwrap_or(crate::bench::Passes {
                warmup: self.warmup,
                repeat: self.repeat.max(1),
            })
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DatasetMeta {
    pub name: String,
    pub path: String,
    pub format: String,
    pub gzip: bool,
    pub has_solutions: bool,
    pub puzzles: u64,
    pub skipped: u64,
    /// A hash of the records as read (`xxh3-sum:` and 16 hex digits: the
    /// wrapping sum of each record's XXH3 hash, seeded with its index, over
    /// its puzzle and solution). Two runs that read the same puzzles at the
    /// same positions have the same; the sum over shards is the unsharded
    /// run's. Absent in results written before it existed, or by a run
    /// that stopped early.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_hash: Option<String>,
    /// With `--shard`: the same hash over every record of the file, the
    /// other shards' included, which every shard of one file shares (what
    /// `merge` checks). Absent without `--shard`, where it is
    /// `content_hash`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_hash: Option<String>,
    /// Puzzles that repeat a grid seen before in the dataset (each repeat
    /// is a repeated solve for the cache check).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub repeated_puzzles: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The form of [`DatasetMeta::content_hash`].
pub fn content_hash(sum: u64) -> String {
    format!("xxh3-sum:{sum:016x}")
}

/// The sum inside a [`DatasetMeta::content_hash`].
pub fn content_sum(hash: &str) -> Option<u64> {
    u64::from_str_radix(hash.strip_prefix("xxh3-sum:")?, 16).ok()
}
