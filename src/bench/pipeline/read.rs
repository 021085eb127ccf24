//! Reading: a dataset cut into batches of `--batch-size` puzzles, with
//! `--limit`, `--shard`, `--shuffle` and `--skip-invalid` applied.

use super::*;

/// One batch: the records in solve order plus rows skipped while reading it.
pub(super) struct Batch {
    pub(super) records: Vec<Record>,
    pub(super) skipped: Vec<Skipped>,
}

/// Cuts a dataset into batches of `--batch-size` puzzles (shuffled with
/// `--shuffle`), applying `--limit`, `--shard` and `--skip-invalid`.
pub(super) struct BatchReader<'a> {
    pub(super) opts: &'a RunOptions,
    pub(super) reader: dataset::Reader,
    /// Puzzle rows taken so far (for `--limit`).
    pub(super) taken: u64,
    pub(super) batch_no: u64,
    pub(super) done: bool,
    /// Time spent in [`BatchReader::next_batch`], in ns (one thread at a
    /// time reads).
    pub(super) busy_ns: u64,
}

impl<'a> BatchReader<'a> {
    pub(super) fn open(opts: &'a RunOptions, info: &DatasetInfo) -> Result<Self, DatasetError> {
        Ok(BatchReader {
            opts,
            reader: dataset::open_as(&info.source, &info.path, opts.format)?,
            taken: 0,
            batch_no: 0,
            done: false,
            busy_ns: 0,
        })
    }

    /// The next batch (a batch may hold only skipped rows); `None` at the
    /// end, and after an error.
    pub(super) fn next_batch(&mut self) -> Option<Result<Batch, DatasetError>> {
        let start = Instant::now();
        let batch = self.read_batch();
        self.busy_ns += start.elapsed().as_nanos() as u64;
        batch
    }

    fn read_batch(&mut self) -> Option<Result<Batch, DatasetError>> {
        if self.done {
            return None;
        }
        let opts = self.opts;
        let batch_size = opts.batch_size.max(1);
        let mut batch = Batch {
            records: recycled(batch_size),
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
        if let Some(seed) = opts.transform {
            for rec in &mut batch.records {
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
                rng.set_stream(rec.index);
                rec.transform(crate::grid::transform::Transform::random(&mut rng));
            }
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

thread_local! {
    /// Record vectors of batches this thread dropped, for the batches it
    /// reads next.
    static SPARE: std::cell::RefCell<Vec<Vec<Record>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// An empty record vector with room for `n`: one this thread gave back, if
/// any, else a new one. In the workers-only layout the thread that finishes
/// a batch often reads the next one, and writing records into memory its
/// own core touched last is cheaper than into memory another core did
/// (docs/PERFORMANCE.md §7).
fn recycled(n: usize) -> Vec<Record> {
    match SPARE.with(|s| s.borrow_mut().pop()) {
        Some(v) if v.capacity() >= n => v,
        _ => Vec::with_capacity(n),
    }
}

/// Gives a batch's record vector back for the next batches this thread
/// reads (a few are kept per thread).
pub(super) fn give_back(mut records: Vec<Record>) {
    records.clear();
    SPARE.with(|s| {
        let mut s = s.borrow_mut();
        if s.len() < 4 {
            s.push(records);
        }
    });
}
