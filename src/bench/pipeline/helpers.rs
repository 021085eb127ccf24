//! The helper-threads layout: the calling thread reads and hands batches
//! to the pool's solver threads; finishing threads on the spare cores
//! verify, aggregate and write (see the parent module).

use super::*;

/// A solved batch sent to the finishing threads: each chunk's first
/// position and its results for every strategy.
pub(super) struct Raw {
    pub(super) seq: u64,
    pub(super) batch: Batch,
    pub(super) parts: Vec<(usize, Vec<Chunk>)>,
}

/// Batches handed to the pool as one job (and finished as one). Every
/// hand-over wakes a thread or two (the dispatcher for a token, a finishing
/// thread for the solved job), and each wake-up costs CPU time; handing
/// over several default batches at a time makes that cost a small part of
/// the harness's. Batches stay the unit of reading and shuffling.
const GROUP: usize = 4;

/// Batches per job: [`GROUP`], or one in a supervised child (a library
/// loaded into the process), whose rows are written a batch at a time so
/// that a library that takes the process down loses one batch per thread
/// at most.
fn group_size() -> usize {
    #[cfg(unix)]
    if crate::board::this().is_some() {
        return 1;
    }
    GROUP
}

/// Batches read and handed to the pool together.
enum Group {
    /// As read (their rows may be unparsed).
    Read(Vec<Batch>),
    /// Prepared into one batch.
    Ready(Batch),
}

impl Group {
    /// The group as one prepared batch, its records in input order (each
    /// batch's own shuffled with `--shuffle`).
    fn prepare(self, opts: &RunOptions) -> Result<Batch, DatasetError> {
        match self {
            Group::Ready(b) => Ok(b),
            Group::Read(batches) => {
                // Room for every row at once: a vector that grew batch by
                // batch would be new memory (page faults) each time.
                let mut out = Batch::with_room(batches.iter().map(Batch::rows).sum());
                for b in batches {
                    b.prepare_into(opts, &mut out)?;
                }
                Ok(out)
            }
        }
    }
}

/// Finishing threads for `threads` solver threads: one per spare core but
/// one (the calling thread's, which reads), at least one. Finishing costs a few percent of
/// solving, so they rarely all work, but no single thread has to verify
/// and format every puzzle however many solver threads there are.
pub(super) fn finishers(threads: usize) -> usize {
    sysinfo::logical_cores()
        .saturating_sub(threads)
        .saturating_sub(1)
        .max(1)
}

