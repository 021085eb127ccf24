//! How a group of units runs: batches of one dataset are read, solved in
//! chunks ([`CHUNK`], [`WORKER_CHUNK`]) by the pool's threads, verified, put
//! back in input order, aggregated and written.
//!
//! A group is one (dataset, strategy) unit, or, in an interleaved run, every
//! strategy on one dataset: then each chunk is solved by every strategy in
//! turn on the thread that took it, the order changing from chunk to chunk
//! ([`solve::turn`]: each strategy at each turn, and right after each
//! other, equally often), so that whatever the machine does meets every
//! strategy alike, and the
//! same puzzle's times can be paired ([`super::paired`]).
//!
//! Every puzzle passes through two serial stages, one thread at a time:
//! the reader (one dataset, read in order) and the ordered writer (rows in
//! input order). Everything else per puzzle (parsing its row, solving,
//! verifying, formatting its row, adding it to the statistics) is done by
//! whichever thread holds its batch, so the serial stages stay small and
//! more threads keep paying off (`meta.json` records their cost:
//! `harness`). The reader only cuts the input into rows where it can
//! ([`read`]); the thread about to solve a batch parses it (with helper
//! threads, the reader parses it first while the solvers are busy).
//!
//! Two layouts, chosen by whether a core is left over for the pipeline:
//!
//! - **Helper threads** (fewer solver threads than cores): a dispatcher
//!   thread on a spare core reads and hands batches to the pool a few at a
//!   time as one job, whose chunks idle threads steal, with no barrier
//!   between jobs (it parses them itself while the solvers are busy);
//!   finishing threads on the spare cores verify each solved job, add it to
//!   their own statistics ([`aggregate`]) and format its rows, then hand it
//!   to the ordered writer. The solver threads do little but solve. A
//!   pool of one thread holds each job until it has solved the next, and
//!   then measures its spikes again ([`helpers::Held`]); a finishing
//!   thread flags them meanwhile ([`solve::Flagging::Later`]).
//! - **Workers only** (as many solver threads as cores, or more): there is
//!   no spare core, so handing records to other threads would only add work
//!   and context switches on the solvers' cores. Every pool thread runs one
//!   loop ([`rayon::ThreadPool::broadcast`]): it takes the next chunk from a
//!   shared queue and solves it, and when the queue runs low it reads the
//!   next batch itself. Whoever finishes a batch's last chunk finishes the
//!   batch (verification, statistics, rows) and hands it to the ordered
//!   writer. (Finishing per batch rather than per chunk interrupts the
//!   solves less often.) A chunk with spikes near its end to measure again
//!   is carried by its thread until it has solved its next chunk
//!   ([`solve::Span`], [`remeasure`]).
//!
//! In both, whoever holds the ordered writer writes every batch that is
//! next in order: it copies bytes and adds a few numbers per chunk.
//!
//! In the first layout at most `threads + 1` groups of a few batches are
//! held by the solvers and the writer (one more with one solver thread),
//! plus one being read; in the second
//! at most `2 × threads + 2` batches. Memory is bounded by the batch size
//! whatever the dataset size.
//!
//! One role per file: this one runs a group ([`run_group`]) and holds what
//! every part shares; `read` cuts the dataset into batches (limit, shard,
//! shuffle, skipped rows); `solve` times the solves of a chunk; `verify`
//! checks each answer; `order` finishes a batch and writes batches in input
//! order; `aggregate` holds each thread's statistics and merges them;
//! `helpers` and `workers` are the two thread layouts; `stages` accounts
//! for the CPU time of each stage when asked to; `probe` leaves parts of
//! finishing out in a diagnostic build (`--features harness-probe`), to
//! measure what each costs.

use super::metrics::{PuzzleOutcome, Repeats, Skipped, SmallCounts, UnitStats, CACHE_FACTOR};
use super::paired::{self, PairAcc};
use super::{sysinfo, DatasetInfo, Progress, RowFormat, RowSink, RunOptions, Slot, Stop};
use crate::dataset::{self, DatasetError, Record};
use crate::grid::Grid;
use crate::solver::{
    Answer, Builtin, Engine, ExternalSolver, Limits, NoopObserver, SolveResult, Solver,
    SolverInstance, Status, Strategy,
};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rayon::prelude::*;
use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

mod aggregate;
pub mod diagnostics;
mod helpers;
mod order;
mod pace;
mod probe;
mod read;
mod remeasure;
mod repeats;
mod solve;
mod stages;
mod verify;
mod workers;

use aggregate::*;
pub use aggregate::{GroupFacts, SerialTime};
use diagnostics::{injected_fault, skip as probe_skip};
use helpers::*;
use order::*;
use read::*;
use solve::*;
pub use stages::StageTotals;
use stages::*;
use verify::*;
use workers::*;

/// Puzzles of a block in the helper-threads layout: the strategies of a
/// group take turns block by block ([`solve::turn`]), and a practised run's
/// threads take (or steal) a block at a time. A cold run's threads take
/// larger spans ([`Job::span`]), shared out so that even a one-batch
/// dataset uses every thread.
const CHUNK: usize = 32;

/// The same in the workers-only layout: more than [`CHUNK`], since there
/// every span taken also costs a trip through the shared queue. Once the
/// input is exhausted the last spans of a one-pass run (or a practised
/// one) are halved as they are taken, down to [`MIN_CHUNK`], so hard
/// puzzles at the end do not leave a thread idle.
const WORKER_CHUNK: usize = 64;
pub const MIN_CHUNK: usize = 8;

