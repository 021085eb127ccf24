//! The batch benchmark: datasets are read in bounded batches, solved by the
//! rayon pool, verified, put back in input order, aggregated and written
//! (the layouts are described in `pipeline`).
//!
//! One *unit* is a (dataset, strategy) pair. With two or more strategies
//! the units of a dataset run **interleaved** (the default): each chunk of
//! puzzles is solved by every strategy in turn on one thread, so that the
//! machine's ups and downs meet every strategy alike and each puzzle's
//! times can be paired with the baseline's ([`paired`]). With `sequential`
//! the units run one after another. Memory is bounded by the
//! batches in flight (`threads + 1` batches, or groups of a few, plus one
//! being read), whatever the dataset size.
//!
//! Every answer is verified (rules and givens, and the dataset's solution)
//! and its `puzzles.csv` row formatted off the timed region.
//!
//! Timing: each solve is timed alone with the monotonic clock
//! ([`std::time::Instant`]). With `--repeat N` every chunk of 32 puzzles is
//! solved N times (after `--warmup` discarded passes) and the per-puzzle
//! time kept is the **minimum** over the measured passes; the spread of the
//! per-pass totals is reported.

pub mod metrics;
pub mod outcome;
pub mod paired;
mod pipeline;
pub use pipeline::diagnostics;
pub use pipeline::MIN_CHUNK;
pub mod points;
pub mod rounds;
mod row;
pub mod sysinfo;

use crate::dataset::{self, DatasetError, Format};
use crate::solver::{CounterSet, Limits, Strategy};
use metrics::UnitStats;
use row::push_text;
pub use row::RowFormat;
use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Default number of puzzles per batch (also the shuffle window). Small
/// batches keep the solver threads busy at the end of a batch when they do
/// all the work (`-j` = cores).
pub const DEFAULT_BATCH: usize = 256;

/// Everything a run needs.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub datasets: Vec<PathBuf>,
    pub strategies: Vec<Strategy>,
    pub threads: usize,
    pub repeat: u32,
    pub warmup: u32,
    /// Solve a chunk's passes back to back (the CPU has just practised each
    /// puzzle) instead of cold (docs/MEASUREMENT.md).
    pub practised: bool,
    pub limit: Option<u64>,
    pub shuffle: bool,
    pub seed: u64,
    pub limits: Limits,
    pub format: Format,
    pub batch_size: usize,
    pub skip_invalid: bool,
    /// `--shard K/N`: only the puzzles whose index % N == K − 1.
    pub shard: Option<Shard>,
    /// Strategies one after another instead of interleaved.
    pub sequential: bool,
    /// The strategy the others are paired with (an index into
    /// `strategies`).
    pub baseline: usize,
    /// One more pair, (candidate, reference), when a gate's BASE is not the
    /// baseline (`run --gate BASE:CANDIDATE --baseline OTHER`): the
    /// candidate is then paired with both ([`metrics::UnitStats::paired_gate`]).
    pub gate_pair: Option<(usize, usize)>,
    /// `--transform SEED`: every puzzle replaced by a random isomorph, drawn
    /// from ChaCha8 seeded with SEED on the stream of its 0-based index.
    pub transform: Option<u64>,
    /// Places the interleaved strategies' order starts further on in every
    /// chunk and pass (0 in a run's own measurement; a budgeted gate's
    /// round `r` starts `r − 1` places on, so that over the rounds a
    /// chunk's puzzles meet every order: [`rounds`]).
    pub rotation: usize,
    /// Strategies that make other passes than `repeat` and `warmup` say
    /// (their spec's `repeat=` and `warmup=` keys), by name: a slow
    /// solver measured once beside a fast one measured three times.
    pub strategy_passes: Vec<(String, Passes)>,
    /// `--repeat` or `--warmup` was given: a budgeted gate's later rounds
    /// make the run's passes rather than choosing their own.
    pub passes_given: bool,
}

/// The passes a strategy makes over each puzzle: `warmup` discarded, then
/// `repeat` measured (its kept time is the minimum of those).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Passes {
    pub warmup: u32,
    pub repeat: u32,
}

impl Passes {
    /// Every pass, warm-up included.
    pub fn total(self) -> u32 {
        self.warmup + self.repeat.max(1)
    }
}