/// Runs a group with helper threads. Returns why it stopped early, if it
/// did, and the time the reader spent reading.
///
/// The calling thread opens the dataset and sets up the hand-over (solved
/// batches go to the finishing threads, a token for each batch written
/// comes back to the reader), starts the finishing threads
/// ([`spawn_finishers`]) and the reader ([`Dispatcher::run`]), waits for
/// them all ([`join`]) and then says why the group stopped
/// ([`why_stopped`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn with_helpers(
    opts: &RunOptions,
    info: &DatasetInfo,
    job: &Job,
    pool: &rayon::ThreadPool,
    out: Ordered,
    partials: &Partials,
    finishing: usize,
    stop: &Arc<AtomicBool>,
) -> (Option<Stop>, u64) {
    let threads = pool.current_num_threads();
    let reader = match BatchReader::open(opts, info) {
        Ok(r) => r,
        Err(e) => return (Some(Stop::Dataset(e)), 0),
    };
    let (dtx, drx) = std::sync::mpsc::channel::<Raw>();
    let drx = Mutex::new(drx);
    // Groups handed to the pool and not yet written: a token each, returned
    // by the finishing thread that writes it, so at most `threads + 1` are
    // held at once (and one more read, waiting for a token); one more with
    // a pool of one thread, which may hold a solved batch ([`Held`]).
    let slots = threads + 1 + usize::from(carries(threads, job));
    let (token_tx, token_rx) = sync_channel::<()>(slots);
    for _ in 0..slots {
        let _ = token_tx.send(());
    }
    let out = Mutex::new(out);
    let failed = AtomicBool::new(false);
    let panic: Mutex<Option<String>> = Mutex::new(None);
    let bad_row: Mutex<Option<DatasetError>> = Mutex::new(None);
    let held: Mutex<Option<Held>> = Mutex::new(None);
    let queued = AtomicUsize::new(0);
    let ending = Ending {
        failed: &failed,
        panic: &panic,
        bad_row: &bad_row,
        held: &held,
        queued: &queued,
    };

    let (stopped, read_ns) = std::thread::scope(|scope| {
        let finishers = spawn_finishers(
            scope, finishing, &drx, &token_tx, &out, ending, job, partials, opts,
        );
        // A solver job that panics wakes the dispatcher with a token.
        let wake_tx = token_tx.clone();
        drop(token_tx);
        let dispatcher = Dispatcher {
            opts,
            info,
            job,
            stop,
            reader,
            seen: &partials.seen,
            stopped: None,
            ended: false,
            ending,
        };
        let dispatcher = std::thread::Builder::new()
            .name("reader".into())
            .spawn_scoped(scope, move || {
                crate::solver::alone::enter();
                dispatcher.run(pool, token_rx, wake_tx, dtx)
            })
            .expect("a thread can be started");
        join(dispatcher, finishers, info)
    });

    let bad_row = bad_row.into_inner().unwrap_or_else(|e| e.into_inner());
    let write_error = out.into_inner().unwrap_or_else(|e| e.into_inner()).error;
    let panic = panic.into_inner().unwrap_or_else(|e| e.into_inner());
    (why_stopped(stopped, bad_row, panic, write_error), read_ns)
}

/// What the reader, the solver jobs and the finishing threads of a group
/// with helpers share: how they end it early, and the hand-over between
/// jobs (the held batch, the jobs not yet started).
#[derive(Clone, Copy)]
struct Ending<'a> {
    /// Raised when a write failed or a thread panicked: no more batches are
    /// dispatched.
    failed: &'a AtomicBool,
    /// The first panic's message.
    panic: &'a Mutex<Option<String>>,
    /// A bad row met while a batch was prepared (the first in the file).
    bad_row: &'a Mutex<Option<DatasetError>>,
    /// With a pool of one thread, the solved batch whose late outliers
    /// wait for the next job ([`Held`]).
    held: &'a Mutex<Option<Held>>,
    /// Jobs handed to the pool that no thread has started yet.
    queued: &'a AtomicUsize,
}

impl Ending<'_> {
    /// Keeps a bad row met while a group was prepared, if it is the first
    /// in the file so far.
    fn keep_bad_row(self, e: DatasetError) {
        keep_earlier(
            &mut self.bad_row.lock().unwrap_or_else(|e| e.into_inner()),
            e,
        );
    }
}

/// Starts the finishing threads (named, for profilers and panic messages),
/// each finishing into its own slot of `partials` ([`finish_batches`]):
/// solved batches come from `rx`, a token for each batch written goes back
/// through `tokens`.
#[allow(clippy::too_many_arguments)]
fn spawn_finishers<'scope, 'env>(
    scope: &'scope std::thread::Scope<'scope, 'env>,
    count: usize,
    rx: &'env Mutex<Receiver<Raw>>,
    tokens: &SyncSender<()>,
    out: &'env Mutex<Ordered<'_>>,
    ending: Ending<'env>,
    job: &'env Job,
    partials: &'env Partials,
    opts: &'env RunOptions,
) -> Vec<std::thread::ScopedJoinHandle<'scope, ()>> {
    (0..count.max(1))
        .map(|slot| {
            let tokens = tokens.clone();
            std::thread::Builder::new()
                .name(format!("finisher-{slot}"))
                .spawn_scoped(scope, move || {
                    crate::solver::alone::enter();
                    crate::bench::pin_helper_thread(opts.threads);
                    let lanes = Lanes {
                        rx,
                        tokens,
                        out,
                        failed: ending.failed,
                        panic: ending.panic,
                        held: ending.held,
                    };
                    finish_batches(slot, lanes, job, partials, opts.shuffle)
                })
                .expect("a thread can be started")
        })
        .collect()
}

