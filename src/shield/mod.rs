//! The shield: a seccomp filter that keeps solver code from stopping or
//! signalling bench-sudoku (Linux on x86_64 and aarch64).
//!
//! Solver code runs in three places: in solver processes (`cmd=`, and the
//! `bench-sudoku serve` children of `isolate=yes`), and inside a supervised
//! measuring process (a library loaded in-process). Each of them gets a
//! filter, installed with `no_new_privs` before any solver code runs (in
//! the forked child before `exec`, or in the measuring process before it
//! loads a library), that refuses the system calls with which a process
//! can stop, interrupt or kill another one, when they are aimed at
//! bench-sudoku:
//!
//! - `kill`, `tgkill`, `rt_sigqueueinfo`, `rt_tgsigqueueinfo` and `tkill`
//!   with any signal but 0 aimed at a bench-sudoku process (its pid,
//!   captured before the fork), at its process group, or at every process
//!   (`kill(-1, …)`); a stop signal (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU)
//!   aimed at any process (a thread's id names its whole process, so stops
//!   are refused whatever the id);
//! - in a measuring process, which *is* bench-sudoku, the signals
//!   bench-sudoku interprets (SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1,
//!   SIGUSR2, SIGKILL) aimed at itself (`raise`, `kill(getpid(), …)`,
//!   `kill(0, …)`, `tkill` of any thread); a solver's own crash (SIGABRT
//!   from `abort()`, SIGSEGV, …) and the real-time signals runtimes send
//!   between their threads stay allowed;
//! - `ptrace` attaching (`PTRACE_ATTACH`, `PTRACE_SEIZE`, `PTRACE_TRACEME`),
//!   `process_vm_writev`, `prlimit64` setting another process's limits
//!   (a CPU limit ends a process), `fcntl(F_SETOWN)` and the `ioctl`s that
//!   direct a signal to a process (`FIOSETOWN`, `SIOCSPGRP`) or reach the
//!   terminal's job control (`TIOCSTI` types an interrupt, `TIOCSPGRP` takes
//!   the foreground);
//! - `pidfd_send_signal` and `pidfd_getfd` fail with ENOSYS, as on a kernel
//!   without them (a pidfd may come from `/proc/PID`, which a filter cannot
//!   see): runtimes then fall back to `kill`, which the filter reads.
//!
//! A solver process that makes such a call is killed on the spot
//! (`SECCOMP_RET_KILL_PROCESS`: it dies of SIGSYS, which its fault names);
//! in a measuring process the call raises SIGSYS in the calling thread
//! (`SECCOMP_RET_TRAP`), whose handler records what was tried (the value
//! the filter returns: [`Tried`]) on the supervisor's board before the
//! process dies of it.
//!
//! The filter checks the architecture of every call: x86_64 (and the i386
//! calls a 64-bit process can make with `int 0x80`; x32 calls are refused
//! outright) or aarch64 (and 32-bit ARM). Elsewhere, and where the kernel
//! has no seccomp, nothing is installed (see [`supported`]); the limits are
//! in docs/RELIABILITY.md.

/// What a refused call tried, as the filter of a measuring process returns
/// it in SIGSYS's `si_errno` (16 bits): the signal (bits 0-7), the system
/// call ([`Call`], bits 8-11) and whom it was aimed at ([`Aim`], bits
/// 12-15).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tried {
    pub call: Call,
    pub aim: Aim,
    /// The signal, for the signal-sending calls.
    pub signal: Option<i32>,
}

/// The system calls the filter refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Call {
    Kill = 1,
    Tkill = 2,
    Tgkill = 3,
    RtSigqueueinfo = 4,
    RtTgsigqueueinfo = 5,
    Ptrace = 6,
    ProcessVmWritev = 7,
    Prlimit = 8,
    Ioctl = 9,
    Fcntl = 10,
    /// A call of the x32 ABI, or of an architecture the filter does not
    /// know.
    Foreign = 11,
}

/// Whom a refused call was aimed at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Aim {
    /// The measuring process itself.
    Itself = 1,
    /// Another bench-sudoku process (the supervisor, or the process that
    /// started the solver).
    Harness = 2,
    /// Every process (`kill(-1, …)`).
    Everyone = 3,
    /// A process group of bench-sudoku.
    Group = 4,
    /// Any process: a stop signal, whoever it is aimed at.
    AnyProcess = 5,
    /// What the call does, whoever it is aimed at.
    Anyone = 6,
}

impl Tried {
    /// Reads the 16 bits of data a trapped call returned.
    pub fn from_data(data: u32) -> Option<Tried> {
        let call = match (data >> 8) & 0xf {
            1 => Call::Kill,
            2 => Call::Tkill,
            3 => Call::Tgkill,
            4 => Call::RtSigqueueinfo,
            5 => Call::RtTgsigqueueinfo,
            6 => Call::Ptrace,
            7 => Call::ProcessVmWritev,
            8 => Call::Prlimit,
            9 => Call::Ioctl,
            10 => Call::Fcntl,
            11 => Call::Foreign,
            _ => return None,
        };
        let aim = match (data >> 12) & 0xf {
            1 => Aim::Itself,
            2 => Aim::Harness,
            3 => Aim::Everyone,
            4 => Aim::Group,
            5 => Aim::AnyProcess,
            _ => Aim::Anyone,
        };
        let sig = (data & 0xff) as i32;
        Some(Tried {
            call,
            aim,
            signal: (sig != 0).then_some(sig),
        })
    }

