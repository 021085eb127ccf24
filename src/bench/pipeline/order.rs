//! Ordering: a solved batch finished by the thread that holds it (verified,
//! aggregated, paired with the baseline chunk by chunk, its rows formatted
//! in input order), then handed to the ordered writer, which gives each
//! batch's rows their place in input order (the finishing thread then
//! writes them there).

use super::*;

/// Formats a batch's rows in input order (`outcomes` are in solve order,
/// matching `records`).
pub(super) fn rows_in_input_order(
    records: &[Record],
    outcomes: &[PuzzleOutcome],
    shuffled: bool,
    format: &RowFormat,
) -> Vec<u8> {
    debug_assert_eq!(records.len(), outcomes.len());
    let mut rows = Vec::with_capacity(records.len() * 96);
    if shuffled {
        let mut pairs: Vec<(&Record, &PuzzleOutcome)> = records.iter().zip(outcomes).collect();
        pairs.sort_unstable_by_key(|(r, _)| r.index);
        for (rec, o) in pairs {
            format.push(&mut rows, rec, o);
        }
    } else {
        for (rec, o) in records.iter().zip(outcomes) {
            format.push(&mut rows, rec, o);
        }
    }
    rows
}

/// A finished batch on its way to the writer.
pub(super) struct Done {
    pub(super) seq: u64,
    /// One part per strategy, in the group's order.
    pub(super) units: Vec<DoneUnit>,
    pub(super) skipped: Vec<Skipped>,
}

/// One strategy's share of a finished batch (its outcomes are already in
/// the finishing thread's accumulators).
pub(super) struct DoneUnit {
    /// Puzzles solved.
    pub(super) puzzles: u64,
    /// Their `puzzles.csv` rows in input order (empty without a per-puzzle
    /// CSV).
    pub(super) rows: Vec<u8>,
    /// This batch's share of each measured pass's total.
    pub(super) pass_ns: Vec<u64>,
    /// The time the strategy spent on this batch.
    pub(super) busy_ns: u64,
    /// A self-timed strategy's unclaimed harness time per solve, by chunk.
    pub(super) unclaimed: Vec<f32>,
    /// Each chunk's pairs with the baseline: (pairs, sum of log ratios).
    pub(super) blocks: Vec<(u32, f64)>,
    /// How each chunk's time ratio to the baseline's varied from pass to
    /// pass ([`paired::PassNoise`]).
    pub(super) noise: paired::PassNoise,
    /// The same two, with the gate's BASE (the gate's candidate, when BASE
    /// is not the baseline).
    pub(super) gate: Option<(Vec<(u32, f64)>, paired::PassNoise)>,
}

/// Finishes a solved batch on the calling thread: verifies every
/// strategy's chunks (each chunk list covers `records` in order, in solve
/// order), adds the outcomes to the thread's accumulators (`slot` of
/// `partials`), sums each chunk's pairs with the baseline (the bootstrap's
/// blocks) and formats every strategy's rows in input order. What is left
/// for the ordered writer is bytes to copy and a few numbers per chunk.
///
/// A panic while finishing ends the group (the error names the stage).
#[allow(clippy::too_many_arguments)]
pub(super) fn finish_batch(
    job: &Job,
    seq: u64,
    records: &[Record],
    parts: &[(usize, Vec<Chunk>)],
    shuffled: bool,
    partials: &Partials,
    slot: usize,
) -> Result<Vec<DoneUnit>, String> {
    guarded(
        || {
            let first = records.first().map_or(0, |r| r.index);
            format!(
                "finishing the batch of {} from puzzle {first} (verification, statistics, rows)",
                job.dataset
            )
        },
        || finish_batch_unguarded(job, seq, records, parts, shuffled, partials, slot),
    )
}

/// [`finish_batch`]'s work: the content hash, then verify, pair, format the
/// rows and hand the outcomes to the thread's accumulators.
#[allow(clippy::too_many_arguments)]
fn finish_batch_unguarded(
    job: &Job,
    seq: u64,
    records: &[Record],
    parts: &[(usize, Vec<Chunk>)],
    shuffled: bool,
    partials: &Partials,
    slot: usize,
) -> Vec<DoneUnit> {
    if let Some(at) = injected_fault("finish") {
        if records.iter().any(|r| r.index == at) {
            panic!("injected by BENCH_SUDOKU_FAULT=finish:{at}");
        }
    }
    if probe_skip() < probe::Skip::Hash {
        add_content(partials, records);
    }
    let mut verified: Vec<Verified> = (0..job.strategies.len())
        .map(|k| verify_unit(job, records, parts, k))
        .collect();
    if probe_skip() < probe::Skip::Stats {
        let mut outcomes: Vec<&mut Vec<PuzzleOutcome>> =
            verified.iter_mut().map(|v| &mut v.outcomes).collect();
        partials.seen.mark(records, &mut outcomes);
    }
    let (paired, gate) = pair_units(job, parts, &verified);
    let rows = format_rows(job, records, &verified, shuffled);
    let outcomes: Vec<Vec<PuzzleOutcome>> = verified
        .iter_mut()
        .map(|v| std::mem::take(&mut v.outcomes))
        .collect();
    if probe_skip() < probe::Skip::Stats {
        partials.add(slot, seq, job.refs(), outcomes);
    }
    done_units(records.len(), verified, paired, rows, gate)
}