/// Waits for the reader, then for the finishing threads. Returns why the
/// reader stopped (or that a thread panicked) and the time it spent
/// reading.
fn join(
    dispatcher: std::thread::ScopedJoinHandle<'_, (Option<Stop>, u64)>,
    finishers: Vec<std::thread::ScopedJoinHandle<'_, ()>>,
    info: &DatasetInfo,
) -> (Option<Stop>, u64) {
    let (mut stopped, read_ns) = match dispatcher.join() {
        Ok(r) => r,
        Err(_) => {
            let what = format!("reading {}: the reader thread panicked", info.name);
            (Some(Stop::Panic(what)), 0)
        }
    };
    for f in finishers {
        if f.join().is_err() && stopped.is_none() {
            stopped = Some(Stop::Output(std::io::Error::other(
                "a finishing thread panicked",
            )));
        }
    }
    (stopped, read_ns)
}

/// Why a group with helpers stopped, all told: a panic first; then the
/// first bad row in the file, found by the reader or in a prepared group,
/// in place of any other reason the reader stopped; then a failed write,
/// unless the reader stopped first; else why the reader stopped, if it did.
fn why_stopped(
    mut stopped: Option<Stop>,
    bad_row: Option<DatasetError>,
    panic: Option<String>,
    write_error: Option<std::io::Error>,
) -> Option<Stop> {
    if let Some(e) = bad_row {
        let mut first = match stopped.take() {
            Some(Stop::Dataset(r)) => Some(r),
            _ => None,
        };
        keep_earlier(&mut first, e);
        stopped = first.map(Stop::Dataset);
    }
    match (panic, write_error) {
        (Some(p), _) => Some(Stop::Panic(p)),
        (None, Some(e)) if stopped.is_none() => Some(Stop::Output(e)),
        _ => stopped,
    }
}

/// The reader thread (the dispatcher): reads batches and hands them to the
/// pool, [`GROUP`] at a time, once a token says there is room. While there
/// is none, or a job handed over before is still waiting for a thread (the
/// solvers are busy), it parses the group itself; otherwise (the solvers
/// may be waiting for it) it hands the group on unparsed and the solver
/// thread that takes it parses it. So with few
/// solver threads the parsing costs them nothing, and with many the reading
/// stays short. It runs on a spare core like the finishing threads.
struct Dispatcher<'a> {
    opts: &'a RunOptions,
    info: &'a DatasetInfo,
    job: &'a Job<'a>,
    stop: &'a AtomicBool,
    reader: BatchReader<'a>,
    /// The repeated-grid tables, made once the first two jobs are handed
    /// out.
    seen: &'a super::repeats::Seen,
    /// Why the reading stopped early, if it did (a panic is kept in
    /// `ending`).
    stopped: Option<Stop>,
    /// Nothing more is read.
    ended: bool,
    ending: Ending<'a>,
}

