//! The batch benchmark: reader thread → bounded channel of batches → rayon
//! pool → results in input order → aggregator and per-puzzle writer.
//!
//! One *unit* is a (dataset, strategy) pair; units run one after another so
//! that every strategy has the machine to itself. Within a unit there is no
//! barrier between batches: each batch is one job in the pool, split into
//! chunks of `CHUNK` (32) puzzles that idle threads steal, so the threads stay
//! busy from the first batch to the last. A token per batch (returned by the
//! writer) bounds the batches held at once to `threads + 1`, plus
//! [`IN_FLIGHT`] queued by the reader, whatever the dataset size.
//!
//! Every answer is verified (rules and givens, and the dataset's solution)
//! and its `puzzles.csv` row formatted off the timed region: on the writer
//! thread when there are fewer solver threads than cores (it has a core to
//! itself), otherwise on the solver threads, which then share that work
//! instead of waiting for one writer. The writer restores input order by
//! batch number, aggregates and writes.
//!
//! Timing: each solve is timed alone with the monotonic clock
//! ([`std::time::Instant`]). With `--repeat N` every chunk is solved N times
//! (after `--warmup` discarded passes) and the per-puzzle time kept is the
//! **minimum** over the measured passes; the spread of the per-pass totals
//! is reported.

pub mod metrics;
pub mod sysinfo;

use crate::dataset::{self, DatasetError, Format, Record};
use crate::solver::{Limits, SolveResult, Solver, Status, Strategy};
use metrics::{PuzzleOutcome, Skipped, UnitStats};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rayon::prelude::*;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use std::time::Instant;

/// Batches queued between the reader and the pool, and between the pool and
/// the writer.
pub const IN_FLIGHT: usize = 2;
/// Default number of puzzles per batch (also the shuffle window).
pub const DEFAULT_BATCH: usize = 1024;

/// Everything a run needs.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub datasets: Vec<PathBuf>,
    pub strategies: Vec<Strategy>,
    pub threads: usize,
    pub repeat: u32,
    pub warmup: u32,
    pub limit: Option<u64>,
    pub shuffle: bool,
    pub seed: u64,
    pub limits: Limits,
    pub format: Format,
    pub batch_size: usize,
    pub skip_invalid: bool,
    /// `--shard K/N`: only the puzzles whose index % N == K − 1.
    pub shard: Option<Shard>,
}

/// One of N deterministic parts of every dataset (`--shard K/N`): the
/// puzzles whose 0-based index % N == K − 1. `--limit` applies to the
/// dataset before the split, so the shards of a limited run cover exactly
/// the unsharded run's puzzles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 1-based shard number, 1..=n.
    pub k: u64,
    pub n: u64,
}

