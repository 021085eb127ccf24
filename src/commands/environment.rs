//! The environment, read once, at the start of the process, into options
//! that each layer is handed: no module below `commands` reads a variable.
//!
//! | variable | what it does | handed to |
//! |---|---|---|
//! | `BENCH_SUDOKU_BOARD` | names a measuring child's board (set by its supervisor) | `board::attach` |
//! | `BENCH_SUDOKU_SUPERVISE=0` | runs an in-process solver without a supervising parent | [`supervise`](super::supervise) |
//! | `BENCH_SUDOKU_FAST_PATH=portable\|bmi\|pext` | the fast engine's compiled path | `solver::fast::Path::prefer` |
//! | `BENCH_SUDOKU_STAGE_TIMES=1` | CPU time of the serial stages into `meta.json` | `bench::diagnostics` |
//! | `BENCH_SUDOKU_PROBE_SKIP=LEVEL` | work a `harness-probe` build leaves out | `bench::diagnostics` |
//! | `BENCH_SUDOKU_FAULT=STAGE:N` | a panic injected for tests (builds with debug assertions only) | `bench::diagnostics` |
//!
//! `PATH` is the one variable read elsewhere: an external solver's program
//! is looked up on it where it is started, as a shell would.

use crate::bench::diagnostics::{self, Diagnostics};
use crate::solver::fast::Path as FastPath;
use std::ffi::OsString;
use std::sync::OnceLock;

/// The variable that names a measuring child's board.
pub const BOARD: &str = crate::board::ENV;
/// The variable that turns supervision off when it is `0`.
pub const SUPERVISE: &str = "BENCH_SUDOKU_SUPERVISE";

/// What this process's environment asks for.
#[derive(Debug, Default)]
pub struct Environment {
    /// The board named by the supervisor, when this is a measuring child.
    pub board: Option<OsString>,
    /// `BENCH_SUDOKU_SUPERVISE=0`.
    pub supervise_off: bool,
    /// The fast engine's path asked for.
    pub fast_path: Option<FastPath>,
    /// What the pipeline is asked for beyond measuring.
    pub diagnostics: Diagnostics,
}

static READ: OnceLock<Result<Environment, String>> = OnceLock::new();

/// This process's environment, read on the first call.
fn read() -> &'static Result<Environment, String> {
    READ.get_or_init(|| {
        let text = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let fast_path = match text("BENCH_SUDOKU_FAST_PATH") {
            None => None,
            Some(v) => Some(FastPath::named(&v).ok_or_else(|| {
                format!("BENCH_SUDOKU_FAST_PATH={v} is not one of: portable, bmi, pext")
            })?),
        };
        Ok(Environment {
            board: std::env::var_os(BOARD),
            supervise_off: text(SUPERVISE).is_some_and(|v| v == "0"),
            fast_path,
            diagnostics: Diagnostics {
                stage_times: text("BENCH_SUDOKU_STAGE_TIMES").is_some_and(|v| v != "0"),
                probe_skip: text("BENCH_SUDOKU_PROBE_SKIP"),
                fault: fault(text("BENCH_SUDOKU_FAULT"))?,
            },
        })
    })
}

/// `STAGE:N` of `BENCH_SUDOKU_FAULT`, in builds with debug assertions; a
/// release build does not read the variable.
fn fault(value: Option<String>) -> Result<Option<(String, u64)>, String> {
    if !cfg!(debug_assertions) {
        return Ok(None);
    }
    let Some(v) = value else { return Ok(None) };
    let parsed = v
        .split_once(':')
        .and_then(|(stage, at)| Some((stage.to_string(), at.parse().ok()?)));
    parsed
        .map(Some)
        .ok_or_else(|| format!("BENCH_SUDOKU_FAULT={v} is not STAGE:N (finish:N or prepare:N)"))
}

/// The environment read at the start (read now if it was not).
pub fn get() -> &'static Environment {
    static EMPTY: Environment = Environment {
        board: None,
        supervise_off: false,
        fast_path: None,
        diagnostics: Diagnostics {
            stage_times: false,
            probe_skip: None,
            fault: None,
        },
    };
    read().as_ref().unwrap_or(&EMPTY)
}

/// Reads the environment and hands each layer its part; called once, by
/// `cli::main`, before the command runs and before any thread starts. A
/// variable with a value that means nothing is an error, so that a
/// misspelt measurement setting never passes for the default.
pub fn apply() -> Result<(), String> {
    let env = read().as_ref().map_err(Clone::clone)?;
    if let Some(p) = env.fast_path {
        FastPath::prefer(p);
    }
    diagnostics::set(env.diagnostics.clone())?;
    if diagnostics::leaves_work_out() {
        super::print_err(&format!(
            "bench-sudoku: BENCH_SUDOKU_PROBE_SKIP={}: work left out for a harness \
             measurement: this run's results are incomplete",
            env.diagnostics.probe_skip.as_deref().unwrap_or_default()
        ));
    }
    #[cfg(unix)]
    if let Some(value) = &env.board {
        // Not left where a library in this process would read it; no other
        // thread runs yet, so none reads the environment meanwhile.
        std::env::remove_var(BOARD);
        crate::board::attach(value);
    }
    Ok(())
}
