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

use super::RunArgs;
use crate::board::{self, Call, Phase, Reading};
use crate::commands::CmdResult;
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
    if board::this().is_some()
        || std::env::var_os(board::ENV).is_some()
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
        super::DEFAULT_STRATEGIES
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
    /// The parent killed it, and why.
    Killed(Stuck),
}

/// Why the parent killed the child.
#[derive(Clone, Debug)]
enum Stuck {
    /// A call into a library had not returned within `--timeout`.
    Call(Call),
    /// The child stayed in a phase where it only waits on libraries
    /// (loading or unloading them, or exiting after it finished) for
    /// `--timeout`.
    Phase(Phase),
    /// The child was stopped (SIGSTOP, SIGTSTP) for `--timeout`.
    Stopped,
    /// The child did not end within the grace period after an interrupt,
    /// or a third interrupt came.
    Interrupt,
}

/// Interrupts this process received (each is passed on to the child).
static SIGNALS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// How long a child may take to end after an interrupt before it is
/// killed: its own grace period, and a margin to write what it measured.
const INTERRUPT_GRACE: Duration =
    Duration::from_secs(crate::commands::interrupt::STOP_GRACE.as_secs() + 5);

/// Runs the same command as a supervised child and returns its exit
/// status, or the status of the fault that ended it.
pub fn run(args: &RunArgs) -> CmdResult {
    let threads = args.threads.iter().copied().max().unwrap_or(0);
    let slots = threads
        .max(crate::bench::sysinfo::logical_cores())
        .clamp(1, 4096);
    let board_file = tempfile::Builder::new()
        .prefix("bench-sudoku-board-")
        .tempfile()
        .map_err(|e| {
            anyhow::anyhow!("cannot make the supervisor's board in the temporary directory: {e}")
        })?;
    board::create(board_file.as_file(), slots).map_err(|e| {
        anyhow::anyhow!(
            "{}: cannot write the supervisor's board: {e}",
            board_file.path().display()
        )
    })?;
    // What the measuring child's solver processes leave behind when it
    // dies comes here, and is ended once it has.
    external::reaper::adopt_orphans();
    let child = spawn(board_file.path())?;
    let (file, path) = board_file.into_parts();
    let ending = watch(child, &file, Some(path), args.engine.solvers.timeout)?;
    external::reaper::sweep();
    let reading = board::read(&file).unwrap_or_default();
    Ok(verdict(args, &reading, ending))
}

/// The exit status of the run: the child's own when it finished as it
/// says, otherwise the fault's (said, and what was measured kept).
fn verdict(args: &RunArgs, reading: &Reading, ending: Ending) -> i32 {
    let interrupted = SIGNALS.load(std::sync::atomic::Ordering::SeqCst) > 0;
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

/// Starts the measuring child: this executable with the same arguments,
/// the board in its environment, in a process group of its own (so that
/// the terminal's Ctrl-C reaches the parent alone, which forwards it).
fn spawn(board_path: &Path) -> anyhow::Result<std::process::Child> {
    use std::os::unix::process::CommandExt;
    use std::sync::atomic::Ordering;
    let exe = std::env::current_exe()
        .map_err(|e| anyhow::anyhow!("cannot find bench-sudoku's own executable: {e}"))?;
    let mut value = std::ffi::OsString::from(format!("{}:", std::process::id()));
    value.push(board_path.as_os_str());
    // The handler comes first, so that no signal finds the default action
    // (which would end this process and leave the child to its death
    // signal); one that comes before the child exists is passed on as soon
    // as it does. The first two are passed on (the child stops, then quits
    // at once); the watch kills the child at the third.
    static CHILD: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);
    let forwarded = ctrlc::set_handler(|| {
        let n = SIGNALS.fetch_add(1, Ordering::SeqCst) + 1;
        match CHILD.load(Ordering::SeqCst) {
            0 => {}
            pid if n <= 2 => forward(pid, n),
            _ => {}
        }
    });
    if let Err(e) = forwarded {
        crate::commands::print_err(&format!(
            "bench-sudoku: warning: cannot forward interrupts to the measuring process: {e}"
        ));
    }
    let mut command = std::process::Command::new(exe);
    command
        .args(std::env::args_os().skip(1))
        .env(board::ENV, value);
    // SAFETY: the closure runs in the forked child before exec and calls
    // setsid(2) alone (async-signal-safe, no allocation). A session of its
    // own: its own process group, and no controlling terminal, so that
    // nothing in it reaches the terminal's job control (the terminal's
    // signals reach this process, which passes them on).
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = command
        .spawn()
        .map_err(|e| anyhow::anyhow!("cannot start the measuring process: {e}"))?;
    let pid = child.id() as i32;
    CHILD.store(pid, Ordering::SeqCst);
    for n in 1..=SIGNALS.load(Ordering::SeqCst).min(2) {
        forward(pid, n);
    }
    Ok(child)
}

