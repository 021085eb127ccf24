//! The filter cross-checked: its numbers against the `libc` crate's for
//! this target, and its program against the kernel, in forked children
//! that make the calls it must refuse and allow. Every refused call aims a
//! harmless signal (SIGWINCH, ignored by default) at this test process, so
//! that a filter that let it through would fail the test without harm.

use super::*;
use crate::shield::Tried;

#[cfg(target_arch = "x86_64")]
#[test]
fn the_native_numbers_are_the_libc_crates() {
    let n = X86_64;
    check_native(&n);
    assert_eq!(n.arch, 0xC000_003E, "AUDIT_ARCH_X86_64");
    assert_eq!(I386.arch, 0x4000_0003, "AUDIT_ARCH_I386");
}

#[cfg(target_arch = "aarch64")]
#[test]
fn the_native_numbers_are_the_libc_crates() {
    let n = AARCH64;
    check_native(&n);
    assert_eq!(n.arch, 0xC000_00B7, "AUDIT_ARCH_AARCH64");
    assert_eq!(ARM.arch, 0x4000_0028, "AUDIT_ARCH_ARM");
}

fn check_native(n: &Numbers) {
    let pairs = [
        (n.kill, libc::SYS_kill),
        (n.tkill, libc::SYS_tkill),
        (n.tgkill, libc::SYS_tgkill),
        (n.rt_sigqueueinfo, libc::SYS_rt_sigqueueinfo),
        (n.rt_tgsigqueueinfo, libc::SYS_rt_tgsigqueueinfo),
        (n.ptrace, libc::SYS_ptrace),
        (n.process_vm_writev, libc::SYS_process_vm_writev),
        (n.prlimit64, libc::SYS_prlimit64),
        (n.ioctl, libc::SYS_ioctl),
        (n.fcntl, libc::SYS_fcntl),
        (n.pidfd_send_signal, libc::SYS_pidfd_send_signal),
        (n.pidfd_getfd, libc::SYS_pidfd_getfd),
        (n.setpriority, libc::SYS_setpriority),
        (n.sched_set[0], libc::SYS_sched_setparam),
        (n.sched_set[1], libc::SYS_sched_setscheduler),
        (n.sched_set[2], libc::SYS_sched_setaffinity),
        (n.sched_set[3], libc::SYS_sched_setattr),
    ];
    for (ours, theirs) in pairs {
        assert_eq!(ours as libc::c_long, theirs);
    }
}

#[test]
fn programs_assemble_for_any_set_of_processes() {
    for others in 0..4u32 {
        for groups in 0..4u32 {
            let p = Protected {
                itself: Some(4242),
                others: (0..others).map(|i| 1000 + i).collect(),
                groups: (0..groups).map(|i| 2000 + i).collect(),
            };
            let f = Filter::for_measuring(&p).expect("builds");
            assert!(f.program().len() < 1000);
            Filter::for_solver(&p).expect("builds");
        }
    }
}

#[test]
fn what_a_trapped_call_returns_reads_back() {
    let d = data(Call::Kill, Aim::Harness) | libc::SIGSTOP as u32;
    let t = Tried::from_data(d).unwrap();
    assert_eq!(
        (t.call, t.aim, t.signal),
        (Call::Kill, Aim::Harness, Some(libc::SIGSTOP))
    );
    assert!(t.describe().contains("SIGSTOP (kill)"), "{}", t.describe());
    assert_eq!(Tried::from_data(0), None);
}

/// What a forked child does, given its parent's pid; returns its exit
/// status.
type Act = fn(i32) -> i32;

/// How a forked child ended.
#[derive(Debug, PartialEq, Eq)]
enum End {
    Exit(i32),
    Signal(i32),
}

/// The write end of the pipe a trapped child reports through.
static REPORT: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);

/// The SIGSYS handler of a child in trap mode: writes `si_errno` (the
/// filter's data), the call's number and its architecture to the pipe and
/// exits 77. Async-signal-safe: reads of the siginfo, write(2), _exit(2).
extern "C" fn report(_sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo_t for SA_SIGINFO; for
    // SIGSYS its union holds (call address, syscall number, arch) at
    // offsets 16, 24 and 28 on the 64-bit targets this module is built for
    // (the layout of `struct siginfo` in asm-generic/siginfo.h).
    unsafe {
        let base = info as *const u8;
        let errno = (*info).si_errno as u32;
        let syscall = std::ptr::read_unaligned(base.add(24) as *const i32) as u32;
        let arch = std::ptr::read_unaligned(base.add(28) as *const u32);
        let words = [errno, syscall, arch];
        let fd = REPORT.load(std::sync::atomic::Ordering::Relaxed);
        libc::write(fd, words.as_ptr().cast(), 12);
        libc::_exit(77);
    }
}

