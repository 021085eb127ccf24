//! Solver processes never outlive the run.
//!
//! Every solver process (`cmd=`, `isolate=yes`) is started in a process
//! group of its own, which is killed when the process is stopped, after a
//! fault and at the end; that also ends whatever it started and left in
//! its group. What it started and moved out of its group (`setsid`, a
//! daemon) is covered twice on Linux: the process that runs solvers makes
//! itself a *child subreaper*, so that such orphans become its children,
//! and [`sweep`] kills and reaps every child of its that is not a solver
//! process it knows (after each fault, and before the command exits); and
//! each solver process gets a parent-death signal, so that it dies with
//! bench-sudoku even when bench-sudoku is killed outright.
//!
//! A solver's standard error goes to a pipe that a thread drains, keeping
//! only its last [`TAIL`] bytes for fault messages: a chatty solver costs
//! no disk and no memory beyond that.

use std::collections::HashSet;
use std::io::Read;
use std::process::{Child, Command};
use std::sync::{Arc, Mutex};

/// Bytes of a solver's standard error kept for fault messages.
pub const TAIL: usize = 4096;

/// The solver processes running (their pids), guarded while one starts so
/// that a sweep never mistakes a process being started for an orphan.
static LIVE: Mutex<Option<HashSet<u32>>> = Mutex::new(None);

fn live() -> std::sync::MutexGuard<'static, Option<HashSet<u32>>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Starts a solver process: in a session (and process group) of its own,
/// without a controlling terminal, with a parent-death signal (Linux) and
/// the shield's filter (`crate::shield`: it may not stop or signal
/// bench-sudoku), recorded as live. Makes this process a child subreaper
/// first (once).
pub fn spawn(cmd: &mut Command) -> std::io::Result<Child> {
    use std::os::unix::process::CommandExt;
    adopt_orphans();
    let parent = std::process::id();
    // Built before the fork: the child may not allocate.
    let filter = crate::shield::supported()
        .then(|| crate::shield::Filter::for_solver(&crate::shield::protected_from_here()))
        .flatten();
    // SAFETY: the closure runs in the forked child before exec and calls
    // only async-signal-safe functions (signal, setsid, prctl, getppid,
    // seccomp, _exit); it allocates nothing (the filter was built before
    // the fork) and touches no lock.
    unsafe {
        cmd.pre_exec(move || {
            // bench-sudoku ignores SIGXFSZ (a write past a file size limit
            // is then an error it reports); a solver gets the default.
            libc::signal(libc::SIGXFSZ, libc::SIG_DFL);
            // A session of its own: its own process group (a Ctrl-C in the
            // terminal reaches the harness only, which then stops its
            // solvers itself; killing the group also ends what the solver
            // started), and no controlling terminal through which it could
            // reach the terminal's job control.
            if libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            #[cfg(target_os = "linux")]
            {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                // The parent may have died before the signal was asked for.
                if libc::getppid() as u32 != parent {
                    libc::_exit(1);
                }
            }
            let _ = parent;
            // Last: from here on the filter judges every call. Where the
            // kernel refuses it, the solver runs without (docs/RELIABILITY.md).
            if let Some(f) = &filter {
                crate::shield::install(f, false);
            }
            Ok(())
        });
    }
    let mut guard = live();
    if CLOSING.load(std::sync::atomic::Ordering::SeqCst) {
        return Err(std::io::Error::other(
            "bench-sudoku is exiting: no solver process is started",
        ));
    }
    let child = cmd.spawn()?;
    guard.get_or_insert_with(HashSet::new).insert(child.id());
    Ok(child)
}

/// Forgets a solver process once it has been reaped.
pub fn reaped(child: &Child) {
    if let Some(set) = live().as_mut() {
        set.remove(&child.id());
    }
}

/// Set by [`end_all`]: the process is on its way out, and a solver thread
/// that would restart a solver process must not (its process would be
/// started after the others were ended).
static CLOSING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Set once this process is a child subreaper.
static ADOPTING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Makes this process a child subreaper (Linux; once): the processes its
/// descendants orphan become its children, for [`sweep`] to end.
pub fn adopt_orphans() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        #[cfg(target_os = "linux")]
        // SAFETY: prctl(PR_SET_CHILD_SUBREAPER, 1) takes integers only.
        unsafe {
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1);
        }
        ADOPTING.store(true, std::sync::atomic::Ordering::SeqCst);
    });
}

/// Kills and reaps every child of this process that is not a live solver
/// process: what solvers started and left behind. Repeats while killing
/// one leaves others orphaned (up to a bound). Does nothing in a process
/// that never adopted orphans.
pub fn sweep() {
    if !ADOPTING.load(std::sync::atomic::Ordering::SeqCst) {
        return;
    }
    for _ in 0..16 {
        let guard = live();
        let known: HashSet<u32> = guard.clone().unwrap_or_default();
        let strays: Vec<u32> = children()
            .into_iter()
            .filter(|p| !known.contains(p))
            .collect();
        drop(guard);
        if strays.is_empty() {
            return;
        }
        for pid in strays {
            // SAFETY: kill(2) and waitpid(2) on a child of this process
            // (it cannot be reaped and its pid reused meanwhile: only this
            // process can reap it, and the solver processes it reaps
            // through `Child` are the known ones, left out above).
            unsafe {
                libc::kill(pid as i32, libc::SIGKILL);
                libc::waitpid(pid as i32, std::ptr::null_mut(), 0);
            }
        }
    }
}

