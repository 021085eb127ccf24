//! The workers-only layout: every pool thread reads, solves, verifies and
//! writes (see the parent module).

use super::*;

/// How long an idle worker spins before it sleeps.
pub(super) const SPIN: std::time::Duration = std::time::Duration::from_micros(200);

/// A batch being solved chunk by chunk.
pub(super) struct Window {
    pub(super) seq: u64,
    /// In solve order.
    pub(super) records: Vec<Record>,
    pub(super) state: Mutex<WindowState>,
}

impl Drop for Window {
    fn drop(&mut self) {
        give_back(std::mem::take(&mut self.records));
    }
}

pub(super) struct WindowState {
    /// Each solved chunk's first position and its results for every
    /// strategy.
    pub(super) parts: Vec<(usize, Vec<Chunk>)>,
    /// Records not yet solved.
    pub(super) remaining: usize,
    pub(super) skipped: Vec<Skipped>,
}

/// Records `a..b` of a window, solved, their late outliers not yet
/// re-measured ([`Span`]).
pub(super) struct Carry {
    window: Arc<Window>,
    a: usize,
    b: usize,
    span: Span,
}

/// What the workers share about the chunks to do.
pub(super) struct Queue {
    /// A window and a range of its records.
    pub(super) chunks: VecDeque<(Arc<Window>, usize, usize)>,
    /// A worker is reading the next batch.
    pub(super) reading: bool,
    /// Batches read and being prepared, their chunks not yet queued.
    pub(super) preparing: usize,
    /// No more batches: end of input, an error, the stop flag or a failed
    /// write.
    pub(super) ended: bool,
    /// Batches read and not yet written.
    pub(super) open: usize,
    /// The next batch's number.
    pub(super) seq: u64,
    pub(super) fatal: Option<DatasetError>,
    /// A thread panicked: what and where (ends the group).
    pub(super) panic: Option<String>,
}

impl Queue {
    /// No batch is being read or prepared, so no span is about to be
    /// queued. (After a panic a batch may stay counted as being prepared:
    /// it never will be.)
    fn nothing_coming(&self) -> bool {
        !self.reading && (self.preparing == 0 || self.panic.is_some())
    }

    /// Ends the reading at a dataset error. The batches before it are still
    /// solved and written; the batch that holds it is not. Batches are
    /// prepared in parallel, so errors can be met out of order: the one
    /// kept is the first in the file.
    fn set_fatal(&mut self, e: DatasetError) {
        self.ended = true;
        keep_earlier(&mut self.fatal, e);
    }
}

pub(super) struct Workers<'o, 'a> {
    pub(super) queue: Mutex<Queue>,
    pub(super) wake: Condvar,
    /// Bumped whenever the queue changes (what spinning threads watch).
    pub(super) generation: AtomicU64,
    /// Threads waiting on `wake` (counted under the queue lock).
    pub(super) sleepers: AtomicUsize,
    /// Used by one worker at a time (the one with `reading` set).
    pub(super) reader: Mutex<BatchReader<'a>>,
    pub(super) out: Mutex<Ordered<'o>>,
    pub(super) job: &'a Job<'a>,
    pub(super) opts: &'a RunOptions,
    /// Each pool thread's accumulators (by thread index).
    pub(super) partials: &'a Partials,
    pub(super) shuffled: bool,
    /// Batches read and not yet written, at most.
    pub(super) max_open: usize,
    /// Read the next batch when fewer chunks than this are queued.
    pub(super) low_water: usize,
    /// Idle threads spin before sleeping (not when threads outnumber cores).
    pub(super) spin: bool,
    pub(super) threads: usize,
    pub(super) stop: &'a AtomicBool,
}

