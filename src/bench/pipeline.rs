//! How a group of units runs: batches of one dataset are read, solved in
//! chunks ([`CHUNK`], [`WORKER_CHUNK`]) by the pool's threads, verified, put
//! back in input order, aggregated and written.
//!
//! A group is one (dataset, strategy) unit, or, in an interleaved run, every
//! strategy on one dataset: then each chunk is solved by every strategy in
//! turn on the thread that took it, the order rotating from chunk to chunk,
//! so that whatever the machine does meets every strategy alike, and the
//! same puzzle's times can be paired ([`super::paired`]).
//!
//! Two layouts, chosen by whether a core is left over for the pipeline:
//!
//! - **Helper threads** (fewer solver threads than cores): a reader thread
//!   and a writer thread run on the spare cores. The reader sends batches
//!   over a bounded channel; each batch is one job in the pool, whose chunks
//!   idle threads steal, with no barrier between batches; the writer
//!   verifies every answer, restores input order, aggregates and writes. The
//!   solver threads do nothing but solve.
//! - **Workers only** (as many solver threads as cores, or more): there is
//!   no spare core, so handing records to other threads would only add work
//!   and context switches on the solvers' cores. Every pool thread runs one
//!   loop ([`rayon::ThreadPool::broadcast`]): it takes the next chunk from a
//!   shared queue and solves it, and when the queue runs low it reads the
//!   next batch itself. Whoever finishes a batch's last chunk verifies the
//!   batch's answers, formats its rows and hands it to the ordered writer;
//!   whoever holds the writer writes every batch that is next in order.
//!   (Verifying per batch rather than per chunk leaves the solves fewer
//!   interruptions: 0.7 % less wall time per solve time, measured.)
//!
//! In both layouts at most `threads + 1` batches are held by the solvers
//! and the writer (plus [`IN_FLIGHT`] queued by the reader in the first), so
//! memory is bounded by the batch size whatever the dataset size.

use super::metrics::{PuzzleOutcome, Skipped, SmallCounts, UnitStats};
use super::paired::{self, PairAcc};
use super::{sysinfo, DatasetInfo, Progress, RowFormat, RowSink, RunOptions, Stop, IN_FLIGHT};
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

/// How long an idle worker spins before it sleeps.
const SPIN: std::time::Duration = std::time::Duration::from_micros(200);

/// Puzzles a solver thread takes at a time; idle threads take (or steal)
/// the next chunk, so even a one-batch dataset uses every thread and the
/// end of a unit leaves no thread idle for long.
const CHUNK: usize = 32;

/// Puzzles a worker takes at a time in the workers-only layout: more than
/// [`CHUNK`], since there every chunk also costs a trip through the shared
/// queue (docs/PERFORMANCE.md §2 compares 64 with 32). Once the input is
/// exhausted the last
/// chunks are halved as they are taken, down to [`MIN_CHUNK`], so hard
/// puzzles at the end do not leave a thread idle.
const WORKER_CHUNK: usize = 64;
const MIN_CHUNK: usize = 8;

thread_local! {
    static SOLVER: RefCell<Solver> = RefCell::new(Solver::new());
}

/// One batch: the records in solve order plus rows skipped while reading it.
struct Batch {
    records: Vec<Record>,
    skipped: Vec<Skipped>,
}

/// Where reading, verification and writing run (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Layout {
    /// A reader and a writer thread beside the solver threads.
    Helpers,
    /// The solver threads do everything.
    WorkersOnly,
}

impl Layout {
    /// Helper threads when they have a core of their own.
    pub(super) fn for_threads(threads: usize) -> Layout {
        if threads >= sysinfo::logical_cores() {
            Layout::WorkersOnly
        } else {
            Layout::Helpers
        }
    }
}