thread_local! {
    static SOLVER: RefCell<Solver> = RefCell::new(Solver::new());
    /// The position in its chunk of the puzzle a solver thread is solving
    /// (`usize::MAX`: the whole chunk, with an external solver) and the
    /// strategy, for the message when a solve panics.
    static SOLVING: std::cell::Cell<(usize, usize)> = const { std::cell::Cell::new((usize::MAX, 0)) };
}

/// Keeps in `first` whichever dataset error comes first in the file, it or
/// `e`. Batches are prepared in parallel ([`Batch::prepare`]), so bad rows
/// can be met out of order; the one reported is the first, as when one
/// thread reads the whole file. An error without a line (the input itself)
/// counts as after every row.
fn keep_earlier(first: &mut Option<DatasetError>, e: DatasetError) {
    let at = |e: &DatasetError| e.line().unwrap_or(u64::MAX);
    if first.as_ref().is_none_or(|f| at(&e) < at(f)) {
        *first = Some(e);
    }
}

/// Why a group stopped: as its layout said, except that a solve given up
/// (an interrupt, the environment: `external::abandon`) unwinds out of its
/// stage like a panic and is what it is; or the stop flag.
fn why_stopped(stopped: Option<Stop>, stop: &AtomicBool) -> Option<Stop> {
    match (stopped, crate::solver::external::abandoned()) {
        (Some(Stop::Panic(_)), Some(a)) if a.environment => Some(Stop::Environment(a.why)),
        (Some(Stop::Panic(_)), Some(_)) => Some(Stop::Interrupted),
        (None, _) if stop.load(Ordering::Relaxed) => Some(Stop::Interrupted),
        (stopped, _) => stopped,
    }
}

/// What a panic's payload says.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(a) = payload.downcast_ref::<crate::solver::external::Abandon>() {
        a.why.clone()
    } else if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".to_string()
    }
}

/// Runs one stage of the pipeline; a panic becomes the message that ends
/// the group ([`Stop::Panic`]), naming the stage. No stage is left half
/// done in a way that blocks another thread: each layout turns the message
/// into the end of the group and wakes every thread.
fn guarded<T>(what: impl FnOnce() -> String, f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .map_err(|p| format!("a thread panicked {}: {}", what(), panic_message(&*p)))
}

/// Where reading, verification and writing run (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Layout {
    /// A reader thread and this many finishing threads beside the solver
    /// threads.
    Helpers(usize),
    /// The solver threads do everything.
    WorkersOnly,
}

impl Layout {
    /// The layout's name in `meta.json` and its helper threads (the reader
    /// and the finishing threads).
    pub(super) fn describe(self) -> (&'static str, usize) {
        match self {
            Layout::Helpers(finishing) => ("helpers", 1 + finishing),
            Layout::WorkersOnly => ("workers-only", 0),
        }
    }

    /// How many accumulators of statistics the group's threads fill: one
    /// per finishing thread, or per pool thread (of `threads`) when the
    /// solver threads finish their own batches.
    fn accumulators(self, threads: usize) -> usize {
        match self {
            Layout::WorkersOnly => threads,
            Layout::Helpers(finishing) => finishing,
        }
    }

    /// Helper threads when they have a core of their own.
    pub(super) fn for_threads(threads: usize) -> Layout {
        if threads >= sysinfo::logical_cores() {
            Layout::WorkersOnly
        } else {
            Layout::Helpers(finishers(threads))
        }
    }
}

/// Runs a group of units (one strategy, or all of them interleaved) on one
/// dataset with the given layout (see the module docs;
/// [`Layout::for_threads`] picks the one that suits a pool). Returns one
/// [`UnitStats`] per strategy, in the order given, why the group stopped
/// early (if it did) and the time spent in its serial stages.
///
/// Three steps: set up the runners, the statistics, the pairs and the
/// group's constants; run the layout, which reads, solves, finishes and
/// writes every batch; settle the statistics (the threads' accumulators
/// merged, the wall time shared out: [`settle`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn run_group(
    layout: Layout,
    opts: &RunOptions,
    info: &DatasetInfo,
    strategies: &[Strategy],
    baseline: Option<usize>,
    pool: &rayon::ThreadPool,
    rows: &mut dyn RowSink,
    progress: &dyn Progress,
    stop: &Arc<AtomicBool>,
) -> (Vec<UnitStats>, Option<Stop>, GroupFacts) {
    // Wake every pool thread before the clock starts: an idle thread can
    // take milliseconds to be scheduled again (virtual machines halt idle
    // CPUs), which is not the harness's cost.
    pool.broadcast(|_| ());
    let runners = runners(strategies, pool.current_num_threads());
    let start = Instant::now();

    // Set up: each strategy's statistics and rows, the pairs, the constants.
    let stats = unit_stats(opts, info, strategies);
    let formats = match start_rows(rows, info, strategies) {
        Ok(f) => f,
        Err(e) => return (stats, Some(Stop::Output(e)), GroupFacts::default()),
    };
    let mut stats: Vec<UnitStats> = stats
        .into_iter()
        .zip(&formats)
        .map(|(u, f)| u.sampling(f.is_some() && probe_skip() < probe::Skip::Sample))
        .collect();
    let (mut tally, gate_pair) = Tally::for_group(strategies, baseline, opts.gate_pair);
    let job = Job::new(
        opts, info, strategies, &runners, &formats, &tally, gate_pair,
    );
    let accumulators = layout.accumulators(pool.current_num_threads());
    let mut partials = Partials::new(
        accumulators,
        info.expected(opts),
        &stats,
        &tally.pairs,
        tally.gate.as_ref(),
    );

    // Run: the layout reads, solves, finishes and writes every batch.
    let out = Ordered::new(&mut stats, rows, progress, &mut tally, &partials.written);
    let (stopped, read_ns) = match layout {
        Layout::WorkersOnly => workers_only(opts, info, &job, pool, out, &partials, stop),
        Layout::Helpers(finishing) => {
            with_helpers(opts, info, &job, pool, out, &partials, finishing, stop)
        }
    };

    // Settle: the threads' accumulators merged, the wall time shared out.
    let content = partials.content.load(std::sync::atomic::Ordering::Relaxed);
    let repeats = partials.seen.repeats();
    partials.merge_into(&job, &mut stats, &mut tally);
    let mut stopped = why_stopped(stopped, stop);
    let wall_ns = start.elapsed().as_nanos() as u64;
    let stages = job.stages.totals();
    // Ends the group's solver processes and frees the library states and
    // the accumulators (after the wall time: shutting down is not the
    // group's work).
    drop(runners);
    drop(partials);
    if let Err(e) = rows.end_group() {
        stopped.get_or_insert(Stop::Output(e));
    }
    let solving_ns = settle(&mut stats, &tally, wall_ns, stopped.is_none(), opts.seed);
    let serial = SerialTime {
        read_ns,
        write_ns: tally.write_ns,
    };
    let facts = GroupFacts {
        serial,
        content,
        repeats,
        solving_ns,
        stages,
    };
    (stats, stopped, facts)
}