/// Runs a group with the pool's threads alone. Returns why it stopped
/// early, if it did, and the time spent reading.
pub(super) fn workers_only(
    opts: &RunOptions,
    info: &DatasetInfo,
    job: &Job,
    pool: &rayon::ThreadPool,
    out: Ordered,
    partials: &Partials,
    stop: &Arc<AtomicBool>,
) -> (Option<Stop>, u64) {
    let reader = match BatchReader::open(opts, info) {
        Ok(r) => r,
        Err(e) => return (Some(Stop::Dataset(e)), 0),
    };
    let threads = pool.current_num_threads();
    let w = Workers {
        queue: Mutex::new(Queue {
            chunks: VecDeque::new(),
            reading: false,
            preparing: 0,
            ended: false,
            open: 0,
            seq: 0,
            fatal: None,
            panic: None,
        }),
        wake: Condvar::new(),
        generation: AtomicU64::new(0),
        sleepers: AtomicUsize::new(0),
        reader: Mutex::new(reader),
        out: Mutex::new(out),
        job,
        opts,
        partials,
        shuffled: opts.shuffle,
        // Batches open at most: twice the threads and two more, room for
        // a batch per thread that waits to be written behind an earlier one
        // (batches are written in order) and one per thread carrying a
        // span, beside those being solved and read. With fewer, a thread
        // that finished a batch behind an unwritten one has nothing to
        // read or solve.
        max_open: 2 * threads + 2,
        spin: threads <= sysinfo::logical_cores(),
        threads,
        // Read ahead, so that no thread runs dry while one reads (counted
        // in queued spans: whole batches in a cold run).
        low_water: opts.batch_size.div_ceil(WORKER_CHUNK).max(2 * threads),
        stop,
    };
    pool.broadcast(|_| w.work());
    let q = w.queue.into_inner().unwrap_or_else(|e| e.into_inner());
    let (fatal, panic) = (q.fatal, q.panic);
    let read_ns = w
        .reader
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .busy_ns;
    let write_error = w
        .out
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .error
        .take();
    let stopped = match (panic, fatal, write_error) {
        (Some(p), _, _) => Some(Stop::Panic(p)),
        (None, Some(e), _) => Some(Stop::Dataset(e)),
        (None, None, Some(e)) => Some(Stop::Output(e)),
        (None, None, None) => None,
    };
    (stopped, read_ns)
}