/// Runs a group of units (one strategy, or all of them interleaved) on one
/// dataset with the given layout (see the module docs;
/// [`Layout::for_threads`] picks the one that suits a pool). Returns one
/// [`UnitStats`] per strategy, in the order given.
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
) -> (Vec<UnitStats>, Option<Stop>) {
    // Wake every pool thread before the clock starts: an idle thread can
    // take milliseconds to be scheduled again (virtual machines halt idle
    // CPUs), which is not the harness's cost.
    pool.broadcast(|_| ());
    let runners: Vec<Runner> = strategies
        .iter()
        .map(|s| match s.engine() {
            Engine::Builtin(b) => Runner::Builtin(*b),
            Engine::External(e) => Runner::External(Instances::new(e, pool.current_num_threads())),
        })
        .collect();
    let start = Instant::now();
    let repeat = opts.repeat.max(1);
    let mut stats: Vec<UnitStats> = strategies
        .iter()
        .map(|s| {
            let caps = s.capabilities();
            let mut u =
                UnitStats::new(&info.name, s.name(), repeat).reporting(caps.counters, caps.clock);
            u.passes = opts.warmup + repeat;
            u
        })
        .collect();
    let units: Vec<(&str, crate::solver::CounterSet)> = strategies
        .iter()
        .map(|s| (s.name(), s.capabilities().counters))
        .collect();
    let formats = match rows.group(&info.name, &units) {
        Ok(f) => f,
        Err(e) => return (stats, Some(Stop::Output(e))),
    };
    let mut tally = Tally {
        baseline: baseline.filter(|&b| b < strategies.len() && strategies.len() > 1),
        pairs: Vec::new(),
        busy: vec![0; strategies.len()],
    };
    tally.pairs = strategies
        .iter()
        .enumerate()
        .map(|(k, s)| match tally.baseline {
            Some(b) if b != k => Some(PairAcc::new(
                strategies[b].name(),
                strategies[b].capabilities().counters,
                s.capabilities().counters,
            )),
            _ => None,
        })
        .collect();
    let job = Job {
        strategies,
        limits: &opts.limits,
        passes: opts.warmup + repeat,
        warmup: opts.warmup,
        runners: &runners,
        formats: &formats,
        baseline: tally.baseline,
    };
    let out = Ordered {
        pending: BTreeMap::new(),
        next: 0,
        stats: &mut stats,
        sink: rows,
        progress,
        error: None,
        small: (0..strategies.len())
            .map(|_| SmallCounts::default())
            .collect(),
        tally: &mut tally,
    };
    let mut stopped = match layout {
        Layout::WorkersOnly => workers_only(opts, info, &job, pool, out, stop),
        Layout::Helpers => with_helpers(opts, info, &job, pool, out, stop),
    };
    if stopped.is_none() && stop.load(Ordering::Relaxed) {
        stopped = Some(Stop::Interrupted);
    }
    let wall_ns = start.elapsed().as_nanos() as u64;
    // Ends the group's solver processes and frees the library states (after
    // the wall time: shutting down is not the group's work).
    drop(runners);
    if let Err(e) = rows.end_group() {
        stopped.get_or_insert(Stop::Output(e));
    }
    // Interleaved strategies share the wall time: each is given the share
    // its own solving took of the whole.
    let busy: u64 = tally.busy.iter().sum();
    for (u, &b) in stats.iter_mut().zip(&tally.busy) {
        u.wall_ns = if strategies.len() == 1 || busy == 0 {
            wall_ns / strategies.len().max(1) as u64
        } else {
            (wall_ns as u128 * b as u128 / busy as u128) as u64
        };
        u.complete = stopped.is_none();
    }
    for (u, acc) in stats.iter_mut().zip(&tally.pairs) {
        u.paired = acc.as_ref().map(|a| a.result(opts.seed));
    }
    (stats, stopped)
}

/// The per-group constants every chunk needs.
struct Job<'a> {
    strategies: &'a [Strategy],
    limits: &'a Limits,
    passes: u32,
    warmup: u32,
    /// What solves for each strategy.
    runners: &'a [Runner],
    /// How each strategy's `puzzles.csv` rows are formatted (`None`: no
    /// rows).
    formats: &'a [Option<RowFormat>],
    /// The strategy the others are paired with.
    baseline: Option<usize>,
}

impl Job<'_> {
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

/// What the writer accumulates across strategies: the pairs with the
/// baseline and each strategy's solving time (to share the wall time).
struct Tally {
    baseline: Option<usize>,
    pairs: Vec<Option<PairAcc>>,
    busy: Vec<u64>,
}

/// One instance of an external solver per pool thread, made on the
/// thread's first chunk and dropped when the unit ends (which stops solver
/// processes and frees library states).
struct Instances {
    solver: std::sync::Arc<dyn ExternalSolver>,
    slots: Vec<Mutex<Option<Box<dyn SolverInstance>>>>,
}

impl Instances {
    fn new(solver: &std::sync::Arc<dyn ExternalSolver>, threads: usize) -> Self {
        Instances {
            solver: std::sync::Arc::clone(solver),
            slots: (0..threads.max(1)).map(|_| Mutex::new(None)).collect(),
        }
    }

    /// Solves `puzzles` with the calling pool thread's instance; when none
    /// can be made, every puzzle is `crashed` with the reason (and the next
    /// chunk tries again).
    fn solve_batch(&self, puzzles: &[Grid], limits: &Limits, out: &mut Vec<Answer>) {
        let i = rayon::current_thread_index().unwrap_or(0) % self.slots.len();
        let mut slot = self.slots[i].lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            match self.solver.instance() {
                Ok(instance) => *slot = Some(instance),
                Err(e) => {
                    let why = format!("{e:#}");
                    out.extend(
                        puzzles
                            .iter()
                            .map(|p| Answer::fault(p, Status::Crashed, why.clone())),
                    );
                    return;
                }
            }
        }
        if let Some(instance) = slot.as_mut() {
            instance.solve_batch(puzzles, limits, out);
        }
    }
}

/// A raw result on its way to verification.
struct Solved {
    result: SolveResult,
    time_ns: u64,
}

/// What an external solver's answer carries beyond a [`Solved`]. Kept apart
/// so that the built-in engines' loop writes no more than it needs.
#[derive(Default)]
struct Extra {
    /// An external solver's fault, or why its solution is not a grid.
    note: Option<Box<str>>,
    /// The solver counted solutions without writing one (only the count
    /// can be checked).
    unwritten: bool,
}

/// A chunk solved by one strategy: results in solve order, each measured
/// pass's total, the time the strategy took over the whole chunk (warm-up
/// and clock reads included) and, for an external solver, the [`Extra`] of
/// each result (empty otherwise).
#[derive(Default)]
struct Chunk {
    solved: Vec<Solved>,
    extra: Vec<Extra>,
    pass_ns: Vec<u64>,
    busy_ns: u64,
}