/// What solves each strategy's chunks: its built-in engine, or its
/// external solver's instances, one per pool thread.
fn runners(strategies: &[Strategy], threads: usize) -> Vec<Runner> {
    strategies
        .iter()
        .map(|s| match s.engine() {
            Engine::Builtin(b) => Runner::Builtin(*b),
            Engine::External(e) => Runner::External(Instances::new(e, threads)),
        })
        .collect()
}

/// Each strategy's statistics before the first puzzle: what the strategy
/// reports (its counters and clock) and how many passes it makes.
fn unit_stats(opts: &RunOptions, info: &DatasetInfo, strategies: &[Strategy]) -> Vec<UnitStats> {
    strategies
        .iter()
        .map(|s| {
            let caps = s.capabilities();
            let p = opts.passes_of(s.name());
            let mut u = UnitStats::new(&info.name, s.name(), p.repeat.max(1))
                .reporting(caps.counters, caps.clock);
            u.passes = p.total();
            u
        })
        .collect()
}

/// Starts the group in the sink of `puzzles.csv` rows: returns how each
/// strategy's rows are formatted (`None`: no rows).
fn start_rows(
    rows: &mut dyn RowSink,
    info: &DatasetInfo,
    strategies: &[Strategy],
) -> std::io::Result<Vec<Option<RowFormat>>> {
    let units: Vec<(&str, crate::solver::CounterSet)> = strategies
        .iter()
        .map(|s| (s.name(), s.capabilities().counters))
        .collect();
    rows.group(&info.name, &units)
}

/// Settles a group's statistics once every thread's accumulators are in
/// them: interleaved strategies share the wall time, each the share its
/// own solving took of the whole; every unit is complete unless the group
/// stopped early; the pairs become their results (the bootstrap, seeded
/// with `seed`). Returns the time the strategies spent solving, together.
fn settle(stats: &mut [UnitStats], tally: &Tally, wall_ns: u64, complete: bool, seed: u64) -> u64 {
    let strategies = tally.busy.len();
    let busy: u64 = tally.busy.iter().sum();
    for (u, &b) in stats.iter_mut().zip(&tally.busy) {
        u.wall_ns = if strategies == 1 || busy == 0 {
            wall_ns / strategies.max(1) as u64
        } else {
            (wall_ns as u128 * b as u128 / busy as u128) as u64
        };
        u.busy_ns = b;
        u.complete = complete;
    }
    for (u, acc) in stats.iter_mut().zip(&tally.pairs) {
        u.paired = acc.as_ref().map(|a| a.result(seed));
    }
    if let Some((c, acc)) = &tally.gate {
        stats[*c].paired_gate = Some(acc.result(seed));
    }
    busy
}

/// The per-group constants every chunk needs.
struct Job<'a> {
    /// The dataset's name (for messages).
    dataset: &'a str,
    strategies: &'a [Strategy],
    limits: &'a Limits,
    /// The most passes any strategy of the group makes.
    passes: u32,
    /// Each strategy's passes.
    each: Vec<crate::bench::Passes>,
    /// What solves for each strategy.
    runners: &'a [Runner],
    /// How each strategy's `puzzles.csv` rows are formatted (`None`: no
    /// rows).
    formats: &'a [Option<RowFormat>],
    /// The strategy the others are paired with.
    baseline: Option<usize>,
    /// The gate's (candidate, BASE) when BASE is not the baseline.
    gate_pair: Option<(usize, usize)>,
    /// CPU time per stage, when asked for ([`stages`]).
    stages: StageCpu,
    /// Each block's passes back to back (`run --practised`) instead of
    /// each pass over a whole span first (cold).
    practised: bool,
    /// When the blocks follow the solves' pace ([`pace::Pacing`]; every
    /// job's clocks do).
    paced: pace::Pacing,
    /// The job's number for the threads' pace ([`pace::epoch`]).
    pace_epoch: u64,
    /// Added to every chunk's rotation ([`RunOptions::rotation`]).
    rotation: usize,
    /// Puzzles per chunk in the helper layout and in the workers-only one
    /// ([`chunk_for`]).
    chunk: usize,
    worker_chunk: usize,
}