impl Shard {
    /// Whether the puzzle at `index` belongs to this shard.
    pub fn owns(&self, index: u64) -> bool {
        index % self.n == self.k - 1
    }
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("invalid shard '{s}': expected K/N with 1 <= K <= N, e.g. 2/3");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let k: u64 = k.trim().parse().map_err(|_| bad())?;
        let n: u64 = n.trim().parse().map_err(|_| bad())?;
        if n == 0 || k == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

/// Where per-puzzle rows go.
pub trait RowSink: Send {
    /// Starts the rows of a (dataset, strategy) unit. Returns how to format
    /// them (the solver threads may format rows), or `None` when rows are
    /// discarded.
    fn unit(&mut self, dataset: &str, strategy: &str) -> Option<RowFormat>;
    /// Appends rows made by the unit's [`RowFormat`], in input order.
    fn write(&mut self, rows: &[u8]) -> std::io::Result<()>;
}

/// Discards rows (`--no-puzzle-csv`).
pub struct NoRows;

impl RowSink for NoRows {
    fn unit(&mut self, _: &str, _: &str) -> Option<RowFormat> {
        None
    }
    fn write(&mut self, _: &[u8]) -> std::io::Result<()> {
        Ok(())
    }
}

/// Receives progress: the unit starting (with an estimated size) and rows done.
pub trait Progress: Sync {
    fn unit_start(&self, _dataset: &str, _strategy: &str, _estimate: Option<u64>) {}
    fn advance(&self, _n: u64) {}
    fn unit_end(&self) {}
}

/// No progress display.
pub struct Silent;
impl Progress for Silent {}

/// A dataset checked before the run starts.
#[derive(Clone, Debug)]
pub struct DatasetInfo {
    pub name: String,
    pub path: PathBuf,
    pub format: Format,
    pub gzip: bool,
    pub has_solutions: bool,
    pub estimate: Option<u64>,
}

/// Opens every dataset once to fail fast on file-level problems.
pub fn inspect(opts: &RunOptions) -> Result<Vec<DatasetInfo>, DatasetError> {
    let mut names: Vec<String> = Vec::new();
    opts.datasets
        .iter()
        .map(|path| {
            let reader = dataset::open(path, opts.format)?;
            let mut name = dataset::stem(path);
            // Two datasets with one stem stay distinguishable.
            let base = name.clone();
            let mut k = 2;
            while names.contains(&name) {
                name = format!("{base}-{k}");
                k += 1;
            }
            names.push(name.clone());
            let estimate = dataset::estimate_count(path)
                .map(|n| opts.limit.map_or(n, |l| l.min(n)))
                .map(|n| opts.shard.map_or(n, |s| (n + s.n - s.k) / s.n));
            Ok(DatasetInfo {
                name,
                path: path.clone(),
                format: reader.format(),
                gzip: reader.is_gzip(),
                has_solutions: reader.has_solutions(),
                estimate,
            })
        })
        .collect()
}

/// Why a run stopped early.
#[derive(Debug)]
pub enum Stop {
    /// A dataset error (a bad row without --skip-invalid, or I/O).
    Dataset(DatasetError),
    /// Writing the per-puzzle rows failed.
    Output(std::io::Error),
    /// The stop flag was raised (Ctrl-C).
    Interrupted,
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Dataset(e) => write!(f, "{e}"),
            Stop::Output(e) => write!(f, "writing puzzles.csv: {e}"),
            Stop::Interrupted => write!(f, "interrupted"),
        }
    }
}

/// The outcome of all units that ran (complete or not).
pub struct RunResults {
    pub units: Vec<UnitStats>,
    pub skipped_per_dataset: Vec<u64>,
    pub puzzles_per_dataset: Vec<u64>,
    pub processed: u64,
    pub stopped: Option<Stop>,
}

thread_local! {
    static SOLVER: RefCell<Solver> = RefCell::new(Solver::new());
}

/// One batch: the records in solve order plus rows skipped while reading it.
struct Batch {
    records: Vec<Record>,
    skipped: Vec<Skipped>,
}

enum ReaderMsg {
    Batch(Batch),
    Fatal(DatasetError),
}

/// Runs every (dataset, strategy) unit. `stop` is polled between batches.
pub fn run_all(
    opts: &RunOptions,
    infos: &[DatasetInfo],
    pool: &rayon::ThreadPool,
    rows: &mut dyn RowSink,
    progress: &dyn Progress,
    stop: &Arc<AtomicBool>,
) -> RunResults {
    let mut results = RunResults {
        units: Vec::new(),
        skipped_per_dataset: vec![0; infos.len()],
        puzzles_per_dataset: vec![0; infos.len()],
        processed: 0,
        stopped: None,
    };
    'units: for (di, info) in infos.iter().enumerate() {
        for strategy in &opts.strategies {
            progress.unit_start(&info.name, strategy.name(), info.estimate);
            let (stats, stopped) = run_unit(opts, info, strategy, pool, rows, progress, stop);
            progress.unit_end();
            results.processed += stats.puzzles;
            results.skipped_per_dataset[di] = stats.skipped;
            results.puzzles_per_dataset[di] = stats.puzzles;
            results.units.push(stats);
            if let Some(s) = stopped {
                results.stopped = Some(s);
                break 'units;
            }
        }
    }
    results
}

/// Puzzles a solver thread takes at a time inside a batch; an idle thread
/// steals such chunks from a busy one's batch (so even a one-batch dataset
/// uses every thread, and the last batches of a unit leave no thread idle
/// for long).
const CHUNK: usize = 32;