/// Solves a chunk `passes` times with every strategy of the job: pass by
/// pass, and within a pass strategy after strategy, starting with strategy
/// `(rotation + pass) % n` (so that each strategy comes first as often as
/// the others, and no strategy always follows another on the same
/// puzzles). Keeps each puzzle's minimum time over the measured passes and
/// each measured pass's total. Returns one [`Chunk`] per strategy, in the
/// job's order.
fn solve_chunk(records: &[Record], job: &Job, rotation: usize) -> Vec<Chunk> {
    let n = job.strategies.len();
    let measured = (job.passes - job.warmup) as usize;
    let mut out: Vec<Chunk> = (0..n)
        .map(|_| Chunk {
            solved: Vec::with_capacity(records.len()),
            extra: Vec::new(),
            pass_ns: vec![0; measured],
            busy_ns: 0,
        })
        .collect();
    // An external solver's puzzles, made once.
    let puzzles: Vec<Grid> = if job.runners.iter().any(|r| matches!(r, Runner::External(_))) {
        records.iter().map(|r| r.puzzle).collect()
    } else {
        Vec::new()
    };
    for pass in 0..job.passes {
        for j in 0..n {
            let k = (rotation + pass as usize + j) % n;
            let start = Instant::now();
            match &job.runners[k] {
                Runner::Builtin(b) => solve_pass_builtin(records, job, b, pass, &mut out[k]),
                Runner::External(instances) => {
                    solve_pass_external(&puzzles, job, instances, pass, &mut out[k])
                }
            }
            out[k].busy_ns += start.elapsed().as_nanos() as u64;
        }
    }
    out
}

/// One pass of [`solve_chunk`] for a built-in engine, called directly
/// (static dispatch). Each solve is timed alone with the monotonic clock;
/// nothing else happens between the two clock reads. A function of its
/// own, so that the code around the clock reads is chosen for this loop
/// alone. Warm-up times are not kept.
#[inline(never)]
fn solve_pass_builtin(
    records: &[Record],
    job: &Job,
    builtin: &Builtin,
    pass: u32,
    chunk: &mut Chunk,
) {
    let measured = pass >= job.warmup;
    let first = pass == 0;
    let solved = &mut chunk.solved;
    let mut total = 0u64;
    SOLVER.with(|s| {
        let mut solver = s.borrow_mut();
        for (i, rec) in records.iter().enumerate() {
            let t = Instant::now();
            let result = solver.solve_builtin(&rec.puzzle, builtin, job.limits, &mut NoopObserver);
            let ns = t.elapsed().as_nanos() as u64;
            total += ns;
            let kept = if measured { ns } else { u64::MAX };
            if first {
                solved.push(Solved {
                    result,
                    time_ns: kept,
                });
            } else {
                let s = &mut solved[i];
                s.time_ns = s.time_ns.min(kept);
                debug_assert_eq!(s.result.counters, result.counters);
            }
        }
    });
    if measured {
        chunk.pass_ns[(pass - job.warmup) as usize] = total;
    }
}

/// One pass of [`solve_chunk`] for an external solver: the chunk goes to
/// the thread's instance as one batch (a solver process gets its requests
/// pipelined), and each answer carries its time. A puzzle that fails in any
/// pass keeps its first fault.
fn solve_pass_external(
    puzzles: &[Grid],
    job: &Job,
    instances: &Instances,
    pass: u32,
    chunk: &mut Chunk,
) {
    let measured = pass >= job.warmup;
    let mut answers = Vec::with_capacity(puzzles.len());
    instances.solve_batch(puzzles, job.limits, &mut answers);
    debug_assert_eq!(answers.len(), puzzles.len());
    let mut total = 0u64;
    for (i, a) in answers.into_iter().enumerate() {
        let fault = a.result.status.is_fault();
        let ns = if fault { 0 } else { a.time_ns.unwrap_or(0) };
        total += ns;
        let kept = if measured && !fault { ns } else { u64::MAX };
        if pass == 0 {
            chunk.solved.push(Solved {
                result: a.result,
                time_ns: kept,
            });
            chunk.extra.push(Extra {
                note: a.note,
                unwritten: a.unwritten,
            });
            continue;
        }
        let (Some(s), Some(e)) = (chunk.solved.get_mut(i), chunk.extra.get_mut(i)) else {
            break;
        };
        if s.result.status.is_fault() {
            continue;
        }
        if fault {
            *s = Solved {
                result: a.result,
                time_ns: u64::MAX,
            };
            *e = Extra {
                note: a.note,
                unwritten: false,
            };
        } else {
            s.time_ns = s.time_ns.min(kept);
        }
    }
    if measured {
        chunk.pass_ns[(pass - job.warmup) as usize] = total;
    }
}

/// Verifies every answer of a chunk (in solve order), appending the
/// outcomes to `out`. With `count_check` (external solvers), each count is
/// also checked against the built-in `fast` engine's, outside the timed
/// region.
fn verify(
    records: &[Record],
    chunk: &Chunk,
    count_check: Option<&Limits>,
    out: &mut Vec<PuzzleOutcome>,
) {
    const PLAIN: Extra = Extra {
        note: None,
        unwritten: false,
    };
    let results = records.iter().zip(&chunk.solved);
    if chunk.extra.is_empty() {
        // A built-in engine: nothing beyond the results.
        out.extend(results.map(|(rec, s)| outcome(rec, s, &PLAIN, count_check)));
    } else {
        out.extend(
            results
                .zip(&chunk.extra)
                .map(|((rec, s), x)| outcome(rec, s, x, count_check)),
        );
    }
}