/// Puzzles per chunk: the layout's `usual`, or fewer (down to
/// [`MIN_CHUNK`]) for a dataset of `n` puzzles too small to fill twice
/// [`paired::MIN_BLOCKS`] chunks of it, so that a small standard corpus
/// (375 puzzles) still gives the paired interval the chunks it needs.
fn chunk_for(usual: usize, n: Option<u64>) -> usize {
    let Some(n) = n else { return usual };
    let fill = (n / (2 * paired::MIN_BLOCKS)) as usize;
    usual.min(fill).max(MIN_CHUNK)
}

impl<'a> Job<'a> {
    /// The constants of a group of `strategies` on `info`'s dataset, paired
    /// as `tally` and `gate_pair` say ([`Tally::for_group`]).
    fn new(
        opts: &'a RunOptions,
        info: &'a DatasetInfo,
        strategies: &'a [Strategy],
        runners: &'a [Runner],
        formats: &'a [Option<RowFormat>],
        tally: &Tally,
        gate_pair: Option<(usize, usize)>,
    ) -> Self {
        let n = info.expected(opts);
        Job {
            dataset: &info.name,
            chunk: chunk_for(CHUNK, n),
            worker_chunk: chunk_for(WORKER_CHUNK, n),
            strategies,
            limits: &opts.limits,
            passes: strategies
                .iter()
                .map(|s| opts.passes_of(s.name()).total())
                .max()
                .unwrap_or(1),
            each: strategies
                .iter()
                .map(|s| opts.passes_of(s.name()))
                .collect(),
            runners,
            formats,
            baseline: tally.baseline,
            gate_pair,
            stages: StageCpu::default(),
            practised: opts.practised,
            paced: pace::Pacing::of(runners),
            pace_epoch: pace::epoch(),
            rotation: opts.rotation,
        }
    }

    /// Whom the strategies are paired with.
    fn refs(&self) -> aggregate::Refs {
        aggregate::Refs {
            baseline: self.baseline,
            gate: self.gate_pair,
        }
    }

    /// Puzzles a thread takes at a time, given the layout's chunk. Cold, a
    /// whole batch (the helpers layout shares a one-pass job out among its
    /// threads): its passes are then a batch of other solves apart, and a
    /// spike that has [`remeasure::GAP`] solves after it is re-measured
    /// without untimed filler (a span of one chunk would need up to that
    /// many filler solves for every spike among its puzzles). Practised,
    /// the chunk.
    fn span(&self, chunk: usize) -> usize {
        if self.practised {
            chunk
        } else {
            usize::MAX
        }
    }

    /// Whether a span may be cut in two at the tail of the input, so that
    /// the last puzzles are shared by every thread: not when its passes
    /// must stay a span of solves apart (cold, with repeats).
    fn splittable(&self) -> bool {
        self.passes == 1 || self.practised
    }

    /// Strategy `k`'s warm-up passes.
    fn warmup(&self, k: usize) -> u32 {
        self.each[k].warmup
    }

    /// Strategy `k`'s passes, warm-up included.
    fn passes_of(&self, k: usize) -> u32 {
        self.each[k].total()
    }

    /// Strategy `k`'s measured passes.
    fn measured(&self, k: usize) -> u32 {
        self.passes_of(k) - self.warmup(k)
    }

    /// Where an external strategy's counts are checked (`None` for the
    /// built-in engines, which are the reference).
    fn count_check(&self, k: usize) -> Option<&Limits> {
        matches!(self.runners[k], Runner::External(_)).then_some(self.limits)
    }
}

/// What solves a strategy's chunks: a built-in engine (called directly), or
/// an external solver's per-thread instances.
enum Runner {
    Builtin(Builtin),
    External(Instances),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::{inspect, Shard, Silent};
    use crate::dataset::Format;
    use crate::solver::CounterSet;
    use std::io::Write;
    use std::path::PathBuf;

    /// Collects rows in memory (each group's units one after another, like
    /// the file); fails every write after `fail_after` bytes.
    struct Sink {
        rows: Vec<u8>,
        units: Vec<Vec<u8>>,
        fail_after: Option<usize>,
    }

    impl RowSink for Sink {
        fn group(
            &mut self,
            dataset: &str,
            units: &[(&str, CounterSet)],
        ) -> std::io::Result<Vec<Option<RowFormat>>> {
            self.end_group()?;
            self.units = vec![Vec::new(); units.len()];
            Ok(units
                .iter()
                .map(|&(s, c)| Some(RowFormat::new(dataset, s, c)))
                .collect())
        }
        fn write(&mut self, unit: usize, rows: &[u8]) -> std::io::Result<()> {
            if self.fail_after == Some(PANIC_ON_WRITE) {
                panic!("injected: the sink panics");
            }
            let held: usize = self.units.iter().map(Vec::len).sum();
            if self
                .fail_after
                .is_some_and(|n| self.rows.len() + held + rows.len() > n)
            {
                return Err(std::io::Error::other("disk full"));
            }
            self.units[unit].extend_from_slice(rows);
            Ok(())
        }
        fn end_group(&mut self) -> std::io::Result<()> {
            for u in self.units.drain(..) {
                self.rows.extend(u);
            }
            Ok(())
        }
    }