/// Passes the `n`-th interrupt on to the measuring child: SIGINT, then
/// SIGTERM (which it takes the same way), so that a library that ignores
/// one of them cannot keep the run from stopping.
fn forward(pid: i32, n: u32) {
    let sig = if n == 1 { libc::SIGINT } else { libc::SIGTERM };
    // SAFETY: kill(2) sends a signal to a process id; no memory is
    // involved. (Once the child is reaped the parent exits at once; a
    // signal in that instant could reach a process that reused the pid,
    // which the parent's own exit makes vanishingly rare.)
    unsafe {
        libc::kill(pid, sig);
    }
}

/// A phase of the child, with the strategy spec it is loading.
type PhaseKey = (Option<Phase>, Option<usize>);

/// What the watch remembers from one reading of the board to the next.
#[derive(Default)]
struct Seen {
    /// Calls running: (thread, call number, first seen).
    calls: Vec<(usize, u64, Instant)>,
    /// The phase (and the spec being loaded), and since when.
    phase: Option<(PhaseKey, Instant)>,
    /// Since when the child has been stopped.
    stopped: Option<Instant>,
    /// When the first interrupt was seen.
    interrupted: Option<Instant>,
}

impl Seen {
    /// Why the child should be killed now, if it should.
    fn stuck(&mut self, reading: &Reading, pid: i32, timeout: Duration) -> Option<Stuck> {
        let now = Instant::now();
        self.calls
            .retain(|&(t, n, _)| reading.calls.iter().any(|c| c.thread == t && c.number == n));
        for call in &reading.calls {
            let since = match self
                .calls
                .iter()
                .find(|(t, n, _)| *t == call.thread && *n == call.number)
            {
                Some(&(_, _, since)) => since,
                None => {
                    self.calls.push((call.thread, call.number, now));
                    now
                }
            };
            if now.duration_since(since) >= timeout {
                return Some(Stuck::Call(call.clone()));
            }
        }
        // Loading, unloading and exiting wait on libraries alone: each
        // spec loaded, and each of the others, gets --timeout (at least a
        // second).
        let key = (reading.phase, reading.loading);
        let since = match self.phase {
            Some((k, since)) if k == key => since,
            _ => {
                self.phase = Some((key, now));
                now
            }
        };
        let waits = matches!(
            reading.phase,
            Some(Phase::Loading | Phase::Unloading | Phase::Finished)
        );
        if waits && now.duration_since(since) >= timeout.max(Duration::from_secs(1)) {
            return Some(Stuck::Phase(reading.phase.unwrap_or(Phase::Loading)));
        }
        if external::reaper::stopped(pid as u32) {
            let since = *self.stopped.get_or_insert(now);
            if now.duration_since(since) >= timeout.max(Duration::from_secs(1)) {
                return Some(Stuck::Stopped);
            }
        } else {
            self.stopped = None;
        }
        let signals = SIGNALS.load(std::sync::atomic::Ordering::SeqCst);
        if signals > 0 {
            let since = *self.interrupted.get_or_insert(now);
            if signals >= 3 || now.duration_since(since) >= INTERRUPT_GRACE {
                return Some(Stuck::Interrupt);
            }
        }
        None
    }
}