/// What the pool sends the writer for batch number `seq`.
struct Done {
    seq: u64,
    payload: Payload,
    skipped: Vec<Skipped>,
    /// This batch's share of each measured pass's total.
    pass_ns: Vec<u64>,
}

enum Payload {
    /// Solved but not yet verified or formatted: the writer does it (there is
    /// a spare core for it).
    Raw(Vec<Record>, Vec<Solved>),
    /// Verified outcomes in input order, and their rows already formatted.
    Finished(Vec<PuzzleOutcome>, Vec<u8>),
}

/// The per-unit constants every batch job needs.
struct Job<'a> {
    strategy: &'a Strategy,
    limits: &'a Limits,
    passes: u32,
    warmup: u32,
    shuffled: bool,
    /// Verify and format on the solver threads (no spare core for the writer).
    finish_in_pool: bool,
    format: Option<&'a RowFormat>,
}

impl Job<'_> {
    /// Solves one batch with the pool's threads (chunks are stolen by idle
    /// threads) and, when `finish_in_pool`, verifies and formats it too.
    fn run(&self, batch: Batch, seq: u64) -> Done {
        let measured = self.passes - self.warmup;
        let parts: Vec<(Vec<Solved>, Vec<u64>)> = batch
            .records
            .par_chunks(CHUNK)
            .map(|chunk| solve_chunk(chunk, self))
            .collect();
        let mut pass_ns = vec![0u64; measured as usize];
        let mut solved = Vec::with_capacity(batch.records.len());
        for (s, p) in parts {
            solved.extend(s);
            for (t, x) in pass_ns.iter_mut().zip(p) {
                *t += x;
            }
        }
        let payload = if self.finish_in_pool {
            let (outcomes, rows) = finish(&batch.records, &solved, self.shuffled, self.format);
            Payload::Finished(outcomes, rows)
        } else {
            Payload::Raw(batch.records, solved)
        };
        Done {
            seq,
            payload,
            skipped: batch.skipped,
            pass_ns,
        }
    }
}

