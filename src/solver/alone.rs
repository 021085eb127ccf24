//! Whether a stretch of library calls ran on the calling thread alone.
//!
//! A slow solve on a loaded machine is timed undisturbed
//! ([`super::stopwatch`]): preempted without blocking, it is given the CPU
//! time of its thread. A library could exploit that by handing its work to
//! a thread (or a process) of its own and waiting for it without blocking
//! (`sched_yield` in a loop): its calls would be given the little CPU time
//! the waiting thread used. A library's calls are therefore timed so only
//! for a batch during which nothing but the harness's own threads worked.
//!
//! The harness's threads say so themselves ([`enter`]: the solver pool,
//! the reader and finishing threads, the thread that runs the pipeline).
//! Around a batch, [`Mark::now`] and [`Mark::foreign_ns`] read the
//! process's CPU clock (`CLOCK_PROCESS_CPUTIME_ID`, every thread of the
//! process, the ones that have exited included) and the CPU clocks of the
//! registered threads: the difference of the two differences is the CPU
//! time of threads that are not the harness's. Children count too: a
//! batch during which the process had a child process (alive, or reaped
//! with CPU time of its own) cannot be judged, and keeps the wall clock.
//!
//! The clocks are read so that any error overstates the foreign work: the
//! kernel brings another thread's CPU time up to date when its own clock
//! is read, not when the process's is, so each reading of the process's
//! clock comes right after reading every registered thread's (which
//! brings them up to date), and at the start the registered threads are
//! read again after it. What is left is the time that passes between the
//! reads (microseconds), which [`clean`]'s slack covers.

use std::cell::RefCell;
use std::sync::Mutex;

/// CPU time of threads that are not the harness's, within a batch, that
/// still counts as none (ns): what the clock reads themselves take, and
/// the harness's idle threads (a watchdog waking up).
pub const SLACK_NS: u64 = 50_000;
/// ... plus this share of the batch's time (per mille): a library that
/// hid less than 0.1 % of its work in another thread would gain no more.
pub const SLACK_PER_MILLE: u64 = 1;

/// The registered threads' CPU clocks, and the CPU time of those that
/// have exited.
struct Registry {
    clocks: Vec<(u64, libc::clockid_t)>,
    retired_ns: u64,
    next: u64,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    clocks: Vec::new(),
    retired_ns: 0,
    next: 0,
});

fn registry() -> std::sync::MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

/// The calling thread's place in the registry: retired when the thread
/// exits (its thread-local value is dropped), its CPU time kept.
struct Registered(u64);

impl Drop for Registered {
    fn drop(&mut self) {
        let now = super::stopwatch::thread_cpu_ns().unwrap_or(0);
        let mut r = registry();
        r.clocks.retain(|&(key, _)| key != self.0);
        r.retired_ns += now;
    }
}

thread_local! {
    static ME: RefCell<Option<Registered>> = const { RefCell::new(None) };
}

/// Registers the calling thread as one of the harness's (once; it stays
/// registered until it exits). Where the platform gives no thread CPU
/// clock, nothing is registered and no batch is judged alone.
pub fn enter() {
    ME.with(|me| {
        let mut me = me.borrow_mut();
        if me.is_some() {
            return;
        }
        let Some(clock) = own_clock() else { return };
        let mut r = registry();
        r.next += 1;
        let key = r.next;
        r.clocks.push((key, clock));
        *me = Some(Registered(key));
    });
}

/// The calling thread's CPU clock, readable from any thread.
fn own_clock() -> Option<libc::clockid_t> {
    #[cfg(target_os = "linux")]
    {
        let mut clock: libc::clockid_t = 0;
        // SAFETY: pthread_getcpuclockid writes one clockid_t into the
        // variable we own, for the calling thread (always a live thread).
        let rc = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut clock) };
        (rc == 0).then_some(clock)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Reads a CPU clock, in ns.
#[cfg(target_os = "linux")]
fn read(clock: libc::clockid_t) -> Option<u64> {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into the struct we own.
    // A registered thread's clock is read under the registry's lock, and a
    // thread leaves the registry (under the same lock) before it exits, so
    // the clock names a live thread; an unknown clock is an error return,
    // never undefined behaviour.
    if unsafe { libc::clock_gettime(clock, &mut t) } != 0 {
        return None;
    }
    Some(t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64)
}

