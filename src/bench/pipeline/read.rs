//! Reading: a dataset cut into batches of `--batch-size` puzzles, with
//! `--limit`, `--shard`, `--shuffle`, `--skip-invalid` and `--transform`
//! applied.
//!
//! Reading is split in two. [`BatchReader::next_batch`] is the part done in
//! order, one thread at a time (the serial stage whose cost `meta.json`
//! records as `read_ns_per_puzzle`): for plain 81-character lines it only
//! cuts the input into lines and copies them out ([`RawLines`]).
//! [`Batch::prepare`] is the rest, done by the thread that is about to
//! solve the batch, in parallel with the reading of the batches after it:
//! parsing those lines, `--shard`, `--skip-invalid`, `--transform` and
//! `--shuffle`. Other formats (CSV, pencilmark, the first line, lines of
//! another length) are parsed by the reader itself.

use super::*;
use crate::dataset::RawLines;

/// One batch: the records in solve order plus rows skipped while reading it.
pub(super) struct Batch {
    pub(super) records: Vec<Record>,
    pub(super) skipped: Vec<Skipped>,
    /// Rows read but not yet parsed (until [`Batch::prepare`]).
    raw: Option<RawLines>,
    /// The batch's number in the dataset (seeds `--shuffle`).
    number: u64,
}

/// Cuts a dataset into batches of `--batch-size` puzzles, applying
/// `--limit`; see the module docs for what is left to [`Batch::prepare`].
pub(super) struct BatchReader<'a> {
    pub(super) opts: &'a RunOptions,
    pub(super) reader: dataset::Reader,
    /// Puzzle rows taken so far (for `--limit`).
    pub(super) taken: u64,
    pub(super) batch_no: u64,
    pub(super) done: bool,
    /// Rows may be handed on unparsed. Not with `--limit` and
    /// `--skip-invalid` together: the limit then counts valid rows, which
    /// only parsing tells.
    pub(super) raw: bool,
    /// CPU time spent reading ([`BatchReader::next_batch`], or batches
    /// timed together by [`BatchReader::charge`]), in ns (one thread at a
    /// time reads).
    pub(super) busy_ns: u64,
}

/// Where a reading started on the reading thread's own CPU clock: in the
/// helper layout that thread shares a spare core with finishing threads,
/// and the time it waits for that core is not work one thread must do per
/// puzzle (the wall clock where there is no thread clock). Each read of
/// the thread clock is a system call (about half a microsecond), so a
/// reader that reads several batches at once times them together.
pub(super) struct ReadStart {
    cpu: Option<u64>,
    wall: Instant,
}

impl ReadStart {
    pub(super) fn now() -> Self {
        ReadStart {
            cpu: sysinfo::thread_cpu_ns(),
            wall: Instant::now(),
        }
    }
}

impl<'a> BatchReader<'a> {
    pub(super) fn open(opts: &'a RunOptions, info: &DatasetInfo) -> Result<Self, DatasetError> {
        Ok(BatchReader {
            opts,
            reader: dataset::open_as(&info.source, &info.path, opts.format)?,
            taken: 0,
            batch_no: 0,
            done: false,
            raw: !(opts.limit.is_some() && opts.skip_invalid),
            busy_ns: 0,
        })
    }

    /// The next batch (a batch may hold only skipped rows); `None` at the
    /// end, and after an error.
    pub(super) fn next_batch(&mut self) -> Option<Result<Batch, DatasetError>> {
        let start = ReadStart::now();
        let batch = self.read_batch();
        self.charge(start);
        batch
    }

    /// Adds the reading thread's time since `start` to [`Self::busy_ns`].
    pub(super) fn charge(&mut self, start: ReadStart) {
        self.busy_ns += match (start.cpu, sysinfo::thread_cpu_ns()) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => start.wall.elapsed().as_nanos() as u64,
        };
    }

    /// [`Self::next_batch`] untimed, for a caller that times several
    /// batches at once ([`Self::charge`]).
    pub(super) fn read_batch(&mut self) -> Option<Result<Batch, DatasetError>> {
        if self.done {
            return None;
        }
        let opts = self.opts;
        let batch_size = opts.batch_size.max(1);
        let number = self.batch_no;
        if self.raw {
            let left = opts
                .limit
                .map_or(u64::MAX, |l| l.saturating_sub(self.taken));
            let max = batch_size.min(usize::try_from(left).unwrap_or(usize::MAX));
            match self.reader.next_raw(max, spare_bytes()) {
                Ok(Some(raw)) => {
                    self.taken += raw.len() as u64;
                    self.batch_no += 1;
                    return Some(Ok(Batch {
                        records: Vec::new(),
                        skipped: Vec::new(),
                        raw: Some(raw),
                        number,
                    }));
                }
                Ok(None) => {}
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
        let mut batch = Batch {
            records: recycled(batch_size),
            skipped: Vec::new(),
            raw: None,
            number,
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
                Err(e) => {
                    if let Err(e) = keep_or_skip(opts, e, &mut batch.skipped) {
                        self.done = true;
                        return Some(Err(e));
                    }
                }
            }
        }
        if batch.records.is_empty() && batch.skipped.is_empty() {
            return None;
        }
        self.batch_no += 1;
        Some(Ok(batch))
    }
}