/// Kills every live solver process's group, reaps the solver processes
/// (so that what they started is adopted meanwhile) and sweeps: for a
/// command that exits at once (a second interrupt, or one that gave up
/// waiting) without stopping its solvers.
pub fn end_all() {
    CLOSING.store(true, std::sync::atomic::Ordering::SeqCst);
    // The lock is held only briefly (a start, a reaping, a sweep's look at
    // /proc); this may run while another thread holds it, so it waits a
    // little, but never for ever (it runs on the way out).
    let mut guard = None;
    for _ in 0..500 {
        match LIVE.try_lock() {
            Ok(g) => {
                guard = Some(g);
                break;
            }
            Err(std::sync::TryLockError::Poisoned(p)) => {
                guard = Some(p.into_inner());
                break;
            }
            Err(std::sync::TryLockError::WouldBlock) => {
                std::thread::sleep(std::time::Duration::from_millis(1))
            }
        }
    }
    if let Some(mut guard) = guard {
        let pids: Vec<u32> = guard.iter().flatten().copied().collect();
        for &pid in &pids {
            // SAFETY: kill(2) on a process group led by a live solver
            // process of ours (not yet reaped, so its pid is not reused).
            unsafe {
                libc::kill(-(pid as i32), libc::SIGKILL);
            }
        }
        for &pid in &pids {
            // SAFETY: waitpid(2) on a child of ours just killed. The
            // `Child` that owns it will not be waited on: the process is
            // on its way out. Its children are adopted by this process
            // before the wait returns.
            unsafe {
                libc::waitpid(pid as i32, std::ptr::null_mut(), 0);
            }
        }
        if let Some(set) = guard.as_mut() {
            set.clear();
        }
    }
    sweep();
}

/// Whether process `pid` is stopped (its state in /proc is T or t).
pub fn stopped(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            let after = s.rfind(')').map(|i| &s[i + 1..])?;
            after
                .split_whitespace()
                .next()
                .map(|st| st == "T" || st == "t")
        })
        .unwrap_or(false)
}

/// The pids of this process's children (every thread's), from /proc.
fn children() -> Vec<u32> {
    let me = std::process::id();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| parent_of(pid) == Some(me))
        .collect()
}

/// The parent pid of `pid`, from `/proc/PID/stat` (the fourth field, after
/// the command name in parentheses, which may itself hold any character).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(1)?.parse().ok()
}

/// The tail of a solver's standard error, kept by a thread that drains the
/// pipe.
#[derive(Clone, Default)]
pub struct Tail(Arc<(Mutex<TailState>, std::sync::Condvar)>);

#[derive(Default)]
pub struct TailState {
    bytes: Vec<u8>,
    /// The pipe closed (every writer ended).
    closed: bool,
}

impl Tail {
    /// Drains `from` on a thread of its own until it closes, keeping the
    /// last [`TAIL`] bytes.
    pub fn drain(from: impl Read + Send + 'static) -> Tail {
        let tail = Tail::default();
        let keep = tail.clone();
        let drained = std::thread::Builder::new()
            .name("solver-stderr".into())
            .spawn(move || keep.run(from));
        if let Err(e) = drained {
            eprintln!("bench-sudoku: warning: cannot read a solver's stderr: {e}");
        }
        tail
    }

    fn state(&self) -> std::sync::MutexGuard<'_, TailState> {
        self.0 .0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn run(&self, mut from: impl Read) {
        let mut buf = [0u8; 8192];
        loop {
            match from.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => self.push(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        self.state().closed = true;
        self.0 .1.notify_all();
    }

    fn push(&self, bytes: &[u8]) {
        let mut t = self.state();
        t.bytes.extend_from_slice(bytes);
        if t.bytes.len() > 2 * TAIL {
            let cut = t.bytes.len() - TAIL;
            t.bytes.drain(..cut);
        }
    }

    /// The last [`TAIL`] bytes (at most), once the pipe has closed or
    /// `wait` has passed (a process the solver started may hold the pipe
    /// open after the solver itself ended).
    pub fn bytes(&self, wait: std::time::Duration) -> Vec<u8> {
        let t = self.state();
        let (t, _) = self
            .0
             .1
            .wait_timeout_while(t, wait, |t| !t.closed)
            .unwrap_or_else(|e| e.into_inner());
        t.bytes[t.bytes.len().saturating_sub(TAIL)..].to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tail_keeps_the_last_bytes_whatever_the_volume() {
        let lines: Vec<u8> = (0..10_000u32)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .collect();
        let t = Tail::drain(std::io::Cursor::new(lines));
        let b = t.bytes(std::time::Duration::from_secs(10));
        assert!(b.len() <= TAIL);
        assert!(String::from_utf8_lossy(&b).ends_with("line 9999\n"));
        assert!(t.state().closed && t.state().bytes.len() <= 2 * TAIL);
    }

    #[test]
    fn a_parent_is_read_past_any_command_name() {
        assert_eq!(
            parent_of(std::process::id()),
            Some(std::os::unix::process::parent_id())
        );
    }
}
