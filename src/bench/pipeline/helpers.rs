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
    let mut reader = match BatchReader::open(opts, info) {
        Ok(r) => r,
        Err(e) => return (Some(Stop::Dataset(e)), 0),
    };
    let (dtx, drx) = std::sync::mpsc::channel::<Raw>();
    let drx = Mutex::new(drx);
    // Groups handed to the pool and not yet written: a token each, returned
    // by the finishing thread that writes it, so at most `threads + 1` are
    // held at once (and one more read, waiting for a token).
    let slots = threads + 1;
    let (token_tx, token_rx) = sync_channel::<()>(slots);
    for _ in 0..slots {
        let _ = token_tx.send(());
    }
    let out = Mutex::new(out);
    // Raised when a write failed or a thread panicked: no more batches are
    // dispatched. A panic's message is kept.
    let failed = AtomicBool::new(false);
    let panic: Mutex<Option<String>> = Mutex::new(None);
    // A bad row met while a batch was prepared (the first in the file).
    let bad_row: Mutex<Option<DatasetError>> = Mutex::new(None);
    let mut stopped: Option<Stop> = None;
    let mut read_ns = 0;

    std::thread::scope(|scope| {
        // Named threads, for profilers and panic messages.
        let finishing: Vec<_> = (0..finishing.max(1))
            .map(|slot| {
                let tokens = token_tx.clone();
                let (drx, out, failed, panic) = (&drx, &out, &failed, &panic);
                std::thread::Builder::new()
                    .name(format!("finisher-{slot}"))
                    .spawn_scoped(scope, move || {
                        crate::bench::pin_helper_thread(opts.threads);
                        let lanes = Lanes {
                            rx: drx,
                            tokens,
                            out,
                            failed,
                            panic,
                        };
                        finish_batches(slot, lanes, job, partials, opts.shuffle)
                    })
                    .expect("a thread can be started")
            })
            .collect();
        // A solver job that panics wakes the dispatcher with a token.
        let wake_tx = token_tx.clone();
        drop(token_tx);

        // The dispatcher reads batches and hands them to the pool, [`GROUP`]
        // at a time, once a token says there is room. While there is none
        // (the solvers are busy) it parses the group itself; when there is
        // room at once (the solvers are waiting for it) it hands the group
        // on unparsed and the solver thread that takes it parses it. So with
        // few solver threads the parsing costs them nothing, and with many
        // the reading stays short. It runs on a spare core like the
        // finishing threads.
        let (failed, panic, bad_row) = (&failed, &panic, &bad_row);
        let dispatcher = std::thread::Builder::new()
            .name("reader".into())
            .spawn_scoped(scope, move || {
                crate::bench::pin_helper_thread(opts.threads);
                let mut stopped = None;
                let mut ended = false;
                pool.in_place_scope(|s| {
                    for seq in 0u64.. {
                        let mut group = Vec::with_capacity(GROUP);
                        while group.len() < GROUP && !ended {
                            if stop.load(Ordering::Relaxed) {
                                stopped = Some(Stop::Interrupted);
                                ended = true;
                                break;
                            }
                            let read = guarded(
                                || format!("reading {}", info.name),
                                || reader.next_batch(),
                            );
                            match read {
                                Ok(None) => ended = true,
                                Ok(Some(Ok(b))) => group.push(b),
                                Ok(Some(Err(e))) => {
                                    stopped = Some(Stop::Dataset(e));
                                    ended = true;
                                }
                                Err(p) => {
                                    fail(failed, panic, &wake_tx, p);
                                    ended = true;
                                }
                            }
                        }
                        if group.is_empty() || matches!(stopped, Some(Stop::Interrupted)) {
                            break;
                        }
                        let mut group = Group::Read(group);
                        let room = match token_rx.try_recv() {
                            Ok(()) => true,
                            Err(std::sync::mpsc::TryRecvError::Empty) => false,
                            Err(std::sync::mpsc::TryRecvError::Disconnected) => break,
                        };
                        if !room {
                            let prepared = guarded(
                                || format!("reading {}", info.name),
                                || job.stages.time(Stage::Prepare, || group.prepare(opts)),
                            );
                            match prepared {
                                Ok(Ok(b)) => group = Group::Ready(b),
                                Err(p) => {
                                    fail(failed, panic, &wake_tx, p);
                                    break;
                                }
                                Ok(Err(e)) => {
                                    keep_earlier(
                                        &mut bad_row.lock().unwrap_or_else(|e| e.into_inner()),
                                        e,
                                    );
                                    break;
                                }
                            }
                            if token_rx.recv().is_err() {
                                break;
                            }
                        }
                        if failed.load(Ordering::Acquire) {
                            break; // a write failed or a thread panicked: see below
                        }
                        let dtx = dtx.clone();
                        let tokens = &wake_tx;
                        s.spawn(move |_| {
                            // Parsed here unless the dispatcher did.
                            let prepared = guarded(
                                || format!("reading {}", job.dataset),
                                || job.stages.time(Stage::Prepare, || group.prepare(opts)),
                            );
                            let batch = match prepared {
                                Ok(Ok(b)) => b,
                                Err(p) => return fail(failed, panic, tokens, p),
                                Ok(Err(e)) => {
                                    keep_earlier(
                                        &mut bad_row.lock().unwrap_or_else(|e| e.into_inner()),
                                        e,
                                    );
                                    failed.store(true, Ordering::Release);
                                    let _ = tokens.try_send(());
                                    return;
                                }
                            };
                            match solve_batch(job, batch, seq) {
                                // The receiver lives until the layout returns.
                                Ok(raw) => {
                                    let _ = dtx.send(raw);
                                }
                                Err(e) => fail(failed, panic, tokens, e),
                            }
                        });
                        if ended {
                            break;
                        }
                    }
                });
                // Ends the finishing threads once they have had every batch.
                drop(dtx);
                (stopped, reader.busy_ns)
            })
            .expect("a thread can be started");
        match dispatcher.join() {
            Ok((s, ns)) => {
                stopped = s;
                read_ns = ns;
            }
            Err(_) => {
                stopped = Some(Stop::Panic(format!(
                    "reading {}: the reader thread panicked",
                    info.name
                )));
            }
        }
        for f in finishing {
            if f.join().is_err() && stopped.is_none() {
                stopped = Some(Stop::Output(std::io::Error::other(
                    "a finishing thread panicked",
                )));
            }
        }
    });
    if let Some(e) = bad_row.into_inner().unwrap_or_else(|e| e.into_inner()) {
        let mut first = match stopped.take() {
            Some(Stop::Dataset(r)) => Some(r),
            _ => None,
        };
        keep_earlier(&mut first, e);
        stopped = first.map(Stop::Dataset);
    }
    let mut out = out.into_inner().unwrap_or_else(|e| e.into_inner());
    let stopped = match (
        panic.into_inner().unwrap_or_else(|e| e.into_inner()),
        out.error.take(),
    ) {
        (Some(p), _) => Some(Stop::Panic(p)),
        (None, Some(e)) if stopped.is_none() => Some(Stop::Output(e)),
        _ => stopped,
    };
    (stopped, read_ns)
}

/// Solves one batch with the pool's threads; chunks are stolen by idle
/// threads.
/// A panic in a solve ends the group (its message, [`solve_chunk`]).
pub(super) fn solve_batch(job: &Job, batch: Batch, seq: u64) -> Result<Raw, String> {
    let span = job.span(CHUNK).min(batch.records.len()).max(1);
    let spans: Vec<Vec<(usize, Vec<Chunk>)>> = batch
        .records
        .par_chunks(span)
        .enumerate()
        .map(|(i, records)| {
            let rotation = job.rotation + seq as usize + i * span.div_ceil(CHUNK);
            let blocks = solve_chunk(records, job, rotation, CHUNK)?;
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
    } = lanes;
    let mut placed = Placed::new();
    loop {
        let raw = match rx.lock().unwrap_or_else(|e| e.into_inner()).recv() {
            Ok(raw) => raw,
            Err(_) => return,
        };
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
