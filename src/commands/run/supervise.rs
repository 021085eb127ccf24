//! A `run` that loads a solver into its own process measures in a
//! supervised child (`crate::commands::supervise`: the same command run
//! again beside a [`board`]).
//!
//! When the child ends without saying on the board that it finished, the
//! parent says what happened and where (the strategy, the puzzle's index
//! and dataset line), rebuilds the results from the rows the child had
//! written ([`crate::results::recover`]: marked incomplete, so that
//! `report` renders them and `compare` and `--gate` refuse them), and
//! exits with the status of the fault (124 a hang, 125 an exit, 128 + N a
//! signal, 159 a refused stop or signal).

use super::RunArgs;
use crate::board::{self, Call, Phase, Reading};
use crate::commands::supervise as core;
use crate::commands::CmdResult;
use crate::solver::external;
use crate::supervise::{code_of, Ending, Stuck};
use std::path::{Path, PathBuf};

pub use core::{EXIT_HANG, EXIT_SOLVER_EXIT, SWITCH_ENV};

/// Whether `run` with `args` should measure in a supervised child: this
/// process is not one already, it runs `run` from its command line,
/// supervision is not switched off, and a strategy runs inside the process
/// (a `lib=` without `isolate=yes`).
pub fn needed(args: &RunArgs) -> anyhow::Result<bool> {
    // The child is this process's own command line run again: a `run`
    // called otherwise (from a program, through the library) is measured
    // where it is.
    if !core::allowed("run") {
        return Ok(false);
    }
    let ctx = args.engine.solvers.context(args.engine.max_guesses)?;
    Ok(super::specs(args)
        .iter()
        .any(|s| external::in_process(s, &ctx)))
}

/// Runs the same command as a supervised child and returns its exit
/// status, or the status of the fault that ended it.
pub fn run(args: &RunArgs) -> CmdResult {
    let threads = args.threads.iter().copied().max().unwrap_or(0);
    let slots = threads
        .max(crate::bench::sysinfo::logical_cores())
        .clamp(1, 4096);
    let (reading, ending, _) = crate::supervise::child(slots, args.engine.solvers.timeout, &|w| {
        crate::commands::print_err(w)
    })?;
    Ok(verdict(args, &reading, ending))
}

/// The exit status of the run: the child's own when it finished as it
/// says, otherwise the fault's (said, and what was measured kept).
fn verdict(args: &RunArgs, reading: &Reading, ending: Ending) -> i32 {
    let interrupted = crate::supervise::interrupted();
    match ending {
        Ending::Exited(status) if reading.phase == Some(Phase::Finished) => {
            let code = reading.exit.unwrap_or_else(|| code_of(status));
            if code == code_of(status) && finished_as_said(reading, code) {
                if code == crate::commands::interrupt::EXIT_INTERRUPTED && !interrupted {
                    crate::commands::print_err(
                        "bench-sudoku: error: the measuring process was interrupted by a signal the \
                         supervisor did not pass on (a solver raised it, or another process sent it)",
                    );
                }
                return code;
            }
            fault(args, reading, Ending::Exited(status))
        }
        ending => fault(args, reading, ending),
    }
}

/// Whether a child that says it finished left what it says: a run that
/// ends with 0 or 1 has written complete results.
fn finished_as_said(reading: &Reading, code: i32) -> bool {
    if code > 1 {
        return true;
    }
    match reading.dir.as_deref() {
        None => true,
        Some(dir) => complete(dir),
    }
}

