//! The harness's clock around one solve of a built-in engine or one call
//! of a library.
//!
//! By default a solve's time is the monotonic clock's reading before and
//! after the call: nothing else runs between the two reads. On a loaded
//! machine a solve that lasts longer than a scheduler time slice (a few
//! milliseconds) is preempted: the thread waits while another runs, and
//! the wall clock counts the wait. A slow solver's times then measure the
//! machine's load more than its own cost, and no re-measurement helps (the
//! next attempt is preempted too).
//!
//! With the thread's *undisturbed* timing on ([`set_undisturbed`]; the
//! pipeline turns it on for blocks whose solves are slow enough that the
//! cost of asking is small beside them), each solve also reads the
//! thread's CPU time and its context-switch counts before and after. A
//! solve the kernel preempted (an involuntary switch) without the thread
//! ever blocking (no voluntary switch) is given the CPU time it used
//! instead of its wall time: the time it would have taken had nothing
//! else wanted its core. A solve that blocked (a solver that sleeps, waits
//! for a lock or for another thread doing its work) keeps its wall time:
//! what a thread waits for is part of the solver's cost, and the CPU
//! clock must not let a solver hide work in another thread. The reads
//! happen outside the timed region; undisturbed solves keep the wall time.
//!
//! The built-in engines run on the calling thread alone. A library could
//! hand its work to a thread of its own and wait for it by yielding the
//! core (`sched_yield` counts as an involuntary switch, not a block), and
//! its calls would be given the little CPU time the waiting thread used:
//! a library's calls are timed so ([`Stopwatch::stop_both`]) only in
//! batches that ran on the calling thread alone ([`super::alone`]); the
//! other batches keep every call's wall time.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

thread_local! {
    static UNDISTURBED: Cell<bool> = const { Cell::new(false) };
}

/// Solves (in this process) whose time was taken from the CPU clock
/// because the kernel preempted them.
static PREEMPTED: AtomicU64 = AtomicU64::new(0);

/// Turns the calling thread's undisturbed timing on or off.
pub fn set_undisturbed(on: bool) {
    UNDISTURBED.set(on);
}

/// Whether the calling thread's solves are timed undisturbed.
pub fn undisturbed() -> bool {
    UNDISTURBED.get()
}

/// Solves of this process timed by the CPU clock after a preemption,
/// since the last [`reset_preempted`].
pub fn preempted_solves() -> u64 {
    PREEMPTED.load(Ordering::Relaxed)
}

/// Batches of library calls to be timed undisturbed that could not be
/// judged to have run on the calling thread alone, so that their solves
/// kept their wall times ([`crate::solver::alone`]).
static WITHDRAWN: AtomicU64 = AtomicU64::new(0);

/// Starts counting [`preempted_solves`] and [`withdrawn_batches`] again
/// (at the start of a run).
pub fn reset_preempted() {
    PREEMPTED.store(0, Ordering::Relaxed);
    WITHDRAWN.store(0, Ordering::Relaxed);
}

/// Batches of library calls that could not be timed undisturbed, since
/// the last [`reset_preempted`].
pub fn withdrawn_batches() -> u64 {
    WITHDRAWN.load(Ordering::Relaxed)
}

/// Counts a batch in [`withdrawn_batches`].
pub fn count_withdrawn() {
    WITHDRAWN.fetch_add(1, Ordering::Relaxed);
}

/// What the kernel says of the calling thread at one moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Usage {
    /// CPU time used so far, ns.
    pub cpu_ns: u64,
    /// Times it gave up its core (blocked, slept, waited).
    pub voluntary: u64,
    /// Times the kernel took its core away (preempted).
    pub involuntary: u64,
}

/// One solve's timing: started before the call, stopped after it.
pub struct Stopwatch {
    start: Instant,
    before: Option<Usage>,
}

impl Stopwatch {
    /// Starts timing; `undisturbed`: read the thread's usage first
    /// (outside the timed region), as [`undisturbed`] says.
    #[inline(always)]
    pub fn start(undisturbed: bool) -> Self {
        let before = if undisturbed { usage(false) } else { None };
        Stopwatch {
            start: Instant::now(),
            before,
        }
    }

    /// The solve's time in ns.
    #[inline(always)]
    pub fn stop(self) -> u64 {
        let (wall, ns) = self.stop_both();
        if ns != wall {
            PREEMPTED.fetch_add(1, Ordering::Relaxed);
        }
        ns
    }

    /// The solve's wall time and its undisturbed time (the same when it
    /// was not started undisturbed or was not preempted), ns; the caller
    /// decides which to keep and counts the preempted ones it keeps
    /// ([`count_preempted`]).
    #[inline(always)]
    pub fn stop_both(self) -> (u64, u64) {
        let wall = self.start.elapsed().as_nanos() as u64;
        match self.before {
            None => (wall, wall),
            Some(before) => (wall, after_preemption(wall, before)),
        }
    }
}

/// Adds `n` to [`preempted_solves`]: solves given their CPU time by a
/// caller of [`Stopwatch::stop_both`].
pub fn count_preempted(n: u64) {
    if n > 0 {
        PREEMPTED.fetch_add(n, Ordering::Relaxed);
    }
}

/// A clock chosen at compile time, for loops that time many solves (the
/// built-in engines' passes): [`Wall`] compiles to the two clock reads
/// alone.
pub trait Clock {
    type Started;
    fn start() -> Self::Started;
    /// The solve's time in ns.
    fn stop(started: Self::Started) -> u64;
}

