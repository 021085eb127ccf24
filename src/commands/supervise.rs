//! Supervision: a command that loads a solver into its own process runs
//! as a measuring child of itself, which the parent watches.
//!
//! A library called in-process cannot be stopped or survived from inside:
//! a crash (any fatal signal), an `exit()` or `_exit()` (from a call or
//! from its initialisers) or a call that never returns takes the process
//! with it. So `run`, `check`, `solve` and `generate --hard-for` with such a
//! solver run the same command again as a child, with the path of a
//! [`board`] in its environment, in a session of its own. The child works
//! exactly as an unsupervised command does (the library's calls stay
//! in-process and are timed the same way); the only additions are a few
//! atomic stores per call, outside the timed region, that say on the board
//! which strategy and puzzle the call is on, and the shield's filter
//! (`crate::shield`), installed before any library is loaded, which keeps
//! the library from stopping or signalling the supervisor or its own
//! process. The parent waits, forwards SIGINT/SIGTERM/SIGHUP to the child,
//! and watches the board for a call that has not returned within
//! `--timeout`; when the child ends without saying on the board that it
//! finished, the parent says what happened and where and exits with the
//! status of the fault:
//!
//! | fault | exit status |
//! |---|---:|
//! | a call did not return within `--timeout` (the child is killed) | 124 |
//! | the library ended the process (`exit`, `_exit`), whatever its status | 125 |
//! | the process died of signal N (SIGSEGV, SIGABRT, SIGBUS, …) | 128 + N |
//! | the library tried to stop or signal bench-sudoku (refused: SIGSYS) | 159 |
//!
//! Starting and watching the child is `crate::supervise`; this file
//! decides, for `check`, `solve` and `generate --hard-for`, what to print
//! and which status to exit with. `run` also keeps what was measured
//! (`commands::run::supervise`).
//! `BENCH_SUDOKU_SUPERVISE=0` turns supervision off (to run a solver under
//! a debugger in one process).

use crate::board::{self, Call, Phase, Reading};
use crate::solver::external;
use crate::supervise::{code_of, what_ended};
pub use crate::supervise::{interrupted, Ending, Stuck};
use std::path::Path;

/// The environment variable that turns supervision off when it is `0`.
pub use super::environment::SUPERVISE as SWITCH_ENV;
/// Exit status when an in-process call did not return within `--timeout`
/// (as `timeout(1)` exits).
pub use crate::support::exit::EXIT_HANG;
/// Exit status when an in-process solver ended the process itself.
pub use crate::support::exit::EXIT_SOLVER_EXIT;

/// Whether a command of this process may run supervised: it is not a
/// measuring child already, runs `command` from its command line (a command
/// called otherwise, from a program through the library, runs where it
/// is), and supervision is not switched off.
pub fn allowed(command: &str) -> bool {
    let from_command_line = std::env::args_os().skip(1).any(|a| a == command);
    let env = super::environment::get();
    board::this().is_none() && env.board.is_none() && !env.supervise_off && from_command_line
}

/// A command other than `run` that may load a solver into its process
/// (`check`, `solve`, `generate --hard-for`).
pub struct Plain<'a> {
    /// The command's name on the command line.
    pub command: &'static str,
    /// Its strategy, as given.
    pub spec: &'a str,
    pub solvers: &'a crate::commands::args::SolverArgs,
    pub max_guesses: u64,
    /// Solver threads (0: one per core).
    pub threads: usize,
    /// Names the puzzle a call was on ("puzzle 7 (hard.txt:9)").
    pub puzzle: &'a dyn Fn(&Call) -> String,
    /// The file the command writes (`generate -o`): after a fault, the
    /// child's temporary file beside it is removed.
    pub writes: Option<&'a Path>,
}

/// [`plain`] for a one-thread command (`check`, `solve`) that writes no
/// output file: `puzzle` names the puzzle of a call; in the child, its
/// thread takes the board's slot 0.
pub fn one_thread(
    command: &'static str,
    spec: &str,
    engine: &crate::commands::args::EngineArgs,
    puzzle: &dyn Fn(&Call) -> String,
) -> anyhow::Result<Option<i32>> {
    let watched = Plain {
        command,
        spec,
        solvers: &engine.solvers,
        max_guesses: engine.max_guesses,
        threads: 1,
        puzzle,
        writes: None,
    };
    let code = plain(&watched)?;
    crate::board::use_slot_here(0);
    Ok(code)
}