impl Registry {
    /// The registered threads' CPU time, those that have exited included.
    #[cfg(target_os = "linux")]
    fn threads_ns(&self) -> Option<u64> {
        let mut sum = self.retired_ns;
        for &(_, clock) in &self.clocks {
            sum += read(clock)?;
        }
        Some(sum)
    }
}

/// The clocks at the start of a batch.
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    /// The process's CPU time minus the registered threads'.
    others_ns: u64,
    /// CPU time of the reaped children.
    children_ns: u64,
}

impl Mark {
    /// Reads the clocks at the start of a batch (`None` where they cannot
    /// be read, or the calling thread is not registered: the batch keeps
    /// the wall clock).
    pub fn now() -> Option<Mark> {
        #[cfg(target_os = "linux")]
        {
            if !ME.with(|me| me.borrow().is_some()) {
                return None;
            }
            // Orphans of a library's processes become this process's
            // children, where [`no_children`] sees them.
            super::external::reaper::adopt_orphans();
            let r = registry();
            r.threads_ns()?;
            let process = read(libc::CLOCK_PROCESS_CPUTIME_ID)?;
            let threads = r.threads_ns()?;
            drop(r);
            no_children()?;
            Some(Mark {
                others_ns: process.saturating_sub(threads),
                children_ns: children_cpu_ns()?,
            })
        }
        #[cfg(not(target_os = "linux"))]
        {
            None
        }
    }

    /// CPU time of threads that are not the harness's since the mark
    /// (`None`: it cannot be told, or the process has or had a child).
    pub fn foreign_ns(&self) -> Option<u64> {
        #[cfg(target_os = "linux")]
        {
            let r = registry();
            let threads = r.threads_ns()?;
            let process = read(libc::CLOCK_PROCESS_CPUTIME_ID)?;
            drop(r);
            no_children()?;
            if children_cpu_ns()? != self.children_ns {
                return None;
            }
            Some(
                process
                    .saturating_sub(threads)
                    .saturating_sub(self.others_ns),
            )
        }
        #[cfg(not(target_os = "linux"))]
        {
            None
        }
    }
}

/// Whether a batch whose solves took `batch_ns` in all ran on the calling
/// thread alone, judged from its start `mark` ([`Mark::foreign_ns`]
/// within the slack). The clocks are read up to [`READS`] times: an error
/// of a reading only ever overstates the foreign work (on a loaded
/// machine, the calling thread preempted between its reads of the
/// threads' clocks and the process's while another harness thread ran),
/// and the foreign work since the mark only grows, so the smallest
/// reading is the truest.
pub fn clean(mark: &Mark, batch_ns: u64) -> bool {
    let slack = SLACK_NS + batch_ns / 1000 * SLACK_PER_MILLE;
    (0..READS).any(|_| mark.foreign_ns().is_some_and(|f| f <= slack))
}

/// Readings of the clocks at most, to judge a batch ([`clean`]).
pub const READS: usize = 3;

/// `Some(())` when the process has no child process at all, running,
/// stopped or exited.
#[cfg(target_os = "linux")]
fn no_children() -> Option<()> {
    // SAFETY: `siginfo_t` is a plain C struct, all zero bytes valid.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    let flags = libc::WEXITED
        | libc::WSTOPPED
        | libc::WCONTINUED
        | libc::WNOHANG
        | libc::WNOWAIT
        | libc::__WALL;
    // SAFETY: waitid writes one siginfo_t into the struct we own; with
    // WNOWAIT it reaps nothing and with WNOHANG it never blocks.
    let rc = unsafe { libc::waitid(libc::P_ALL, 0, &mut info, flags) };
    let none = rc == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ECHILD);
    none.then_some(())
}

/// CPU time of the process's reaped children (and theirs), in µs as
/// getrusage keeps it, scaled to ns.
#[cfg(target_os = "linux")]
fn children_cpu_ns() -> Option<u64> {
    // SAFETY: `rusage` is a plain C struct, all zero bytes valid.
    let mut r: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes one rusage into the struct we own.
    if unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut r) } != 0 {
        return None;
    }
    let us = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    Some((us(r.ru_utime) + us(r.ru_stime)) * 1_000)
}
