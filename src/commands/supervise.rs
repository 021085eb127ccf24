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
//! `run` also keeps what was measured (`commands::run::supervise`).
//! `BENCH_SUDOKU_SUPERVISE=0` turns supervision off (to run a solver under
//! a debugger in one process).

use crate::board::{self, Call, Phase, Reading};
use crate::solver::external;
use std::path::Path;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

/// Exit status when an in-process call did not return within `--timeout`
/// (as `timeout(1)` exits).
pub use crate::support::exit::EXIT_HANG;
/// Exit status when an in-process solver ended the process itself.
pub use crate::support::exit::EXIT_SOLVER_EXIT;
/// The environment variable that turns supervision off when it is `0`.
pub const SWITCH_ENV: &str = "BENCH_SUDOKU_SUPERVISE";

/// Whether a command of this process may run supervised: it is not a
/// measuring child already, runs `command` from its command line (a command
/// called otherwise, from a program through the library, runs where it
/// is), and supervision is not switched off.
pub fn allowed(command: &str) -> bool {
    let from_command_line = std::env::args_os().skip(1).any(|a| a == command);
    board::this().is_none()
        && std::env::var_os(board::ENV).is_none()
        && !std::env::var(SWITCH_ENV).is_ok_and(|v| v == "0")
        && from_command_line
}

/// Runs this command again as a measuring child with a board of `slots`
/// solver threads, watches it (a call stuck for `timeout` is killed) and
/// returns what the board said and how the child ended.
pub(crate) fn child(slots: usize, timeout: Duration) -> anyhow::Result<(Reading, Ending, u32)> {
    let board_file = tempfile::Builder::new()
        .prefix("bench-sudoku-board-")
        .tempfile()
        .map_err(|e| {
            anyhow::anyhow!("cannot make the supervisor's board in the temporary directory: {e}")
        })?;
    board::create(board_file.as_file(), slots.clamp(1, 4096)).map_err(|e| {
        anyhow::anyhow!(
            "{}: cannot write the supervisor's board: {e}",
            board_file.path().display()
        )
    })?;
    // What the measuring child's solver processes leave behind when it
    // dies comes here, and is ended once it has.
    external::reaper::adopt_orphans();
    let child = spawn(board_file.path())?;
    let pid = child.id();
    let (file, path) = board_file.into_parts();
    let ending = watch(child, &file, Some(path), timeout)?;
    external::reaper::sweep();
    let reading = board::read(&file).unwrap_or_default();
    Ok((reading, ending, pid))
}

/// Whether the user interrupted this supervisor (it passed the signals on).
pub(crate) fn interrupted() -> bool {
    SIGNALS.load(std::sync::atomic::Ordering::SeqCst) > 0
}

/// How the child ended.
pub(crate) enum Ending {
    Exited(ExitStatus),
    /// The parent killed it, and why.
    Killed(Stuck),
}

/// Why the parent killed the child.
#[derive(Clone, Debug)]
pub(crate) enum Stuck {
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

/// Starts the measuring child: this executable with the same arguments,
/// the board in its environment, in a session of its own (so that the
/// terminal's Ctrl-C reaches the parent alone, which forwards it).
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
pub(crate) fn code_of(status: ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0))
}

/// What ended the child, and the exit status that says so.
pub(crate) fn what_ended(timeout: Duration, reading: &Reading, ending: &Ending) -> (String, i32) {
    use std::os::unix::process::ExitStatusExt;
    let within = humantime::format_duration(timeout);
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

/// " (SIGSEGV)" for the usual fatal signals.
pub(crate) fn signal_name(sig: i32) -> String {
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
    let (reading, ending, pid) = child(slots, p.solvers.timeout)?;
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
