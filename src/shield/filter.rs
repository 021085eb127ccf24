//! The seccomp-BPF program of the shield (see the module above), built from
//! the system call numbers of each architecture a process of this machine
//! can call the kernel with, and installed with `no_new_privs`.

use super::{Aim, Call, Protected};
use libc::sock_filter;

/// `AUDIT_ARCH_*`: the ELF machine, with the 64-bit and little-endian
/// flags (`linux/audit.h`).
const AUDIT_64: u32 = 0x8000_0000;
const AUDIT_LE: u32 = 0x4000_0000;
pub(super) const ARCH_X86_64: u32 = 62 | AUDIT_64 | AUDIT_LE;
pub(super) const ARCH_I386: u32 = 3 | AUDIT_LE;
pub(super) const ARCH_AARCH64: u32 = 183 | AUDIT_64 | AUDIT_LE;
pub(super) const ARCH_ARM: u32 = 40 | AUDIT_LE;
/// The bit of x86_64's x32 system calls (`__X32_SYSCALL_BIT`).
const X32_BIT: u32 = 0x4000_0000;

/// The system call numbers the filter looks at, for one architecture
/// (`asm/unistd*.h`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Numbers {
    pub arch: u32,
    pub kill: u32,
    pub tkill: u32,
    pub tgkill: u32,
    pub rt_sigqueueinfo: u32,
    pub rt_tgsigqueueinfo: u32,
    pub ptrace: u32,
    pub process_vm_writev: u32,
    pub prlimit64: u32,
    pub ioctl: u32,
    pub fcntl: u32,
    /// 32-bit architectures have a second `fcntl`.
    pub fcntl64: Option<u32>,
    pub pidfd_send_signal: u32,
    pub pidfd_getfd: u32,
    /// Calls that change another process's scheduling: `setpriority`
    /// (which, who) and `sched_setparam`, `sched_setscheduler`,
    /// `sched_setaffinity`, `sched_setattr` (pid first).
    pub setpriority: u32,
    pub sched_set: [u32; 4],
    /// x86_64: calls with the x32 bit are refused.
    pub x32: bool,
}

#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(super) const X86_64: Numbers = Numbers {
    arch: ARCH_X86_64,
    kill: 62,
    tkill: 200,
    tgkill: 234,
    rt_sigqueueinfo: 129,
    rt_tgsigqueueinfo: 297,
    ptrace: 101,
    process_vm_writev: 311,
    prlimit64: 302,
    ioctl: 16,
    fcntl: 72,
    fcntl64: None,
    pidfd_send_signal: 424,
    pidfd_getfd: 438,
    setpriority: 141,
    sched_set: [142, 144, 203, 314],
    x32: true,
};

#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(super) const I386: Numbers = Numbers {
    arch: ARCH_I386,
    kill: 37,
    tkill: 238,
    tgkill: 270,
    rt_sigqueueinfo: 178,
    rt_tgsigqueueinfo: 335,
    ptrace: 26,
    process_vm_writev: 348,
    prlimit64: 340,
    ioctl: 54,
    fcntl: 55,
    fcntl64: Some(221),
    pidfd_send_signal: 424,
    pidfd_getfd: 438,
    setpriority: 97,
    sched_set: [154, 156, 241, 351],
    x32: false,
};

#[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))]
pub(super) const AARCH64: Numbers = Numbers {
    arch: ARCH_AARCH64,
    kill: 129,
    tkill: 130,
    tgkill: 131,
    rt_sigqueueinfo: 138,
    rt_tgsigqueueinfo: 240,
    ptrace: 117,
    process_vm_writev: 271,
    prlimit64: 261,
    ioctl: 29,
    fcntl: 25,
    fcntl64: None,
    pidfd_send_signal: 424,
    pidfd_getfd: 438,
    setpriority: 140,
    sched_set: [118, 119, 122, 274],
    x32: false,
};

#[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))]
pub(super) const ARM: Numbers = Numbers {
    arch: ARCH_ARM,
    kill: 37,
    tkill: 238,
    tgkill: 268,
    rt_sigqueueinfo: 178,
    rt_tgsigqueueinfo: 363,
    ptrace: 26,
    process_vm_writev: 377,
    prlimit64: 369,
    ioctl: 54,
    fcntl: 55,
    fcntl64: Some(221),
    pidfd_send_signal: 424,
    pidfd_getfd: 438,
    setpriority: 97,
    sched_set: [154, 156, 241, 380],
    x32: false,
};