/// Solves a chunk `passes` times; keeps each puzzle's minimum time over the
/// measured passes, and each measured pass's total.
fn solve_chunk(records: &[Record], job: &Job) -> (Vec<Solved>, Vec<u64>) {
    let mut solved: Vec<Solved> = Vec::with_capacity(records.len());
    let mut pass_ns = vec![0u64; (job.passes - job.warmup) as usize];
    SOLVER.with(|s| {
        let mut solver = s.borrow_mut();
        for pass in 0..job.passes {
            // Warm-up times are not kept.
            let measured = pass >= job.warmup;
            let mut total = 0u64;
            for (i, rec) in records.iter().enumerate() {
                let t = Instant::now();
                let result = solver.solve(&rec.puzzle, job.strategy, job.limits);
                let ns = t.elapsed().as_nanos() as u64;
                total += ns;
                let kept = if measured { ns } else { u64::MAX };
                if pass == 0 {
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
            if measured {
                pass_ns[(pass - job.warmup) as usize] = total;
            }
        }
    });
    (solved, pass_ns)
}

/// A raw result on its way to verification.
struct Solved {
    result: SolveResult,
    time_ns: u64,
}

/// Verifies a batch's results in input order and formats their rows.
fn finish(
    records: &[Record],
    solved: &[Solved],
    shuffled: bool,
    format: Option<&RowFormat>,
) -> (Vec<PuzzleOutcome>, Vec<u8>) {
    let mut order: Vec<usize> = (0..records.len()).collect();
    if shuffled {
        // Shuffled batches go back to input order.
        order.sort_unstable_by_key(|&i| records[i].index);
    }
    let mut rows = Vec::new();
    if format.is_some() {
        rows.reserve(records.len() * 96);
    }
    let outcomes = order
        .iter()
        .map(|&i| {
            let (rec, s) = (&records[i], &solved[i]);
            let o = outcome(rec, &s.result, s.time_ns);
            if let Some(f) = format {
                f.push(&mut rows, rec, &o);
            }
            o
        })
        .collect();
    (outcomes, rows)
}

fn run_unit(
    opts: &RunOptions,
    info: &DatasetInfo,
    strategy: &Strategy,
    pool: &rayon::ThreadPool,
    rows: &mut dyn RowSink,
    progress: &dyn Progress,
    stop: &Arc<AtomicBool>,
) -> (UnitStats, Option<Stop>) {
    let start = Instant::now();
    let mut stats = UnitStats::new(&info.name, strategy.name(), opts.repeat);
    let repeat = opts.repeat.max(1);
    stats.pass_ns = vec![0; repeat as usize];
    stats.passes = opts.warmup + repeat;
    let format = rows.unit(&info.name, strategy.name());
    let threads = pool.current_num_threads();
    let job = Job {
        strategy,
        limits: &opts.limits,
        passes: opts.warmup + repeat,
        warmup: opts.warmup,
        shuffled: opts.shuffle,
        // With a core to spare the writer verifies and formats there, off
        // the solver threads; otherwise the solver threads share that work.
        finish_in_pool: threads >= sysinfo::logical_cores(),
        format: format.as_ref(),
    };
    let (btx, brx) = sync_channel::<ReaderMsg>(IN_FLIGHT);
    let (dtx, drx) = std::sync::mpsc::channel::<Done>();
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
            pin_helper_thread(opts.threads);
            read_batches(opts, info, btx, reader_stop)
        });
        let writer_stats = &mut stats;
        let writer_format = format.as_ref();
        let writer = scope.spawn(move || {
            pin_helper_thread(opts.threads);
            write_batches(
                drx,
                token_tx,
                writer_stats,
                rows,
                writer_format,
                opts.shuffle,
                progress,
            )
        });

        pool.in_place_scope(|s| {
            let job = &job;
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
                    let _ = dtx.send(job.run(batch, seq as u64));
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
        match writer.join() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                if stopped.is_none() {
                    stopped = Some(Stop::Output(e));
                }
            }
            Err(_) => {
                if stopped.is_none() {
                    stopped = Some(Stop::Output(std::io::Error::other(
                        "writer thread panicked",
                    )));
                }
            }
        }
    });
    if stopped.is_none() && stop.load(Ordering::Relaxed) {
        stopped = Some(Stop::Interrupted);
    }
    stats.wall_ns = start.elapsed().as_nanos() as u64;
    stats.complete = stopped.is_none();
    (stats, stopped)
}