/// The results in `dir` say they are complete.
fn complete(dir: &Path) -> bool {
    std::fs::read(dir.join("meta.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .is_some_and(|m| m["complete"] == true)
}

/// Says what ended the child and where, keeps what it measured, and
/// returns the exit status of the fault.
fn fault(args: &RunArgs, reading: &Reading, ending: Ending) -> i32 {
    let labels = reading.dir.as_deref().map(labels).unwrap_or_default();
    let (what, code) = crate::supervise::what_ended(args.engine.solvers.timeout, reading, &ending);
    let calls = match &ending {
        Ending::Killed(Stuck::Call(call)) => vec![call.clone()],
        // The thread that raised the signal or called exit(), when it is
        // known and was in a call; otherwise every call that was running.
        _ => match reading.culprit {
            Some(t) if reading.calls.iter().any(|c| c.thread == t) => reading
                .calls
                .iter()
                .filter(|c| c.thread == t)
                .cloned()
                .collect(),
            _ => reading.calls.clone(),
        },
    };
    let place = where_it_was(args, reading, &calls, &labels);
    crate::commands::print_err(&format!("bench-sudoku: error: {what} {place}"));
    match &ending {
        Ending::Killed(Stuck::Call(_) | Stuck::Phase(_) | Stuck::Stopped) => crate::commands::print_err(
            "bench-sudoku: a library running inside the measuring process cannot be stopped, so the \
             process was killed; run it with isolate=yes to have a hang counted as a timeout of that \
             puzzle and the run go on",
        ),
        Ending::Killed(Stuck::Interrupt) => {}
        Ending::Exited(_) if code == crate::commands::interrupt::EXIT_INTERRUPTED => {}
        Ending::Exited(_) => crate::commands::print_err(
            "bench-sudoku: a solver loaded into the process takes it down with it; run it with \
             isolate=yes to have a crash counted as a fault of that puzzle and the run go on",
        ),
    }
    // Results the child finished writing are kept as they are: the fault
    // came after them (a library's destructor, an exit handler).
    match reading.dir.as_deref() {
        Some(dir) if complete(dir) => crate::commands::print_err(&format!(
            "bench-sudoku: the results in {} were complete before that; they are kept as written",
            dir.display()
        )),
        _ => keep_measured(args, reading, &format!("{what} {place}")),
    }
    code
}

/// "while X solved puzzle 7 (line 9 of hard.csv)", or the phase.
fn where_it_was(args: &RunArgs, reading: &Reading, calls: &[Call], labels: &[String]) -> String {
    let dataset = args
        .datasets
        .get(reading.dataset)
        .map_or_else(|| "the dataset".to_string(), |d| d.display().to_string());
    if !calls.is_empty() {
        let each: Vec<String> = calls
            .iter()
            .map(|c| {
                let who = labels
                    .get(c.strategy)
                    .cloned()
                    .unwrap_or_else(|| format!("strategy #{}", c.strategy + 1));
                match (c.puzzle, c.lifecycle) {
                    (Some((index, line)), _) => {
                        format!("{who} solved puzzle {index} ({dataset}:{line})")
                    }
                    (None, Some(board::Lifecycle::Create)) => {
                        format!("{who} made a thread's state (create)")
                    }
                    (None, Some(board::Lifecycle::Destroy)) => {
                        format!("{who} freed a thread's state (destroy)")
                    }
                    (None, None) => format!("{who} solved a puzzle of {dataset}"),
                }
            })
            .collect();
        let threads = if calls.len() > 1 {
            " (one call per solver thread was running; one of them)"
        } else {
            ""
        };
        return format!("while {}{threads}", each.join(" and while "));
    }
    match (reading.phase, reading.loading) {
        (Some(Phase::Loading), Some(i)) => format!(
            "while loading strategy {:?} (a library's initialisers run when it is loaded)",
            super::specs(args).get(i).cloned().unwrap_or_default()
        ),
        (Some(Phase::Writing), _) => "while the reports were written".to_string(),
        (Some(Phase::Unloading), _) => {
            "while the solvers were unloaded (a library's destructors run then)".to_string()
        }
        (Some(Phase::Finished), _) => {
            "after the run finished, as the process exited (a library's exit handlers run then)"
                .to_string()
        }
        (Some(Phase::Measuring), _) => {
            format!("while measuring {dataset}, outside any call into a library")
        }
        _ => "before measuring started".to_string(),
    }
}

/// The strategy labels of the run, from the `meta.json` the child wrote
/// when it started.
fn labels(dir: &Path) -> Vec<String> {
    std::fs::read(dir.join("meta.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<crate::results::meta::Meta>(&b).ok())
        .map(|m| m.options.strategies)
        .unwrap_or_default()
}

/// Rebuilds the results the child was writing, marked incomplete, and
/// says where they are; appends a "not judged" note to `--gate-summary`.
fn keep_measured(args: &RunArgs, reading: &Reading, stopped: &str) {
    let dir: Option<PathBuf> = reading.dir.clone();
    match dir.as_deref().map(|d| (d, crate::report::finish::recover(d, stopped))) {
        Some((d, Ok(r))) => crate::commands::print_err(&format!(
            "run incomplete: what was measured before it stopped is in {} ({} rows over {} strategies × datasets; meta.json has \"complete\": false)",
            d.display(),
            r.rows,
            r.units
        )),
        Some((d, Err(e))) => crate::commands::print_err(&format!(
            "bench-sudoku: error: the results in {} could not be rebuilt: {e:#}",
            d.display()
        )),
        None => crate::commands::print_err("nothing was measured: no results directory was made"),
    }
    if let (Some(path), Some(_)) = (&args.gate_summary, &args.gate) {
        let md = format!(
            "### bench-sudoku gate: not judged\n\nThe run stopped: {}.\n\n",
            crate::support::text::md_cell(stopped)
        );
        use std::io::Write as _;
        let appended = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(|mut f| f.write_all(md.as_bytes()));
        if let Err(e) = appended {
            crate::commands::print_err(&format!(
                "bench-sudoku: error: --gate-summary {}: {e}",
                path.display()
            ));
        }
    }
}