/// Verifies a result and turns it into the aggregator's record. Inlined
/// into [`verify`]'s loop, so that the record is built in place.
#[inline(always)]
fn outcome(rec: &Record, s: &Solved, x: &Extra, count_check: Option<&Limits>) -> PuzzleOutcome {
    let r = &s.result;
    if r.status.is_fault() {
        return PuzzleOutcome {
            index: rec.index,
            line: rec.line,
            status: r.status,
            solutions: 0,
            time_ns: 0,
            counters: r.counters,
            givens: rec.puzzle.givens() as u8,
            matches_solution: None,
            wrong: None,
            wrong_count: None,
            fault: x.note.clone(),
        };
    }
    let wrong = match (&x.note, r.solution()) {
        (Some(note), _) => Some(note.to_string()),
        (None, _) if x.unwritten => None,
        (None, Some(g)) if !g.is_solution_of(&rec.puzzle) => Some(
            g.check_solution_of(&rec.puzzle)
                .err()
                .map_or_else(|| "invalid grid".to_string(), |e| e.to_string()),
        ),
        _ => None,
    };
    let matches_solution = match (&rec.solution, r.status) {
        _ if x.unwritten => None,
        (Some(expected), Status::Solved | Status::Multiple) => Some(r.grid == *expected),
        (Some(_), Status::NoSolution | Status::Invalid) => Some(false),
        _ => None,
    };
    let wrong_count = count_check.and_then(|limits| {
        let proven = wrong.is_none() && !x.unwritten;
        SOLVER.with(|solver| {
            solver
                .borrow_mut()
                .count_disagrees(&rec.puzzle, r, limits, proven)
        })
    });
    PuzzleOutcome {
        index: rec.index,
        line: rec.line,
        status: r.status,
        solutions: r.solutions,
        time_ns: s.time_ns,
        counters: r.counters,
        givens: rec.puzzle.givens() as u8,
        matches_solution,
        wrong,
        wrong_count,
        fault: None,
    }
}

/// Puts a batch's outcomes (in solve order, matching `records`) back in
/// input order and formats their rows.
fn in_input_order(
    records: &[Record],
    outcomes: Vec<PuzzleOutcome>,
    shuffled: bool,
    format: Option<&RowFormat>,
) -> (Vec<PuzzleOutcome>, Vec<u8>) {
    debug_assert_eq!(records.len(), outcomes.len());
    let outcomes = if shuffled {
        let mut pairs: Vec<(&Record, PuzzleOutcome)> = records.iter().zip(outcomes).collect();
        pairs.sort_unstable_by_key(|(r, _)| r.index);
        let mut rows = Vec::new();
        if let Some(f) = format {
            rows.reserve(pairs.len() * 96);
            for (rec, o) in &pairs {
                f.push(&mut rows, rec, o);
            }
        }
        return (pairs.into_iter().map(|(_, o)| o).collect(), rows);
    } else {
        outcomes
    };
    let mut rows = Vec::new();
    if let Some(f) = format {
        rows.reserve(records.len() * 96);
        for (rec, o) in records.iter().zip(&outcomes) {
            f.push(&mut rows, rec, o);
        }
    }
    (outcomes, rows)
}

/// A finished batch on its way to the writer.
struct Done {
    seq: u64,
    /// One part per strategy, in the group's order.
    units: Vec<DoneUnit>,
    skipped: Vec<Skipped>,
}

/// One strategy's share of a finished batch.
struct DoneUnit {
    /// Verified outcomes in input order.
    outcomes: Vec<PuzzleOutcome>,
    /// Their `puzzles.csv` rows (empty without a per-puzzle CSV).
    rows: Vec<u8>,
    /// This batch's share of each measured pass's total.
    pass_ns: Vec<u64>,
    /// The time the strategy spent on this batch.
    busy_ns: u64,
    /// Each chunk's pairs with the baseline: (pairs, sum of log ratios).
    blocks: Vec<(u32, f64)>,
}

/// Verifies one batch's chunks of every strategy (each chunk list covers
/// `records` in order, in solve order), sums each chunk's pairs with the
/// baseline (for the bootstrap's blocks) and puts every strategy's outcomes
/// in input order.
fn finish_batch(
    job: &Job,
    records: &[Record],
    parts: &[(usize, Vec<Chunk>)],
    shuffled: bool,
) -> Vec<DoneUnit> {
    let n = job.strategies.len();
    let mut verified: Vec<(Vec<PuzzleOutcome>, Vec<u64>, u64)> = (0..n)
        .map(|k| {
            let mut outcomes = Vec::with_capacity(records.len());
            let mut pass_ns = vec![0u64; (job.passes - job.warmup) as usize];
            let mut busy_ns = 0;
            for (a, chunks) in parts {
                let chunk = &chunks[k];
                verify(
                    &records[*a..*a + chunk.solved.len()],
                    chunk,
                    job.count_check(k),
                    &mut outcomes,
                );
                for (t, x) in pass_ns.iter_mut().zip(&chunk.pass_ns) {
                    *t += x;
                }
                busy_ns += chunk.busy_ns;
            }
            (outcomes, pass_ns, busy_ns)
        })
        .collect();
    // Each chunk's pairs: (pairs, sum of log ratios), per strategy.
    let mut blocks: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
    if let Some(b) = job.baseline {
        for (k, out) in blocks.iter_mut().enumerate().filter(|(k, _)| *k != b) {
            for (a, chunks) in parts {
                let range = *a..*a + chunks[k].solved.len();
                let (mut pairs, mut sum) = (0u32, 0.0);
                for (bo, o) in verified[b].0[range.clone()]
                    .iter()
                    .zip(&verified[k].0[range])
                {
                    if let Some(l) = paired::log_ratio(bo, o) {
                        pairs += 1;
                        sum += l;
                    }
                }
                out.push((pairs, sum));
            }
        }
    }
    verified
        .drain(..)
        .zip(blocks)
        .enumerate()
        .map(|(k, ((outcomes, pass_ns, busy_ns), blocks))| {
            let (outcomes, rows) =
                in_input_order(records, outcomes, shuffled, job.formats[k].as_ref());
            DoneUnit {
                outcomes,
                rows,
                pass_ns,
                busy_ns,
                blocks,
            }
        })
        .collect()
}