/// The monotonic clock alone.
pub struct Wall;

/// The monotonic clock, a preempted solve given its CPU time.
pub struct Undisturbed;

impl Clock for Wall {
    type Started = Instant;
    #[inline(always)]
    fn start() -> Instant {
        Instant::now()
    }
    #[inline(always)]
    fn stop(started: Instant) -> u64 {
        started.elapsed().as_nanos() as u64
    }
}

impl Clock for Undisturbed {
    type Started = Stopwatch;
    #[inline(always)]
    fn start() -> Stopwatch {
        Stopwatch::start(true)
    }
    #[inline(always)]
    fn stop(started: Stopwatch) -> u64 {
        started.stop()
    }
}

/// The time of a solve timed undisturbed, once its wall time is known.
#[inline(never)]
fn after_preemption(wall: u64, before: Usage) -> u64 {
    match usage(true) {
        Some(after) => undisturbed_ns(wall, before, after),
        None => wall,
    }
}

/// A solve's time from its wall time and the thread's usage around it:
/// the CPU time when the kernel preempted it and it never blocked (never
/// more than the wall time), else the wall time.
pub fn undisturbed_ns(wall: u64, before: Usage, after: Usage) -> u64 {
    let preempted = after.involuntary > before.involuntary;
    let blocked = after.voluntary != before.voluntary;
    if preempted && !blocked {
        wall.min(after.cpu_ns.saturating_sub(before.cpu_ns))
    } else {
        wall
    }
}

/// The calling thread's usage (`None` where the platform gives no
/// per-thread switch counts: its solves keep their wall times). The CPU
/// clock is read nearest the timed region: last before it, first after it
/// (`after`), so that the CPU time of a solve holds as little of the other
/// system call as can be.
pub fn usage(after: bool) -> Option<Usage> {
    #[cfg(target_os = "linux")]
    {
        let cpu = if after { thread_cpu_ns()? } else { 0 };
        let (voluntary, involuntary) = switches()?;
        let cpu = if after { cpu } else { thread_cpu_ns()? };
        Some(Usage {
            cpu_ns: cpu,
            voluntary,
            involuntary,
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = after;
        None
    }
}

/// The calling thread's voluntary and involuntary context switches so far.
#[cfg(target_os = "linux")]
fn switches() -> Option<(u64, u64)> {
    // SAFETY: `rusage` is a plain C struct of integers and timevals,
    // for which all zero bytes is a valid value.
    let mut r: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes one `rusage` into the struct we own and
    // pass by a valid, exclusive pointer; RUSAGE_THREAD (Linux) asks
    // for the calling thread alone.
    if unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut r) } != 0 {
        return None;
    }
    Some((r.ru_nvcsw as u64, r.ru_nivcsw as u64))
}

/// CPU time the calling thread has used so far, in ns (`None` where the
/// platform has no per-thread clock). Unlike the wall clock it does not
/// count the time the thread waits for a core, and (unlike getrusage's
/// times) it counts the running slice to the nanosecond.
pub fn thread_cpu_ns() -> Option<u64> {
    #[cfg(any(target_os = "linux", target_os = "macos", target_os = "freebsd"))]
    {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `clock_gettime` writes one `timespec` into the struct we
        // own and pass by pointer; CLOCK_THREAD_CPUTIME_ID is a clock every
        // one of these systems has.
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } != 0 {
            return None;
        }
        Some(t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64)
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos", target_os = "freebsd")))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(cpu_ns: u64, voluntary: u64, involuntary: u64) -> Usage {
        Usage {
            cpu_ns,
            voluntary,
            involuntary,
        }
    }

    #[test]
    fn only_a_preempted_solve_that_never_blocked_is_given_its_cpu_time() {
        let before = at(1_000, 5, 7);
        // Not preempted: the wall time, whatever the CPU clock says.
        assert_eq!(undisturbed_ns(900, before, at(1_950, 5, 7)), 900);
        // Preempted, never blocked: the CPU time.
        assert_eq!(undisturbed_ns(9_000, before, at(2_000, 5, 8)), 1_000);
        // Never more than the wall time.
        assert_eq!(undisturbed_ns(900, before, at(2_000, 5, 8)), 900);
        // Blocked (and preempted): the wall time; waiting is the solver's.
        assert_eq!(undisturbed_ns(9_000, before, at(2_000, 6, 8)), 9_000);
        assert_eq!(undisturbed_ns(9_000, before, at(2_000, 6, 7)), 9_000);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn usage_counts_cpu_work_and_a_sleep_as_a_voluntary_switch() {
        let a = usage(false).expect("linux has per-thread usage");
        let mut x = 0u64;
        for i in 0..2_000_000u64 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
        }
        let b = usage(true).unwrap();
        assert!(b.cpu_ns > a.cpu_ns, "{a:?} {b:?}");
        std::thread::sleep(std::time::Duration::from_millis(2));
        let c = usage(false).unwrap();
        assert!(c.voluntary > b.voluntary, "{b:?} {c:?}");
        assert!(c.involuntary >= b.involuntary);
    }

    #[test]
    fn the_mode_is_the_calling_threads_and_off_by_default() {
        assert!(!undisturbed());
        set_undisturbed(true);
        assert!(undisturbed());
        std::thread::spawn(|| assert!(!undisturbed()))
            .join()
            .unwrap();
        set_undisturbed(false);
        let w = Stopwatch::start(true);
        let _ = w.stop();
    }
}