/// Adds a batch's records to the group's content hash (the wrapping sum of
/// every record's hash).
fn add_content(partials: &Partials, records: &[Record]) {
    let content = records
        .iter()
        .fold(0u64, |sum, r| sum.wrapping_add(record_hash(r)));
    partials
        .content
        .fetch_add(content, std::sync::atomic::Ordering::Relaxed);
}

/// One strategy's chunks of a batch, verified.
struct Verified {
    /// In solve order (none when a probe build leaves verification out).
    outcomes: Vec<PuzzleOutcome>,
    /// The batch's share of each measured pass's total.
    pass_ns: Vec<u64>,
    /// The time the strategy spent on the batch.
    busy_ns: u64,
    /// For a strategy timed by its own clock: per chunk, the harness's
    /// time per solve that its claims leave out.
    unclaimed: Vec<f32>,
}

/// Verifies strategy `k`'s chunks of a batch ([`verify`]; `parts` cover
/// `records` in order) and sums their times.
fn verify_unit(job: &Job, records: &[Record], parts: &[(usize, Vec<Chunk>)], k: usize) -> Verified {
    let mut outcomes = Vec::with_capacity(records.len());
    let mut pass_ns = vec![0u64; job.measured(k) as usize];
    let mut busy_ns = 0;
    let self_timed = job.strategies[k].capabilities().clock == crate::solver::Clock::Solver;
    let mut unclaimed = Vec::new();
    for (a, chunks) in parts {
        let chunk = &chunks[k];
        if self_timed {
            unclaimed.extend(unclaimed_per_solve(job, k, chunk));
        }
        if probe_skip() < probe::Skip::Verify {
            verify(
                &records[*a..*a + chunk.solved.len()],
                chunk,
                job.count_check(k),
                &mut outcomes,
            );
        }
        for (t, x) in pass_ns.iter_mut().zip(&chunk.pass_ns) {
            *t = t.saturating_add(*x);
        }
        busy_ns += chunk.busy_ns;
    }
    Verified {
        outcomes,
        pass_ns,
        busy_ns,
        unclaimed,
    }
}

/// A self-timed chunk's harness time per solve (its passes' wall time
/// around the solver's calls, warm-up included, over its solves) minus the
/// solver's claim per solve (its measured passes' totals); `None` for a
/// chunk with no measured pass or no solve.
fn unclaimed_per_solve(job: &Job, k: usize, chunk: &Chunk) -> Option<f32> {
    let n = chunk.solved.len() as f64;
    let measured = chunk.pass_ns.len() as f64;
    if n == 0.0 || measured == 0.0 {
        return None;
    }
    let claimed = chunk.pass_ns.iter().map(|&t| t as f64).sum::<f64>() / measured / n;
    let harness = chunk.busy_ns as f64 / f64::from(job.passes_of(k).max(1)) / n;
    Some((harness - claimed) as f32)
}

/// A strategy's pairs with another over the chunks of a batch: each
/// chunk's (pairs, sum of log ratios), and the spread over the passes.
type Pairing = (Vec<(u32, f64)>, paired::PassNoise);

/// Each strategy's pairs with the baseline (none for the baseline itself),
/// and the gate candidate's with its BASE when BASE is not the baseline
/// ([`pair_blocks`]). None at all when a probe build leaves verification
/// out.
fn pair_units(
    job: &Job,
    parts: &[(usize, Vec<Chunk>)],
    verified: &[Verified],
) -> (Vec<Pairing>, Option<(usize, Pairing)>) {
    let pairing = probe_skip() < probe::Skip::Verify;
    let outcomes_of = |k: usize| &verified[k].outcomes[..];
    let paired = (0..verified.len())
        .map(|k| match job.baseline.filter(|&b| pairing && b != k) {
            Some(b) => pair_blocks(job, parts, &outcomes_of, k, b),
            None => (Vec::new(), paired::PassNoise::default()),
        })
        .collect();
    let gate = job
        .gate_pair
        .filter(|_| pairing)
        .map(|(c, r)| (c, pair_blocks(job, parts, &outcomes_of, c, r)));
    (paired, gate)
}