/// The writer's side: restores batch order, aggregates, pairs and writes
/// rows.
struct Ordered<'a> {
    pending: BTreeMap<u64, Done>,
    next: u64,
    /// One per strategy of the group.
    stats: &'a mut [UnitStats],
    sink: &'a mut dyn RowSink,
    progress: &'a dyn Progress,
    /// The first write error; nothing is written after it.
    error: Option<std::io::Error>,
    /// Small guess/depth values not yet in `stats`' histograms (flushed on
    /// drop, before anyone can read `stats` again).
    small: Vec<SmallCounts>,
    tally: &'a mut Tally,
}

impl Drop for Ordered<'_> {
    fn drop(&mut self) {
        for (small, stats) in self.small.iter_mut().zip(self.stats.iter_mut()) {
            small.flush(stats);
        }
    }
}

impl Ordered<'_> {
    /// Takes a finished batch and writes every batch now next in order.
    /// Returns how many batches were written (each frees a batch slot).
    fn accept(&mut self, done: Done) -> usize {
        if self.error.is_some() {
            return 0;
        }
        self.pending.insert(done.seq, done);
        let mut written = 0;
        while let Some(d) = self.pending.remove(&self.next) {
            self.next += 1;
            written += 1;
            for s in &d.skipped {
                for stats in self.stats.iter_mut() {
                    stats.skip(s.clone());
                }
            }
            let mut n = 0;
            for (k, u) in d.units.iter().enumerate() {
                let stats = &mut self.stats[k];
                for (t, x) in stats.pass_ns.iter_mut().zip(&u.pass_ns) {
                    *t += x;
                }
                for o in &u.outcomes {
                    stats.record_counting(o, &mut self.small[k]);
                }
                self.tally.busy[k] += u.busy_ns;
                n += u.outcomes.len() as u64;
                if !u.rows.is_empty() && self.error.is_none() {
                    if let Err(e) = self.sink.write(k, &u.rows) {
                        self.error = Some(e);
                    }
                }
            }
            if let Some(b) = self.tally.baseline {
                let base = &d.units[b].outcomes;
                for (k, acc) in self.tally.pairs.iter_mut().enumerate() {
                    if let Some(acc) = acc {
                        for (bo, o) in base.iter().zip(&d.units[k].outcomes) {
                            acc.add(bo, o);
                        }
                        for &(pairs, sum) in &d.units[k].blocks {
                            acc.add_chunk(pairs, sum);
                        }
                    }
                }
            }
            if self.error.is_some() {
                self.pending.clear();
                break;
            }
            self.progress.advance(n);
        }
        written
    }
}

// ---------------------------------------------------------------------------
// Helper threads: reader → channel → pool jobs → writer.

enum ReaderMsg {
    Batch(Batch),
    Fatal(DatasetError),
}

/// A solved batch sent to the writer thread, which verifies it: each
/// chunk's first position and its results for every strategy.
struct Raw {
    seq: u64,
    batch: Batch,
    parts: Vec<(usize, Vec<Chunk>)>,
}

fn with_helpers(
    opts: &RunOptions,
    info: &DatasetInfo,
    job: &Job,
    pool: &rayon::ThreadPool,
    mut out: Ordered,
    stop: &Arc<AtomicBool>,
) -> Option<Stop> {
    let threads = pool.current_num_threads();
    let (btx, brx) = sync_channel::<ReaderMsg>(IN_FLIGHT);
    let (dtx, drx) = std::sync::mpsc::channel::<Raw>();
    // Batches handed to the pool and not yet written: a token each, returned
    // by the writer, so at most `threads + 1` are held at once.
    let slots = threads + 1;
    let (token_tx, token_rx) = sync_channel::<()>(slots);
    for _ in 0..slots {
        let _ = token_tx.send(());
    }
    let reader_stop = Arc::clone(stop);
    let mut stopped: Option<Stop> = None;

    std::thread::scope(|scope| {
        let reader = scope.spawn(|| {
            super::pin_helper_thread(opts.threads);
            read_batches(opts, info, btx, reader_stop)
        });
        let out = &mut out;
        let writer = scope.spawn(move || {
            super::pin_helper_thread(opts.threads);
            write_batches(drx, token_tx, out, job, opts.shuffle)
        });

        pool.in_place_scope(|s| {
            for (seq, msg) in brx.iter().enumerate() {
                let batch = match msg {
                    ReaderMsg::Fatal(e) => {
                        stopped = Some(Stop::Dataset(e));
                        break;
                    }
                    ReaderMsg::Batch(b) => b,
                };
                if token_rx.recv().is_err() {
                    break; // the writer failed; its error is collected below
                }
                let dtx = dtx.clone();
                s.spawn(move |_| {
                    // A send fails only when the writer has already failed.
                    let _ = dtx.send(solve_batch(job, batch, seq as u64));
                });
                if stop.load(Ordering::Relaxed) {
                    stopped = Some(Stop::Interrupted);
                    break;
                }
            }
        });
        drop(brx); // unblocks the reader if it is waiting to send
        drop(dtx);
        let _ = reader.join();
        if writer.join().is_err() && stopped.is_none() {
            stopped = Some(Stop::Output(std::io::Error::other(
                "writer thread panicked",
            )));
        }
    });
    match out.error.take() {
        Some(e) if stopped.is_none() => Some(Stop::Output(e)),
        _ => stopped,
    }
}

