//! The batch benchmark: reader thread → bounded channel of batches → rayon
//! pool → results in input order → aggregator and per-puzzle writer.
//!
//! One *unit* is a (dataset, strategy) pair; units run one after another so
//! that every strategy has the machine to itself. Memory is bounded by the
//! batches in flight (at most [`IN_FLIGHT`] + 2 batches of `batch_size`
//! records), whatever the dataset size.
//!
//! Timing: each solve is timed alone with the monotonic clock
//! ([`std::time::Instant`]); parsing, validation, aggregation and writing
//! happen outside the timed region, on other threads where possible. With
//! `--repeat N` every batch is solved N times (after `--warmup` discarded
//! passes) and the per-puzzle time kept is the **minimum** over the measured
//! passes; the spread of the per-pass totals is reported.

pub mod metrics;
pub mod sysinfo;

use crate::dataset::{self, DatasetError, Format, Record};
use crate::solver::{Limits, SolveResult, Solver, Status, Strategy};
use metrics::{PuzzleOutcome, Skipped, UnitStats};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rayon::prelude::*;
use std::cell::RefCell;
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
    /// The (dataset, strategy) unit of the rows that follow.
    fn unit(&mut self, dataset: &str, strategy: &str);
    fn row(&mut self, rec: &Record, o: &PuzzleOutcome) -> std::io::Result<()>;
}

/// Discards rows (`--no-puzzle-csv`).
pub struct NoRows;