impl Dispatcher<'_> {
    /// Reads groups and hands each to the pool as one job
    /// ([`solve_group`]) until the input ends, the stop flag is raised, a
    /// row is bad or a thread fails; then lets the finishing threads end
    /// once they have had every batch. `wake` is the reader's own way to
    /// `tokens`, for a job that fails. Returns why it stopped early, if it
    /// did, and the time it spent reading.
    fn run(
        mut self,
        pool: &rayon::ThreadPool,
        tokens: Receiver<()>,
        wake: SyncSender<()>,
        dtx: std::sync::mpsc::Sender<Raw>,
    ) -> (Option<Stop>, u64) {
        crate::bench::pin_helper_thread(self.opts.threads);
        let (job, opts, ending) = (self.job, self.opts, self.ending);
        pool.in_place_scope(|s| {
            for seq in 0u64.. {
                let group = self.read_group(&wake, self.job_size(seq, pool));
                if group.is_empty() || matches!(self.stopped, Some(Stop::Interrupted)) {
                    break;
                }
                let Some(group) = self.room_for(Group::Read(group), &tokens, &wake) else {
                    break;
                };
                if ending.failed.load(Ordering::Acquire) {
                    break; // a write failed or a thread panicked: see `why_stopped`
                }
                let dtx = dtx.clone();
                let wake = &wake;
                ending.queued.fetch_add(1, Ordering::AcqRel);
                s.spawn(move |_| solve_group(job, opts, group, seq, dtx, ending, wake));
                if seq == 1 {
                    // The repeated-grid tables are made while the first
                    // two jobs are solved, on this thread's core, not the
                    // solvers' (with one job, its finishing makes them).
                    self.seen.make_tables();
                }
                if self.ended {
                    break;
                }
            }
        });
        // A batch still held is settled on the pool's thread (with filler
        // solves: no job follows it). After a panic, or a solve given up at
        // an interrupt (which ends a job the same way), the solver is not
        // called again: the batch goes as it is, its late outliers at the
        // time first measured, as it would have gone before the job that
        // ended the group.
        if let Some(h) = take(ending.held) {
            let raw = if lock(ending.panic).is_none() {
                pool.install(|| h.settle(job, 0))
            } else {
                Ok(h.unsettled())
            };
            match raw {
                Ok(raw) => {
                    let _ = dtx.send(raw);
                }
                Err(e) => fail(ending.failed, ending.panic, &wake, e),
            }
        }
        // Ends the finishing threads once they have had every batch.
        drop(dtx);
        (self.stopped, self.reader.busy_ns)
    }

    /// Batches in job `seq`: [`group_size`], but with a single solver
    /// thread its first job and, when the dataset's size is known, the
    /// jobs near its end are short: as few batches as hold
    /// [`remeasure::GAP`] puzzles (one at the default size). The solver
    /// then starts once those are read (a whole group's rows parsed on
    /// fresh memory take it a few tenths of a millisecond), and after its
    /// last solve waits for a short job to be finished, not a group. No
    /// job but the last is followed by one of fewer than `GAP` puzzles, so
    /// the spikes of every other job are re-measured during the next one,
    /// without filler.
    fn job_size(&self, seq: u64, pool: &rayon::ThreadPool) -> usize {
        let usual = group_size();
        if pool.current_num_threads() > 1 || usual == 1 {
            return usual;
        }
        let batch = self.opts.batch_size.max(1);
        let gap = super::remeasure::GAP;
        let short = gap.div_ceil(batch).clamp(1, usual);
        let left = self
            .info
            .expected(self.opts)
            .map(|n| n.saturating_sub(self.reader.taken) as usize);
        match left {
            // Near the end: short jobs while one of at least `gap` puzzles
            // would follow; then the rest together.
            Some(left) if left <= usual * batch + gap => {
                if left >= short * batch + gap {
                    short
                } else {
                    usual
                }
            }
            _ if seq == 0 => short,
            _ => usual,
        }
    }

    /// Reads up to `size` batches. At the end of the input, the stop flag,
    /// a bad row or a panic, sets `ended` (and `stopped`, but for a panic,
    /// which [`fail`] keeps).
    fn read_group(&mut self, wake: &SyncSender<()>, size: usize) -> Vec<Batch> {
        let start = ReadStart::now();
        let mut group = Vec::with_capacity(size);
        while group.len() < size && !self.ended {
            if self.stop.load(Ordering::Relaxed) {
                self.stopped = Some(Stop::Interrupted);
                self.ended = true;
                break;
            }
            let (info, reader) = (self.info, &mut self.reader);
            let read = guarded(|| format!("reading {}", info.name), || reader.read_batch());
            match read {
                Ok(None) => self.ended = true,
                Ok(Some(Ok(b))) => group.push(b),
                Ok(Some(Err(e))) => {
                    self.stopped = Some(Stop::Dataset(e));
                    self.ended = true;
                }
                Err(p) => {
                    fail(self.ending.failed, self.ending.panic, wake, p);
                    self.ended = true;
                }
            }
        }
        self.reader.charge(start);
        group
    }

    /// Waits for room in the pool for `group` (a token); while there is
    /// none, or while a job handed over before waits for a thread (the
    /// solvers are busy), parses the group first. `None` ends the
    /// dispatching: no token can come any more, the group holds a bad row
    /// (kept in `ending`), or parsing it panicked.
    fn room_for(
        &self,
        mut group: Group,
        tokens: &Receiver<()>,
        wake: &SyncSender<()>,
    ) -> Option<Group> {
        let room = match tokens.try_recv() {
            Ok(()) => true,
            Err(std::sync::mpsc::TryRecvError::Empty) => false,
            Err(std::sync::mpsc::TryRecvError::Disconnected) => return None,
        };
        let busy = self.ending.queued.load(Ordering::Acquire) > 0;
        if !room || busy {
            let (job, opts) = (self.job, self.opts);
            let prepared = guarded(
                || format!("reading {}", self.info.name),
                || job.stages.time(Stage::Prepare, || group.prepare(opts)),
            );
            match prepared {
                Ok(Ok(b)) => group = Group::Ready(b),
                Err(p) => {
                    fail(self.ending.failed, self.ending.panic, wake, p);
                    return None;
                }
                Ok(Err(e)) => {
                    self.ending.keep_bad_row(e);
                    return None;
                }
            }
            if !room && tokens.recv().is_err() {
                return None;
            }
        }
        Some(group)
    }
}