/// Solves one batch with the pool's threads; chunks are stolen by idle
/// threads.
fn solve_batch(job: &Job, batch: Batch, seq: u64) -> Raw {
    let parts: Vec<(usize, Vec<Chunk>)> = batch
        .records
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(i, chunk)| (i * CHUNK, solve_chunk(chunk, job, seq as usize + i)))
        .collect();
    Raw { seq, batch, parts }
}

fn read_batches(
    opts: &RunOptions,
    info: &DatasetInfo,
    tx: SyncSender<ReaderMsg>,
    stop: Arc<AtomicBool>,
) {
    let mut reader = match BatchReader::open(opts, info) {
        Ok(r) => r,
        Err(e) => {
            let _ = tx.send(ReaderMsg::Fatal(e));
            return;
        }
    };
    while !stop.load(Ordering::Relaxed) {
        let msg = match reader.next_batch() {
            None => return,
            Some(Ok(b)) => ReaderMsg::Batch(b),
            Some(Err(e)) => ReaderMsg::Fatal(e),
        };
        let fatal = matches!(msg, ReaderMsg::Fatal(_));
        if tx.send(msg).is_err() || fatal {
            return;
        }
    }
}

/// The writer thread: verifies each solved batch, formats its rows and
/// writes batches in input order, handing each batch's token back to the
/// dispatcher once it is written.
fn write_batches(
    rx: Receiver<Raw>,
    tokens: SyncSender<()>,
    out: &mut Ordered,
    job: &Job,
    shuffled: bool,
) {
    for raw in rx.iter() {
        let units = finish_batch(job, &raw.batch.records, &raw.parts, shuffled);
        let written = out.accept(Done {
            seq: raw.seq,
            units,
            skipped: raw.batch.skipped,
        });
        if out.error.is_some() {
            return; // dropping the token sender stops the dispatcher
        }
        for _ in 0..written {
            // Never blocks: there are only as many tokens as the channel holds.
            let _ = tokens.send(());
        }
    }
}

// ---------------------------------------------------------------------------
// Workers only: every pool thread reads, solves, verifies and writes.

/// A batch being solved chunk by chunk.
struct Window {
    seq: u64,
    /// In solve order.
    records: Vec<Record>,
    state: Mutex<WindowState>,
}

struct WindowState {
    /// Each solved chunk's first position and its results for every
    /// strategy.
    parts: Vec<(usize, Vec<Chunk>)>,
    /// Records not yet solved.
    remaining: usize,
    skipped: Vec<Skipped>,
}

/// What the workers share about the chunks to do.
struct Queue {
    /// A window and a range of its records.
    chunks: VecDeque<(Arc<Window>, usize, usize)>,
    /// A worker is reading the next batch.
    reading: bool,
    /// No more batches: end of input, an error, the stop flag or a failed
    /// write.
    ended: bool,
    /// Batches read and not yet written.
    open: usize,
    /// The next batch's number.
    seq: u64,
    fatal: Option<DatasetError>,
}

struct Workers<'o, 'a> {
    queue: Mutex<Queue>,
    wake: Condvar,
    /// Bumped whenever the queue changes (what spinning threads watch).
    generation: AtomicU64,
    /// Threads waiting on `wake` (counted under the queue lock).
    sleepers: AtomicUsize,
    /// Used by one worker at a time (the one with `reading` set).
    reader: Mutex<BatchReader<'a>>,
    out: Mutex<Ordered<'o>>,
    job: &'a Job<'a>,
    shuffled: bool,
    /// Batches read and not yet written, at most.
    max_open: usize,
    /// Read the next batch when fewer chunks than this are queued.
    low_water: usize,
    /// Idle threads spin before sleeping (not when threads outnumber cores).
    spin: bool,
    threads: usize,
    stop: &'a AtomicBool,
}