/// This machine's own numbers and those of the other architecture its
/// processes can call the kernel with.
#[cfg(target_arch = "x86_64")]
pub(super) const ARCHES: [Numbers; 2] = [X86_64, I386];
#[cfg(target_arch = "aarch64")]
pub(super) const ARCHES: [Numbers; 2] = [AARCH64, ARM];

/// The stop signals: refused whoever they are aimed at.
const STOPS: [i32; 4] = [libc::SIGSTOP, libc::SIGTSTP, libc::SIGTTIN, libc::SIGTTOU];
/// The signals bench-sudoku interprets (or dies of without a word), refused
/// when a measuring process aims them at itself.
const INTERPRETED: [i32; 7] = [
    libc::SIGHUP,
    libc::SIGINT,
    libc::SIGQUIT,
    libc::SIGTERM,
    libc::SIGUSR1,
    libc::SIGUSR2,
    libc::SIGKILL,
];

/// `ptrace` requests that make a tracer: `PTRACE_TRACEME`,
/// `PTRACE_ATTACH`, `PTRACE_SEIZE`.
const PTRACE_TRACERS: [u32; 3] = [0, 16, 0x4206];
/// `ioctl`s that direct signals: `TIOCSTI`, `TIOCSPGRP`, `FIOSETOWN`,
/// `SIOCSPGRP`.
const IOCTLS: [u32; 4] = [0x5412, 0x5410, 0x8901, 0x8902];
/// `fcntl`'s `F_SETOWN` and `F_SETOWN_EX`.
const F_SETOWN: u32 = 8;
const F_SETOWN_EX: u32 = 15;
const ENOSYS: u32 = 38;

/// A built filter program.
#[derive(Clone, Debug)]
pub struct Filter {
    program: Vec<sock_filter>,
}

impl Filter {
    /// The filter of a solver process (`cmd=`, `serve`), protecting `p`
    /// (`p.itself` is ignored: the caller is not bench-sudoku).
    pub fn for_solver(p: &Protected) -> Option<Filter> {
        let p = Protected {
            itself: None,
            ..p.clone()
        };
        build(&p, Mode::Kill).ok().map(|program| Filter { program })
    }

    /// The filter of a measuring process, which is `p.itself`.
    pub fn for_measuring(p: &Protected) -> Option<Filter> {
        build(p, Mode::Trap).ok().map(|program| Filter { program })
    }

    /// The instructions.
    #[cfg(test)]
    pub(super) fn program(&self) -> &[sock_filter] {
        &self.program
    }
}

/// What a refused call gets.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    /// The process dies of SIGSYS at once.
    Kill,
    /// SIGSYS in the calling thread, with what was tried as its data.
    Trap,
}

/// Whether the kernel has seccomp filters (so that a filter is installed
/// rather than failing in every solver process).
pub fn supported() -> bool {
    static SUPPORTED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SUPPORTED.get_or_init(|| {
        // SAFETY: prctl(PR_GET_SECCOMP) takes integers and touches no
        // memory; it fails with EINVAL on a kernel without seccomp.
        unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 }
    })
}

/// Installs `filter` in the calling process (all its threads with
/// `all_threads`), after setting `no_new_privs`. Returns 0, or -1 with
/// errno set. Makes no allocation and takes no lock: it may run in a
/// child between `fork` and `exec`.
///
/// # Safety
/// Only the calling process is affected; the caller must accept that
/// every later system call of the process (and of what it executes) is
/// judged by the filter.
pub unsafe fn install(filter: &Filter, all_threads: bool) -> i32 {
    let prog = libc::sock_fprog {
        len: filter.program.len() as u16,
        filter: filter.program.as_ptr() as *mut sock_filter,
    };
    // SAFETY (both calls): prctl takes integers; seccomp(2) reads the
    // `sock_fprog` above, which points to `len` initialised instructions
    // that outlive the call (the kernel copies them).
    if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
        return -1;
    }
    let flags: libc::c_ulong = if all_threads {
        libc::SECCOMP_FILTER_FLAG_TSYNC
    } else {
        0
    };
    let r = libc::syscall(
        libc::SYS_seccomp,
        libc::SECCOMP_SET_MODE_FILTER as libc::c_ulong,
        flags,
        &prog as *const libc::sock_fprog,
    );
    if r == 0 {
        0
    } else {
        if r > 0 {
            // TSYNC names a thread it could not synchronise.
            *libc::__errno_location() = libc::ESRCH;
        }
        -1
    }
}

// ---- a small assembler with labels -------------------------------------

/// A jump target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum To {
    Next,
    Label(usize),
}

#[derive(Clone, Debug)]
enum Op {
    /// A statement: code and constant.
    Stmt(u16, u32),
    /// A conditional jump (8-bit offsets).
    Jump(u16, u32, To, To),
    /// An unconditional jump (32-bit offset).
    Always(usize),
    Mark(usize),
}

