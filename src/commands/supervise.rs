//! A `run` that loads a solver into its own process supervises itself.
//!
//! A library called in-process cannot be stopped or survived from inside:
//! a crash (any fatal signal), an `exit()` or `_exit()` (from a call or
//! from its initialisers) or a call that never returns takes the process
//! with it. So such a run is measured by a child: the same command, run
//! again with the path of a [`board`] in its environment, in a process
//! group of its own. The child measures exactly as an unsupervised run
//! does (the libraries' calls stay in-process and timed the same way); the
//! only additions are a few atomic stores per call, outside the timed
//! region, that say on the board which strategy and puzzle the call is
//! on. The parent waits, forwards SIGINT/SIGTERM/SIGHUP to the child, and
//! watches the board for a call that has not returned within `--timeout`.
//!
//! When the child ends without saying on the board that it finished, the
//! parent says what happened and where (the strategy, the puzzle's index
//! and dataset line), rebuilds the results from the rows the child had
//! written ([`crate::results::recover`]: marked incomplete, so that
//! `report` renders them and `compare` and `--gate` refuse them), and
//! exits with a status that says which fault it was:
//!
//! | fault | exit status |
//! |---|---:|
//! | a call did not return within `--timeout` (the child is killed) | 124 |
//! | the library ended the process (`exit`, `_exit`), whatever its status | 125 |
//! | the process died of signal N (SIGSEGV, SIGABRT, SIGBUS, …) | 128 + N |
//!
//! `BENCH_SUDOKU_SUPERVISE=0` turns supervision off (to run a solver under
//! a debugger in one process).

use super::run::RunArgs;
use super::CmdResult;
use crate::board::{self, Call, Phase, Reading};
use crate::solver::external;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::time::{Duration, Instant};

/// Exit status when an in-process call did not return within `--timeout`
/// (as `timeout(1)` exits).
pub const EXIT_HANG: i32 = 124;
/// Exit status when an in-process solver ended the process itself.
pub const EXIT_SOLVER_EXIT: i32 = 125;
/// The environment variable that turns supervision off when it is `0`.
pub const SWITCH_ENV: &str = "BENCH_SUDOKU_SUPERVISE";

/// Whether `run` with `args` should measure in a supervised child: this
/// process is not one already, it runs `run` from its command line,
/// supervision is not switched off, and a strategy runs inside the process
/// (a `lib=` without `isolate=yes`).
pub fn needed(args: &RunArgs) -> anyhow::Result<bool> {
    // The child is this process's own command line run again: a `run`
    // called otherwise (from a program, through the library) is measured
    // where it is.
    let from_command_line = std::env::args_os().skip(1).any(|a| a == "run");
    if std::env::var_os(board::ENV).is_some()
        || std::env::var(SWITCH_ENV).is_ok_and(|v| v == "0")
        || !from_command_line
    {
        return Ok(false);
    }
    let ctx = args.engine.solvers.context(args.engine.max_guesses)?;
    Ok(specs(args).iter().any(|s| external::in_process(s, &ctx)))
}

/// The strategy specs as `run` reads them (the defaults when none).
fn specs(args: &RunArgs) -> Vec<String> {
    if args.strategies.is_empty() {
        super::run::DEFAULT_STRATEGIES
            .iter()
            .map(|s| s.to_string())
            .collect()
    } else {
        args.strategies.clone()
    }
}

/// How the child ended.
enum Ending {
    Exited(ExitStatus),
    /// The parent killed it: `call` had not returned within the timeout.
    Hung(Call),
}

/// Runs the same command as a supervised child and returns its exit
/// status, or the status of the fault that ended it.
pub fn run(args: &RunArgs) -> CmdResult {
    let threads = args.threads.iter().copied().max().unwrap_or(0);
    let slots = threads
        .max(crate::bench::sysinfo::logical_cores())
        .clamp(1, 4096);
    let board_file = tempfile::Builder::new()
        .prefix("bench-sudoku-board-")
        .tempfile()?;
    board::create(board_file.as_file(), slots)?;
    // What the measuring child's solver processes leave behind when it
    // dies comes here, and is ended once it has.
    external::reaper::adopt_orphans();
    let child = spawn(board_file.path())?;
    let ending = watch(child, board_file.as_file(), args.engine.solvers.timeout)?;
    external::reaper::sweep();
    let reading = board::read(board_file.as_file()).unwrap_or_default();
    match ending {
        Ending::Exited(status) if reading.phase == Some(Phase::Finished) => {
            Ok(reading.exit.unwrap_or_else(|| code_of(status)))
        }
        ending => Ok(fault(args, &reading, ending)),
    }
}

