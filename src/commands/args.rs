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
    /// Per-puzzle time limit of external solvers (e.g. 500ms, 10s, 2m). A
    /// solver process that does not answer in time is killed and restarted
    /// (outcome `timeout`); a library in this process (no isolate=yes)
    /// cannot be stopped, so the run then ends with an error.
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "60s",
        value_parser = parse_timeout
    )]
    pub timeout: Duration,
}

fn parse_timeout(s: &str) -> Result<Duration, String> {
    let d = humantime::parse_duration(s).map_err(|e| format!("{e} (e.g. 500ms, 10s, 2m)"))?;
    if d.is_zero() {
        return Err("a timeout must be above zero".into());
    }
    Ok(d)
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

    /// Parses one strategy spec in this context.
    pub fn strategy(&self, spec: &str, max_guesses: u64) -> anyhow::Result<Strategy> {
        Ok(Strategy::parse_in(spec, &self.context(max_guesses)?)?)
    }
}