fn workers_only(
    opts: &RunOptions,
    info: &DatasetInfo,
    job: &Job,
    pool: &rayon::ThreadPool,
    out: Ordered,
    stop: &Arc<AtomicBool>,
) -> Option<Stop> {
    let reader = match BatchReader::open(opts, info) {
        Ok(r) => r,
        Err(e) => return Some(Stop::Dataset(e)),
    };
    let threads = pool.current_num_threads();
    let w = Workers {
        queue: Mutex::new(Queue {
            chunks: VecDeque::new(),
            reading: false,
            ended: false,
            open: 0,
            seq: 0,
            fatal: None,
        }),
        wake: Condvar::new(),
        generation: AtomicU64::new(0),
        sleepers: AtomicUsize::new(0),
        reader: Mutex::new(reader),
        out: Mutex::new(out),
        job,
        shuffled: opts.shuffle,
        max_open: threads + 1,
        spin: threads <= sysinfo::logical_cores(),
        threads,
        // Read a batch ahead, so that no thread runs dry while one reads.
        low_water: opts.batch_size.div_ceil(WORKER_CHUNK).max(2 * threads),
        stop,
    };
    pool.broadcast(|_| w.work());
    let fatal = w
        .queue
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .fatal;
    let write_error = w
        .out
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .error
        .take();
    match (fatal, write_error) {
        (Some(e), _) => Some(Stop::Dataset(e)),
        (None, Some(e)) => Some(Stop::Output(e)),
        (None, None) => None,
    }
}

impl Workers<'_, '_> {
    /// One pool thread's loop; returns when no chunk is left to do.
    fn work(&self) {
        loop {
            let (task, read) = {
                let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
                // With more threads than cores a spinning thread would take
                // a core from one with work: sleep at once.
                let mut spun = !self.spin;
                loop {
                    let can_read = !q.reading && !q.ended && q.open < self.max_open;
                    let read = can_read && q.chunks.len() < self.low_water;
                    if read {
                        q.reading = true;
                    }
                    let mut task = q.chunks.pop_front();
                    if let Some((w, a, b)) = &mut task {
                        // The tail of the input: take half, leave half.
                        if q.ended && q.chunks.len() < self.threads && *b - *a >= 2 * MIN_CHUNK {
                            let mid = *a + (*b - *a) / 2;
                            q.chunks.push_front((Arc::clone(w), mid, *b));
                            *b = mid;
                        }
                    }
                    if task.is_some() || read {
                        break (task, read);
                    }
                    if q.ended && !q.reading {
                        return;
                    }
                    // Nothing to do until a batch is read or written. Spin
                    // briefly first: the wait is usually short, and a thread
                    // that sleeps can take milliseconds to be woken again
                    // (virtual machines halt idle CPUs).
                    if !spun {
                        spun = true;
                        let seen = self.generation.load(Ordering::Acquire);
                        drop(q);
                        self.spin_while(seen);
                        q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
                        continue;
                    }
                    self.sleepers.fetch_add(1, Ordering::SeqCst);
                    q = self.wake.wait(q).unwrap_or_else(|e| e.into_inner());
                    self.sleepers.fetch_sub(1, Ordering::SeqCst);
                }
            };
            // Read first: the other threads may be about to run dry.
            if read {
                self.read_batch();
            }
            if let Some((window, a, b)) = task {
                self.solve(&window, a, b);
            }
        }
    }

    /// Spins until the queue changes (`generation` moves on from `seen`), for
    /// at most [`SPIN`].
    fn spin_while(&self, seen: u64) {
        let start = Instant::now();
        while self.generation.load(Ordering::Acquire) == seen {
            for _ in 0..64 {
                std::hint::spin_loop();
            }
            if start.elapsed() > SPIN {
                return;
            }
        }
    }

    /// Wakes the threads waiting for the queue to change. Called after the
    /// change, made under the queue lock. Waking is a system call, so it is
    /// skipped when no thread sleeps (the usual case, as idle threads spin
    /// first): a thread that went to sleep before the change registered in
    /// `sleepers` while it held the queue lock, before the changer took the
    /// lock, so the changer sees it here.
    fn changed(&self) {
        self.generation.fetch_add(1, Ordering::Release);
        if self.sleepers.load(Ordering::SeqCst) > 0 {
            self.wake.notify_all();
        }
    }

    /// Reads the next batch and queues its chunks.
    fn read_batch(&self) {
        let next = if self.stop.load(Ordering::Relaxed) {
            None
        } else {
            self.reader
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .next_batch()
        };
        let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        q.reading = false;
        match next {
            None => q.ended = true,
            Some(Err(e)) => {
                q.fatal = Some(e);
                q.ended = true;
            }
            Some(Ok(batch)) => {
                let seq = q.seq;
                q.seq += 1;
                q.open += 1;
                let n = batch.records.len();
                let window = Arc::new(Window {
                    seq,
                    records: batch.records,
                    state: Mutex::new(WindowState {
                        parts: Vec::new(),
                        remaining: n,
                        skipped: batch.skipped,
                    }),
                });
                if n == 0 {
                    // Only skipped rows: nothing to solve.
                    drop(q);
                    self.finish(&window);
                    return self.changed();
                }
                q.chunks.extend(
                    (0..n)
                        .step_by(WORKER_CHUNK)
                        .map(|a| (Arc::clone(&window), a, (a + WORKER_CHUNK).min(n))),
                );
            }
        }
        drop(q);
        self.changed();
    }

    /// Solves records `a..b` of a window; the thread that completes a
    /// batch finishes it.
    fn solve(&self, window: &Window, a: usize, b: usize) {
        let rotation = window.seq as usize + a / WORKER_CHUNK;
        let chunk = solve_chunk(&window.records[a..b], self.job, rotation);
        let last = {
            let mut st = window.state.lock().unwrap_or_else(|e| e.into_inner());
            st.parts.push((a, chunk));
            st.remaining -= b - a;
            st.remaining == 0
        };
        if last {
            self.finish(window);
        }
    }