impl RowSink for NoRows {
    fn unit(&mut self, _: &str, _: &str) {}
    fn row(&mut self, _: &Record, _: &PuzzleOutcome) -> std::io::Result<()> {
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
    let (btx, brx) = sync_channel::<ReaderMsg>(IN_FLIGHT);
    let (wtx, wrx) = sync_channel::<(Vec<Record>, Vec<Solved>, Vec<Skipped>)>(IN_FLIGHT);
    let reader_stop = Arc::clone(stop);
    let mut stopped: Option<Stop> = None;
    let mut pass_ns = vec![0u64; opts.repeat.max(1) as usize];

    std::thread::scope(|scope| {
        // Reader.
        let reader = scope.spawn(|| {
            pin_helper_thread(opts.threads);
            read_batches(opts, info, btx, reader_stop)
        });
        // Writer / aggregator.
        let writer_stats = &mut stats;
        let writer = scope.spawn(move || {
            pin_helper_thread(opts.threads);
            write_rows(wrx, writer_stats, rows, opts.shuffle)
        });

        let repeats = opts.warmup + opts.repeat.max(1);
        for msg in brx.iter() {
            match msg {
                ReaderMsg::Fatal(e) => {
                    stopped = Some(Stop::Dataset(e));
                    break;
                }
                ReaderMsg::Batch(batch) => {
                    let outcomes = pool.install(|| {
                        solve_batch(
                            &batch.records,
                            strategy,
                            &opts.limits,
                            repeats,
                            opts.warmup,
                            &mut pass_ns,
                        )
                    });
                    progress.advance(batch.records.len() as u64);
                    if wtx.send((batch.records, outcomes, batch.skipped)).is_err() {
                        break; // the writer failed; its error is collected below
                    }
                    if stop.load(Ordering::Relaxed) {
                        stopped = Some(Stop::Interrupted);
                        break;
                    }
                }
            }
        }
        drop(brx); // unblocks the reader if it is waiting to send
        drop(wtx);
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
    stats.pass_ns = pass_ns;
    stats.passes = opts.warmup + opts.repeat.max(1);
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

/// Per-puzzle state across the passes of one batch.
struct Acc {
    best: u64,
    last: u64,
    result: Option<SolveResult>,
}

fn solve_batch(
    records: &[Record],
    strategy: &Strategy,
    limits: &Limits,
    passes: u32,
    warmup: u32,
    pass_ns: &mut [u64],
) -> Vec<Solved> {
    let mut acc: Vec<Acc> = records
        .iter()
        .map(|_| Acc {
            best: u64::MAX,
            last: 0,
            result: None,
        })
        .collect();
    for pass in 0..passes {
        let measured = pass >= warmup;
        records
            .par_iter()
            .zip(acc.par_iter_mut())
            .with_min_len(16)
            .for_each(|(rec, a)| {
                SOLVER.with(|s| {
                    let mut solver = s.borrow_mut();
                    let t = Instant::now();
                    let r = solver.solve(&rec.puzzle, strategy, limits);
                    let ns = t.elapsed().as_nanos() as u64;
                    a.last = ns;
                    if measured {
                        a.best = a.best.min(ns);
                    }
                    if a.result.is_none() {
                        a.result = Some(r);
                    } else {
                        debug_assert_eq!(a.result.map(|x| x.counters), Some(r.counters));
                    }
                });
            });
        if measured {
            pass_ns[(pass - warmup) as usize] += acc.iter().map(|a| a.last).sum::<u64>();
        }
    }
    acc.into_iter()
        .map(|a| Solved {
            result: a.result.expect("every puzzle solved at least once"),
            time_ns: a.best,
        })
        .collect()
}

/// A raw result on its way from the pool to the writer, which verifies it
/// (off the solver threads).
struct Solved {
    result: SolveResult,
    time_ns: u64,
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

fn write_rows(
    rx: Receiver<(Vec<Record>, Vec<Solved>, Vec<Skipped>)>,
    stats: &mut UnitStats,
    sink: &mut dyn RowSink,
    shuffled: bool,
) -> std::io::Result<()> {
    let (dataset, strategy) = (stats.dataset.clone(), stats.strategy.clone());
    sink.unit(&dataset, &strategy);
    let mut order: Vec<usize> = Vec::new();
    for (records, solved, skipped) in rx.iter() {
        for s in skipped {
            stats.skip(s);
        }
        order.clear();
        order.extend(0..records.len());
        if shuffled {
            // Shuffled batches go back to input order.
            order.sort_unstable_by_key(|&i| records[i].index);
        }
        for &i in &order {
            let (rec, s) = (&records[i], &solved[i]);
            let o = outcome(rec, &s.result, s.time_ns);
            stats.record(&o);
            sink.row(rec, &o)?;
        }
    }
    Ok(())
}

/// `puzzles.csv`: one row per puzzle × strategy, written while the run goes.
///
/// Rows are assembled in a reusable buffer: text fields are escaped by the
/// csv crate (the unit's dataset and strategy once per unit, id and rating
/// when present), numbers are formatted with `itoa`.
pub struct PuzzleCsv {
    out: BufWriter<File>,
    path: PathBuf,
    /// `dataset,` escaped, and `strategy,` escaped, for the current unit.
    dataset: Vec<u8>,
    strategy: Vec<u8>,
    row: Vec<u8>,
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
        let mut escape = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(Vec::new());
        escape.write_record(PUZZLE_CSV_HEADER).map_err(csv_io)?;
        let header = escape
            .into_inner()
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        out.write_all(&header)?;
        Ok(PuzzleCsv {
            out,
            path: path.to_path_buf(),
            dataset: Vec::new(),
            strategy: Vec::new(),
            row: Vec::with_capacity(256),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn finish(self) -> std::io::Result<()> {
        let file = self.out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()
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
}

fn csv_io(e: csv::Error) -> std::io::Error {
    match e.into_kind() {
        csv::ErrorKind::Io(io) => io,
        other => std::io::Error::other(format!("{other:?}")),
    }
}

impl RowSink for PuzzleCsv {
    fn unit(&mut self, dataset: &str, strategy: &str) {
        self.dataset.clear();
        Self::push_text(&mut self.dataset, dataset.as_bytes());
        self.dataset.push(b',');
        self.strategy.clear();
        self.strategy.push(b',');
        Self::push_text(&mut self.strategy, strategy.as_bytes());
        self.strategy.push(b',');
    }

    fn row(&mut self, rec: &Record, o: &PuzzleOutcome) -> std::io::Result<()> {
        let c = &o.counters;
        let mut n = itoa::Buffer::new();
        let row = &mut self.row;
        row.clear();
        row.extend_from_slice(&self.dataset);
        row.extend_from_slice(n.format(o.index).as_bytes());
        row.push(b',');
        if let Some(id) = &rec.id {
            Self::push_text(row, id.as_bytes());
        }
        row.push(b',');
        if let Some(rating) = &rec.rating {
            Self::push_text(row, rating.as_bytes());
        }
        row.extend_from_slice(&self.strategy);
        row.extend_from_slice(o.status.as_str().as_bytes());
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
            row.extend_from_slice(n.format(v).as_bytes());
        }
        row.extend_from_slice(match o.matches_solution {
            Some(true) => b",true\n",
            Some(false) => b",false\n",
            None => b",\n",
        });
        self.out.write_all(row)
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
        w.unit("set, \"one\"", "prop=hidden,branch=max,order=asc");
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
        w.row(&rec, &o).unwrap();
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
