//! The helper-threads layout: a reader thread, the pool's solver threads
//! and a writer thread (see the parent module).

use super::*;

pub(super) enum ReaderMsg {
    Batch(Batch),
    Fatal(DatasetError),
}

/// A solved batch sent to the writer thread, which verifies it: each
/// chunk's first position and its results for every strategy.
pub(super) struct Raw {
    pub(super) seq: u64,
    pub(super) batch: Batch,
    pub(super) parts: Vec<(usize, Vec<Chunk>)>,
}

pub(super) fn with_helpers(
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
            crate::bench::pin_helper_thread(opts.threads);
            read_batches(opts, info, btx, reader_stop)
        });
        let out = &mut out;
        let writer = scope.spawn(move || {
            crate::bench::pin_helper_thread(opts.threads);
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
pub(super) fn solve_batch(job: &Job, batch: Batch, seq: u64) -> Raw {
    let parts: Vec<(usize, Vec<Chunk>)> = batch
        .records
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(i, chunk)| (i * CHUNK, solve_chunk(chunk, job, seq as usize + i)))
        .collect();
    Raw { seq, batch, parts }
}

pub(super) fn read_batches(
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
pub(super) fn write_batches(
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