    /// "send SIGSTOP (kill) to the supervising bench-sudoku process".
    pub fn describe(&self) -> String {
        let call = match self.call {
            Call::Kill => "kill",
            Call::Tkill => "tkill",
            Call::Tgkill => "tgkill",
            Call::RtSigqueueinfo => "rt_sigqueueinfo",
            Call::RtTgsigqueueinfo => "rt_tgsigqueueinfo",
            Call::Ptrace => "ptrace",
            Call::ProcessVmWritev => "process_vm_writev",
            Call::Prlimit => "prlimit64",
            Call::Ioctl => "ioctl",
            Call::Fcntl => "fcntl",
            Call::Foreign => "a system call of another ABI",
        };
        let whom = match self.aim {
            Aim::Itself => "the measuring process (bench-sudoku itself)",
            Aim::Harness => "bench-sudoku's supervising process",
            Aim::Everyone => "every process (pid -1)",
            Aim::Group => "bench-sudoku's process group",
            Aim::AnyProcess => "a process",
            Aim::Anyone => "",
        };
        match (self.signal, self.aim) {
            (Some(sig), _) => format!("send {} ({call}) to {whom}", signal_name(sig)),
            (None, Aim::Anyone) => {
                format!("call {call} in a way solvers may not (it reaches other processes)")
            }
            (None, _) => format!("call {call} on {whom}"),
        }
    }
}

/// A signal's name ("SIGSTOP"), or its number.
pub fn signal_name(sig: i32) -> String {
    let name = match sig {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGCHLD => "SIGCHLD",
        libc::SIGCONT => "SIGCONT",
        libc::SIGSTOP => "SIGSTOP",
        libc::SIGTSTP => "SIGTSTP",
        libc::SIGTTIN => "SIGTTIN",
        libc::SIGTTOU => "SIGTTOU",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        libc::SIGWINCH => "SIGWINCH",
        libc::SIGSYS => "SIGSYS",
        _ => return format!("signal {sig}"),
    };
    name.to_string()
}

/// The processes the filter protects: bench-sudoku's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Protected {
    /// The process that installs the filter for itself (a measuring
    /// process), whose own calls to itself are judged by the signal.
    pub itself: Option<u32>,
    /// Other bench-sudoku processes: any signal to them is refused.
    pub others: Vec<u32>,
    /// Their process groups (not the caller's own).
    pub groups: Vec<u32>,
}

#[cfg(all(
    target_os = "linux",
    target_endian = "little",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
mod filter;

#[cfg(all(
    target_os = "linux",
    target_endian = "little",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
pub use filter::{install, supported, Filter};

/// Where there is no filter: nothing is installed.
#[cfg(not(all(
    target_os = "linux",
    target_endian = "little",
    any(target_arch = "x86_64", target_arch = "aarch64")
)))]
mod none {
    use super::Protected;

    /// No filter on this system.
    #[derive(Clone, Debug)]
    pub struct Filter;

    impl Filter {
        pub fn for_solver(_p: &Protected) -> Option<Filter> {
            None
        }
        pub fn for_measuring(_p: &Protected) -> Option<Filter> {
            None
        }
    }

    /// Never: this system has no seccomp filter for bench-sudoku.
    pub fn supported() -> bool {
        false
    }

    /// Does nothing.
    ///
    /// # Safety
    /// None needed: nothing happens.
    pub unsafe fn install(_f: &Filter, _all_threads: bool) -> i32 {
        -1
    }
}

#[cfg(not(all(
    target_os = "linux",
    target_endian = "little",
    any(target_arch = "x86_64", target_arch = "aarch64")
)))]
pub use none::{install, supported, Filter};

/// The harness processes of this process's point of view: itself, and the
/// supervisor it is measuring for (set once by [`set_supervisor`]).
pub fn protected_from_here() -> Protected {
    let me = std::process::id();
    let mut p = Protected {
        itself: None,
        others: vec![me],
        groups: vec![pgid_of(0)],
    };
    if let Some((pid, group)) = SUPERVISOR.get() {
        p.others.push(*pid);
        p.groups.push(*group);
    }
    p.groups.retain(|&g| g > 1);
    p.groups.sort_unstable();
    p.groups.dedup();
    p
}

/// The supervisor of this measuring process and its process group.
static SUPERVISOR: std::sync::OnceLock<(u32, u32)> = std::sync::OnceLock::new();

/// Records the supervisor of this measuring process (its pid), which every
/// filter made here protects too.
pub fn set_supervisor(pid: u32) {
    let _ = SUPERVISOR.set((pid, pgid_of(pid)));
}

/// The process group of `pid` (0: this process); 0 when unknown.
fn pgid_of(pid: u32) -> u32 {
    // SAFETY: getpgid(2) takes a pid and touches no memory.
    let g = unsafe { libc::getpgid(pid as libc::pid_t) };
    u32::try_from(g).unwrap_or(0)
}

/// Protects the measuring process this is, before it loads any solver:
/// installs the filter on every thread. Returns why it could not.
pub fn protect_this_process() -> Result<(), String> {
    if !supported() {
        return Err("this system has no seccomp filter (Linux on x86_64 or aarch64)".into());
    }
    let mut p = protected_from_here();
    let me = std::process::id();
    p.others.retain(|&o| o != me);
    p.itself = Some(me);
    let own = pgid_of(0);
    p.groups.retain(|&g| g != own && g != me);
    let Some(filter) = Filter::for_measuring(&p) else {
        return Err("the filter could not be built".into());
    };
    // SAFETY: `filter` is a program `Filter` built and checked (its jumps
    // stay inside it); `install` only passes it to the kernel, which copies
    // it. Every thread gets it (TSYNC), so no thread of this process runs
    // solver code unfiltered.
    let r = unsafe { install(&filter, true) };
    if r == 0 {
        Ok(())
    } else {
        Err(format!(
            "the kernel refused the seccomp filter ({})",
            std::io::Error::last_os_error()
        ))
    }
}
