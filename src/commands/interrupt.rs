//! SIGINT / SIGTERM handling shared by the long-running commands (`run`,
//! `generate`): the first signal raises a flag the command polls, a second
//! one exits at once, and a command that does not stop within
//! [`STOP_GRACE`] is ended.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};

/// How long an interrupted command may take to finish the work in flight
/// (and, for `run`, write its partial results) before it exits without it;
/// the supervisor waits that long and a margin before it kills the child.
pub use crate::supervise::STOP_GRACE;
/// Exit status of an interrupted command (128 + SIGINT).
pub use crate::support::exit::EXIT_INTERRUPTED;

/// The stop flag raised by SIGINT/SIGTERM. The first signal prints
/// "interrupt: `doing`" and raises the flag; a second one exits at once.
/// The handler is installed once per process, with the first caller's
/// message.
pub fn flag(doing: &'static str) -> Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    static SIGNALS: AtomicU32 = AtomicU32::new(0);
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let f = Arc::clone(&flag);
        let installed = ctrlc::set_handler(move || {
            if SIGNALS.fetch_add(1, Ordering::SeqCst) > 0 {
                eprintln!("\nbench-sudoku: second interrupt, exiting now");
                // Asked to quit at once: solver processes go with it, and
                // a supervisor rebuilds what was measured from the rows.
                #[cfg(unix)]
                {
                    crate::solver::external::reaper::end_all();
                    if let Some(board) = crate::board::this() {
                        board.abandoned(EXIT_INTERRUPTED);
                    }
                }
                std::process::exit(EXIT_INTERRUPTED);
            }
            eprintln!("\nbench-sudoku: interrupt: {doing} (Ctrl-C again to quit now)");
            f.store(true, Ordering::SeqCst);
            // Solver processes are stopped where they are: a slow solve is
            // not waited for (its puzzle is given up, not a fault).
            crate::solver::external::stop_solving();
            // A solve that never returns (a stuck library solver) would keep
            // the command from ending: after a grace period it exits anyway.
            std::thread::spawn(|| {
                std::thread::sleep(STOP_GRACE);
                // A supervisor rebuilds what was measured from the rows.
                #[cfg(unix)]
                let supervised = {
                    crate::solver::external::reaper::end_all();
                    crate::board::this().inspect(|b| b.abandoned(EXIT_INTERRUPTED))
                };
                #[cfg(not(unix))]
                let supervised: Option<()> = None;
                eprintln!(
                    "bench-sudoku: did not stop within {} s of the interrupt (a solve that does not return?); exiting {}",
                    STOP_GRACE.as_secs(),
                    if supervised.is_some() {
                        "(the supervisor keeps what was measured)"
                    } else {
                        "without writing results"
                    }
                );
                std::process::exit(EXIT_INTERRUPTED);
            });
        });
        if let Err(e) = installed {
            eprintln!("bench-sudoku: warning: cannot install the interrupt handler: {e}");
        }
        flag
    })
    .clone()
}

/// Ignores SIGXFSZ, the signal a write past the file size limit (`ulimit
/// -f`) raises, whose default action kills the process without a word: a
/// write past the limit then fails with EFBIG like a write to a full disk,
/// and the command reports it and marks its results incomplete. (Programs
/// the command starts inherit the ignored signal: their writes past the
/// limit fail the same way.)
pub fn ignore_file_size_signal() {
    #[cfg(unix)]
    // SAFETY: `signal` with SIG_IGN installs no handler code: it only sets
    // the disposition of SIGXFSZ, a valid signal number, for the whole
    // process; nothing in this process relies on another disposition of
    // SIGXFSZ, and the call touches no memory of ours.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}