#[derive(Default)]
struct Asm {
    ops: Vec<Op>,
    labels: usize,
}

const LD_W_ABS: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
const JEQ_K: u16 = (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16;
const JSET_K: u16 = (libc::BPF_JMP | libc::BPF_JSET | libc::BPF_K) as u16;
const JA: u16 = (libc::BPF_JMP | libc::BPF_JA) as u16;
const RET_K: u16 = (libc::BPF_RET | libc::BPF_K) as u16;
const RET_A: u16 = (libc::BPF_RET | libc::BPF_A) as u16;
const AND_K: u16 = (libc::BPF_ALU | libc::BPF_AND | libc::BPF_K) as u16;
const OR_K: u16 = (libc::BPF_ALU | libc::BPF_OR | libc::BPF_K) as u16;

/// Offsets in `struct seccomp_data`: the call's number, its architecture,
/// and the low and high 32 bits of argument `i` (little-endian).
const NR: u32 = 0;
const ARCH: u32 = 4;
fn arg_lo(i: u32) -> u32 {
    16 + 8 * i
}
fn arg_hi(i: u32) -> u32 {
    20 + 8 * i
}

impl Asm {
    fn label(&mut self) -> usize {
        self.labels += 1;
        self.labels - 1
    }
    fn mark(&mut self, l: usize) {
        self.ops.push(Op::Mark(l));
    }
    fn load(&mut self, offset: u32) {
        self.ops.push(Op::Stmt(LD_W_ABS, offset));
    }
    fn ret(&mut self, v: u32) {
        self.ops.push(Op::Stmt(RET_K, v));
    }
    /// Jumps to `to` when the accumulator equals `k`.
    fn jeq(&mut self, k: u32, to: usize) {
        self.ops.push(Op::Jump(JEQ_K, k, To::Label(to), To::Next));
    }
    /// Jumps to `to` unless the accumulator equals `k`.
    fn jne(&mut self, k: u32, to: usize) {
        self.ops.push(Op::Jump(JEQ_K, k, To::Next, To::Label(to)));
    }
    fn jset(&mut self, k: u32, to: usize) {
        self.ops.push(Op::Jump(JSET_K, k, To::Label(to), To::Next));
    }
    fn always(&mut self, to: usize) {
        self.ops.push(Op::Always(to));
    }

    /// The program, with every label resolved; an error when a
    /// conditional jump would be longer than 255 instructions or a label
    /// is missing.
    fn assemble(&self) -> Result<Vec<sock_filter>, String> {
        let mut at = vec![usize::MAX; self.labels];
        let mut n = 0;
        for op in &self.ops {
            match op {
                Op::Mark(l) => at[*l] = n,
                _ => n += 1,
            }
        }
        let mut out = Vec::with_capacity(n);
        for op in &self.ops {
            let here = out.len();
            let offset = |to: To| -> Result<u8, String> {
                match to {
                    To::Next => Ok(0),
                    To::Label(l) => {
                        let target = *at.get(l).ok_or("unknown label")?;
                        if target == usize::MAX || target <= here {
                            return Err(format!("label {l} is not ahead of {here}"));
                        }
                        u8::try_from(target - here - 1)
                            .map_err(|_| format!("a jump from {here} to {target} is too long"))
                    }
                }
            };
            let insn = match *op {
                Op::Mark(_) => continue,
                Op::Stmt(code, k) => sock_filter {
                    code,
                    jt: 0,
                    jf: 0,
                    k,
                },
                Op::Jump(code, k, t, f) => sock_filter {
                    code,
                    jt: offset(t)?,
                    jf: offset(f)?,
                    k,
                },
                Op::Always(l) => {
                    let target = at[l];
                    if target == usize::MAX || target <= here {
                        return Err(format!("label {l} is not ahead of {here}"));
                    }
                    sock_filter {
                        code: JA,
                        jt: 0,
                        jf: 0,
                        k: (target - here - 1) as u32,
                    }
                }
            };
            out.push(insn);
        }
        if out.len() > libc::BPF_MAXINSNS as usize {
            return Err("too long".into());
        }
        Ok(out)
    }
}

// ---- the rules ----------------------------------------------------------

/// What the filter returns for an allowed call.
const ALLOW: u32 = libc::SECCOMP_RET_ALLOW;

/// The program for protecting `p` in `mode`.
fn build(p: &Protected, mode: Mode) -> Result<Vec<sock_filter>, String> {
    let mut a = Asm::default();
    let sections: Vec<usize> = ARCHES.iter().map(|_| a.label()).collect();
    a.load(ARCH);
    for (numbers, &section) in ARCHES.iter().zip(&sections) {
        let skip = a.label();
        a.jne(numbers.arch, skip);
        a.always(section);
        a.mark(skip);
    }
    refuse(&mut a, mode, Call::Foreign, Aim::Anyone);
    for (numbers, &section) in ARCHES.iter().zip(&sections) {
        a.mark(section);
        arch_section(&mut a, p, mode, numbers);
    }
    a.assemble()
}

/// The rules for the calls of one architecture; ends with ALLOW.
fn arch_section(a: &mut Asm, p: &Protected, mode: Mode, n: &Numbers) {
    a.load(NR);
    if n.x32 {
        let x32 = a.label();
        let native = a.label();
        a.jset(X32_BIT, x32);
        a.always(native);
        a.mark(x32);
        refuse(a, mode, Call::Foreign, Aim::Anyone);
        a.mark(native);
    }
    // Each rule: `if nr == N { block }`, the block ending in a return.
    let rule = |a: &mut Asm, nr: u32, block: &dyn Fn(&mut Asm)| {
        let next = a.label();
        a.jne(nr, next);
        block(a);
        a.mark(next);
    };
    // (target argument, signal argument, process-group semantics)
    let signals = [
        (n.kill, Call::Kill, 0, 1, true),
        (n.rt_sigqueueinfo, Call::RtSigqueueinfo, 0, 1, true),
        (n.tgkill, Call::Tgkill, 0, 2, false),
        (n.rt_tgsigqueueinfo, Call::RtTgsigqueueinfo, 0, 2, false),
        (n.tkill, Call::Tkill, 0, 1, false),
    ];
    for (nr, call, target, sig, groups) in signals {
        rule(a, nr, &|a: &mut Asm| {
            signal_rule(a, p, mode, call, (target, sig), groups)
        });
    }
    rule(a, n.ptrace, &|a: &mut Asm| {
        let bad = a.label();
        a.load(arg_lo(0));
        for r in PTRACE_TRACERS {
            a.jeq(r, bad);
        }
        a.ret(ALLOW);
        a.mark(bad);
        refuse(a, mode, Call::Ptrace, Aim::Anyone);
    });
    rule(a, n.process_vm_writev, &|a: &mut Asm| {
        refuse(a, mode, Call::ProcessVmWritev, Aim::Anyone)
    });
    rule(a, n.prlimit64, &|a: &mut Asm| prlimit_rule(a, p, mode));
    rule(a, n.ioctl, &|a: &mut Asm| {
        let bad = a.label();
        a.load(arg_lo(1));
        for c in IOCTLS {
            a.jeq(c, bad);
        }
        a.ret(ALLOW);
        a.mark(bad);
        refuse(a, mode, Call::Ioctl, Aim::Anyone);
    });
    for nr in std::iter::once(n.fcntl).chain(n.fcntl64) {
        rule(a, nr, &|a: &mut Asm| fcntl_rule(a, mode));
    }
    rule(a, n.setpriority, &|a: &mut Asm| {
        own_scheduling_only(a, true)
    });
    for nr in n.sched_set {
        rule(a, nr, &|a: &mut Asm| own_scheduling_only(a, false));
    }
    for nr in [n.pidfd_send_signal, n.pidfd_getfd] {
        rule(a, nr, &|a: &mut Asm| {
            a.ret(libc::SECCOMP_RET_ERRNO | ENOSYS)
        });
    }
    a.ret(ALLOW);
}

/// Another process's priority or CPUs: a solver that lowers the harness's
/// priority, or pins its threads to a busy core, slows what it is measured
/// against. Its own (target 0) it may change; anything else fails with
/// EPERM. `setpriority` names its target by (which, who), the `sched_set*`
/// calls by their first argument.
fn own_scheduling_only(a: &mut Asm, setpriority: bool) {
    let deny = a.label();
    if setpriority {
        a.load(arg_lo(0));
        a.jne(0 /* PRIO_PROCESS */, deny);
        a.load(arg_lo(1));
    } else {
        a.load(arg_lo(0));
    }
    a.jne(0, deny);
    a.ret(ALLOW);
    a.mark(deny);
    a.ret(libc::SECCOMP_RET_ERRNO | libc::EPERM as u32);
}

/// A refused call: the process killed, or SIGSYS with what was tried.
fn refuse(a: &mut Asm, mode: Mode, call: Call, aim: Aim) {
    a.ret(match mode {
        Mode::Kill => libc::SECCOMP_RET_KILL_PROCESS,
        Mode::Trap => libc::SECCOMP_RET_TRAP | data(call, aim),
    });
}

/// A refused signal: as [`refuse`], with the signal (argument `sig`) in
/// the data.
fn refuse_signal(a: &mut Asm, mode: Mode, call: Call, aim: Aim, sig: u32) {
    if mode == Mode::Kill {
        return refuse(a, mode, call, aim);
    }
    a.load(arg_lo(sig));
    a.ops.push(Op::Stmt(AND_K, 0xff));
    a.ops
        .push(Op::Stmt(OR_K, libc::SECCOMP_RET_TRAP | data(call, aim)));
    a.ops.push(Op::Stmt(RET_A, 0));
}

/// The 16 bits a trapped call carries (see [`super::Tried`]).
fn data(call: Call, aim: Aim) -> u32 {
    ((aim as u32) << 12) | ((call as u32) << 8)
}

/// A call that sends signal argument `sig` to target argument `target`
/// (a pid, or with `groups` also 0, -1 and -PGID as `kill` reads them).
fn signal_rule(
    a: &mut Asm,
    p: &Protected,
    mode: Mode,
    call: Call,
    (target, sig): (u32, u32),
    groups: bool,
) {
    let (stop, harness, everyone, group, itself, allow) = (
        a.label(),
        a.label(),
        a.label(),
        a.label(),
        a.label(),
        a.label(),
    );
    a.load(arg_lo(sig));
    a.jeq(0, allow);
    a.load(arg_lo(target));
    for &h in &p.others {
        a.jeq(h, harness);
    }
    if groups {
        a.jeq(u32::MAX, everyone);
        for &g in &p.groups {
            a.jeq((g as i32).wrapping_neg() as u32, group);
        }
    }
    if let Some(me) = p.itself {
        if groups {
            a.jeq(0, itself);
            a.jeq((me as i32).wrapping_neg() as u32, itself);
        }
        a.jeq(me, itself);
        if call == Call::Tkill {
            // A thread's id: this process's own threads cannot be told
            // from others', so the interpreted signals are refused for all.
            a.always(itself);
        }
    }
    // Anyone else: all but the stop signals.
    a.load(arg_lo(sig));
    for s in STOPS {
        a.jeq(s as u32, stop);
    }
    a.mark(allow);
    a.ret(ALLOW);
    a.mark(stop);
    refuse_signal(a, mode, call, Aim::AnyProcess, sig);
    a.mark(harness);
    refuse_signal(a, mode, call, Aim::Harness, sig);
    a.mark(everyone);
    refuse_signal(a, mode, call, Aim::Everyone, sig);
    a.mark(group);
    refuse_signal(a, mode, call, Aim::Group, sig);
    a.mark(itself);
    let bad = a.label();
    a.load(arg_lo(sig));
    for s in STOPS.iter().chain(&INTERPRETED) {
        a.jeq(*s as u32, bad);
    }
    a.ret(ALLOW);
    a.mark(bad);
    refuse_signal(a, mode, call, Aim::Itself, sig);
}

/// `prlimit64(pid, resource, new, old)`: setting the limits of a process
/// other than the caller is refused (reading them is not).
fn prlimit_rule(a: &mut Asm, p: &Protected, mode: Mode) {
    let (allow, check_new, bad) = (a.label(), a.label(), a.label());
    a.load(arg_lo(0));
    a.jeq(0, allow);
    if let Some(me) = p.itself {
        a.jeq(me, allow);
    }
    a.load(arg_lo(2));
    a.jeq(0, check_new);
    a.always(bad);
    a.mark(check_new);
    a.load(arg_hi(2));
    a.jeq(0, allow);
    a.always(bad);
    a.mark(allow);
    a.ret(ALLOW);
    a.mark(bad);
    refuse(a, mode, Call::Prlimit, Aim::Anyone);
}

/// `fcntl(fd, F_SETOWN, pid)` with a pid (SIGIO and `F_SETSIG` would
/// signal it) and `F_SETOWN_EX` (whose target is behind a pointer).
fn fcntl_rule(a: &mut Asm, mode: Mode) {
    let (owner, bad) = (a.label(), a.label());
    a.load(arg_lo(1));
    a.jeq(F_SETOWN_EX, bad);
    a.jeq(F_SETOWN, owner);
    a.ret(ALLOW);
    a.mark(owner);
    a.load(arg_lo(2));
    a.jne(0, bad);
    a.ret(ALLOW);
    a.mark(bad);
    refuse(a, mode, Call::Fcntl, Aim::Anyone);
}

#[cfg(test)]
mod tests;
