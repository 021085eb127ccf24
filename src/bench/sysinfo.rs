//! Facts about the machine, the build and the run, for `meta.json`.

use serde::{Deserialize, Serialize};
use std::time::{Instant, SystemTime};

/// The `meta` object of a results directory.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Meta {
    pub tool: String,
    pub version: String,
    /// Git commit of the build, when built from a checkout (`-dirty` when the
    /// tree had uncommitted changes).
    pub git_commit: Option<String>,
    /// `run --revision`: the revision of the solver under test, given for
    /// the run (each strategy's own is in `options.strategy_details`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
    pub command_line: Vec<String>,
    pub cpu_model: String,
    pub logical_cores: usize,
    pub threads: usize,
    pub os: String,
    pub arch: String,
    pub rustc: String,
    pub target: String,
    /// Target features the binary was compiled for.
    pub target_features: Vec<String>,
    /// CPU features detected at run time that the binary may dispatch to.
    pub cpu_features: Vec<String>,
    pub started: String,
    /// A random identifier of the run (of the merge, for merged results),
    /// so that two runs started in the same second are told apart (`history
    /// add` adds a run once). Absent in results written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    pub finished: Option<String>,
    /// Median cost of one pair of monotonic clock reads around a solve.
    pub timer_overhead_ns: f64,
    /// Resolution of the monotonic clock, as observed (smallest nonzero step).
    pub timer_resolution_ns: u64,
    pub options: RunOptionsMeta,
    pub datasets: Vec<DatasetMeta>,
    /// Puzzles × strategies processed when the run ended.
    pub processed: u64,
    pub complete: bool,
    /// Why the run ended early, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// The results directories a `merge` combined (empty for a run).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<String>,
    /// What the harness cost beside the solves (absent in merged results).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harness: Option<HarnessMeta>,
    /// The binary was built without optimizations (a debug build): its
    /// times are not representative. Absent (false) in release builds.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub debug_build: bool,
    /// The one-minute load average when the run started (Unix).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_average: Option<f64>,
}

/// Repeat spread (per-pass totals, max / min − 1) above which a run is
/// called noisy: docs/MEASUREMENT.md.
pub const NOISY_SPREAD_PCT: f64 = 5.0;

impl Meta {
    /// Each strategy's revision in words (`mine a1b2c3d (git describe in
    /// DIR)`), external solvers first; the built-in strategies share one
    /// entry (bench-sudoku's build). Empty for results written before
    /// revisions were recorded.
    pub fn revisions(&self) -> Vec<String> {
        let details = &self.options.strategy_details;
        let mut out: Vec<String> = details
            .iter()
            .filter(|d| d.kind != "builtin")
            .map(|d| match (&d.revision, &d.revision_from) {
                (Some(r), Some(from)) => format!("{} {r} ({from})", d.name),
                (Some(r), None) => format!("{} {r}", d.name),
                _ => format!("{} (revision unknown)", d.name),
            })
            .collect();
        if let Some(r) = details
            .iter()
            .find(|d| d.kind == "builtin")
            .and_then(|d| d.revision.as_ref())
        {
            out.push(format!("built-in strategies {r} (bench-sudoku's build)"));
        }
        out
    }

    /// What a reader of this run's figures should be warned about, known
    /// before the results: a debug build, more threads than logical cores,
    /// a machine already busy when the run started.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        if self.debug_build {
            w.push(
                "debug build: the binary is not optimized and its times are 10-50x slower than a \
                 release build (cargo build --release)"
                    .to_string(),
            );
        }
        if self.threads > self.logical_cores {
            w.push(format!(
                "{} threads on {} logical cores: threads share cores and the times include waiting",
                self.threads, self.logical_cores
            ));
        }
        if let Some(w2) = self.options.practised_warning() {
            w.push(w2);
        }
        if let Some(load) = self.load_average {
            if busy(load, self.logical_cores) {
                w.push(format!(
                    "the machine was busy when the run started (load average {load:.2} on {} logical cores): times may be noisy",
                    self.logical_cores
                ));
            }
        }
        w
    }
}