/// Every strategy's `puzzles.csv` rows of a batch, in input order (none
/// for a strategy without rows).
fn format_rows(
    job: &Job,
    records: &[Record],
    verified: &[Verified],
    shuffled: bool,
) -> Vec<Vec<u8>> {
    verified
        .iter()
        .zip(job.formats)
        .map(|(v, format)| match format {
            Some(f) if probe_skip() < probe::Skip::Rows => {
                rows_in_input_order(records, &v.outcomes, shuffled, f)
            }
            _ => Vec::new(),
        })
        .collect()
}

/// Each strategy's share of a finished batch of `puzzles` puzzles, for the
/// ordered writer.
fn done_units(
    puzzles: usize,
    verified: Vec<Verified>,
    paired: Vec<Pairing>,
    rows: Vec<Vec<u8>>,
    mut gate: Option<(usize, Pairing)>,
) -> Vec<DoneUnit> {
    verified
        .into_iter()
        .zip(paired)
        .zip(rows)
        .enumerate()
        .map(|(k, ((v, (blocks, noise)), rows))| DoneUnit {
            puzzles: puzzles as u64,
            rows,
            pass_ns: v.pass_ns,
            busy_ns: v.busy_ns,
            unclaimed: v.unclaimed,
            blocks,
            noise,
            gate: gate.take_if(|(c, _)| *c == k).map(|(_, g)| g),
        })
        .collect()
}

/// Strategy `k`'s pairs with strategy `r` over the chunks of a batch: each
/// chunk's (pairs, sum of log ratios) in order, and (with two or more
/// measured passes) the disagreement of its even and odd passes. With a
/// self-timed side, a chunk's sum is its pairs times the log of its ratio
/// of mean pass totals.
fn pair_blocks<'o>(
    job: &Job,
    parts: &[(usize, Vec<Chunk>)],
    outcomes: &dyn Fn(usize) -> &'o [PuzzleOutcome],
    k: usize,
    r: usize,
) -> Pairing {
    let mut blocks = Vec::with_capacity(parts.len());
    let mut noise = paired::PassNoise::default();
    // A side timed by its own clock: only its claims' sum over a chunk
    // is checked against the harness's time around its calls, not each
    // claim, so a solver could move time from one puzzle's claim to
    // another's within a chunk (the geometric mean of per-puzzle ratios
    // would reward it). Its chunks are paired by their totals instead.
    let self_timed =
        |i: usize| job.strategies[i].capabilities().clock == crate::solver::Clock::Solver;
    let by_totals = self_timed(k) || self_timed(r);
    for (a, chunks) in parts {
        if job.measured(k) >= 2 && job.measured(r) >= 2 {
            add_noise(&mut noise, &chunks[k].solved, &chunks[r].solved);
        }
        let range = *a..*a + chunks[k].solved.len();
        let (mut pairs, mut sum) = (0u32, 0.0);
        for (ro, o) in outcomes(r)[range.clone()].iter().zip(&outcomes(k)[range]) {
            if let Some(l) = paired::log_ratio(ro, o) {
                pairs += 1;
                sum += l;
            }
        }
        if by_totals && pairs > 0 {
            // Each pair counts with its chunk's ratio of mean pass totals:
            // the sums the harness's time around the calls checks (a kept
            // time, the least of a puzzle's passes, is not checked, and a
            // clock that claims little on some passes would lower it).
            let mean = |c: &Chunk| {
                c.pass_ns.iter().map(|&t| t as f64).sum::<f64>() / c.pass_ns.len().max(1) as f64
            };
            sum = f64::from(pairs) * (mean(&chunks[k]).max(1.0) / mean(&chunks[r]).max(1.0)).ln();
        }
        blocks.push((pairs, sum));
    }
    (blocks, noise)
}

/// Adds a chunk's two halves of the passes to `noise`: over the puzzles
/// that both sides timed in both halves, each half's sum of log ratios.
fn add_noise(noise: &mut paired::PassNoise, mine: &[Solved], base: &[Solved]) {
    let (mut pairs, mut even, mut odd) = (0u32, 0.0, 0.0);
    for (m, b) in mine.iter().zip(base) {
        let all = m.halves.iter().chain(&b.halves);
        if all.clone().any(|&t| t == u64::MAX || t == 0) {
            continue;
        }
        pairs += 1;
        even += (m.halves[0] as f64 / b.halves[0] as f64).ln();
        odd += (m.halves[1] as f64 / b.halves[1] as f64).ln();
    }
    noise.add_chunk(pairs, even, odd);
}