/// Waits for the child, reading the board every period, and kills the
/// child's process group when it is stuck ([`Seen::stuck`]). Once the
/// child has attached to the board, the board's file name is removed (the
/// parent reads it through its open file).
fn watch(
    mut child: std::process::Child,
    board_file: &std::fs::File,
    mut path: Option<tempfile::TempPath>,
    timeout: Duration,
) -> anyhow::Result<Ending> {
    let pid = child.id() as i32;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let period = (timeout / 4).clamp(Duration::from_millis(10), Duration::from_millis(250));
    let mut seen = Seen::default();
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
        if reading.pid != 0 {
            if let Some(p) = path.take() {
                let _ = p.close();
            }
        }
        if let Some(why) = seen.stuck(&reading, pid, timeout) {
            // SAFETY: kill(2) with a negative pid signals the child's
            // process group (it leads it); no memory is involved.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
            let _ = rx.recv();
            return Ok(Ending::Killed(why));
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
    let labels = reading.dir.as_deref().map(labels).unwrap_or_default();
    let (what, code) = what_ended(args, reading, &ending);
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

/// What ended the child, and the exit status that says so.
fn what_ended(args: &RunArgs, reading: &Reading, ending: &Ending) -> (String, i32) {
    use std::os::unix::process::ExitStatusExt;
    let within = humantime::format_duration(args.engine.solvers.timeout);
    match ending {
        Ending::Killed(Stuck::Call(_)) => (
            format!("a call did not return within {within} (--timeout)"),
            EXIT_HANG,
        ),
        Ending::Killed(Stuck::Phase(Phase::Finished | Phase::Unloading)) => (
            format!("the measuring process did not end within {within} (--timeout, at least 1 s)"),
            EXIT_HANG,
        ),
        Ending::Killed(Stuck::Phase(_)) => (
            format!("a library did not finish loading within {within} (--timeout, at least 1 s)"),
            EXIT_HANG,
        ),
        Ending::Killed(Stuck::Stopped) => (
            format!("the measuring process was stopped (SIGSTOP?) for {within} (--timeout)"),
            EXIT_HANG,
        ),
        Ending::Killed(Stuck::Interrupt) => (
            "the measuring process did not stop after the interrupts, and was killed".to_string(),
            crate::commands::interrupt::EXIT_INTERRUPTED,
        ),
        Ending::Exited(status) => match (status.signal(), status.code(), reading.exit) {
            // The child gave up on an interrupt (a solve that did not
            // return, or a second signal): its own status, and what it
            // measured is kept.
            (_, _, Some(code)) if reading.phase != Some(Phase::Finished) => {
                let from = if SIGNALS.load(std::sync::atomic::Ordering::SeqCst) > 0 {
                    ""
                } else {
                    " the supervisor did not pass on (a solver raised it, or another process sent it)"
                };
                (format!("stopped after an interrupt{from}"), code)
            }
            (Some(sig), _, _) => match reading.trapped.and_then(crate::shield::Tried::from_data) {
                Some(tried) if sig == libc::SIGSYS => (
                    format!(
                        "the solver tried to {}, which solvers may not: the call was refused and \
                         the measuring process ended (signal {sig}, SIGSYS)",
                        tried.describe()
                    ),
                    128 + sig,
                ),
                _ => (
                    format!("the process died of signal {sig}{}", signal_name(sig)),
                    128 + sig,
                ),
            },
            (None, Some(c), Some(said)) if c == said => (
                format!(
                    "the measuring process said it finished (exit status {c}) but its results are \
                     not complete (a solver that wrote on the supervisor's board?)"
                ),
                EXIT_SOLVER_EXIT,
            ),
            (None, Some(c), _) => (
                format!("the solver ended the process itself (exit status {c})"),
                EXIT_SOLVER_EXIT,
            ),
            (None, None, _) => ("the process ended".to_string(), EXIT_SOLVER_EXIT),
        },
    }
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
            specs(args).get(i).cloned().unwrap_or_default()
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
        .and_then(|b| serde_json::from_slice::<crate::bench::sysinfo::Meta>(&b).ok())
        .map(|m| m.options.strategies)
        .unwrap_or_default()
}

/// Rebuilds the results the child was writing, marked incomplete, and
/// says where they are; appends a "not judged" note to `--gate-summary`.
fn keep_measured(args: &RunArgs, reading: &Reading, stopped: &str) {
    let dir: Option<PathBuf> = reading.dir.clone();
    match dir.as_deref().map(|d| (d, crate::results::recover::recover(d, stopped))) {
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
            crate::report::md_cell(stopped)
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
