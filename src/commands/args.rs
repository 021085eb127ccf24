//! Options shared by the commands that solve (`solve`, `check`, `run`,
//! `serve`) and by those that take `-s` labels of `--solvers` files.

use crate::solver::external;
use crate::solver::{Strategy, DEFAULT_MAX_GUESSES};
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

/// Options shared by the commands that solve.
#[derive(Debug, Args, Clone)]
pub struct EngineArgs {
    /// Per-puzzle guess budget; past it a puzzle is reported `gave_up`.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_GUESSES)]
    pub max_guesses: u64,
    #[command(flatten)]
    pub solvers: SolverArgs,
}

/// Options of external solvers, shared by the commands that take `-s`.
#[derive(Debug, Args, Clone)]
pub struct SolverArgs {
    /// A TOML file naming external solvers ([solvers.LABEL] tables with
    /// lib/symbol/solver/config/reentrant/isolate, cmd, or spec; see
    /// docs/SOLVERS.md); each LABEL is then a strategy name. Repeatable.
    #[arg(long = "solvers", value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Per-puzzle time limit of external solvers, 1ms to 24h (e.g. 500ms,
    /// 10s, 2m). A solver process that does not answer in time is killed
    /// and restarted (outcome `timeout`); after three timeouts in a row it
    /// gets no more of that unit's puzzles (counted `crashed`, saying why).
    /// A library in this process (no isolate=yes) cannot be stopped, so the
    /// run then ends with an error.
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "60s",
        value_parser = parse_timeout
    )]
    pub timeout: Duration,
}

/// The most threads a command takes with `-j` (beyond any machine's cores;
/// each costs a stack and a solver workspace).
pub const MAX_THREADS: u64 = 4096;
/// The most puzzles in one batch: a batch is held in memory by each thread
/// and the writer (a record is about 250 bytes).
pub const MAX_BATCH: u64 = 65_536;
/// The most puzzles `generate -n` makes: beyond any dataset benchmarked,
/// and small enough that per-puzzle shares of a budget and progress totals
/// stay exact.
pub const MAX_PUZZLES: u64 = 1_000_000_000;
/// The most measured (`--repeat`) or discarded (`--warmup`) passes.
pub const MAX_PASSES: u64 = 1000;

/// `-j N`: 0 (every logical core) to [`MAX_THREADS`].
pub fn threads_parser() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(0..=MAX_THREADS)
}

/// A count that must be at least 1 (`--count`, `--limit`, `-n`).
pub fn positive_u64() -> clap::builder::RangedU64ValueParser<u64> {
    clap::builder::RangedU64ValueParser::<u64>::new().range(1..)
}

/// A percentage threshold: a finite number above 0 and at most 1000.
pub fn parse_percent(s: &str) -> Result<f64, String> {
    let x: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a number"))?;
    if !(x.is_finite() && x > 0.0 && x <= 1000.0) {
        return Err(format!("{s} is outside 0 < PCT <= 1000"));
    }
    Ok(x)
}

/// A duration within `[min, max]`, both bounds stated in the message
/// (`range` as the help says it). The upper bounds keep every deadline
/// (`Instant::now() + d`) and every sum of durations far from overflowing.
fn duration_in(s: &str, min: Duration, max: Duration, range: &str) -> Result<Duration, String> {
    let d = humantime::parse_duration(s.trim())
        .map_err(|e| format!("{e} (a duration from {range}, e.g. 500ms, 90s, 10m, 1h)"))?;
    if d < min || d > max {
        return Err(format!("{s} is outside {range}"));
    }
    Ok(d)
}

const HOUR: u64 = 3600;
const DAY: u64 = 24 * HOUR;

/// `--budget` of `generate --hard-for`: the whole search's wall-clock
/// time, 1 ms to 365 days.
pub fn parse_budget(s: &str) -> Result<Duration, String> {
    duration_in(
        s,
        Duration::from_millis(1),
        Duration::from_secs(365 * DAY),
        "1ms to 365d",
    )
}

/// `--timeout` of external solvers: one puzzle's limit, 1 ms to 24 h.
fn parse_timeout(s: &str) -> Result<Duration, String> {
    duration_in(
        s,
        Duration::from_millis(1),
        Duration::from_secs(DAY),
        "1ms to 24h",
    )
}

/// `--progress-interval`: 1 ms to 24 h.
pub fn parse_interval(s: &str) -> Result<Duration, String> {
    duration_in(
        s,
        Duration::from_millis(1),
        Duration::from_secs(DAY),
        "1ms to 24h",
    )
}

impl SolverArgs {
    /// The context strategies are parsed in: the options of external
    /// solvers and the labels of the `--solvers` files.
    pub fn context(&self, max_guesses: u64) -> anyhow::Result<external::Context> {
        let mut ctx = external::Context::new(external::Options {
            timeout: self.timeout,
            max_guesses,
            exe: None,
        });
        for f in &self.files {
            ctx.load_solvers_file(f)?;
        }
        Ok(ctx)
    }

    /// Declares to `guard` what the solvers of `specs` are made of, so that
    /// no output of the command replaces one: the `--solvers` files, and
    /// every library, program and script a spec names
    /// ([`external::solver_files`]).
    pub fn guard<'s>(
        &self,
        specs: impl IntoIterator<Item = &'s str>,
        max_guesses: u64,
        guard: &mut crate::results::dest::Guard,
    ) -> anyhow::Result<()> {
        for f in &self.files {
            guard.reads_file("the --solvers file", f);
        }
        let ctx = self.context(max_guesses)?;
        for spec in specs {
            for (what, file) in external::solver_files(spec, &ctx) {
                guard.reads_file(what, &file);
            }
        }
        Ok(())
    }

    /// Parses one strategy spec in this context.
    pub fn strategy(&self, spec: &str, max_guesses: u64) -> anyhow::Result<Strategy> {
        Ok(Strategy::parse_in(spec, &self.context(max_guesses)?)?)
    }
}

/// `--undecided`: whether an undecided verdict (`run --gate`, `compare`)
/// fails (exit 3) or passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Undecided {
    /// Exit 3 (unless something failed or was not judged).
    Fail,
    /// Exit 0; the verdict still says undecided.
    Pass,
}
