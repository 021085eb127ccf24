//! Process control of a measuring child: the same command run again in a
//! process of its own, with a [`board`] through which it says what it is
//! doing, watched by its parent.
//!
//! [`child`] makes the board, starts the child in a session of its own,
//! passes the user's interrupts on to it (SIGINT, then SIGTERM; a third
//! kills it), reads the board while it runs and kills the child's process
//! group when a call into a library has not returned within the timeout,
//! when it waits on libraries that long (loading, unloading, exiting),
//! when it stays stopped, or when it does not end after an interrupt.
//! [`what_ended`] says, in words and as an exit status, how it ended. What
//! to print and which status to exit with is the commands' decision
//! (`commands::supervise`, `commands::run::supervise`); nothing here writes
//! to the terminal (a warning goes to the caller's `warn`).

use crate::board::{self, Call, Phase, Reading};
use crate::solver::external;
use crate::support::exit::{EXIT_HANG, EXIT_INTERRUPTED, EXIT_SOLVER_EXIT};
use std::path::Path;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

/// How long a command that is asked to stop (SIGINT, SIGTERM) may take to
/// finish the work in flight (and, for `run`, write its partial results)
/// before it exits without it.
pub const STOP_GRACE: Duration = Duration::from_secs(10);

/// Runs this command again as a measuring child with a board of `slots`
/// solver threads, watches it (a call stuck for `timeout` is killed) and
/// returns what the board said and how the child ended.
pub fn child(
    slots: usize,
    timeout: Duration,
    warn: &dyn Fn(&str),
) -> anyhow::Result<(Reading, Ending, u32)> {
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
    let child = spawn(board_file.path(), warn)?;
    let pid = child.id();
    let (file, path) = board_file.into_parts();
    let ending = watch(child, &file, Some(path), timeout)?;
    external::reaper::sweep();
    let reading = board::read(&file).unwrap_or_default();
    Ok((reading, ending, pid))
}

/// Whether the user interrupted this supervisor (it passed the signals on).
pub fn interrupted() -> bool {
    SIGNALS.load(std::sync::atomic::Ordering::SeqCst) > 0
}

/// How the child ended.
pub enum Ending {
    Exited(ExitStatus),
    /// The parent killed it, and why.
    Killed(Stuck),
}

/// Why the parent killed the child.
#[derive(Clone, Debug)]
pub enum Stuck {
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
const INTERRUPT_GRACE: Duration = Duration::from_secs(STOP_GRACE.as_secs() + 5);

/// Starts the measuring child: this executable with the same arguments,
/// the board in its environment, in a session of its own (so that the
/// terminal's Ctrl-C reaches the parent alone, which forwards it).
fn spawn(board_path: &Path, warn: &dyn Fn(&str)) -> anyhow::Result<std::process::Child> {
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
        warn(&format!(
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
pub fn code_of(status: ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0))
}

/// What ended the child, and the exit status that says so.
pub fn what_ended(timeout: Duration, reading: &Reading, ending: &Ending) -> (String, i32) {
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
            EXIT_INTERRUPTED,
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
pub fn signal_name(sig: i32) -> String {
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
