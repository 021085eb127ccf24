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
//! the reader and finishing threads, the thread that runs the pipeline,
//! the library watchdog). Around a batch, [`Mark::now`] and
//! [`Mark::foreign_ns`] read the process's CPU clock
//! (`CLOCK_PROCESS_CPUTIME_ID`: every thread of the process, the ones that
//! have exited included) and the CPU clocks of the registered threads: the
//! difference of the two differences is the CPU time of threads that are
//! not the harness's. A batch cannot be judged, and keeps the wall clock,
//! when during it the process had a child process (alive, or reaped with
//! CPU time of its own), a thread of the process started or ended, or any
//! process or thread started in the pid namespace (a thread that a library
//! starts and ends within the batch: the kernel does not bring a thread's
//! last moments into the process's clock when it exits).
//!
//! The kernel brings a running thread's CPU time up to date at its ticks,
//! or when that thread's own clock is read, not when the process's is: so
//! every thread's clock is read (`/proc/self/task`) before the process's.
//! A reading during which the calling thread was preempted (other threads
//! ran between its reads) is taken again. What is left is the time between
//! the reads (microseconds), which [`clean`]'s slack covers.
//!
//! What this cannot see: work done for a library by a process that was
//! started before the batch (a daemon started when the library was
//! loaded, reached through shared memory), by a device (a GPU), or by
//! code the library runs on the harness's own threads (a signal handler).
//! A library that does any of that is trusted with the calling thread's
//! CPU clock; the check is against a library that solves on threads or
//! processes of its own, not against one written to deceive it.

use std::cell::RefCell;
use std::sync::Mutex;

/// CPU time of threads that are not the harness's, within a batch, that
/// still counts as none (ns): what passes between the clock reads, and
/// the process's idle threads waking up (an interrupt handler's).
pub const SLACK_NS: u64 = 10_000;
/// ... plus this share of the batch's time (per mille): work on other
/// threads below both goes unnoticed.
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
#[derive(Clone, Debug)]
pub struct Mark {
    /// The process's CPU time minus the registered threads'.
    others_ns: u64,
    /// CPU time of the reaped children.
    children_ns: u64,
    /// The process's threads (their ids, in order).
    tids: Vec<u32>,
    /// The last process or thread id given out in the process's pid
    /// namespace (`None` where it cannot be read).
    last_pid: Option<u64>,
}

impl Mark {
    /// Reads the clocks at the start of a batch (`None` where they cannot
    /// be read, or the calling thread is not registered, or the process
    /// has a child: the batch keeps the wall clock).
    pub fn now() -> Option<Mark> {
        #[cfg(target_os = "linux")]
        {
            if !ME.with(|me| me.borrow().is_some()) {
                return None;
            }
            // Orphans of a library's processes become this process's
            // children, where [`no_children`] sees them.
            super::external::reaper::adopt_orphans();
            let last_pid = last_pid();
            let (others_ns, tids) = unpreempted(others)?;
            no_children()?;
            Some(Mark {
                others_ns,
                children_ns: children_cpu_ns()?,
                tids,
                last_pid,
            })
        }
        #[cfg(not(target_os = "linux"))]
        {
            None
        }
    }

    /// CPU time of threads that are not the harness's since the mark
    /// (`None`: it cannot be told: the process has or had a child, a
    /// thread started or ended, or a process or thread was started in
    /// the pid namespace).
    pub fn foreign_ns(&self) -> Option<u64> {
        #[cfg(target_os = "linux")]
        {
            let (others, tids) = unpreempted(others)?;
            no_children()?;
            let same = tids == self.tids
                && children_cpu_ns()? == self.children_ns
                && last_pid() == self.last_pid;
            same.then(|| others.saturating_sub(self.others_ns))
        }
        #[cfg(not(target_os = "linux"))]
        {
            None
        }
    }
}

/// Whether a batch whose solves took `batch_ns` in all ran on the calling
/// thread alone, judged from its start `mark` ([`Mark::foreign_ns`]
/// within the slack).
pub fn clean(mark: &Mark, batch_ns: u64) -> bool {
    let slack = SLACK_NS + batch_ns / 1000 * SLACK_PER_MILLE;
    mark.foreign_ns().is_some_and(|f| f <= slack)
}

/// Readings of the clocks at most ([`unpreempted`]).
pub const READS: usize = 3;

/// A reading of the clocks (`read`) taken while the calling thread was
/// not preempted, up to [`READS`] tries (the last one otherwise). A
/// preemption between its reads of the threads' clocks and of the
/// process's, while other threads ran, would make it wrong by up to a
/// time slice.
#[cfg(target_os = "linux")]
fn unpreempted<T>(read: impl Fn() -> Option<T>) -> Option<T> {
    let mut last = None;
    for _ in 0..READS {
        let before = super::stopwatch::usage(false)?.involuntary;
        last = read();
        if super::stopwatch::usage(false)?.involuntary == before {
            break;
        }
    }
    last
}

/// The process's CPU time minus the registered threads', and the
/// process's threads. Every thread's time is brought up to date first
/// ([`all_threads`]), then the registered threads' clocks are read and the
/// process's right after them: the calling thread's own time between the
/// two reads counts as the others', at the start of a batch as at its
/// end, so that it cancels out.
#[cfg(target_os = "linux")]
fn others() -> Option<(u64, Vec<u32>)> {
    let r = registry();
    let tids = all_threads()?;
    let threads = r.threads_ns()?;
    let process = read(libc::CLOCK_PROCESS_CPUTIME_ID)?;
    Some((process.saturating_sub(threads), tids))
}

/// Every thread of the process (their ids, in order), each one's CPU
/// clock read on the way: reading a thread's clock brings its CPU time
/// up to date in the kernel, which the process's clock (read after)
/// then includes. A running thread's time is otherwise brought up to date
/// only at the scheduler's ticks.
#[cfg(target_os = "linux")]
fn all_threads() -> Option<Vec<u32>> {
    let mut tids = Vec::new();
    for entry in std::fs::read_dir("/proc/self/task").ok()? {
        let tid: u32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
        // Linux's clock id of a thread's CPU clock (what
        // pthread_getcpuclockid gives for a thread of this process):
        // the bitwise complement of its id, shifted, with the
        // per-thread and scheduler-clock bits. A thread that has just
        // exited makes the read fail; its time is in the process's.
        let clock = ((!(tid as libc::clockid_t)) << 3) | 6;
        let _ = read(clock);
        tids.push(tid);
    }
    tids.sort_unstable();
    Some(tids)
}

/// The last process or thread id the kernel gave out in this process's
/// pid namespace: it changes when any process or thread starts there,
/// including one that a library starts and ends within a batch (whose
/// CPU time the process's clock may have missed: a thread's last moments
/// are not brought up to date when it exits).
#[cfg(target_os = "linux")]
fn last_pid() -> Option<u64> {
    std::fs::read_to_string("/proc/sys/kernel/ns_last_pid")
        .ok()?
        .trim()
        .parse()
        .ok()
}

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