/// The writer's side: restores batch order, adds what depends on it (per
/// pass totals, skipped rows, the bootstrap's chunk blocks) and places the
/// rows in the sink (or hands them to it, for a sink that takes them
/// itself). One thread at a time; everything per puzzle is done by the
/// thread that finished the batch ([`finish_batch`]).
pub(super) struct Ordered<'a> {
    pub(super) pending: BTreeMap<u64, Done>,
    pub(super) next: u64,
    /// One per strategy of the group.
    pub(super) stats: &'a mut [UnitStats],
    pub(super) sink: &'a mut dyn RowSink,
    pub(super) progress: &'a dyn Progress,
    /// The first write error; nothing is written after it.
    pub(super) error: Option<std::io::Error>,
    pub(super) tally: &'a mut Tally,
    /// Where the number of batches written is published, for the
    /// finishing threads' statistics ([`Partials::add`]).
    pub(super) written: &'a std::sync::atomic::AtomicU64,
}

/// Rows placed in a file by the ordered writer, to be written by the
/// thread that handed it the batch, after it has let go of the writer.
pub(super) type Placed = Vec<(Slot, Vec<u8>)>;

impl<'a> Ordered<'a> {
    /// The writer of a group's rows and of what depends on batch order,
    /// before its first batch.
    pub(super) fn new(
        stats: &'a mut [UnitStats],
        sink: &'a mut dyn RowSink,
        progress: &'a dyn Progress,
        tally: &'a mut Tally,
        written: &'a std::sync::atomic::AtomicU64,
    ) -> Self {
        Ordered {
            pending: BTreeMap::new(),
            next: 0,
            stats,
            sink,
            progress,
            error: None,
            tally,
            written,
        }
    }

    /// Takes a finished batch and writes every batch now next in order:
    /// rows the sink takes itself are written, the others placed (see
    /// [`write_placed`]). Returns how many batches were written (each frees
    /// a batch slot).
    pub(super) fn accept(&mut self, done: Done, placed: &mut Placed) -> usize {
        let start = Instant::now();
        let written = self.accept_timed(done, placed);
        self.tally.write_ns += start.elapsed().as_nanos() as u64;
        written
    }

    fn accept_timed(&mut self, done: Done, placed: &mut Placed) -> usize {
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
            for (k, u) in d.units.into_iter().enumerate() {
                let stats = &mut self.stats[k];
                for (t, x) in stats.pass_ns.iter_mut().zip(&u.pass_ns) {
                    *t = t.saturating_add(*x);
                }
                self.tally.busy[k] += u.busy_ns;
                stats.add_unclaimed(&u.unclaimed);
                n += u.puzzles;
                if !u.rows.is_empty() && self.error.is_none() {
                    let result = match self.sink.reserve(k, u.rows.len()) {
                        Some(Ok(slot)) => {
                            placed.push((slot, u.rows));
                            Ok(())
                        }
                        Some(Err(e)) => Err(e),
                        None => self.sink.write(k, &u.rows),
                    };
                    if let Err(e) = result {
                        self.error = Some(e);
                    }
                }
                if let Some(acc) = self.tally.pairs[k].as_mut() {
                    for &(pairs, sum) in &u.blocks {
                        acc.add_chunk(pairs, sum);
                    }
                    acc.add_noise(&u.noise);
                }
                if let (Some((blocks, noise)), Some((_, acc))) = (&u.gate, self.tally.gate.as_mut())
                {
                    for &(pairs, sum) in blocks {
                        acc.add_chunk(pairs, sum);
                    }
                    acc.add_noise(noise);
                }
            }
            if self.error.is_some() {
                self.pending.clear();
                break;
            }
            self.written
                .store(self.next, std::sync::atomic::Ordering::Release);
            self.progress.advance(n);
        }
        written
    }
}

/// Writes rows placed by [`Ordered::accept`]; the first error is kept in
/// the writer (nothing more is written after it). Returns whether a write
/// failed.
pub(super) fn write_placed(placed: &mut Placed, out: &Mutex<Ordered>) -> bool {
    let mut failed = None;
    let write = probe_skip() < probe::Skip::Write;
    for (slot, rows) in placed.drain(..) {
        if !write {
            continue;
        }
        if let Err(e) = slot.write(&rows) {
            failed = Some(e);
            break;
        }
    }
    placed.clear();
    let Some(e) = failed else {
        return false;
    };
    let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
    out.error.get_or_insert(e);
    out.pending.clear();
    true
}