    /// Verifies a solved batch, formats its rows in input order and hands
    /// it to the writer, which writes every batch now next in order.
    fn finish(&self, window: &Window) {
        let (mut parts, skipped) = {
            let mut st = window.state.lock().unwrap_or_else(|e| e.into_inner());
            (
                std::mem::take(&mut st.parts),
                std::mem::take(&mut st.skipped),
            )
        };
        // Chunks finish in any order; they cover the window without overlap.
        parts.sort_unstable_by_key(|p| p.0);
        let done = Done {
            seq: window.seq,
            units: finish_batch(self.job, &window.records, &parts, self.shuffled),
            skipped,
        };
        let (written, failed) = {
            let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
            let written = out.accept(done);
            (written, out.error.is_some())
        };
        let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        q.open -= written;
        if failed {
            // Nothing more can be written: drop the work left.
            q.ended = true;
            q.chunks.clear();
        }
        drop(q);
        self.changed();
    }
}

/// Cuts a dataset into batches of `--batch-size` puzzles (shuffled with
/// `--shuffle`), applying `--limit`, `--shard` and `--skip-invalid`.
struct BatchReader<'a> {
    opts: &'a RunOptions,
    reader: dataset::Reader,
    /// Puzzle rows taken so far (for `--limit`).
    taken: u64,
    batch_no: u64,
    done: bool,
}

impl<'a> BatchReader<'a> {
    fn open(opts: &'a RunOptions, info: &DatasetInfo) -> Result<Self, DatasetError> {
        Ok(BatchReader {
            opts,
            reader: dataset::open(&info.path, opts.format)?,
            taken: 0,
            batch_no: 0,
            done: false,
        })
    }

    /// The next batch (a batch may hold only skipped rows); `None` at the
    /// end, and after an error.
    fn next_batch(&mut self) -> Option<Result<Batch, DatasetError>> {
        if self.done {
            return None;
        }
        let opts = self.opts;
        let batch_size = opts.batch_size.max(1);
        let mut batch = Batch {
            records: Vec::with_capacity(batch_size),
            skipped: Vec::new(),
        };
        while batch.records.len() < batch_size {
            if opts.limit.is_some_and(|l| self.taken >= l) {
                self.done = true;
                break;
            }
            let Some(item) = self.reader.next_into(&mut batch.records) else {
                self.done = true;
                break;
            };
            match item {
                Ok(()) => {
                    self.taken += 1;
                    if let Some(sh) = opts.shard {
                        if batch.records.last().is_some_and(|r| !sh.owns(r.index)) {
                            batch.records.pop();
                        }
                    }
                }
                Err(e)
                    if e.is_row()
                        && opts.skip_invalid
                        && opts
                            .shard
                            .is_some_and(|sh| e.index().is_some_and(|i| !sh.owns(i))) => {}
                Err(e) if e.is_row() && opts.skip_invalid => batch.skipped.push(Skipped {
                    line: e.line(),
                    index: e.index(),
                    error: e.to_string(),
                }),
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
        if batch.records.is_empty() && batch.skipped.is_empty() {
            return None;
        }
        if opts.shuffle {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(opts.seed);
            rng.set_stream(self.batch_no);
            batch.records.shuffle(&mut rng);
        }
        self.batch_no += 1;
        Some(Ok(batch))
    }
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
    /// `bad_every` lines (0: none) and a comment at the top.
    fn dataset(name: &str, n: usize, bad_every: usize) -> PathBuf {
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
            if bad_every > 0 && i % bad_every == bad_every - 1 {
                writeln!(f, "12345").unwrap();
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
        let infos = inspect(opts).unwrap();
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
        let (stats, stopped) = run_group(
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
            let (a, sa, ra) = run(Layout::Helpers, o, None, false);
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
        let path = dataset("bad.txt", 400, 300);
        for layout in [Layout::Helpers, Layout::WorkersOnly] {
            let (stats, stopped, rows) = run(layout, &options(path.clone()), None, false);
            let Some(Stop::Dataset(e)) = stopped else {
                panic!("{layout:?}: {stopped:?}")
            };
            // The bad row is the 300th puzzle row, on line 301.
            assert_eq!(e.line(), Some(301), "{layout:?}");
            assert!(!stats.complete);
            // Whole batches of 50 before the bad one are written, in order.
            assert_eq!(rows.len() as u64, stats.puzzles);
            assert_eq!(stats.puzzles, 250, "{layout:?}");
        }
    }

    #[test]
    fn a_failed_write_stops_either_layout() {
        let path = dataset("fail.txt", 600, 0);
        for layout in [Layout::Helpers, Layout::WorkersOnly] {
            let (stats, stopped, rows) = run(layout, &options(path.clone()), Some(3000), false);
            assert!(matches!(stopped, Some(Stop::Output(_))), "{layout:?}");
            assert!(!stats.complete);
            assert!(rows.len() < 600);
        }
    }

    #[test]
    fn a_raised_stop_flag_ends_either_layout_early() {
        let path = dataset("stop.txt", 600, 0);
        for layout in [Layout::Helpers, Layout::WorkersOnly] {
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
            (Layout::Helpers, 2, false, 50, 1),
            (Layout::WorkersOnly, 2, true, 64, 2),
            (Layout::WorkersOnly, 3, false, 1000, 1),
            (Layout::Helpers, 1, true, 7, 1),
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
}