/// Starts the measuring child: this executable with the same arguments,
/// the board in its environment, in a process group of its own (so that
/// the terminal's Ctrl-C reaches the parent alone, which forwards it
/// once).
fn spawn(board_path: &Path) -> anyhow::Result<std::process::Child> {
    use std::os::unix::process::CommandExt;
    let exe = std::env::current_exe()
        .map_err(|e| anyhow::anyhow!("cannot find bench-sudoku's own executable: {e}"))?;
    let mut value = std::ffi::OsString::from(format!("{}:", std::process::id()));
    value.push(board_path.as_os_str());
    // The handler comes first, so that no signal finds the default action
    // (which would end this process and leave the child to its death
    // signal); one that comes before the child exists is passed on as soon
    // as it does.
    static CHILD: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);
    static EARLY: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let forwarded = ctrlc::set_handler(|| match CHILD.load(std::sync::atomic::Ordering::SeqCst) {
        0 => {
            EARLY.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
        pid => forward(pid),
    });
    if let Err(e) = forwarded {
        super::print_err(&format!(
            "bench-sudoku: warning: cannot forward interrupts to the measuring process: {e}"
        ));
    }
    let child = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env(board::ENV, value)
        .process_group(0)
        .spawn()
        .map_err(|e| anyhow::anyhow!("cannot start the measuring process: {e}"))?;
    let pid = child.id() as i32;
    CHILD.store(pid, std::sync::atomic::Ordering::SeqCst);
    for _ in 0..EARLY.swap(0, std::sync::atomic::Ordering::SeqCst) {
        forward(pid);
    }
    Ok(child)
}

/// Passes an interrupt on to the measuring child.
fn forward(pid: i32) {
    // SAFETY: kill(2) sends a signal to a process id; no memory is
    // involved. (Once the child is reaped the parent exits at once; a
    // signal in that instant could reach a process that reused the pid,
    // which the parent's own exit makes vanishingly rare.)
    unsafe {
        libc::kill(pid, libc::SIGINT);
    }
}

/// Waits for the child, reading the board every period: a call seen
/// running, with the same number, for `timeout` is a hang, and the
/// child's process group is killed.
fn watch(
    mut child: std::process::Child,
    board_file: &std::fs::File,
    timeout: Duration,
) -> anyhow::Result<Ending> {
    let pid = child.id() as i32;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let period = (timeout / 4).clamp(Duration::from_millis(10), Duration::from_millis(250));
    let mut seen: Vec<(usize, u64, Instant)> = Vec::new();
    loop {
        match rx.recv_timeout(period) {
            Ok(status) => return Ok(Ending::Exited(status?)),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                anyhow::bail!("lost the measuring process")
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
        }
        let Ok(reading) = board::read(board_file) else {
            continue;
        };
        let now = Instant::now();
        seen.retain(|&(t, n, _)| reading.calls.iter().any(|c| c.thread == t && c.number == n));
        for call in &reading.calls {
            let since = match seen
                .iter()
                .find(|(t, n, _)| *t == call.thread && *n == call.number)
            {
                Some(&(_, _, since)) => since,
                None => {
                    seen.push((call.thread, call.number, now));
                    now
                }
            };
            if now.duration_since(since) >= timeout {
                // SAFETY: kill(2) with a negative pid signals the child's
                // process group (it leads it); no memory is involved.
                unsafe {
                    libc::kill(-pid, libc::SIGKILL);
                }
                let _ = rx.recv();
                return Ok(Ending::Hung(call.clone()));
            }
        }
    }
}

/// The exit status a finished child's status stands for.
fn code_of(status: ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0))
}