/// Solves between two of one puzzle by one strategy from which the second
/// is as slow as the first: on the corpora a repeat 256 puzzles later is
/// within 1-2 % of the first solve, one 16 later is 10-35 % faster
/// (`examples/cold_distance.rs`, docs/MEASUREMENT.md "Cold by default").
pub const COLD_SOLVES: usize = 256;

impl RunOptionsMeta {
    /// A cold run whose batches are too small for cold repeats: the
    /// repeats of a puzzle are only a batch of solves apart.
    pub fn practised_warning(&self) -> Option<String> {
        let gap = self.batch_size.saturating_mul(self.strategies.len().max(1));
        (self.timing == "cold" && self.repeat + self.warmup > 1 && gap < COLD_SOLVES).then(|| {
            format!(
                "--batch-size {}: a puzzle's repeats are only {gap} solves apart, fewer than the \
                 {COLD_SOLVES} that make a repeat cold: the times are partly practised",
                self.batch_size
            )
        })
    }
}

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

/// What the harness cost beside the solves: its layout, its serial stages
/// (what one thread at a time must do for every puzzle, which bounds the
/// throughput however many cores there are) and the process's CPU time.
/// "Per puzzle" is per puzzle × strategy processed.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct HarnessMeta {
    /// `helpers` (a reading thread and finishing threads beside the solver
    /// threads) or `workers-only` (the solver threads do everything).
    pub layout: String,
    pub solver_threads: usize,
    pub helper_threads: usize,
    /// Reading the dataset (one reader at a time: cutting it into rows;
    /// parsing them is done in parallel), ns of the reading thread's CPU
    /// time per puzzle.
    pub read_ns_per_puzzle: f64,
    /// The ordered writer (one thread at a time), ns per puzzle.
    pub write_ns_per_puzzle: f64,
    /// Both serial stages, ns per puzzle. With `t` ns of solving per
    /// puzzle, no number of threads can go faster than one puzzle per
    /// `max(read, write)` ns, and a layout where one thread does both runs
    /// at most `t / serial` threads' worth of solving.
    pub serial_ns_per_puzzle: f64,
    /// CPU time of the process (user + system) while the units ran, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_ns: Option<u64>,
    /// CPU time beyond the measured solve times, as a percentage of them:
    /// the harness's whole cost (timing, reading, verification, rows,
    /// aggregation, writing, waiting threads that spin). Only with one pass
    /// over each puzzle, like `solve_loop_ns_per_puzzle`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harness_cpu_pct: Option<f64>,
    /// The solving loop beyond the measured solve times, ns per puzzle: the
    /// clock reads around each solve, the chunk loop, storing each result
    /// (by the chunks' own clocks). Only with one pass over each puzzle (no
    /// `--warmup`, no `--repeat`), where the measured solve times are every
    /// solve's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solve_loop_ns_per_puzzle: Option<f64>,
    /// CPU time of the other per-puzzle stages, ns per puzzle, when the run
    /// was made with `BENCH_SUDOKU_STAGE_TIMES=1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stages: Option<StagesMeta>,
}

/// Where the CPU time per puzzle went in the stages besides reading,
/// solving and the ordered writer (every thread's CPU time in the stage,
/// summed, divided by the puzzles × strategies solved). With
/// `read_ns_per_puzzle` and `solve_loop_ns_per_puzzle` these account for
/// most of `harness_cpu_pct`; the rest is handing batches between threads
/// and what a group costs once (threads, histograms).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StagesMeta {
    /// Parsing batches (and `--transform`, `--shuffle`).
    pub prepare_ns_per_puzzle: f64,
    /// Verification, statistics, rows, the ordered writer and the write.
    pub finish_ns_per_puzzle: f64,
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
/// platform has no per-thread clock). Unlike the wall clock it does not
/// count the time the thread waits for a core.
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