/// A job on the pool: parses the group unless the reader did, solves it
/// ([`solve_batch`], or [`solve_carrying`] on a pool of one thread) and
/// sends what is ready to the finishing threads. A bad row or a panic
/// stops the dispatching and wakes the reader.
fn solve_group(
    job: &Job,
    opts: &RunOptions,
    group: Group,
    seq: u64,
    dtx: std::sync::mpsc::Sender<Raw>,
    ending: Ending,
    wake: &SyncSender<()>,
) {
    ending.queued.fetch_sub(1, Ordering::AcqRel);
    let prepared = guarded(
        || format!("reading {}", job.dataset),
        || job.stages.time(Stage::Prepare, || group.prepare(opts)),
    );
    let batch = match prepared {
        Ok(Ok(b)) => b,
        Err(p) => return fail(ending.failed, ending.panic, wake, p),
        Ok(Err(e)) => {
            ending.keep_bad_row(e);
            ending.failed.store(true, Ordering::Release);
            let _ = wake.try_send(());
            return;
        }
    };
    let (ready, failed) = if carries(rayon::current_num_threads(), job) {
        solve_carrying(job, batch, seq, ending.held)
    } else {
        match solve_batch(job, batch, seq) {
            Ok(raw) => (vec![raw], None),
            Err(e) => (Vec::new(), Some(e)),
        }
    };
    // The receiver lives until the layout returns.
    for raw in ready {
        let _ = dtx.send(raw);
    }
    if let Some(e) = failed {
        fail(ending.failed, ending.panic, wake, e);
    }
}

/// Whether a pool of `threads` holds a solved batch back ([`Held`]): with
/// one solver thread in a cold run, whose jobs are then one span each
/// ([`solve_batch`]); never in a supervised child, whose batches are
/// written one at a time so that a library that takes the process down
/// loses one batch at most ([`group_size`]).
fn carries(threads: usize, job: &Job) -> bool {
    threads == 1 && !job.practised && group_size() == GROUP
}

/// A solved batch whose span has outliers too near its end to be measured
/// again cold ([`remeasure::early`]): held until the pool's one thread has
/// solved its next job, whose solves then keep them cold, instead of
/// untimed filler solves (which cost a few percent of a fast solver's run).
/// The ordered writer puts the batch back in place.
pub(super) struct Held {
    seq: u64,
    batch: Batch,
    span: Span,
}

impl Held {
    /// Re-measures the late outliers after `since` other solves of the
    /// thread ([`Span::settle`]).
    fn settle(self, job: &Job, since: usize) -> Result<Raw, String> {
        let Held { seq, batch, span } = self;
        let parts = span.settle(&batch.records, job, since)?;
        Ok(Raw { seq, batch, parts })
    }