/// Says what ended the child and where, keeps what it measured, and
/// returns the exit status of the fault.
fn fault(args: &RunArgs, reading: &Reading, ending: Ending) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    let labels = reading.dir.as_deref().map(labels).unwrap_or_default();
    let (what, code) = match &ending {
        Ending::Hung(_) => (
            format!(
                "a call did not return within {} (--timeout)",
                humantime::format_duration(args.engine.solvers.timeout)
            ),
            EXIT_HANG,
        ),
        Ending::Exited(status) => match (status.signal(), status.code(), reading.exit) {
            // The child gave up on an interrupt (a solve that did not
            // return): its own status, and what it measured is kept.
            (_, _, Some(code)) => ("stopped after an interrupt".to_string(), code),
            (Some(sig), _, _) => (
                format!("the process died of signal {sig}{}", signal_name(sig)),
                128 + sig,
            ),
            (None, Some(c), _) => (
                format!("the solver ended the process itself (exit status {c})"),
                EXIT_SOLVER_EXIT,
            ),
            (None, None, _) => ("the process ended".to_string(), EXIT_SOLVER_EXIT),
        },
    };
    let calls = match &ending {
        Ending::Hung(call) => vec![call.clone()],
        // The thread that raised the signal or called exit(), when it is
        // known and was in a call; otherwise every call that was running.
        Ending::Exited(_) => match reading.culprit {
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
    super::print_err(&format!("bench-sudoku: error: {what} {place}"));
    if matches!(ending, Ending::Hung(_)) {
        super::print_err("bench-sudoku: a library running inside the measuring process cannot be stopped, so the \
             process was killed; run it with isolate=yes to have a hang counted as a timeout of that \
             puzzle and the run go on");
    } else if code != super::interrupt::EXIT_INTERRUPTED {
        super::print_err(
            "bench-sudoku: a solver loaded into the process takes it down with it; run it with \
             isolate=yes to have a crash counted as a fault of that puzzle and the run go on",
        );
    }
    let stopped = format!("{what} {place}");
    keep_measured(args, reading, &stopped);
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
                match c.puzzle {
                    Some((index, line)) => {
                        format!("{who} solved puzzle {index} ({dataset}:{line})")
                    }
                    None => format!("{who} solved a puzzle of {dataset}"),
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
            specs(args).get(i).cloned().unwrap_or_default()
        ),
        (Some(Phase::Writing), _) => "while the reports were written".to_string(),
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
        .and_then(|b| serde_json::from_slice::<crate::bench::sysinfo::Meta>(&b).ok())
        .map(|m| m.options.strategies)
        .unwrap_or_default()
}

/// Rebuilds the results the child was writing, marked incomplete, and
/// says where they are; appends a "not judged" note to `--gate-summary`.
fn keep_measured(args: &RunArgs, reading: &Reading, stopped: &str) {
    let dir: Option<PathBuf> = reading.dir.clone();
    match dir.as_deref().map(|d| (d, crate::results::recover::recover(d, stopped))) {
        Some((d, Ok(r))) => super::print_err(&format!(
            "run incomplete: what was measured before it stopped is in {} ({} rows over {} strategies × datasets; meta.json has \"complete\": false)",
            d.display(),
            r.rows,
            r.units
        )),
        Some((d, Err(e))) => super::print_err(&format!(
            "bench-sudoku: error: the results in {} could not be rebuilt: {e:#}",
            d.display()
        )),
        None => super::print_err("nothing was measured: no results directory was made"),
    }
    if let (Some(path), Some(_)) = (&args.gate_summary, &args.gate) {
        let md = format!(
            "### bench-sudoku gate: not judged\n\nThe run stopped: {}.\n\n",
            crate::report::md_cell(stopped)
        );
        use std::io::Write as _;
        let appended = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(|mut f| f.write_all(md.as_bytes()));
        if let Err(e) = appended {
            super::print_err(&format!(
                "bench-sudoku: error: --gate-summary {}: {e}",
                path.display()
            ));
        }
    }
}

/// " (SIGSEGV)" for the usual fatal signals.
fn signal_name(sig: i32) -> String {
    let name = match sig {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGILL => "SIGILL",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGSYS => "SIGSYS",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        _ => return String::new(),
    };
    format!(" ({name})")
}
