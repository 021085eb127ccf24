//! Facts about the machine, the build and the run, for `meta.json`.

use std::time::{Instant, SystemTime};

/// True when a one-minute load average means other work competes for the
/// cores: at least half of them busy (and at least one).
pub fn busy(load: f64, cores: usize) -> bool {
    load >= (cores as f64 / 2.0).max(1.0)
}

/// The one-minute load average, where the system gives one.
pub fn load_average() -> Option<f64> {
    #[cfg(unix)]
    {
        let mut loads = [0f64; 3];
        // SAFETY: `getloadavg` writes at most `nelem` (here 1) doubles into
        // the buffer it is given, which has room for 3.
        let n = unsafe { libc::getloadavg(loads.as_mut_ptr(), 1) };
        (n >= 1).then_some(loads[0])
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// The command line as recorded in `meta.json`: arguments that are not
/// UTF-8 (a path can be any bytes on Unix) are kept with U+FFFD in place of
/// what cannot be shown, instead of stopping the program.
pub fn command_line() -> Vec<String> {
    std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

/// CPU time (user + system) the process has used so far, in ns.
pub fn process_cpu_ns() -> Option<u64> {
    #[cfg(unix)]
    {
        // SAFETY: `getrusage` writes one `rusage` into the zeroed struct we
        // own and pass by pointer; RUSAGE_SELF is always a valid target.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
            return None;
        }
        let ns = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1_000;
        Some(ns(ru.ru_utime) + ns(ru.ru_stime))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// CPU time the calling thread has used so far, in ns (`None` where the
/// platform has no per-thread clock): [`crate::solver::stopwatch::thread_cpu_ns`].
pub fn thread_cpu_ns() -> Option<u64> {
    crate::solver::stopwatch::thread_cpu_ns()
}

/// Current UTC time in RFC 3339 with seconds.
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(SystemTime::now()).to_string()
}

/// A fresh run identifier: 16 hex digits from the operating system's
/// random source.
pub fn new_run_id() -> String {
    format!("{:016x}", rand::random::<u64>())
}

/// Current UTC time as a compact stamp for directory names: 20261121T191500Z.
pub fn now_stamp() -> String {
    now_rfc3339()
        .chars()
        .filter(|c| *c != '-' && *c != ':')
        .collect()
}

/// The CPU's model name (the `sysinfo` crate: Linux, macOS, Windows, the
/// BSDs), or `unknown`.
pub fn cpu_model() -> String {
    let sys = sysinfo::System::new_with_specifics(
        sysinfo::RefreshKind::nothing().with_cpu(sysinfo::CpuRefreshKind::nothing()),
    );
    sys.cpus()
        .first()
        .map(|c| c.brand().trim().to_string())
        .filter(|b| !b.is_empty())
        .unwrap_or_else(|| "unknown".to_string())
}

pub fn logical_cores() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// The operating system: `linux (Debian GNU/Linux 12 (bookworm), kernel
/// 6.1.0)`, `macos (macOS 14.5, kernel 23.5.0)`, … (the `sysinfo` crate).
pub fn os_description() -> String {
    let os = std::env::consts::OS;
    let name = sysinfo::System::long_os_version();
    let kernel = sysinfo::System::kernel_version();
    match (name, kernel) {
        (Some(p), Some(k)) => format!("{os} ({p}, kernel {k})"),
        (Some(p), None) => format!("{os} ({p})"),
        (None, Some(k)) => format!("{os} (kernel {k})"),
        (None, None) => os.to_string(),
    }
}

pub fn git_commit() -> Option<String> {
    let c = env!("BENCH_SUDOKU_GIT_COMMIT");
    (!c.is_empty()).then(|| c.to_string())
}

pub fn target_features() -> Vec<String> {
    env!("BENCH_SUDOKU_TARGET_FEATURES")
        .split(',')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// CPU features detected at run time (x86-64: the ones solvers dispatch on).
pub fn cpu_features() -> Vec<String> {
    #[allow(unused_mut)]
    let mut v = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        macro_rules! probe {
            ($($f:tt),*) => {$(
                if std::arch::is_x86_feature_detected!($f) {
                    v.push($f.to_string());
                }
            )*};
        }
        probe!("sse4.2", "popcnt", "bmi1", "bmi2", "avx2", "avx512f", "avx512bw", "avx512vl");
    }
    v
}

/// Measures the clock: median cost of two back-to-back `Instant::now()`
/// reads (what the harness adds around every solve), and the smallest
/// nonzero step observed. 31 rounds of 1,000 pairs: about 60,000 clock
/// reads, a millisecond or two before the run starts, and a median that a
/// few rounds interrupted by the scheduler do not move.
pub fn timer_overhead() -> (f64, u64) {
    const ROUNDS: usize = 31;
    const PAIRS: u32 = 1000;
    let mut per_pair = Vec::with_capacity(ROUNDS);
    let mut resolution = u64::MAX;
    for _ in 0..ROUNDS {
        let t = Instant::now();
        for _ in 0..PAIRS {
            let a = Instant::now();
            let b = Instant::now();
            let d = b.duration_since(a).as_nanos() as u64;
            if d > 0 {
                resolution = resolution.min(d);
            }
            std::hint::black_box(d);
        }
        per_pair.push(t.elapsed().as_nanos() as f64 / PAIRS as f64);
    }
    per_pair.sort_by(|a, b| a.total_cmp(b));
    (
        per_pair[ROUNDS / 2],
        if resolution == u64::MAX {
            0
        } else {
            resolution
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keeps this thread busy for `ms` milliseconds; the wall time taken,
    /// in ns.
    fn spin(ms: u128) -> u64 {
        let start = Instant::now();
        let mut x = 0u64;
        while start.elapsed().as_millis() < ms {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(1));
        }
        start.elapsed().as_nanos() as u64
    }

    /// The thread clock counts this thread's work only: a spin of 40 ms
    /// adds about that much, a sleep of 40 ms almost nothing.
    #[test]
    #[cfg(any(target_os = "linux", target_os = "macos", target_os = "freebsd"))]
    fn thread_cpu_time_counts_work_not_waiting() {
        let before = thread_cpu_ns().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(40));
        let slept = thread_cpu_ns().unwrap() - before;
        assert!(slept < 10_000_000, "{slept} ns of CPU while asleep");
        let before = thread_cpu_ns().unwrap();
        let wall = spin(40);
        let used = thread_cpu_ns().unwrap() - before;
        // Shared machines may take the core away for most of the spin (the
        // tests run in parallel with each other): only a thread credited
        // with almost nothing is wrong.
        assert!(
            used >= wall / 10 && used <= wall + 1_000_000,
            "{used} ns of CPU in {wall} ns"
        );
    }

    /// Cross-checks `getrusage` against the wall clock: a thread that spins
    /// for 60 ms adds about that much CPU time, and never more than the wall
    /// time times the cores.
    #[test]
    #[cfg(unix)]
    fn process_cpu_time_counts_a_busy_thread() {
        let before = process_cpu_ns().unwrap();
        let wall = spin(60);
        let used = process_cpu_ns().unwrap() - before;
        // Shared machines may take the core away for most of the spin.
        assert!(used >= wall / 10, "{used} ns of CPU in {wall} ns");
        assert!(
            used <= wall * logical_cores() as u64 + 20_000_000,
            "{used} in {wall}"
        );
    }
}

#[cfg(test)]
mod load_tests {
    use super::*;

    /// `getloadavg` agrees with /proc/loadavg (Linux), the safe reading of
    /// the same figure.
    #[test]
    #[cfg(target_os = "linux")]
    fn load_average_matches_proc() {
        let ours = load_average().expect("a load average on Linux");
        let proc: f64 = std::fs::read_to_string("/proc/loadavg")
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap();
        // Both round to hundredths; the kernel may update between reads.
        assert!((ours - proc).abs() < 0.5, "{ours} vs {proc}");
    }

    #[test]
    fn warnings_name_debug_builds_oversubscription_and_load() {
        assert!(busy(1.0, 2) && !busy(0.9, 2) && busy(8.0, 16) && !busy(7.5, 16));
    }
}