fn practised() -> String {
    "practised".into()
}

/// The options that shape the numbers.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RunOptionsMeta {
    pub strategies: Vec<String>,
    pub repeat: u32,
    pub warmup: u32,
    /// Solution limit per solve (1: first solution; 2: proves uniqueness).
    pub solution_limit: u32,
    pub max_guesses: u64,
    pub limit: Option<u64>,
    pub shuffle: bool,
    pub seed: u64,
    pub batch_size: usize,
    pub puzzle_csv: bool,
    pub skip_invalid: bool,
    /// Which per-puzzle time is kept over the measured repeats.
    pub time_kept: String,
    /// `cold` (every pass over a whole batch before the next, so repeats
    /// of a puzzle are a batch of solves apart) or `practised` (`run
    /// --practised`: each chunk's passes back to back). Results written
    /// before the field existed were practised.
    #[serde(default = "practised")]
    pub timing: String,
    /// `--shard K/N` when the run covered one part of every dataset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// How each strategy ran: built-in or external, its spec, what it
    /// reports and which clock times it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub strategy_details: Vec<StrategyMeta>,
    /// The per-puzzle time limit of external solvers (`--timeout`), when
    /// the run has any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,
    /// How the strategies of a dataset ran: `interleaved` (each chunk by
    /// every strategy in turn on one thread) or `sequential`. Absent in runs
    /// of one strategy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<String>,
    /// The strategy the others are paired with (interleaved runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// `--transform SEED`: every puzzle was solved as a random isomorph
    /// (ChaCha8 seeded with SEED on the stream of the puzzle's index), its
    /// answer mapped back and verified against the puzzle as read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transform: Option<u64>,
}

/// One strategy of a run, as `meta.json` records it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct StrategyMeta {
    pub name: String,
    /// `builtin`, `lib` or `cmd`.
    pub kind: String,
    /// The axes of a built-in strategy; an external solver's canonical spec.
    pub spec: String,
    pub description: String,
    pub counters: crate::solver::CounterSet,
    pub clock: crate::solver::Clock,
    /// The compiled build of the engine this run used, for engines with
    /// several ([`crate::solver::Strategy::code_path`]). Absent for the
    /// others and in results written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_path: Option<String>,
    /// The revision of the solver the run measured (`rev=`, `run
    /// --revision`, `git describe` of its work tree, or bench-sudoku's build
    /// for a built-in strategy); absent when unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
    /// Where `revision` came from, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision_from: Option<String>,
}

impl StrategyMeta {
    pub fn of(s: &crate::solver::Strategy) -> Self {
        let caps = s.capabilities();
        StrategyMeta {
            name: s.name().to_string(),
            kind: s.kind(),
            spec: s.axes(),
            description: s.description(),
            counters: caps.counters,
            clock: caps.clock,
            code_path: s.code_path().map(str::to_string),
            revision: s.revision().map(|r| r.id.clone()),
            revision_from: s.revision().map(|r| r.from.text()),
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DatasetMeta {
    pub name: String,
    pub path: String,
    pub format: String,
    pub gzip: bool,
    pub has_solutions: bool,
    pub puzzles: u64,
    pub skipped: u64,
    /// A hash of the records as read (`xxh3-sum:` and 16 hex digits: the
    /// wrapping sum of each record's XXH3 hash, seeded with its index, over
    /// its puzzle and solution). Two runs that read the same puzzles at the
    /// same positions have the same; the sum over shards is the unsharded
    /// run's. Absent in results written before it existed, or by a run
    /// that stopped early.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_hash: Option<String>,
}

/// The form of [`DatasetMeta::content_hash`].
pub fn content_hash(sum: u64) -> String {
    format!("xxh3-sum:{sum:016x}")
}

/// The sum inside a [`DatasetMeta::content_hash`].
pub fn content_sum(hash: &str) -> Option<u64> {
    u64::from_str_radix(hash.strip_prefix("xxh3-sum:")?, 16).ok()
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