impl Workers<'_, '_> {
    /// One pool thread's loop; returns when no chunk is left to do.
    pub(super) fn work(&self) {
        // A span whose late outliers wait for this thread's next span.
        let mut carry: Option<Carry> = None;
        loop {
            let (task, read) = {
                let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
                // With more threads than cores a spinning thread would take
                // a core from one with work: sleep at once.
                let mut spun = !self.spin;
                loop {
                    let (task, read) = self.offer(&mut q);
                    if task.is_some() || read {
                        break (task, read);
                    }
                    // No span to go on to, and none coming (no batch being
                    // read or prepared): the carried one is settled now,
                    // with filler solves (its window may be what the others
                    // wait for). After a panic it is dropped: nothing more
                    // is written.
                    if carry.is_some() && q.nothing_coming() {
                        if q.panic.is_some() {
                            carry = None;
                        } else {
                            break (None, false);
                        }
                    }
                    if q.ended && q.nothing_coming() {
                        return;
                    }
                    // Idle before the first batch is ready: the
                    // repeated-grid tables are made now, not by the first
                    // batch finished (a thread of their own would take a
                    // core from the workers: there is no spare one here).
                    if !self.partials.seen.made() {
                        drop(q);
                        self.partials.seen.make_tables();
                        q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
                        continue;
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
                let dataset = self.job.dataset;
                if let Err(e) = guarded(|| format!("reading {dataset}"), || self.read_batch()) {
                    self.fail(e);
                }
            }
            match task {
                Some((window, a, b)) => self.solve(window, a, b, &mut carry),
                None if !read => {
                    if let Some(c) = carry.take() {
                        self.settle(c, 0);
                    }
                }
                None => {}
            }
        }
    }

    /// What the queue offers the calling thread now: the next span (at the
    /// tail of the input, half of it, leaving the other half), and whether
    /// to read the next batch (then marked as being read).
    fn offer(&self, q: &mut Queue) -> (Option<(Arc<Window>, usize, usize)>, bool) {
        let can_read = !q.reading && !q.ended && q.open < self.max_open;
        let read = can_read && q.chunks.len() < self.low_water;
        if read {
            q.reading = true;
        }
        let mut task = q.chunks.pop_front();
        if let Some((w, a, b)) = &mut task {
            if q.ended
                && q.chunks.len() < self.threads
                && *b - *a >= 2 * MIN_CHUNK
                && self.job.splittable()
            {
                let mid = *a + (*b - *a) / 2;
                q.chunks.push_front((Arc::clone(w), mid, *b));
                *b = mid;
            }
        }
        (task, read)
    }

    /// Spins until the queue changes (`generation` moves on from `seen`), for
    /// at most [`SPIN`].
    pub(super) fn spin_while(&self, seen: u64) {
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
    pub(super) fn changed(&self) {
        self.generation.fetch_add(1, Ordering::Release);
        if self.sleepers.load(Ordering::SeqCst) > 0 {
            self.wake.notify_all();
        }
    }

    /// Ends the group after a panic: no more reading, no more chunks, and
    /// every thread woken to see it. Batches not yet written stay
    /// unwritten.
    pub(super) fn fail(&self, message: String) {
        let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        q.panic.get_or_insert(message);
        q.ended = true;
        q.reading = false;
        q.chunks.clear();
        drop(q);
        self.changed();
    }

    /// Reads the next batch and queues its chunks. Only the reading is done
    /// with `reading` set; the batch is prepared ([`Batch::prepare`]: its
    /// rows parsed) after another thread may have started reading the next
    /// one.
    pub(super) fn read_batch(&self) {
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
        let (seq, mut batch) = match next {
            None => {
                q.ended = true;
                drop(q);
                return self.changed();
            }
            Some(Err(e)) => {
                q.set_fatal(e);
                drop(q);
                return self.changed();
            }
            Some(Ok(batch)) => {
                let seq = q.seq;
                q.seq += 1;
                q.open += 1;
                q.preparing += 1;
                (seq, batch)
            }
        };
        drop(q);
        self.changed();
        let prepared = self
            .job
            .stages
            .time(Stage::Prepare, || batch.prepare(self.opts));
        let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        // Under the same lock as the chunks are queued: no thread may take
        // the end of the input for the end of the work in between.
        q.preparing -= 1;
        if let Err(e) = prepared {
            q.set_fatal(e);
            drop(q);
            return self.changed();
        }
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
        let span = self.job.span(self.job.worker_chunk).min(n);
        q.chunks.extend(
            (0..n)
                .step_by(span)
                .map(|a| (Arc::clone(&window), a, (a + span).min(n))),
        );
        drop(q);
        self.changed();
    }

    /// Solves records `a..b` of a window, then settles the span `carry`
    /// holds (this span's solves kept its late outliers cold), and carries
    /// this span instead when it has late outliers of its own.
    pub(super) fn solve(&self, window: Arc<Window>, a: usize, b: usize, carry: &mut Option<Carry>) {
        let rotation = self.job.rotation + window.seq as usize + a / self.job.worker_chunk;
        let records = &window.records[a..b];
        let span = match solve_span(
            records,
            self.job,
            rotation,
            self.job.worker_chunk,
            Flagging::Now,
        ) {
            Ok(s) => s,
            Err(e) => return self.fail(e),
        };
        if let Some(c) = carry.take() {
            self.settle(c, b - a);
        }
        if span.has_late() {
            *carry = Some(Carry { window, a, b, span });
        } else {
            self.settle(Carry { window, a, b, span }, 0);
        }
    }

    /// Re-measures a span's late outliers after `since` solves of this
    /// thread since the span ([`Span::settle`]) and adds it to its window;
    /// the thread that completes a batch finishes it.
    fn settle(&self, c: Carry, since: usize) {
        let Carry { window, a, b, span } = c;
        let blocks = match span.settle(&window.records[a..b], self.job, since) {
            Ok(c) => c,
            Err(e) => return self.fail(e),
        };
        let last = {
            let mut st = window.state.lock().unwrap_or_else(|e| e.into_inner());
            st.parts
                .extend(blocks.into_iter().map(|(offset, c)| (a + offset, c)));
            st.remaining -= b - a;
            st.remaining == 0
        };
        if last {
            let dataset = self.job.dataset;
            let written = guarded(
                || format!("writing the results of {dataset}"),
                || self.job.stages.time(Stage::Finish, || self.finish(&window)),
            );
            if let Err(e) = written {
                self.fail(e);
            }
        }
    }

    /// Finishes a solved batch on this thread ([`finish_batch`]) and hands
    /// it to the writer, which writes every batch now next in order.
    pub(super) fn finish(&self, window: &Window) {
        let (mut parts, skipped) = {
            let mut st = window.state.lock().unwrap_or_else(|e| e.into_inner());
            (
                std::mem::take(&mut st.parts),
                std::mem::take(&mut st.skipped),
            )
        };
        // Chunks finish in any order; they cover the window without overlap.
        parts.sort_unstable_by_key(|p| p.0);
        let units = match finish_batch(
            self.job,
            window.seq,
            &window.records,
            &parts,
            self.shuffled,
            self.partials,
            rayon::current_thread_index().unwrap_or(0),
        ) {
            Ok(u) => u,
            Err(e) => return self.fail(e),
        };
        let done = Done {
            seq: window.seq,
            units,
            skipped,
        };
        let mut placed = Placed::new();
        let (written, failed) = {
            let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
            let written = out.accept(done, &mut placed);
            (written, out.error.is_some())
        };
        let failed = write_placed(&mut placed, &self.out) || failed;
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