/// Forks a child that (in a session of its own, like a solver process)
/// installs `filter` (with the reporting SIGSYS handler when `trap`) and
/// then runs `act(parent pid)`, exiting with what it returns; returns how
/// it ended and, for a trapped call, what it reported.
fn in_child(filter: Option<&Filter>, trap: bool, act: Act) -> (End, Option<[u32; 3]>) {
    let mut fds = [0; 2];
    // SAFETY: pipe(2) fills the two-element array.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    REPORT.store(fds[1], std::sync::atomic::Ordering::Relaxed);
    // SAFETY: the child calls only async-signal-safe functions (setsid,
    // sigaction, prctl, seccomp, the calls of `act`, _exit) and allocates
    // nothing: the filter was built before the fork, and this process may
    // have other threads.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork");
    if pid == 0 {
        // SAFETY: as above; the action struct is zeroed then filled.
        unsafe {
            let parent = libc::getppid();
            libc::setsid();
            if trap {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = report as *const () as usize;
                sa.sa_flags = libc::SA_SIGINFO;
                libc::sigaction(libc::SIGSYS, &sa, std::ptr::null_mut());
            }
            if let Some(f) = filter {
                if install(f, false) != 0 {
                    libc::_exit(100);
                }
            }
            libc::_exit(act(parent));
        }
    }
    // SAFETY: closing our copy of the write end; waitpid on our child.
    unsafe { libc::close(fds[1]) };
    let mut status = 0;
    assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
    let mut words = [0u32; 3];
    // SAFETY: reads at most 12 bytes into the 12-byte array.
    let n = unsafe { libc::read(fds[0], words.as_mut_ptr().cast(), 12) };
    unsafe { libc::close(fds[0]) };
    let end = if libc::WIFSIGNALED(status) {
        End::Signal(libc::WTERMSIG(status))
    } else {
        End::Exit(libc::WEXITSTATUS(status))
    };
    (end, (n == 12).then_some(words))
}

/// The filter of a solver process protecting this test process (and its
/// process group).
fn solver_filter() -> Filter {
    let p = Protected {
        itself: None,
        others: vec![std::process::id()],
        // SAFETY: getpgrp(2) takes nothing and touches no memory.
        groups: vec![unsafe { libc::getpgrp() } as u32],
    };
    Filter::for_solver(&p).expect("builds")
}

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

#[test]
fn a_solver_process_cannot_signal_or_stop_the_harness() {
    if !supported() {
        eprintln!("skipped: this kernel has no seccomp");
        return;
    }
    let f = solver_filter();
    let sigsys = (End::Signal(libc::SIGSYS), None);
    // SAFETY (every action): plain system calls with integer arguments,
    // or pointers to locals that live through the call.
    let refused: [(&str, Act); 9] = [
        ("kill(parent)", |pp| unsafe {
            libc::kill(pp, libc::SIGWINCH)
        }),
        ("kill(-1)", |_| unsafe { libc::kill(-1, libc::SIGWINCH) }),
        ("kill(-parent's group)", |pp| unsafe {
            libc::kill(-libc::getpgid(pp), libc::SIGWINCH)
        }),
        ("tgkill(parent)", |pp| unsafe {
            libc::syscall(libc::SYS_tgkill, pp, pp, libc::SIGWINCH) as i32
        }),
        ("tkill(parent)", |pp| unsafe {
            libc::syscall(libc::SYS_tkill, pp, libc::SIGWINCH) as i32
        }),
        ("raise(SIGSTOP)", |_| unsafe { libc::raise(libc::SIGSTOP) }),
        ("ptrace(TRACEME)", |_| unsafe {
            libc::ptrace(libc::PTRACE_TRACEME, 0, 0, 0) as i32
        }),
        ("ioctl(TIOCSTI)", |_| unsafe {
            let c = b'x';
            libc::ioctl(0, libc::TIOCSTI, &c)
        }),
        ("fcntl(F_SETOWN, parent)", |pp| unsafe {
            let mut fds = [0; 2];
            libc::pipe(fds.as_mut_ptr());
            libc::fcntl(fds[0], libc::F_SETOWN, pp)
        }),
    ];
    for (what, act) in refused {
        assert_eq!(in_child(Some(&f), false, act), sigsys, "{what}");
    }
    // Allowed: signal 0, its own group, its own crash, reading limits.
    let allowed: [(&str, Act, End); 5] = [
        (
            "kill(parent, 0)",
            |pp| unsafe { libc::kill(pp, 0) },
            End::Exit(0),
        ),
        (
            "kill(0, SIGWINCH)",
            |_| unsafe { libc::kill(0, libc::SIGWINCH) },
            End::Exit(0),
        ),
        (
            "abort()",
            |_| unsafe {
                libc::abort();
            },
            End::Signal(libc::SIGABRT),
        ),
        (
            "prlimit64(parent, read)",
            |pp| unsafe {
                let mut old: libc::rlimit64 = std::mem::zeroed();
                libc::prlimit64(pp, libc::RLIMIT_CPU, std::ptr::null(), &mut old)
            },
            End::Exit(0),
        ),
        (
            "pidfd_send_signal",
            |_| unsafe {
                let r = libc::syscall(libc::SYS_pidfd_send_signal, 0, libc::SIGWINCH, 0, 0);
                if r == -1 {
                    errno()
                } else {
                    0
                }
            },
            End::Exit(libc::ENOSYS),
        ),
    ];
    for (what, act, end) in allowed {
        assert_eq!(in_child(Some(&f), false, act).0, end, "{what}");
    }
}