/// A row error under `--skip-invalid` is listed as skipped (or ignored when
/// another shard owns the row); any other error is returned.
fn keep_or_skip(
    opts: &RunOptions,
    e: DatasetError,
    skipped: &mut Vec<Skipped>,
) -> Result<(), DatasetError> {
    if !(e.is_row() && opts.skip_invalid) {
        return Err(e);
    }
    let owned = opts
        .shard
        .is_none_or(|sh| e.index().is_none_or(|i| sh.owns(i)));
    if owned {
        skipped.push(Skipped {
            line: e.line(),
            index: e.index(),
            error: e.to_string(),
        });
    }
    Ok(())
}

impl Batch {
    /// A batch with no rows, to prepare batches into.
    pub(super) fn empty() -> Batch {
        Batch {
            records: Vec::new(),
            skipped: Vec::new(),
            raw: None,
            number: 0,
        }
    }

    /// An empty batch whose record vector has room for `rows` records (a
    /// spare one when there is one).
    pub(super) fn with_room(rows: usize) -> Batch {
        Batch {
            records: recycled(rows),
            ..Batch::empty()
        }
    }

    /// Rows in the batch: records, or raw rows not yet parsed (skipped rows
    /// not counted).
    pub(super) fn rows(&self) -> usize {
        self.raw.as_ref().map_or(self.records.len(), RawLines::len)
    }

    /// Makes the batch ready to solve, on the thread that will solve it:
    /// parses its raw rows (with `--shard` and `--skip-invalid` applied as
    /// the reader applies them), then applies `--transform` and
    /// `--shuffle`. A bad row without `--skip-invalid` is an error, and the
    /// batch must then not be solved (as when the reader meets the row).
    pub(super) fn prepare(&mut self, opts: &RunOptions) -> Result<(), DatasetError> {
        let this = std::mem::replace(self, Batch::empty());
        this.prepare_into(opts, self)
    }

    /// [`Batch::prepare`], appending the records and skipped rows to `out`
    /// (batches prepared one after another into one stay in input order;
    /// `--shuffle` shuffles each batch's own records).
    pub(super) fn prepare_into(
        mut self,
        opts: &RunOptions,
        out: &mut Batch,
    ) -> Result<(), DatasetError> {
        let start = out.records.len();
        if let Some(at) = injected_fault("prepare") {
            let held = match &self.raw {
                Some(raw) => {
                    (raw.first_index()..raw.first_index() + raw.len() as u64).contains(&at)
                }
                None => self.records.iter().any(|r| r.index == at),
            };
            assert!(!held, "injected by BENCH_SUDOKU_FAULT=prepare:{at}");
        }
        if let Some(raw) = self.raw.take() {
            if out.records.capacity() - start < raw.len() {
                if start == 0 {
                    out.records = recycled(raw.len());
                } else {
                    out.records.reserve(raw.len());
                }
            }
            let mut fatal = None;
            let skipped = &mut out.skipped;
            raw.parse_into(&mut out.records, |e| match keep_or_skip(opts, e, skipped) {
                Ok(()) => true,
                Err(e) => {
                    fatal = Some(e);
                    false
                }
            });
            if let Some(sh) = opts.shard {
                let mut k = 0;
                out.records.retain(|r| {
                    k += 1;
                    k <= start || sh.owns(r.index)
                });
            }
            give_back_bytes(raw.into_buffer());
            if let Some(e) = fatal {
                return Err(e);
            }
        } else if start == 0 && out.skipped.is_empty() {
            // Read whole by the reader: nothing to copy.
            std::mem::swap(&mut out.records, &mut self.records);
            std::mem::swap(&mut out.skipped, &mut self.skipped);
            give_back(self.records);
        } else {
            out.records.append(&mut self.records);
            out.skipped.append(&mut self.skipped);
            give_back(self.records);
        }
        let mine = &mut out.records[start..];
        if let Some(seed) = opts.transform {
            for rec in mine.iter_mut() {
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
                rng.set_stream(rec.index);
                rec.transform(crate::grid::transform::Transform::random(&mut rng));
            }
        }
        if opts.shuffle {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(opts.seed);
            rng.set_stream(self.number);
            mine.shuffle(&mut rng);
        }
        Ok(())
    }
}

