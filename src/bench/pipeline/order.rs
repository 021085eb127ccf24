//! Ordering: a solved batch verified, paired with the baseline chunk by
//! chunk, put back in input order and handed to the writer, which
//! aggregates and writes batches in input order.

use super::*;

/// Puts a batch's outcomes (in solve order, matching `records`) back in
/// input order and formats their rows.
pub(super) fn in_input_order(
    records: &[Record],
    outcomes: Vec<PuzzleOutcome>,
    shuffled: bool,
    format: Option<&RowFormat>,
) -> (Vec<PuzzleOutcome>, Vec<u8>) {
    debug_assert_eq!(records.len(), outcomes.len());
    let outcomes = if shuffled {
        let mut pairs: Vec<(&Record, PuzzleOutcome)> = records.iter().zip(outcomes).collect();
        pairs.sort_unstable_by_key(|(r, _)| r.index);
        let mut rows = Vec::new();
        if let Some(f) = format {
            rows.reserve(pairs.len() * 96);
            for (rec, o) in &pairs {
                f.push(&mut rows, rec, o);
            }
        }
        return (pairs.into_iter().map(|(_, o)| o).collect(), rows);
    } else {
        outcomes
    };
    let mut rows = Vec::new();
    if let Some(f) = format {
        rows.reserve(records.len() * 96);
        for (rec, o) in records.iter().zip(&outcomes) {
            f.push(&mut rows, rec, o);
        }
    }
    (outcomes, rows)
}

/// A finished batch on its way to the writer.
pub(super) struct Done {
    pub(super) seq: u64,
    /// One part per strategy, in the group's order.
    pub(super) units: Vec<DoneUnit>,
    pub(super) skipped: Vec<Skipped>,
}

/// One strategy's share of a finished batch.
pub(super) struct DoneUnit {
    /// Verified outcomes in input order.
    pub(super) outcomes: Vec<PuzzleOutcome>,
    /// Their `puzzles.csv` rows (empty without a per-puzzle CSV).
    pub(super) rows: Vec<u8>,
    /// This batch's share of each measured pass's total.
    pub(super) pass_ns: Vec<u64>,
    /// The time the strategy spent on this batch.
    pub(super) busy_ns: u64,
    /// Each chunk's pairs with the baseline: (pairs, sum of log ratios).
    pub(super) blocks: Vec<(u32, f64)>,
}

/// Verifies one batch's chunks of every strategy (each chunk list covers
/// `records` in order, in solve order), sums each chunk's pairs with the
/// baseline (for the bootstrap's blocks) and puts every strategy's outcomes
/// in input order.
pub(super) fn finish_batch(
    job: &Job,
    records: &[Record],
    parts: &[(usize, Vec<Chunk>)],
    shuffled: bool,
) -> Vec<DoneUnit> {
    let n = job.strategies.len();
    let mut verified: Vec<(Vec<PuzzleOutcome>, Vec<u64>, u64)> = (0..n)
        .map(|k| {
            let mut outcomes = Vec::with_capacity(records.len());
            let mut pass_ns = vec![0u64; (job.passes - job.warmup) as usize];
            let mut busy_ns = 0;
            for (a, chunks) in parts {
                let chunk = &chunks[k];
                verify(
                    &records[*a..*a + chunk.solved.len()],
                    chunk,
                    job.count_check(k),
                    &mut outcomes,
                );
                for (t, x) in pass_ns.iter_mut().zip(&chunk.pass_ns) {
                    *t += x;
                }
                busy_ns += chunk.busy_ns;
            }
            (outcomes, pass_ns, busy_ns)
        })
        .collect();
    // Each chunk's pairs: (pairs, sum of log ratios), per strategy.
    let mut blocks: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
    if let Some(b) = job.baseline {
        for (k, out) in blocks.iter_mut().enumerate().filter(|(k, _)| *k != b) {
            for (a, chunks) in parts {
                let range = *a..*a + chunks[k].solved.len();
                let (mut pairs, mut sum) = (0u32, 0.0);
                for (bo, o) in verified[b].0[range.clone()]
                    .iter()
                    .zip(&verified[k].0[range])
                {
                    if let Some(l) = paired::log_ratio(bo, o) {
                        pairs += 1;
                        sum += l;
                    }
                }
                out.push((pairs, sum));
            }
        }
    }
    verified
        .drain(..)
        .zip(blocks)
        .enumerate()
        .map(|(k, ((outcomes, pass_ns, busy_ns), blocks))| {
            let (outcomes, rows) =
                in_input_order(records, outcomes, shuffled, job.formats[k].as_ref());
            DoneUnit {
                outcomes,
                rows,
                pass_ns,
                busy_ns,
                blocks,
            }
        })
        .collect()
}

/// The writer's side: restores batch order, aggregates, pairs and writes
/// rows.
pub(super) struct Ordered<'a> {
    pub(super) pending: BTreeMap<u64, Done>,
    pub(super) next: u64,
    /// One per strategy of the group.
    pub(super) stats: &'a mut [UnitStats],
    pub(super) sink: &'a mut dyn RowSink,
    pub(super) progress: &'a dyn Progress,
    /// The first write error; nothing is written after it.
    pub(super) error: Option<std::io::Error>,
    /// Small guess/depth values not yet in `stats`' histograms (flushed on
    /// drop, before anyone can read `stats` again).
    pub(super) small: Vec<SmallCounts>,
    pub(super) tally: &'a mut Tally,
}

impl Drop for Ordered<'_> {
    fn drop(&mut self) {
        for (small, stats) in self.small.iter_mut().zip(self.stats.iter_mut()) {
            small.flush(stats);
        }
    }
}

impl Ordered<'_> {
    /// Takes a finished batch and writes every batch now next in order.
    /// Returns how many batches were written (each frees a batch slot).
    pub(super) fn accept(&mut self, done: Done) -> usize {
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
            for (k, u) in d.units.iter().enumerate() {
                let stats = &mut self.stats[k];
                for (t, x) in stats.pass_ns.iter_mut().zip(&u.pass_ns) {
                    *t += x;
                }
                for o in &u.outcomes {
                    stats.record_counting(o, &mut self.small[k]);
                }
                self.tally.busy[k] += u.busy_ns;
                n += u.outcomes.len() as u64;
                if !u.rows.is_empty() && self.error.is_none() {
                    if let Err(e) = self.sink.write(k, &u.rows) {
                        self.error = Some(e);
                    }
                }
            }
            if let Some(b) = self.tally.baseline {
                let base = &d.units[b].outcomes;
                for (k, acc) in self.tally.pairs.iter_mut().enumerate() {
                    if let Some(acc) = acc {
                        for (bo, o) in base.iter().zip(&d.units[k].outcomes) {
                            acc.add(bo, o);
                        }
                        for &(pairs, sum) in &d.units[k].blocks {
                            acc.add_chunk(pairs, sum);
                        }
                    }
                }
            }
            if self.error.is_some() {
                self.pending.clear();
                break;
            }
            self.progress.advance(n);
        }
        written
    }
}