#[test]
fn a_solver_cannot_change_the_harness_priority_or_cpus_only_its_own() {
    if !supported() {
        eprintln!("skipped: this kernel has no seccomp");
        return;
    }
    let f = solver_filter();
    // Each returns 0 when the call succeeded, else its errno.
    // SAFETY (every action): plain system calls with integer arguments,
    // or pointers to locals that live through the call.
    let cases: [(&str, Act, End); 5] = [
        (
            "setpriority(parent)",
            |pp| unsafe {
                let r = libc::setpriority(libc::PRIO_PROCESS, pp as libc::id_t, 19);
                if r == -1 {
                    errno()
                } else {
                    0
                }
            },
            End::Exit(libc::EPERM),
        ),
        (
            "setpriority(a process group)",
            |_| unsafe {
                // A group that does not exist: ESRCH were the call let
                // through, so that a missing rule harms nothing.
                let r = libc::setpriority(libc::PRIO_PGRP, 0x7fff_fff0, 19);
                if r == -1 {
                    errno()
                } else {
                    0
                }
            },
            End::Exit(libc::EPERM),
        ),
        (
            "sched_setaffinity(parent)",
            |pp| unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                libc::CPU_SET(0, &mut set);
                let r = libc::sched_setaffinity(pp, std::mem::size_of_val(&set), &set);
                if r == -1 {
                    errno()
                } else {
                    0
                }
            },
            End::Exit(libc::EPERM),
        ),
        (
            "setpriority(itself)",
            |_| unsafe {
                let r = libc::setpriority(libc::PRIO_PROCESS, 0, 1);
                if r == -1 {
                    errno()
                } else {
                    0
                }
            },
            End::Exit(0),
        ),
        (
            "sched_getaffinity then sched_setaffinity(itself)",
            |_| unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set);
                let r = libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set);
                if r == -1 {
                    errno()
                } else {
                    0
                }
            },
            End::Exit(0),
        ),
    ];
    for (what, act, end) in cases {
        assert_eq!(in_child(Some(&f), false, act).0, end, "{what}");
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn the_other_abis_of_x86_64_are_filtered_too() {
    if !supported() {
        eprintln!("skipped: this kernel has no seccomp");
        return;
    }
    /// An i386 system call through `int 0x80` (which a 64-bit process may
    /// make); returns the kernel's result.
    fn int80(nr: u32, a: u32, b: u32) -> i32 {
        let mut ret = nr as i32;
        // SAFETY: `int 0x80` enters the kernel's i386 entry with the call
        // number in eax and arguments in ebx and ecx, and returns in eax
        // (the kernel saves every other register). rbx is reserved by LLVM,
        // so the first argument is swapped into it and rbx restored after.
        // The calls made here (getpid, kill) take no pointers.
        unsafe {
            std::arch::asm!(
                "xchg rbx, {a}",
                "int 0x80",
                "xchg rbx, {a}",
                a = inout(reg) u64::from(a) => _,
                inout("eax") ret,
                in("ecx") b,
                options(nostack)
            );
        }
        ret
    }
    // Without a filter: does this kernel run i386 calls (getpid = 20)?
    let ia32 = in_child(None, false, |_| (int80(20, 0, 0) > 0) as i32).0 == End::Exit(1);
    let f = solver_filter();
    if ia32 {
        let killed = in_child(Some(&f), false, |pp| {
            int80(I386.kill, pp as u32, libc::SIGWINCH as u32)
        });
        assert_eq!(killed.0, End::Signal(libc::SIGSYS), "i386 kill(parent)");
    } else {
        eprintln!("i386 calls not run by this kernel: that case is not checked");
    }
    let x32 = in_child(Some(&f), false, |pp| unsafe {
        libc::syscall((X32_BIT | X86_64.kill) as libc::c_long, pp, libc::SIGWINCH) as i32
    });
    assert_eq!(x32.0, End::Signal(libc::SIGSYS), "x32 kill(parent)");
}

#[test]
fn a_measuring_process_learns_what_it_tried() {
    if !supported() {
        eprintln!("skipped: this kernel has no seccomp");
        return;
    }
    // The test process stands for the supervisor; the child is the
    // measuring process (which is itself `itself`: its pid is not known
    // before the fork, so its own calls are checked through tkill and
    // kill(0), which name it without its pid).
    let p = Protected {
        itself: Some(u32::MAX - 1),
        others: vec![std::process::id()],
        groups: Vec::new(),
    };
    let f = Filter::for_measuring(&p).expect("builds");
    let cases: [(Act, Call, Aim, i32); 4] = [
        (
            |pp| unsafe { libc::kill(pp, libc::SIGWINCH) },
            Call::Kill,
            Aim::Harness,
            libc::SIGWINCH,
        ),
        (
            |_| unsafe { libc::kill(0, libc::SIGUSR1) },
            Call::Kill,
            Aim::Itself,
            libc::SIGUSR1,
        ),
        (
            |_| unsafe { libc::syscall(libc::SYS_tkill, libc::gettid(), libc::SIGINT) as i32 },
            Call::Tkill,
            Aim::Itself,
            libc::SIGINT,
        ),
        (
            |_| unsafe { libc::raise(libc::SIGTSTP) },
            Call::Tgkill,
            Aim::AnyProcess,
            libc::SIGTSTP,
        ),
    ];
    for (act, call, aim, sig) in cases {
        let (end, words) = in_child(Some(&f), true, act);
        assert_eq!(end, End::Exit(77), "{call:?}");
        let [data, nr, arch] = words.expect("a report");
        let t = Tried::from_data(data & 0xffff).expect("data");
        assert_eq!((t.call, t.aim, t.signal), (call, aim, Some(sig)));
        assert_eq!(arch, ARCHES[0].arch, "the architecture the filter expects");
        let expected = match call {
            Call::Kill => ARCHES[0].kill,
            Call::Tkill => ARCHES[0].tkill,
            _ => ARCHES[0].tgkill,
        };
        assert_eq!(nr, expected);
    }
    // Its own crash and the signals runtimes use stay allowed.
    let abort = in_child(Some(&f), true, |_| unsafe {
        libc::abort();
    });
    assert_eq!(abort.0, End::Signal(libc::SIGABRT));
    let rt = in_child(Some(&f), true, |_| unsafe {
        libc::signal(libc::SIGRTMIN(), libc::SIG_IGN);
        libc::raise(libc::SIGRTMIN())
    });
    assert_eq!(rt.0, End::Exit(0));
}

/// What the filter adds to every system call of a filtered process (the
/// calls it allows: here `getppid`, among the last the program reaches).
/// Prints the time per call without a filter, with a filter protecting
/// nothing and with a solver's filter: each the best of 15 children making
/// 1,000,000 calls, the three kinds taking turns. Run by hand:
/// `cargo test --lib shield -- --ignored --nocapture`.
#[test]
#[ignore]
fn the_cost_of_the_filter_per_system_call() {
    if !supported() {
        return;
    }
    /// Makes 1,000,000 calls; exits with the nanoseconds per call / 4.
    fn calls(_: i32) -> i32 {
        let t = std::time::Instant::now();
        for _ in 0..1_000_000 {
            // SAFETY: getppid(2) takes nothing.
            unsafe { libc::syscall(libc::SYS_getppid) };
        }
        (t.elapsed().as_nanos() / 4_000_000).min(255) as i32
    }
    let none = Filter::for_solver(&Protected::default()).expect("builds");
    let full = solver_filter();
    let kinds = [None, Some(&none), Some(&full)];
    let mut best = [i32::MAX; 3];
    for _ in 0..15 {
        for (b, f) in best.iter_mut().zip(kinds) {
            match in_child(f, false, calls).0 {
                End::Exit(c) => *b = (*b).min(c),
                e => panic!("{e:?}"),
            }
        }
    }
    eprintln!(
        "ns per getppid (±4): no filter {}, filter protecting nothing {}, solver filter {}",
        best[0] * 4,
        best[1] * 4,
        best[2] * 4
    );
}