/// Buffers kept for reuse: a few per thread (the memory its own core
/// touched last, cheapest to write again: in the workers-only layout the
/// thread that finishes a batch often reads the next), the rest in one
/// shared list (in the helper layout one thread reads or parses what
/// another drops).
struct Spares<T: 'static> {
    local: &'static std::thread::LocalKey<std::cell::RefCell<Vec<T>>>,
    shared: &'static Mutex<Vec<T>>,
}

/// Buffers kept per thread, and in the shared list, at most.
const LOCAL_SPARES: usize = 4;
const SHARED_SPARES: usize = 64;

impl<T> Spares<T> {
    fn take(&self) -> Option<T> {
        self.local
            .with(|s| s.borrow_mut().pop())
            .or_else(|| self.shared.lock().unwrap_or_else(|e| e.into_inner()).pop())
    }

    /// Keeps `item` in the shared list, for a thread that never takes
    /// (its own list would only hold items no one uses again).
    fn give_shared(&self, item: T) {
        let mut shared = self.shared.lock().unwrap_or_else(|e| e.into_inner());
        if shared.len() < SHARED_SPARES {
            shared.push(item);
        }
    }

    fn give(&self, item: T) {
        let Some(item) = self.local.with(|s| {
            let mut s = s.borrow_mut();
            if s.len() < LOCAL_SPARES {
                s.push(item);
                None
            } else {
                Some(item)
            }
        }) else {
            return;
        };
        self.give_shared(item);
    }
}

thread_local! {
    static LOCAL_RECORDS: std::cell::RefCell<Vec<Vec<Record>>> = const { std::cell::RefCell::new(Vec::new()) };
    static LOCAL_BYTES: std::cell::RefCell<Vec<Vec<u8>>> = const { std::cell::RefCell::new(Vec::new()) };
}
static SHARED_RECORDS: Mutex<Vec<Vec<Record>>> = Mutex::new(Vec::new());
static SHARED_BYTES: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());

/// Record vectors of batches dropped.
const RECORDS: Spares<Vec<Record>> = Spares {
    local: &LOCAL_RECORDS,
    shared: &SHARED_RECORDS,
};
/// Byte buffers of raw rows parsed.
const BYTES: Spares<Vec<u8>> = Spares {
    local: &LOCAL_BYTES,
    shared: &SHARED_BYTES,
};

/// An empty byte buffer for raw rows: one given back, if any.
fn spare_bytes() -> Vec<u8> {
    BYTES.take().unwrap_or_default()
}

/// Keeps a raw rows' buffer for the next rows read.
fn give_back_bytes(mut bytes: Vec<u8>) {
    bytes.clear();
    BYTES.give(bytes);
}

/// An empty record vector with room for `n`: one given back, if any, else
/// a new one.
fn recycled(n: usize) -> Vec<Record> {
    match RECORDS.take() {
        Some(v) if v.capacity() >= n => v,
        _ => Vec::with_capacity(n),
    }
}

/// Gives a batch's record vector back for the next batches.
pub(super) fn give_back(records: Vec<Record>) {
    if let Some(records) = emptied(records) {
        RECORDS.give(records);
    }
}

/// [`give_back`] from a finishing thread of the helper layout, which never
/// reads: straight to the shared list, where the reading thread (on the
/// same spare core) takes the vector it just finished with, still in that
/// core's cache.
pub(super) fn give_back_shared(records: Vec<Record>) {
    if let Some(records) = emptied(records) {
        RECORDS.give_shared(records);
    }
}

/// The vector emptied for reuse; `None` when it has no room worth keeping.
fn emptied(mut records: Vec<Record>) -> Option<Vec<Record>> {
    (records.capacity() > 0).then(|| {
        records.clear();
        records
    })
}