fn read_batches(
    opts: &RunOptions,
    info: &DatasetInfo,
    tx: SyncSender<ReaderMsg>,
    stop: Arc<AtomicBool>,
) {
    let mut reader = match dataset::open(&info.path, opts.format) {
        Ok(r) => r,
        Err(e) => {
            let _ = tx.send(ReaderMsg::Fatal(e));
            return;
        }
    };
    let batch_size = opts.batch_size.max(1);
    let mut taken = 0u64;
    let mut batch_no = 0u64;
    let mut batch = Batch {
        records: Vec::with_capacity(batch_size),
        skipped: Vec::new(),
    };
    let flush = |mut b: Batch, batch_no: u64| -> bool {
        if opts.shuffle {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(opts.seed);
            rng.set_stream(batch_no);
            b.records.shuffle(&mut rng);
        }
        tx.send(ReaderMsg::Batch(b)).is_ok()
    };
    loop {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        if opts.limit.is_some_and(|l| taken >= l) {
            break;
        }
        let Some(item) = reader.next() else { break };
        match item {
            Ok(rec) => {
                taken += 1;
                if opts.shard.is_some_and(|sh| !sh.owns(rec.index)) {
                    continue;
                }
                batch.records.push(rec);
                if batch.records.len() == batch_size {
                    let full = std::mem::replace(
                        &mut batch,
                        Batch {
                            records: Vec::with_capacity(batch_size),
                            skipped: Vec::new(),
                        },
                    );
                    if !flush(full, batch_no) {
                        return;
                    }
                    batch_no += 1;
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
                let _ = tx.send(ReaderMsg::Fatal(e));
                return;
            }
        }
    }
    if !batch.records.is_empty() || !batch.skipped.is_empty() {
        flush(batch, batch_no);
    }
}

/// Verifies a result and turns it into the aggregator's record.
fn outcome(rec: &Record, r: &SolveResult, time_ns: u64) -> PuzzleOutcome {
    let wrong = match r.solution() {
        Some(g) if !g.is_solution_of(&rec.puzzle) => Some(
            g.check_solution_of(&rec.puzzle)
                .err()
                .map_or_else(|| "invalid grid".to_string(), |e| e.to_string()),
        ),
        _ => None,
    };
    let matches_solution = match (&rec.solution, r.status) {
        (Some(expected), Status::Solved | Status::Multiple) => Some(r.grid == *expected),
        (Some(_), Status::NoSolution | Status::Invalid) => Some(false),
        _ => None,
    };
    PuzzleOutcome {
        index: rec.index,
        line: rec.line,
        status: r.status,
        solutions: r.solutions,
        time_ns,
        counters: r.counters,
        givens: rec.puzzle.givens() as u8,
        matches_solution,
        wrong,
    }
}

/// Writes finished batches in input order: aggregates every outcome, writes
/// the rows, and hands the batch's token back to the dispatcher.
fn write_batches(
    rx: Receiver<Done>,
    tokens: SyncSender<()>,
    stats: &mut UnitStats,
    sink: &mut dyn RowSink,
    format: Option<&RowFormat>,
    shuffled: bool,
    progress: &dyn Progress,
) -> std::io::Result<()> {
    let mut pending: BTreeMap<u64, Done> = BTreeMap::new();
    let mut next = 0u64;
    for done in rx.iter() {
        pending.insert(done.seq, done);
        while let Some(d) = pending.remove(&next) {
            next += 1;
            for s in d.skipped {
                stats.skip(s);
            }
            for (t, x) in stats.pass_ns.iter_mut().zip(&d.pass_ns) {
                *t += x;
            }
            let (outcomes, rows) = match d.payload {
                Payload::Raw(records, solved) => finish(&records, &solved, shuffled, format),
                Payload::Finished(outcomes, rows) => (outcomes, rows),
            };
            for o in &outcomes {
                stats.record(o);
            }
            if !rows.is_empty() {
                sink.write(&rows)?;
            }
            progress.advance(outcomes.len() as u64);
            // Never blocks: there are only as many tokens as the channel holds.
            let _ = tokens.send(());
        }
    }
    Ok(())
}

/// `puzzles.csv`: one row per puzzle × strategy, written while the run goes.
pub struct PuzzleCsv {
    out: BufWriter<File>,
    path: PathBuf,
}

/// Columns of `puzzles.csv`.
pub const PUZZLE_CSV_HEADER: [&str; 16] = [
    "dataset",
    "index",
    "id",
    "rating",
    "strategy",
    "status",
    "solutions",
    "time_ns",
    "guesses",
    "backtracks",
    "max_depth",
    "nodes",
    "naked_singles",
    "hidden_singles",
    "givens",
    "matches_solution",
];

impl PuzzleCsv {
    pub fn create(path: &Path) -> std::io::Result<Self> {
        let file = File::create(path)?;
        let mut out = BufWriter::with_capacity(1 << 16, file);
        let mut header = Vec::new();
        for (i, name) in PUZZLE_CSV_HEADER.iter().enumerate() {
            if i > 0 {
                header.push(b',');
            }
            push_text(&mut header, name.as_bytes());
        }
        header.push(b'\n');
        out.write_all(&header)?;
        Ok(PuzzleCsv {
            out,
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn finish(self) -> std::io::Result<()> {
        let file = self.out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()
    }
}

impl RowSink for PuzzleCsv {
    fn unit(&mut self, dataset: &str, strategy: &str) -> Option<RowFormat> {
        Some(RowFormat::new(dataset, strategy))
    }

    fn write(&mut self, rows: &[u8]) -> std::io::Result<()> {
        self.out.write_all(rows)
    }
}

/// Formats `puzzles.csv` rows of one (dataset, strategy) unit. Text fields
/// are escaped by the csv crate (the unit's dataset and strategy once, id
/// and rating when they need it); numbers are formatted directly.
#[derive(Clone, Debug)]
pub struct RowFormat {
    /// `dataset,` escaped.
    dataset: Vec<u8>,
    /// `,strategy,` escaped.
    strategy: Vec<u8>,
}

impl RowFormat {
    pub fn new(dataset: &str, strategy: &str) -> Self {
        let mut d = Vec::new();
        push_text(&mut d, dataset.as_bytes());
        d.push(b',');
        let mut s = vec![b','];
        push_text(&mut s, strategy.as_bytes());
        s.push(b',');
        RowFormat {
            dataset: d,
            strategy: s,
        }
    }

    /// Appends the row of `o` (the outcome of `rec`) to `row`.
    pub fn push(&self, row: &mut Vec<u8>, rec: &Record, o: &PuzzleOutcome) {
        let c = &o.counters;
        let mut n = itoa::Buffer::new();
        row.reserve(256);
        row.extend_from_slice(&self.dataset);
        push_u64(row, &mut n, o.index);
        row.push(b',');
        if let Some(id) = &rec.id {
            push_text(row, id.as_bytes());
        }
        row.push(b',');
        if let Some(rating) = &rec.rating {
            push_text(row, rating.as_bytes());
        }
        row.extend_from_slice(&self.strategy);
        // Constant-length pieces are stored inline, without a copy call.
        match o.status {
            Status::Solved => row.extend_from_slice(b"solved"),
            Status::NoSolution => row.extend_from_slice(b"no_solution"),
            Status::Multiple => row.extend_from_slice(b"multiple"),
            Status::Invalid => row.extend_from_slice(b"invalid"),
            Status::Stalled => row.extend_from_slice(b"stalled"),
            Status::GaveUp => row.extend_from_slice(b"gave_up"),
        }
        for v in [
            o.solutions as u64,
            o.time_ns,
            c.guesses,
            c.backtracks,
            c.max_depth as u64,
            c.nodes,
            c.naked_singles,
            c.hidden_singles,
            o.givens as u64,
        ] {
            row.push(b',');
            push_u64(row, &mut n, v);
        }
        row.extend_from_slice(match o.matches_solution {
            Some(true) => b",true\n",
            Some(false) => b",false\n",
            None => b",\n",
        });
    }
}

/// Appends `v` in decimal; one- and two-digit values (most counters) without
/// a call.
#[inline(always)]
fn push_u64(row: &mut Vec<u8>, n: &mut itoa::Buffer, v: u64) {
    if v < 10 {
        row.push(b'0' + v as u8);
    } else if v < 100 {
        row.extend_from_slice(&[b'0' + (v / 10) as u8, b'0' + (v % 10) as u8]);
    } else {
        row.extend_from_slice(n.format(v).as_bytes());
    }
}

/// Appends `field` to `buf` as one CSV field (quoted when needed).
fn push_text(buf: &mut Vec<u8>, field: &[u8]) {
    if field
        .iter()
        .all(|&b| !matches!(b, b',' | b'"' | b'\n' | b'\r'))
    {
        buf.extend_from_slice(field);
        return;
    }
    // Rare (a quote, comma or newline): let csv quote it, as a one-field
    // record whose terminator is dropped.
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    // Writing to an in-memory buffer cannot fail.
    let _ = w.write_record([field]);
    if let Ok(bytes) = w.into_inner() {
        buf.extend_from_slice(bytes.strip_suffix(b"\n").unwrap_or(&bytes));
    }
}

/// Builds the rayon pool (0 threads: one per logical core).
///
/// When there are fewer solver threads than cores, solver thread `i` is
/// pinned to core `i` and the reader and writer threads to the remaining
/// cores ([`pin_helper_thread`]), so that the scheduler never parks the
/// pipeline's own threads on a solver's core. With as many threads as cores
/// nothing is pinned.
pub fn pool(threads: usize) -> anyhow::Result<rayon::ThreadPool> {
    let cores = core_affinity::get_core_ids().unwrap_or_default();
    let pin = threads > 0 && threads < cores.len();
    Ok(rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("solver-{i}"))
        .start_handler(move |i| {
            if pin {
                if let Some(core) = core_affinity::get_core_ids().and_then(|c| c.get(i).copied()) {
                    core_affinity::set_for_current(core);
                }
            }
        })
        .build()?)
}

/// Pins the calling (reader or writer) thread to the cores not used by the
/// first `threads` solver threads, when there are such cores.
pub fn pin_helper_thread(threads: usize) {
    let cores = core_affinity::get_core_ids().unwrap_or_default();
    if threads > 0 && threads < cores.len() {
        // Round-robin over the spare cores (with two cores: the other one).
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let spare = &cores[threads..];
        let k = NEXT.fetch_add(1, Ordering::Relaxed) % spare.len();
        core_affinity::set_for_current(spare[k]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::Counters;

    #[test]
    fn puzzle_rows_are_valid_csv_with_escaped_text() {
        let dir = std::env::temp_dir().join(format!("bench-sudoku-rows-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("p.csv");
        let mut w = PuzzleCsv::create(&path).unwrap();
        let format = w
            .unit("set, \"one\"", "prop=hidden,branch=max,order=asc")
            .unwrap();
        let rec = Record {
            index: 7,
            line: 9,
            id: Some("a,b".into()),
            rating: Some(" 3 ".into()),
            puzzle: crate::Grid::empty(),
            solution: None,
        };
        let o = PuzzleOutcome {
            index: 7,
            line: 9,
            status: Status::Multiple,
            solutions: 2,
            time_ns: 12345,
            counters: Counters {
                guesses: 3,
                backtracks: 2,
                max_depth: 1,
                nodes: 4,
                naked_singles: 5,
                hidden_singles: 6,
            },
            givens: 0,
            matches_solution: Some(false),
            wrong: None,
        };
        let mut row = Vec::new();
        format.push(&mut row, &rec, &o);
        w.write(&row).unwrap();
        w.finish().unwrap();
        let mut r = csv::Reader::from_path(&path).unwrap();
        assert_eq!(r.headers().unwrap().len(), 16);
        let rows: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
        assert_eq!(rows.len(), 1);
        let row: Vec<&str> = rows[0].iter().collect();
        assert_eq!(
            row,
            [
                "set, \"one\"",
                "7",
                "a,b",
                " 3 ",
                "prop=hidden,branch=max,order=asc",
                "multiple",
                "2",
                "12345",
                "3",
                "2",
                "1",
                "4",
                "5",
                "6",
                "0",
                "false"
            ]
        );
    }

    #[test]
    fn rows_name_every_status_as_the_reports_do() {
        let f = RowFormat::new("d", "s");
        let rec = Record {
            index: 0,
            line: 1,
            id: None,
            rating: None,
            puzzle: crate::Grid::empty(),
            solution: None,
        };
        for status in Status::ALL {
            let o = PuzzleOutcome {
                index: 123,
                line: 1,
                status,
                solutions: 0,
                time_ns: 9,
                counters: Counters::default(),
                givens: 99,
                matches_solution: None,
                wrong: None,
            };
            let mut row = Vec::new();
            f.push(&mut row, &rec, &o);
            let text = String::from_utf8(row).unwrap();
            let fields: Vec<&str> = text.trim_end().split(',').collect();
            assert_eq!(fields[5], status.as_str());
            assert_eq!((fields[1], fields[7], fields[14]), ("123", "9", "99"));
        }
    }

    #[test]
    fn shards_partition_the_indices() {
        let shards: Vec<Shard> = (1..=3).map(|k| format!("{k}/3").parse().unwrap()).collect();
        for i in 0..100u64 {
            assert_eq!(shards.iter().filter(|s| s.owns(i)).count(), 1);
        }
        assert!(shards[0].owns(0) && shards[1].owns(1) && shards[2].owns(5));
        assert_eq!(shards[1].to_string(), "2/3");
        assert_eq!(" 1 / 1 ".parse::<Shard>(), Ok(Shard { k: 1, n: 1 }));
        for bad in ["0/3", "4/3", "1/0", "", "3", "a/b", "-1/3"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}