/// Supervision of a [`Plain`] command, before it loads its strategy. In a
/// measuring child: says on the board that the strategy is being loaded and
/// returns `None` (the command goes on; [`loaded`] says when it is). Where
/// the strategy runs in-process and supervision is allowed: runs the
/// command as a measuring child and returns its exit status, or the
/// fault's (said). Otherwise `None`.
pub fn plain(p: &Plain) -> anyhow::Result<Option<i32>> {
    if let Some(b) = board::this() {
        b.started();
        b.phase(Phase::Loading);
        b.loading(Some(0));
        return Ok(None);
    }
    if !allowed(p.command) {
        return Ok(None);
    }
    let ctx = p.solvers.context(p.max_guesses)?;
    if !external::in_process(p.spec, &ctx) {
        return Ok(None);
    }
    let slots = if p.threads == 0 {
        crate::bench::sysinfo::logical_cores()
    } else {
        p.threads
    };
    let (reading, ending, pid) =
        crate::supervise::child(slots, p.solvers.timeout, &|w| super::print_err(w))?;
    let code = plain_verdict(p, &reading, ending);
    if code != reading.exit.unwrap_or(-1) {
        if let Some(out) = p.writes {
            remove_temporaries(out, pid);
        }
    }
    Ok(Some(code))
}

/// Removes the temporary files (`.NAME.PID.N.tmp`, `results::dest`) that
/// process `pid` left beside `out` when it died before renaming them.
fn remove_temporaries(out: &Path, pid: u32) {
    let (Some(name), dir) = (out.file_name(), out.parent()) else {
        return;
    };
    let dir = match dir {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let prefix = format!(".{}.{pid}.", name.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        if n.starts_with(&prefix) && n.ends_with(".tmp") {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// In a measuring child: the strategy is loaded, the work begins.
pub fn loaded() {
    if let Some(b) = board::this() {
        b.loading(None);
        b.phase(Phase::Measuring);
    }
}

/// The exit status of a [`Plain`] command: the child's own when it finished
/// as it says (or stopped after an interrupt passed on), else the fault's,
/// said with where it happened.
fn plain_verdict(p: &Plain, reading: &Reading, ending: Ending) -> i32 {
    if let Ending::Exited(status) = &ending {
        use std::os::unix::process::ExitStatusExt;
        // The user's interrupt, passed on, ended a child that does not
        // catch it (`check`, `solve`): the command was interrupted.
        let passed_on = matches!(status.signal(), Some(libc::SIGINT | libc::SIGTERM));
        if passed_on && interrupted() {
            return crate::commands::interrupt::EXIT_INTERRUPTED;
        }
        let code = code_of(*status);
        let said = reading.exit == Some(code);
        if said && (reading.phase == Some(Phase::Finished) || interrupted()) {
            if code == crate::commands::interrupt::EXIT_INTERRUPTED && !interrupted() {
                crate::commands::print_err(
                    "bench-sudoku: error: the measuring process was interrupted by a signal the \
                     supervisor did not pass on (a solver raised it, or another process sent it)",
                );
            }
            return code;
        }
    }
    let (what, code) = what_ended(p.solvers.timeout, reading, &ending);
    crate::commands::print_err(&format!(
        "bench-sudoku: error: {what} {}",
        plain_place(p, reading, &ending)
    ));
    if !matches!(ending, Ending::Killed(Stuck::Interrupt)) {
        crate::commands::print_err(&format!(
            "bench-sudoku: {} runs inside the process, which it takes down with it; with \
             isolate=yes it runs in a process of its own, where a crash or a hang is a fault of \
             its puzzle and the command goes on",
            p.spec
        ));
    }
    code
}

/// "while SPEC solved puzzle 7 (hard.txt:9)", or the phase.
fn plain_place(p: &Plain, reading: &Reading, ending: &Ending) -> String {
    let calls: Vec<&Call> = match ending {
        Ending::Killed(Stuck::Call(call)) => vec![call],
        _ => match reading.culprit {
            Some(t) if reading.calls.iter().any(|c| c.thread == t) => {
                reading.calls.iter().filter(|c| c.thread == t).collect()
            }
            _ => reading.calls.iter().collect(),
        },
    };
    if !calls.is_empty() {
        let each: Vec<String> = calls
            .iter()
            .map(|c| match c.lifecycle {
                Some(board::Lifecycle::Create) => "made a thread's state (create)".to_string(),
                Some(board::Lifecycle::Destroy) => "freed a thread's state (destroy)".to_string(),
                None => format!("solved {}", (p.puzzle)(c)),
            })
            .collect();
        let one_of = if calls.len() > 1 {
            " (one call per solver thread was running; one of them)"
        } else {
            ""
        };
        return format!("while {} {}{one_of}", p.spec, each.join(" and "));
    }
    match reading.phase {
        Some(Phase::Loading) => format!(
            "while loading strategy {:?} (a library's initialisers run when it is loaded)",
            p.spec
        ),
        Some(Phase::Finished) => {
            "as the process exited, its work done (a library's exit handlers run then)".into()
        }
        Some(Phase::Measuring) => format!("while {} ran, outside any call into it", p.spec),
        _ => "before the strategy was loaded".into(),
    }
}

/// In a measuring child: the work is done and the strategy is about to be
/// dropped (a library's destructors run then).
pub fn unloading() {
    if let Some(b) = board::this() {
        b.phase(Phase::Unloading);
    }
}