impl RunOptions {
    /// The passes the strategy named `name` makes: its own, else the run's.
    pub fn passes_of(&self, name: &str) -> Passes {
        self.strategy_passes.iter().find(|(n, _)| n == name).map_or(
            Passes {
                warmup: self.warmup,
                repeat: self.repeat.max(1),
            },
            |&(_, p)| p,
        )
    }
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

    /// How many of the puzzles at indexes `0..n` this shard owns: one per
    /// whole round of N, and one more when the last, partial round reaches
    /// index K − 1 (without the sum `n + N` that overflows for a large N).
    pub fn count_of(&self, n: u64) -> u64 {
        n / self.n + u64::from(n % self.n >= self.k)
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

/// Where per-puzzle rows go. Rows come by *group*: the units of one
/// dataset run together (one unit, or every strategy when interleaved).
/// Whatever the order rows arrive in, a sink writes a group's rows unit
/// after unit.
pub trait RowSink: Send {
    /// Starts a group of units (strategy labels and the counters each
    /// reports). Returns how to format each unit's rows (the solver threads
    /// format them), or `None` where rows are discarded.
    fn group(
        &mut self,
        dataset: &str,
        units: &[(&str, CounterSet)],
    ) -> std::io::Result<Vec<Option<RowFormat>>>;
    /// Appends rows of the group's unit `unit` (made by its [`RowFormat`],
    /// in input order).
    fn write(&mut self, unit: usize, rows: &[u8]) -> std::io::Result<()>;
    /// Like [`write`](Self::write), but only reserves the next `len` bytes
    /// of unit `unit` in a file: the caller writes the rows there itself,
    /// after leaving the ordered writer, so that copying rows and the
    /// system calls run on many threads. `None`: this sink takes its rows
    /// through `write`.
    fn reserve(&mut self, _unit: usize, _len: usize) -> Option<std::io::Result<Slot>> {
        None
    }
    /// Ends the group: every unit's rows are in place.
    fn end_group(&mut self) -> std::io::Result<()>;
}

/// Discards rows (`--no-puzzle-csv`).
pub struct NoRows;

impl RowSink for NoRows {
    fn group(
        &mut self,
        _: &str,
        units: &[(&str, CounterSet)],
    ) -> std::io::Result<Vec<Option<RowFormat>>> {
        Ok(vec![None; units.len()])
    }
    fn write(&mut self, _: usize, _: &[u8]) -> std::io::Result<()> {
        Ok(())
    }
    fn end_group(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Receives progress: a group of units starting (its strategies' labels,
/// joined with `+`, and an estimate of its solves) and solves done.
pub trait Progress: Sync {
    fn unit_start(&self, _dataset: &str, _strategies: &str, _estimate: Option<u64>) {}
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
    /// The dataset as given (recorded in `meta.json`).
    pub path: PathBuf,
    /// Where it is read from: the path itself, or for a stream (`-`, a
    /// pipe, a FIFO) the temporary copy made when it was inspected.
    pub source: PathBuf,
    /// Keeps that copy until the run ends.
    pub spool: Option<Arc<tempfile::TempPath>>,
    pub format: Format,
    pub gzip: bool,
    pub has_solutions: bool,
    pub estimate: Option<u64>,
}

impl DatasetInfo {
    /// The puzzles a run will solve of this dataset, when its size is
    /// known: its estimated rows, within `--limit` and one `--shard`'s
    /// share.
    pub fn expected(&self, opts: &RunOptions) -> Option<u64> {
        let mut n = self.estimate?;
        if let Some(l) = opts.limit {
            n = n.min(l);
        }
        if let Some(sh) = opts.shard {
            n = n.div_ceil(sh.n.max(1));
        }
        Some(n)
    }
}

/// Opens every dataset once to fail fast on file-level problems (a stream
/// is first copied to a temporary file: [`dataset::spool`]). With
/// `estimate`, also counts each dataset's puzzles for the progress display
/// (a pass over the whole file, before the units start: skipped when no
/// progress is shown).
pub fn inspect(opts: &RunOptions, estimate: bool) -> Result<Vec<DatasetInfo>, DatasetError> {
    let mut names: Vec<String> = Vec::new();
    opts.datasets
        .iter()
        .map(|path| {
            // A stream can be read only once: copied to a file first.
            let spool = if dataset::is_stream(path) {
                Some(Arc::new(dataset::spool(path)?))
            } else {
                None
            };
            // Read by its absolute name: a solver loaded into the process
            // may change the working directory between two groups.
            let source = spool.as_ref().map_or_else(
                || std::path::absolute(path).unwrap_or_else(|_| path.clone()),
                |t| t.to_path_buf(),
            );
            let reader = dataset::open_as(&source, path, opts.format)?;
            // The name every report and message shows: a file name's
            // control characters (an escape sequence, a line break) are
            // escaped, so that no table, message or verdict line can be
            // forged or garbled by one.
            let mut name = crate::support::text::printable(&dataset::stem(path)).into_owned();
            // Two datasets with one stem stay distinguishable.
            let base = name.clone();
            let mut k = 2;
            while names.contains(&name) {
                name = format!("{base}-{k}");
                k += 1;
            }
            names.push(name.clone());
            let estimate = estimate
                .then(|| dataset::estimate_count(&source))
                .flatten()
                .map(|n| opts.limit.map_or(n, |l| l.min(n)))
                .map(|n| opts.shard.map_or(n, |s| s.count_of(n)));
            Ok(DatasetInfo {
                name,
                path: path.clone(),
                source,
                spool,
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
    /// A thread of the pipeline panicked (a bug, in bench-sudoku or in a
    /// solver running in this process): where, and the panic's message.
    Panic(String),
    /// The environment refused the run what it needs (descriptors, memory,
    /// processes), or a solver's program cannot be run any more: an error of
    /// the run, not a fault of the solver.
    Environment(String),
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Dataset(e) => write!(f, "{e}"),
            Stop::Output(e) => write!(f, "writing puzzles.csv: {e}"),
            Stop::Interrupted => write!(f, "interrupted"),
            Stop::Panic(what) => write!(f, "{what}"),
            Stop::Environment(why) => write!(f, "{why}"),
        }
    }
}

/// The outcome of all units that ran (complete or not).
pub struct RunResults {
    pub units: Vec<UnitStats>,
    pub skipped_per_dataset: Vec<u64>,
    pub puzzles_per_dataset: Vec<u64>,
    /// The content hash sum of each dataset (`None` when it stopped early).
    pub content_per_dataset: Vec<Option<u64>>,
    /// Puzzles of each dataset that repeat a grid seen before in it.
    pub repeats_per_dataset: Vec<u64>,
    pub processed: u64,
    pub stopped: Option<Stop>,
    /// Time spent in the serial stages, over every group.
    pub serial: pipeline::SerialTime,
    /// Which thread layout ran (both are described in `pipeline`).
    pub layout: &'static str,
    /// Helper threads beside the solver threads (0 in the workers-only
    /// layout).
    pub helper_threads: usize,
    /// CPU time of the whole process (user + system) while the units ran,
    /// where the system reports it.
    pub cpu_ns: Option<u64>,
    /// Time the strategies took over their chunks, over every group (see
    /// [`pipeline::GroupFacts::solving_ns`]).
    pub solving_ns: u64,
    /// CPU time per stage over every group, with
    /// `BENCH_SUDOKU_STAGE_TIMES` set (see `pipeline::stages`).
    pub stages: Option<pipeline::StageTotals>,
}

/// Runs every (dataset, strategy) unit: dataset after dataset, and on each
/// the strategies interleaved (or one after another with
/// [`RunOptions::sequential`]). `stop` is polled between batches.
pub fn run_all(
    opts: &RunOptions,
    infos: &[DatasetInfo],
    pool: &rayon::ThreadPool,
    rows: &mut dyn RowSink,
    progress: &dyn Progress,
    stop: &Arc<AtomicBool>,
) -> RunResults {
    let every: Vec<usize> = (0..infos.len()).collect();
    // The run's own count (a scan runs several in one process); a gate's
    // later rounds (`run_some`) add theirs.
    crate::solver::stopwatch::reset_preempted();
    // The calling thread is one of the harness's (solver::alone).
    crate::solver::alone::enter();
    run_some(opts, infos, &every, pool, rows, progress, stop)
}

/// [`run_all`] on the datasets `which` (indexes into `infos`) only; the
/// results' per-dataset lists still have one entry per dataset of `infos`.
pub fn run_some(
    opts: &RunOptions,
    infos: &[DatasetInfo],
    which: &[usize],
    pool: &rayon::ThreadPool,
    rows: &mut dyn RowSink,
    progress: &dyn Progress,
    stop: &Arc<AtomicBool>,
) -> RunResults {
    let mut results = RunResults {
        units: Vec::new(),
        skipped_per_dataset: vec![0; infos.len()],
        puzzles_per_dataset: vec![0; infos.len()],
        content_per_dataset: vec![None; infos.len()],
        repeats_per_dataset: vec![0; infos.len()],
        processed: 0,
        stopped: None,
        serial: pipeline::SerialTime::default(),
        layout: "",
        helper_threads: 0,
        cpu_ns: None,
        solving_ns: 0,
        stages: None,
    };
    let layout = pipeline::Layout::for_threads(pool.current_num_threads());
    (results.layout, results.helper_threads) = layout.describe();
    let cpu_start = sysinfo::process_cpu_ns();
    let groups: Vec<(&[Strategy], Option<usize>)> = if opts.sequential {
        opts.strategies.chunks(1).map(|g| (g, None)).collect()
    } else {
        vec![(&opts.strategies[..], Some(opts.baseline))]
    };
    let chosen = infos
        .iter()
        .enumerate()
        .filter(|(di, _)| which.contains(di));
    'units: for (di, info) in chosen {
        for (gi, &(group, baseline)) in groups.iter().enumerate() {
            // A supervisor names the dataset and strategy a library dies on.
            #[cfg(unix)]
            if let Some(board) = crate::board::this() {
                board.group(di, if opts.sequential { gi } else { 0 });
            }
            let label: Vec<&str> = group.iter().map(|s| s.name()).collect();
            progress.unit_start(
                &info.name,
                &label.join("+"),
                info.estimate.map(|n| n * group.len() as u64),
            );
            let (stats, stopped, facts) = pipeline::run_group(
                layout, opts, info, group, baseline, pool, rows, progress, stop,
            );
            progress.unit_end();
            results.serial.read_ns += facts.serial.read_ns;
            results.serial.write_ns += facts.serial.write_ns;
            results.solving_ns += facts.solving_ns;
            if let Some(t) = facts.stages {
                *results.stages.get_or_insert_with(Default::default) += t;
            }
            if stopped.is_none() {
                results.content_per_dataset[di] = Some(facts.content);
            }
            results.repeats_per_dataset[di] = facts.repeats;
            for u in stats {
                results.processed += u.puzzles;
                results.skipped_per_dataset[di] = u.skipped;
                results.puzzles_per_dataset[di] = u.puzzles;
                results.units.push(u);
            }
            if let Some(s) = stopped {
                results.stopped = Some(s);
                break 'units;
            }
        }
    }
    results.cpu_ns = cpu_start
        .zip(sysinfo::process_cpu_ns())
        .map(|(a, b)| b.saturating_sub(a));
    results
}

/// Room reserved in a file for a batch's rows ([`RowSink::reserve`]).
pub struct Slot {
    file: Arc<File>,
    offset: u64,
}

impl Slot {
    /// Writes `rows` (exactly the reserved length) at the slot's place.
    /// Slots never overlap, so any number of threads can write at once.
    pub fn write(&self, rows: &[u8]) -> std::io::Result<()> {
        #[cfg(unix)]
        {
            std::os::unix::fs::FileExt::write_all_at(&*self.file, rows, self.offset)
        }
        #[cfg(not(unix))]
        {
            // `PuzzleCsv` reserves nothing where positioned writes are not
            // available, so no slot exists here.
            let _ = rows;
            Err(std::io::Error::other("positioned writes are not supported"))
        }
    }
}

/// `puzzles.csv`: one row per puzzle × strategy, written while the run goes.
///
/// Each batch's rows are placed next in order by the ordered writer and
/// written at that place by the thread that finished the batch
/// ([`RowSink::reserve`]; positioned writes, on Unix), so that no single
/// thread copies every row. The rows of an interleaved group arrive unit by
/// unit within each batch; the first unit's rows go to the file, the
/// others' to temporary files beside it ([`spill_path`]), appended in order
/// when the group ends and then removed. The file is therefore the same,
/// row for row, as a sequential run's. The temporary files have names so
/// that the rows of a run whose process died can still be read back
/// (`results::recover`).
pub struct PuzzleCsv {
    out: Arc<File>,
    /// Where the next rows of the file go.
    end: u64,
    path: PathBuf,
    /// The current group's units after the first: a file each and its end.
    spills: Vec<(Arc<File>, u64)>,
}

/// Where unit `unit` (1-based past the first, which writes `partial`
/// itself) of an interleaved group keeps its rows until the group ends:
/// `puzzles.csv.partial.<unit>` beside `partial`.
pub fn spill_path(partial: &Path, unit: usize) -> PathBuf {
    let mut name = partial.as_os_str().to_os_string();
    name.push(format!(".{unit}"));
    PathBuf::from(name)
}

/// Columns of `puzzles.csv` (defined with the results directory's files).
pub use row::HEADER as PUZZLE_CSV_HEADER;

impl PuzzleCsv {
    pub fn create(path: &Path) -> std::io::Result<Self> {
        let mut file = File::create(path)?;
        let mut header = Vec::new();
        for (i, name) in PUZZLE_CSV_HEADER.iter().enumerate() {
            if i > 0 {
                header.push(b',');
            }
            push_text(&mut header, name.as_bytes());
        }
        header.push(b'\n');
        file.write_all(&header)?;
        Ok(PuzzleCsv {
            out: Arc::new(file),
            end: header.len() as u64,
            path: path.to_path_buf(),
            spills: Vec::new(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn finish(mut self) -> std::io::Result<()> {
        self.end_group()?;
        self.out.sync_all()
    }

    /// The file and end of unit `unit`'s rows.
    fn unit_file(&mut self, unit: usize) -> std::io::Result<(&Arc<File>, &mut u64)> {
        match unit.checked_sub(1) {
            None => Ok((&self.out, &mut self.end)),
            Some(k) => match self.spills.get_mut(k) {
                Some((file, end)) => Ok((&*file, end)),
                None => Err(std::io::Error::other(format!(
                    "rows of unit {unit} outside the group"
                ))),
            },
        }
    }
}

impl RowSink for PuzzleCsv {
    fn group(
        &mut self,
        dataset: &str,
        units: &[(&str, CounterSet)],
    ) -> std::io::Result<Vec<Option<RowFormat>>> {
        self.end_group()?;
        for k in 1..units.len() {
            let file = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(spill_path(&self.path, k))?;
            self.spills.push((Arc::new(file), 0));
        }
        Ok(units
            .iter()
            .map(|&(strategy, counters)| Some(RowFormat::new(dataset, strategy, counters)))
            .collect())
    }

    fn write(&mut self, unit: usize, rows: &[u8]) -> std::io::Result<()> {
        let (file, end) = self.unit_file(unit)?;
        let mut file: &File = file;
        file.seek(std::io::SeekFrom::Start(*end))?;
        file.write_all(rows)?;
        *end += rows.len() as u64;
        Ok(())
    }

    fn reserve(&mut self, unit: usize, len: usize) -> Option<std::io::Result<Slot>> {
        if cfg!(not(unix)) {
            return None;
        }
        Some(self.unit_file(unit).map(|(file, end)| {
            let slot = Slot {
                file: Arc::clone(file),
                offset: *end,
            };
            *end += len as u64;
            slot
        }))
    }

    fn end_group(&mut self) -> std::io::Result<()> {
        let spills = std::mem::take(&mut self.spills);
        let copied = self.append_spills(&spills);
        for k in 1..=spills.len() {
            let _ = std::fs::remove_file(spill_path(&self.path, k));
        }
        copied
    }
}

impl Drop for PuzzleCsv {
    /// Removes the temporary files of a group that never ended (the run
    /// stopped): their rows are not in the file, which is then not renamed
    /// into place either.
    fn drop(&mut self) {
        for k in 1..=self.spills.len() {
            let _ = std::fs::remove_file(spill_path(&self.path, k));
        }
    }
}

impl PuzzleCsv {
    /// Appends the spilled rows of a group's units to the file, in order.
    fn append_spills(&mut self, spills: &[(Arc<File>, u64)]) -> std::io::Result<()> {
        for &(ref spill, len) in spills {
            let mut spill: &File = spill;
            spill.seek(std::io::SeekFrom::Start(0))?;
            let mut from = spill.take(len);
            let mut to: &File = &self.out;
            to.seek(std::io::SeekFrom::Start(self.end))?;
            let copied = std::io::copy(&mut from, &mut to)?;
            if copied != len {
                return Err(std::io::Error::other(
                    "a temporary row file came back short",
                ));
            }
            self.end += len;
        }
        Ok(())
    }
}

/// Builds the rayon pool (0 threads: one per logical core).
///
/// With at most as many solver threads as cores, solver thread `i` is
/// pinned to core `i`, and the finishing threads (when there are fewer
/// solver threads than cores) to the remaining cores
/// ([`pin_helper_thread`]). The scheduler then never parks the pipeline's
/// own threads on a solver's core, nor wakes two solvers on one core (an
/// unpinned pool can start its second thread milliseconds late, both woken
/// on one core until the load balancer moves one).
/// With more threads than cores nothing is pinned.
pub fn pool(threads: usize) -> anyhow::Result<rayon::ThreadPool> {
    let cores = core_affinity::get_core_ids().unwrap_or_default();
    let pin = threads > 0 && threads <= cores.len();
    Ok(rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("solver-{i}"))
        .start_handler(move |i| {
            // A solver thread is one of the harness's (solver::alone).
            crate::solver::alone::enter();
            if pin {
                if let Some(core) = core_affinity::get_core_ids().and_then(|c| c.get(i).copied()) {
                    core_affinity::set_for_current(core);
                }
            }
        })
        .build()?)
}

/// Pins the calling (finishing) thread to the cores not used by the
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

    #[test]
    fn a_shard_counts_the_puzzles_it_owns_for_any_n() {
        for n_puzzles in 0..40u64 {
            for n in 1..6u64 {
                for k in 1..=n {
                    let s = Shard { k, n };
                    let owned = (0..n_puzzles).filter(|&i| s.owns(i)).count() as u64;
                    assert_eq!(s.count_of(n_puzzles), owned, "{k}/{n} of {n_puzzles}");
                }
            }
        }
        let huge = Shard { k: 1, n: u64::MAX };
        assert_eq!(huge.count_of(1000), 1);
        assert_eq!(
            Shard {
                k: u64::MAX,
                n: u64::MAX
            }
            .count_of(u64::MAX),
            1
        );
    }

    /// Rows placed in order and written by several threads in any order
    /// (and some through `write`) make the same file as rows written one
    /// after another: the header, then each unit's rows in order.
    #[test]
    fn puzzle_csv_places_rows_in_order_whoever_writes_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("puzzles.csv");
        let mut csv = PuzzleCsv::create(&path).unwrap();
        let mut expected: Vec<Vec<u8>> = vec![Vec::new(); 3];
        for group in ["a", "b"] {
            let units = [
                ("x", CounterSet::ALL),
                ("y", CounterSet::ALL),
                ("z", CounterSet::ALL),
            ];
            csv.group(group, &units).unwrap();
            let mut placed = Vec::new();
            for batch in 0..40 {
                for (k, want) in expected.iter_mut().enumerate() {
                    let rows = format!("{group},{batch},{k}\n")
                        .repeat(batch % 5 + 1)
                        .into_bytes();
                    want.extend_from_slice(&rows);
                    if batch % 7 == 0 {
                        csv.write(k, &rows).unwrap();
                    } else {
                        placed.push((csv.reserve(k, rows.len()).unwrap().unwrap(), rows));
                    }
                }
            }
            // Written backwards, from three threads.
            placed.reverse();
            std::thread::scope(|s| {
                for part in placed.chunks(placed.len().div_ceil(3)) {
                    s.spawn(move || {
                        for (slot, rows) in part {
                            slot.write(rows).unwrap();
                        }
                    });
                }
            });
            csv.end_group().unwrap();
        }
        csv.finish().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let header = text.lines().next().unwrap();
        assert!(header.starts_with("dataset,index"));
        let body = &text[header.len() + 1..];
        // Each group's rows: unit x's, then y's, then z's.
        let mut want = String::new();
        for group in ["a", "b"] {
            for unit in &expected {
                for line in std::str::from_utf8(unit).unwrap().lines() {
                    if line.starts_with(group) {
                        want.push_str(line);
                        want.push('\n');
                    }
                }
            }
        }
        assert_eq!(body, want);
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