    /// A lines dataset of the shipped hard puzzles with a bad row every
    /// `bad_every` lines (0: none) and a comment at the top. The bad rows
    /// are alternately too short (read by the reader itself) and of the
    /// right length with a bad character (parsed by the thread that
    /// prepares its batch).
    fn dataset(name: &str, n: usize, bad_every: usize) -> PathBuf {
        dataset_with(name, n, |i| {
            (bad_every > 0 && i % bad_every == bad_every - 1).then(|| i / bad_every % 2 == 1)
        })
    }

    /// A lines dataset of `n` rows where `bad(i)` says whether row `i` is
    /// bad (`Some`) and if so whether it has 81 characters (`Some(true)`).
    fn dataset_with(name: &str, n: usize, bad: impl Fn(usize) -> Option<bool>) -> PathBuf {
        let hard = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/hard.csv"),
        )
        .unwrap();
        let dir =
            std::env::temp_dir().join(format!("bench-sudoku-pipeline-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        let mut f = std::fs::File::create(&path).unwrap();
        writeln!(f, "# generated by a unit test").unwrap();
        for (i, line) in hard.lines().skip(1).take(n).enumerate() {
            if let Some(wide) = bad(i) {
                if wide {
                    writeln!(f, "{}x{}", &line[..40], &line[41..81]).unwrap();
                } else {
                    writeln!(f, "12345").unwrap();
                }
            } else {
                writeln!(f, "{}", line.split(',').next().unwrap()).unwrap();
            }
        }
        path
    }

    fn options(path: PathBuf) -> RunOptions {
        RunOptions {
            datasets: vec![path],
            strategies: vec![Strategy::named("fast").unwrap()],
            threads: 2,
            repeat: 1,
            warmup: 0,
            practised: false,
            limit: None,
            shuffle: false,
            seed: 1,
            limits: Limits::first(),
            format: Format::Auto,
            batch_size: 50,
            skip_invalid: false,
            shard: None,
            sequential: false,
            baseline: 0,
            transform: None,
            gate_pair: None,
            rotation: 0,
            strategy_passes: Vec::new(),
            passes_given: false,
        }
    }

    /// Runs one unit (the first strategy); returns its stats, how it
    /// stopped and its rows with the time column blanked (times differ
    /// between runs).
    fn run(
        layout: Layout,
        opts: &RunOptions,
        fail_after: Option<usize>,
        stop: bool,
    ) -> (UnitStats, Option<Stop>, Vec<String>) {
        let (mut stats, stopped, rows) =
            run_strategies(layout, opts, &opts.strategies[..1], fail_after, stop);
        (stats.remove(0), stopped, rows)
    }

    /// Runs `strategies` as one group (interleaved when there are several,
    /// paired with the first).
    fn run_strategies(
        layout: Layout,
        opts: &RunOptions,
        strategies: &[Strategy],
        fail_after: Option<usize>,
        stop: bool,
    ) -> (Vec<UnitStats>, Option<Stop>, Vec<String>) {
        let infos = inspect(opts, true).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(opts.threads)
            .build()
            .unwrap();
        let mut sink = Sink {
            rows: Vec::new(),
            units: Vec::new(),
            fail_after,
        };
        let flag = Arc::new(AtomicBool::new(stop));
        let (stats, stopped, _) = run_group(
            layout,
            opts,
            &infos[0],
            strategies,
            Some(0),
            &pool,
            &mut sink,
            &Silent,
            &flag,
        );
        sink.end_group().unwrap();
        let rows = String::from_utf8(sink.rows)
            .unwrap()
            .lines()
            .map(|l| {
                let mut f: Vec<&str> = l.split(',').collect();
                f[7] = "";
                f.join(",")
            })
            .collect();
        (stats, stopped, rows)
    }

    /// What must not depend on the layout.
    fn summary(s: &UnitStats) -> (u64, u64, u64, u64, u64, Vec<Option<u64>>) {
        (
            s.puzzles,
            s.guesses_total,
            s.backtracks_total,
            s.max_depth_max,
            s.skipped,
            s.skipped_list.iter().map(|k| k.line).collect(),
        )
    }

    #[test]
    fn a_spike_is_measured_again_wherever_it_falls_in_either_layout() {
        let path = dataset("spiked.txt", 1000, 0);
        for layout in [Layout::Helpers(1), Layout::WorkersOnly] {
            let mut o = options(path.clone());
            o.batch_size = 256;
            // Early in a span (measured again at once), near a span's end
            // (after the thread's next span, or after filler solves) and
            // the last puzzle (no span follows it).
            solve::spikes::add(&[("spiked", 10), ("spiked", 250), ("spiked", 998)]);
            let (s, stopped, rows) = run(layout, &o, None, false);
            assert!(stopped.is_none(), "{layout:?}");
            assert!(
                solve::spikes::made("spiked"),
                "{layout:?}: every spike made"
            );
            assert_eq!(rows.len(), 1000);
            assert!(s.remeasured >= 3, "{layout:?}: {}", s.remeasured);
            assert!(
                s.time_max < solve::spikes::SPIKE_NS,
                "{layout:?}: {}",
                s.time_max
            );
        }
    }

    #[test]
    fn one_solver_thread_measures_spikes_near_a_jobs_end_during_its_next_job() {
        // Batches of 64; jobs of 4, but the first and those near the end
        // are of the 2 that hold GAP puzzles: 0-127, 128-383, 384-639,
        // 640-767, then the rest, 768-999. Spikes 6 and 7 solves before the
        // end of the second and third jobs, and on the last puzzle of the
        // dataset.
        let path = dataset("carried.txt", 1000, 0);
        let mut o = options(path);
        o.threads = 1;
        o.batch_size = 64;
        solve::spikes::add(&[("carried", 377), ("carried", 632), ("carried", 999)]);
        let (s, stopped, rows) = run(Layout::Helpers(1), &o, None, false);
        assert!(stopped.is_none());
        assert!(solve::spikes::made("carried"), "every spike made");
        let index: Vec<u64> = rows
            .iter()
            .map(|r| r.split(',').nth(1).unwrap().parse().unwrap())
            .collect();
        assert_eq!(
            index,
            (0..1000).collect::<Vec<u64>>(),
            "every row, in order"
        );
        assert!(s.remeasured >= 3, "{}", s.remeasured);
        assert!(s.time_max < solve::spikes::SPIKE_NS, "{}", s.time_max);
        // The first two wait for the next job's solves; only the last,
        // which no job follows, needs filler: GAP solves at most (each of
        // the three alone would need more than GAP - 10).
        let filler = remeasure::filled::of("carried");
        assert!(filler <= remeasure::GAP, "{filler} filler solves");
    }

    #[test]
    fn both_layouts_give_the_same_rows_in_input_order() {
        let path = dataset("layouts.txt", 700, 97);
        let mut variants = Vec::new();
        for (threads, shuffle, batch, shard, limit) in [
            (2, false, 50, None, None),
            (2, true, 64, None, None),
            (3, false, 1, None, None),
            (2, false, 33, Some(Shard { k: 2, n: 3 }), Some(500)),
            (1, true, 1000, None, None),
            // One batch: its last chunks are split among the threads.
            (2, false, 1000, None, None),
            (3, true, 1000, None, None),
        ] {
            let mut o = options(path.clone());
            o.threads = threads;
            o.shuffle = shuffle;
            o.batch_size = batch;
            o.shard = shard;
            o.limit = limit;
            o.skip_invalid = true;
            variants.push(o);
        }
        for o in &variants {
            // Finishing threads as many as the solver threads or more, so
            // that batches are finished out of order.
            let (a, sa, ra) = run(Layout::Helpers(o.threads + 1), o, None, false);
            let (b, sb, rb) = run(Layout::WorkersOnly, o, None, false);
            assert!(sa.is_none() && sb.is_none(), "{o:?}");
            assert!(a.complete && b.complete);
            assert_eq!(summary(&a), summary(&b), "{o:?}");
            assert_eq!(ra, rb, "{o:?}");
            assert_eq!(ra.len() as u64, a.puzzles);
            let index: Vec<u64> = ra
                .iter()
                .map(|r| r.split(',').nth(1).unwrap().parse().unwrap())
                .collect();
            assert!(index.windows(2).all(|w| w[0] < w[1]), "input order");
            if o.shard.is_none() && o.limit.is_none() {
                // Every 97th of 700 rows is bad: 7 skipped, the rest solved.
                assert_eq!((a.skipped, a.puzzles), (7, 693), "{o:?}");
            }
        }
    }

    #[test]
    fn a_bad_row_stops_either_layout_after_the_rows_before_it() {
        // The 300th row (line 301) is the first bad one: too short, read by
        // the reader itself; or of the right length, parsed in parallel
        // with later batches that hold more bad rows.
        let short = dataset_with("bad-short.txt", 400, |i| (i == 299).then_some(false));
        let wide = dataset_with("bad-wide.txt", 400, |i| {
            [299, 310, 360, 390].contains(&i).then_some(true)
        });
        // Batches of 50. The first (it holds the first line, which the
        // reader parses itself) ends after 50 rows; a batch of raw lines
        // also ends before a line the reader must parse: so with the short
        // row, the batch before it holds rows 250-298. The helper layout
        // hands batches on in groups of `GROUP` (rows 0-199, 200-399), and
        // a bad row parsed there stops its whole group; with one solver
        // thread its first job is the 3 batches that hold GAP puzzles and
        // the rest near the end go together (rows 0-149, 150-349, then
        // 350-399), so the bad row stops rows 150-349.
        for (path, written, grouped, alone) in [(short, 299, 299, 299), (wide, 250, 200, 150)] {
            for layout in [Layout::Helpers(1), Layout::Helpers(3), Layout::WorkersOnly] {
                for threads in [1, 2, 3] {
                    let written = match layout {
                        Layout::Helpers(_) if threads > 1 => grouped,
                        Layout::Helpers(_) => alone,
                        Layout::WorkersOnly => written,
                    };
                    let mut o = options(path.clone());
                    o.threads = threads;
                    let (stats, stopped, rows) = run(layout, &o, None, false);
                    let Some(Stop::Dataset(e)) = stopped else {
                        panic!("{layout:?}: {stopped:?}")
                    };
                    assert_eq!(e.line(), Some(301), "{layout:?} -j {threads}: {e}");
                    assert!(!stats.complete);
                    // Whole batches before the bad one are written, in order.
                    assert_eq!(rows.len() as u64, stats.puzzles);
                    assert_eq!(stats.puzzles, written, "{layout:?} -j {threads} {path:?}");
                }
            }
        }
    }

    #[test]
    fn a_failed_write_stops_either_layout() {
        let path = dataset("fail.txt", 600, 0);
        for layout in [Layout::Helpers(1), Layout::Helpers(3), Layout::WorkersOnly] {
            let (stats, stopped, rows) = run(layout, &options(path.clone()), Some(3000), false);
            assert!(matches!(stopped, Some(Stop::Output(_))), "{layout:?}");
            assert!(!stats.complete);
            assert!(rows.len() < 600);
        }
    }

    /// `fail_after` that makes the test sink panic on its first write.
    const PANIC_ON_WRITE: usize = usize::MAX;

    /// An in-process solver (what a Rust program gives `cli::main_with`)
    /// that panics on one puzzle and solves the others with `fast`.
    #[derive(Debug)]
    struct Panicky(Grid);

    struct PanickyInstance(Grid, Solver);

    impl crate::solver::SolverInstance for PanickyInstance {
        fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Answer {
            assert!(*puzzle != self.0, "injected: the solver panics");
            let fast = Strategy::named("fast").unwrap();
            let Some(b) = fast.builtin() else {
                unreachable!()
            };
            let r = self.1.solve_builtin(puzzle, b, limits, &mut NoopObserver);
            Answer::counted(puzzle, r.solutions, r.grid, r.counters)
        }
    }

    impl ExternalSolver for Panicky {
        fn default_label(&self) -> String {
            "panicky".into()
        }
        fn capabilities(&self) -> crate::solver::Capabilities {
            Strategy::named("fast").unwrap().capabilities()
        }
        fn spec(&self) -> String {
            "panicky".into()
        }
        fn description(&self) -> String {
            "panics on one puzzle".into()
        }
        fn instance(&self) -> anyhow::Result<Box<dyn SolverInstance>> {
            Ok(Box::new(PanickyInstance(self.0, Solver::new())))
        }
    }

    /// A dataset of 600 puzzles and a strategy that panics on the one at
    /// index 300.
    fn panicky_dataset(name: &str) -> (PathBuf, Strategy) {
        let path = dataset(name, 600, 0);
        let hard = std::fs::read_to_string(path.as_path()).unwrap();
        let victim = Grid::parse(hard.lines().nth(301).unwrap()).unwrap();
        let panicky = Strategy::external(
            "panicky",
            std::sync::Arc::new(Panicky(victim)) as std::sync::Arc<dyn ExternalSolver>,
        );
        (path, panicky)
    }

    /// A panic in a solver, or in the writer, ends the group promptly in
    /// either layout (no thread left waiting for the batch that never
    /// comes), with a message naming the stage, and what is written is
    /// marked incomplete.
    #[test]
    fn a_panic_anywhere_ends_either_layout() {
        let (path, panicky) = panicky_dataset("panic.txt");
        for layout in [Layout::Helpers(1), Layout::Helpers(3), Layout::WorkersOnly] {
            for threads in [1, 2, 3] {
                let mut o = options(path.clone());
                o.threads = threads;
                let strategies = [Strategy::named("fast").unwrap(), panicky.clone()];
                let (stats, stopped, rows) = run_strategies(layout, &o, &strategies, None, false);
                let Some(Stop::Panic(what)) = stopped else {
                    panic!("{layout:?} -j {threads}: {stopped:?}");
                };
                assert!(
                    what.contains("solving one of puzzles") && what.contains("with panicky"),
                    "{what}"
                );
                assert!(what.contains("injected: the solver panics"), "{what}");
                assert!(stats.iter().all(|u| !u.complete));
                assert!(rows.len() < 1200, "{layout:?}");
                // The statistics count exactly the rows written.
                let counted: u64 = stats.iter().map(|u| u.puzzles).sum();
                assert_eq!(counted, rows.len() as u64, "{layout:?} -j {threads}");

                let (stats, stopped, _) = run(layout, &o, Some(PANIC_ON_WRITE), false);
                let Some(Stop::Panic(what)) = stopped else {
                    panic!("{layout:?} -j {threads}: {stopped:?}");
                };
                assert!(what.contains("writing the results of panic"), "{what}");
                assert!(!stats.complete);
            }
        }
    }

    #[test]
    fn a_job_held_for_its_spikes_is_written_when_the_next_job_panics() {
        // Batches of 64 on one thread, whose first job is the 2 batches
        // that hold GAP puzzles: that job's spike near its end holds it
        // back; the solver panics in the second job (puzzles 128-383).
        let (path, panicky) = panicky_dataset("heldpanic.txt");
        let mut o = options(path);
        o.threads = 1;
        o.batch_size = 64;
        solve::spikes::add(&[("heldpanic", 120)]);
        let strategies = [Strategy::named("fast").unwrap(), panicky];
        let (stats, stopped, rows) =
            run_strategies(Layout::Helpers(1), &o, &strategies, None, false);
        assert!(matches!(stopped, Some(Stop::Panic(_))), "{stopped:?}");
        assert!(solve::spikes::made("heldpanic"));
        // The first job's 128 puzzles, by both strategies, and no more.
        assert_eq!(rows.len(), 2 * 128);
        let counted: u64 = stats.iter().map(|u| u.puzzles).sum();
        assert_eq!(counted, rows.len() as u64);
    }

    #[test]
    fn a_raised_stop_flag_ends_either_layout_early() {
        let path = dataset("stop.txt", 600, 0);
        for layout in [Layout::Helpers(1), Layout::Helpers(3), Layout::WorkersOnly] {
            let (stats, stopped, rows) = run(layout, &options(path.clone()), None, true);
            assert!(matches!(stopped, Some(Stop::Interrupted)), "{layout:?}");
            assert!(!stats.complete);
            assert!(stats.puzzles < 600, "{layout:?}");
            assert_eq!(rows.len() as u64, stats.puzzles);
        }
    }

    #[test]
    fn interleaving_leaves_every_answer_and_counter_as_sequential_runs_have_them() {
        let path = dataset("interleave.txt", 500, 0);
        let strategies: Vec<Strategy> = ["fast", "mrv", "locked,name=other", "fast,name=again"]
            .iter()
            .map(|s| Strategy::parse(s).unwrap())
            .collect();
        for (layout, threads, shuffle, batch, repeat) in [
            (Layout::Helpers(1), 2, false, 50, 1),
            (Layout::WorkersOnly, 2, true, 64, 2),
            (Layout::WorkersOnly, 3, false, 1000, 1),
            (Layout::Helpers(3), 1, true, 7, 1),
        ] {
            let mut o = options(path.clone());
            o.threads = threads;
            o.shuffle = shuffle;
            o.batch_size = batch;
            o.repeat = repeat;
            let (together, stopped, rows) = run_strategies(layout, &o, &strategies, None, false);
            assert!(stopped.is_none());
            let mut apart_rows = Vec::new();
            for (k, s) in strategies.iter().enumerate() {
                let (alone, stopped, rows) =
                    run_strategies(layout, &o, std::slice::from_ref(s), None, false);
                assert!(stopped.is_none() && alone[0].paired.is_none());
                let (a, b) = (&together[k], &alone[0]);
                assert_eq!(summary(a), summary(b), "{}", s.name());
                assert_eq!(a.status, b.status);
                assert_eq!(
                    (a.nodes_total, a.naked_total, a.hidden_total, a.no_guess),
                    (b.nodes_total, b.naked_total, b.hidden_total, b.no_guess)
                );
                assert_eq!(a.passes, b.passes);
                apart_rows.extend(rows);
            }
            // puzzles.csv row for row, unit after unit (times aside).
            assert_eq!(rows, apart_rows, "{layout:?}");
            // Every other strategy is paired with the first on every puzzle.
            assert!(together[0].paired.is_none());
            for u in &together[1..] {
                let p = u.paired.as_ref().unwrap();
                assert_eq!((p.pairs, p.unpaired, p.answers_differ), (500, 0, 0));
                assert_eq!(p.baseline, "fast");
            }
            // The same engine under another label searches the same way.
            let again = together[3].paired.as_ref().unwrap();
            assert_eq!((again.counters_differ, again.guesses_ratio), (0, Some(1.0)));
            let mrv = together[1].paired.as_ref().unwrap();
            assert!(mrv.counters_differ > 0 && mrv.guesses_ratio.unwrap() > 1.0);
            // The wall time is shared out, not counted once per strategy.
            let wall: u64 = together.iter().map(|u| u.wall_ns).sum();
            assert!(together.iter().all(|u| u.wall_ns > 0 && u.wall_ns < wall));
        }
    }

    /// A strategy with passes of its own (`repeat=`, `warmup=`) makes just
    /// those beside strategies that make the run's: its per-pass totals,
    /// its repeats and its passes are its own; answers, counters and the
    /// pairing are those of a run where every strategy makes one pass.
    #[test]
    fn a_strategy_makes_its_own_passes_beside_the_others() {
        let path = dataset("own-passes.txt", 300, 0);
        let strategies: Vec<Strategy> = ["fast", "mrv"]
            .iter()
            .map(|s| Strategy::parse(s).unwrap())
            .collect();
        for layout in [Layout::Helpers(1), Layout::WorkersOnly] {
            let mut o = options(path.clone());
            o.repeat = 3;
            o.warmup = 1;
            let own = crate::bench::Passes {
                warmup: 0,
                repeat: 1,
            };
            o.strategy_passes = vec![("mrv".to_string(), own)];
            let (mixed, stopped, _) = run_strategies(layout, &o, &strategies, None, false);
            assert!(stopped.is_none());
            let (fast, mrv) = (&mixed[0], &mixed[1]);
            assert_eq!((fast.passes, fast.pass_ns.len()), (4, 3), "{layout:?}");
            assert_eq!((mrv.passes, mrv.pass_ns.len()), (1, 1), "{layout:?}");
            assert_eq!(fast.repeated, 300);
            assert_eq!(mrv.repeated, 0);
            let mut one = options(path.clone());
            one.warmup = 0;
            let (single, _, _) = run_strategies(layout, &one, &strategies, None, false);
            for (a, b) in mixed.iter().zip(&single) {
                assert_eq!(summary(a), summary(b), "{}", a.strategy);
                assert_eq!(a.nodes_total, b.nodes_total);
            }
            let p = mrv.paired.as_ref().unwrap();
            assert_eq!((p.pairs, p.answers_differ), (300, 0));
        }
    }
}