    /// The batch without its late outliers re-measured ([`Span::unsettled`]).
    fn unsettled(self) -> Raw {
        let Held { seq, batch, span } = self;
        Raw {
            seq,
            batch,
            parts: span.unsettled(),
        }
    }
}

/// [`solve_batch`] on a pool of one thread: the batch is one span; the
/// batch held before it is settled once this one is solved, and this one
/// is held in turn when its late outliers wait. Returns the batches ready
/// to finish, in input order, and why the job failed, if it did (a batch
/// solved before the failure is still ready; the held one stays held when
/// this batch's solves fail, for the dispatcher to send).
fn solve_carrying(
    job: &Job,
    batch: Batch,
    seq: u64,
    held: &Mutex<Option<Held>>,
) -> (Vec<Raw>, Option<String>) {
    // A built-in engine's outliers are flagged by a finishing thread while
    // this thread solves the next job ([`flag_held`]), or when it is
    // settled. An external solver's are flagged (and those far enough
    // from the end measured again) at once: a call of it that is
    // abandoned (interrupted by Ctrl-C) ends the group, and the batch held
    // then is written unsettled, so only outliers measured again before
    // lose their first time. Its solves are slow: flagging costs it little.
    let flagging = if job.runners.iter().all(|r| matches!(r, Runner::Builtin(_))) {
        Flagging::Later
    } else {
        Flagging::Now
    };
    let rotation = job.rotation + seq as usize;
    let span = match solve_span(&batch.records, job, rotation, job.chunk, flagging) {
        Ok(span) => span,
        Err(e) => return (Vec::new(), Some(e)),
    };
    let mut ready = Vec::with_capacity(2);
    let mut failed = None;
    if let Some(h) = take(held) {
        match h.settle(job, batch.records.len()) {
            Ok(raw) => ready.push(raw),
            Err(e) => failed = Some(e),
        }
    }
    if failed.is_some() {
        // The solver failed on the held batch's outliers: this batch goes
        // as it is.
        let parts = span.unsettled();
        ready.push(Raw { seq, batch, parts });
    } else if span.has_late() {
        *lock(held) = Some(Held { seq, batch, span });
    } else {
        match span.settle(&batch.records, job, 0) {
            Ok(parts) => ready.push(Raw { seq, batch, parts }),
            Err(e) => failed = Some(e),
        }
    }
    (ready, failed)
}

/// Locks a mutex, whether or not a thread panicked holding it.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Takes what a mutex holds.
fn take<T>(m: &Mutex<Option<T>>) -> Option<T> {
    lock(m).take()
}

/// Flags the outliers of the batch a lone solver thread holds, unless they
/// are flagged ([`Span::flag`]), so that the solver thread, the run's
/// critical path, need not. A lone solver holds a batch before it hands
/// the one before to the finishing threads, and settles it only once it
/// has solved the next job, so a finishing thread that has just received a
/// batch nearly always finds the held one waiting; whichever is not
/// flagged by then is flagged as it is settled. Never waits for the lock:
/// the solver thread holds it only to take or put back a batch.
fn flag_held(held: &Mutex<Option<Held>>) {
    if let Ok(mut h) = held.try_lock() {
        if let Some(h) = h.as_mut() {
            h.span.flag();
        }
    }
}

/// Solves one batch with the pool's threads; chunks are stolen by idle
/// threads.
/// A panic in a solve ends the group (its message, [`solve_chunk`]).
pub(super) fn solve_batch(job: &Job, batch: Batch, seq: u64) -> Result<Raw, String> {
    let n = batch.records.len();
    let span = match job.span(job.chunk) {
        // One pass, cold: the job is shared out, a span per pool thread
        // (never less than a chunk), so that a small dataset or the last
        // job of a unit still uses every thread.
        s if s > job.chunk && job.splittable() => n
            .div_ceil(rayon::current_num_threads().max(1))
            .max(job.chunk),
        s => s,
    }
    .min(n)
    .max(1);
    let spans: Vec<Vec<(usize, Vec<Chunk>)>> = batch
        .records
        .par_chunks(span)
        .enumerate()
        .map(|(i, records)| {
            let rotation = job.rotation + seq as usize + i * span.div_ceil(job.chunk);
            let blocks = solve_chunk(records, job, rotation, job.chunk)?;
            Ok(blocks.into_iter().map(|(a, c)| (i * span + a, c)).collect())
        })
        .collect::<Result<_, String>>()?;
    let parts = spans.into_iter().flatten().collect();
    Ok(Raw { seq, batch, parts })
}

/// Ends the group after a panic: keeps the first message, stops the
/// dispatching and wakes the dispatcher.
fn fail(failed: &AtomicBool, panic: &Mutex<Option<String>>, tokens: &SyncSender<()>, e: String) {
    panic
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert(e);
    failed.store(true, Ordering::Release);
    let _ = tokens.try_send(());
}

/// What a finishing thread is connected to.
pub(super) struct Lanes<'a, 'o> {
    /// Solved batches.
    pub(super) rx: &'a Mutex<Receiver<Raw>>,
    /// A token back to the dispatcher for each batch written.
    pub(super) tokens: SyncSender<()>,
    pub(super) out: &'a Mutex<Ordered<'o>>,
    /// Raised when a write failed or a thread panicked.
    pub(super) failed: &'a AtomicBool,
    /// A panic's message.
    pub(super) panic: &'a Mutex<Option<String>>,
    /// The batch a lone solver thread holds ([`Held`]), whose outliers a
    /// finishing thread flags ([`flag_held`]).
    pub(super) held: &'a Mutex<Option<Held>>,
}

/// A finishing thread: takes solved batches, finishes each (verification,
/// aggregation into slot `slot`, rows; [`finish_batch`]) and hands it to
/// the ordered writer, returning a token for each batch written. Stops
/// when the batches end, a write fails or it panics; then it raises
/// `failed` and wakes the dispatcher with a token, so that no more batches
/// are sent.
pub(super) fn finish_batches(
    slot: usize,
    lanes: Lanes,
    job: &Job,
    partials: &Partials,
    shuffled: bool,
) {
    let Lanes {
        rx,
        tokens,
        out,
        failed,
        panic,
        held,
    } = lanes;
    let mut placed = Placed::new();
    loop {
        let raw = match rx.lock().unwrap_or_else(|e| e.into_inner()).recv() {
            Ok(raw) => raw,
            Err(_) => return,
        };
        let flagged = guarded(
            || format!("flagging the spikes of {}", job.dataset),
            || flag_held(held),
        );
        if let Err(e) = flagged {
            return fail(failed, panic, &tokens, e);
        }
        // Verification, statistics, rows, then the ordered writer and the
        // write: one stage for `BENCH_SUDOKU_STAGE_TIMES`.
        let finished = job.stages.time(Stage::Finish, || {
            let units = finish_batch(
                job,
                raw.seq,
                &raw.batch.records,
                &raw.parts,
                shuffled,
                partials,
                slot,
            )?;
            give_back_shared(raw.batch.records);
            let done = Done {
                seq: raw.seq,
                units,
                skipped: raw.batch.skipped,
            };
            let (written, failed_now) = guarded(
                || format!("writing the results of {}", job.dataset),
                || {
                    let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
                    let written = out.accept(done, &mut placed);
                    (written, out.error.is_some())
                },
            )?;
            Ok((written, write_placed(&mut placed, out) || failed_now))
        });
        let (written, failed_now) = match finished {
            Ok(f) => f,
            Err(e) => return fail(failed, panic, &tokens, e),
        };
        if failed_now {
            failed.store(true, Ordering::Release);
            let _ = tokens.try_send(());
            return;
        }
        for _ in 0..written {
            // Never blocks: there are only as many tokens as the channel holds.
            let _ = tokens.send(());
        }
    }
}
