//! Aggregation: the thread that finishes a batch adds its outcomes to
//! accumulators of its own (counts, totals, histograms, the pairs with the
//! baseline), so that no single thread touches every puzzle's outcome. The
//! accumulators are merged in a fixed order when the group ends; every
//! part of them is order-free (sums, maxima, histogram counts, lists kept
//! by lowest puzzle index), so the result does not depend on which thread
//! finished which batch. What does depend on input order (the bootstrap's
//! chunk blocks, the per-pass totals, skipped rows) stays with the ordered
//! writer ([`super::order::Ordered`]), which sees each batch once.

use super::*;

/// One strategy's accumulators on one thread.
pub(super) struct Part {
    pub(super) stats: UnitStats,
    /// Small values counted before they reach `stats`' histograms.
    pub(super) small: SmallCounts,
    /// Pairs with the baseline (strategies other than the baseline).
    pub(super) pairs: Option<PairAcc>,
    /// Pairs with the gate's BASE (the gate's candidate, when BASE is not
    /// the baseline).
    pub(super) gate: Option<PairAcc>,
}

/// One finishing thread's accumulators, and the batches it finished that
/// the ordered writer has not written yet.
struct Slot {
    parts: Vec<Part>,
    /// (batch number, each strategy's outcomes), not yet added: a batch is
    /// added only once it is written, so that the statistics count exactly
    /// the rows of `puzzles.csv` also when the group ends early (a batch
    /// finished after one that never will be is never written).
    pending: Vec<(u64, Vec<Vec<PuzzleOutcome>>)>,
}

/// Every thread's accumulators: one slot per thread that finishes batches,
/// made on its first batch.
pub(super) struct Partials {
    slots: Vec<Mutex<Option<Slot>>>,
    /// Batches the ordered writer has written (batches `0..written`).
    pub(super) written: std::sync::atomic::AtomicU64,
    /// The wrapping sum of the records' hashes ([`record_hash`]), over
    /// every batch finished.
    pub(super) content: std::sync::atomic::AtomicU64,
    /// The grids seen so far, to find the puzzles the dataset repeats.
    pub(super) seen: super::repeats::Seen,
    /// Empty accumulators to clone for a new slot: per strategy its
    /// statistics, its pairs with the baseline and with the gate's BASE.
    template: Vec<(UnitStats, Option<PairAcc>, Option<PairAcc>)>,
}

impl Partials {
    /// Accumulators for `threads` finishing threads, shaped like `stats`,
    /// `pairs` and `gate` (which must be empty), for a dataset of `puzzles`
    /// puzzles when that is known.
    pub(super) fn new(
        threads: usize,
        puzzles: Option<u64>,
        stats: &[UnitStats],
        pairs: &[Option<PairAcc>],
        gate: Option<&(usize, PairAcc)>,
    ) -> Self {
        Partials {
            slots: (0..threads.max(1)).map(|_| Mutex::new(None)).collect(),
            written: std::sync::atomic::AtomicU64::new(0),
            content: std::sync::atomic::AtomicU64::new(0),
            seen: super::repeats::Seen::new(stats.len(), puzzles, threads),
            template: stats
                .iter()
                .zip(pairs)
                .enumerate()
                .map(|(k, (s, p))| {
                    let g = gate.filter(|(c, _)| *c == k).map(|(_, acc)| acc.clone());
                    (s.clone(), p.clone(), g)
                })
                .collect(),
        }
    }

    /// Takes batch `seq`'s verified outcomes (one list per strategy, each in
    /// the same order) into slot `slot`, and adds to the slot's
    /// accumulators every batch of it that the writer has written. Only the
    /// thread that owns the slot uses it, so the lock is never contended.
    pub(super) fn add(&self, slot: usize, seq: u64, refs: Refs, outcomes: Vec<Vec<PuzzleOutcome>>) {
        let mut guard = self.slots[slot % self.slots.len()]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let state = guard.get_or_insert_with(|| Slot {
            parts: self
                .template
                .iter()
                .map(|(stats, pairs, gate)| Part {
                    stats: stats.clone(),
                    small: SmallCounts::default(),
                    pairs: pairs.clone(),
                    gate: gate.clone(),
                })
                .collect(),
            pending: Vec::new(),
        });
        state.pending.push((seq, outcomes));
        let written = self.written.load(std::sync::atomic::Ordering::Acquire);
        state.add_written(written, refs);
    }

    /// Adds every slot's written batches to its accumulators and then the
    /// accumulators, in slot order, to `stats` and `tally`'s pairs (which
    /// hold what the ordered writer kept). Batches never written are
    /// left out. Called once; what is left (the accumulators, the
    /// repeated-grid tables, a few megabytes) is the caller's to drop
    /// after the group's wall time, so that freeing it is not counted as
    /// the group's work.
    pub(super) fn merge_into(&mut self, job: &Job, stats: &mut [UnitStats], tally: &mut Tally) {
        let written = *self.written.get_mut();
        for slot in &mut self.slots {
            let slot = slot.get_mut().unwrap_or_else(|e| e.into_inner());
            let Some(state) = slot.as_mut() else {
                continue;
            };
            state.add_written(written, job.refs());
            for (k, part) in state.parts.iter_mut().enumerate() {
                part.small.flush(&mut part.stats);
                // Adding histograms of the same configuration cannot fail
                // (the target grows as needed).
                let _ = stats[k].merge_outcomes_from(&mut part.stats);
                if let (Some(acc), Some(p)) = (tally.pairs[k].as_mut(), part.pairs.as_ref()) {
                    acc.merge_pairs(p);
                }
                if let (Some((_, acc)), Some(p)) = (tally.gate.as_mut(), part.gate.as_ref()) {
                    acc.merge_pairs(p);
                }
            }
        }
    }
}

impl Slot {
    /// Adds the pending batches numbered below `written`.
    fn add_written(&mut self, written: u64, refs: Refs) {
        let mut i = 0;
        while i < self.pending.len() {
            if self.pending[i].0 >= written {
                i += 1;
                continue;
            }
            let (_, outcomes) = self.pending.swap_remove(i);
            for (part, list) in self.parts.iter_mut().zip(&outcomes) {
                for o in list {
                    part.stats.record_counting(o, &mut part.small);
                }
            }
            if let Some(b) = refs.baseline {
                for (k, part) in self.parts.iter_mut().enumerate() {
                    if let Some(acc) = part.pairs.as_mut() {
                        for (bo, o) in outcomes[b].iter().zip(&outcomes[k]) {
                            acc.add(bo, o);
                        }
                    }
                }
            }
            if let Some((c, r)) = refs.gate {
                if let Some(acc) = self.parts[c].gate.as_mut() {
                    for (ro, o) in outcomes[r].iter().zip(&outcomes[c]) {
                        acc.add(ro, o);
                    }
                }
            }
        }
    }
}

/// One record's share of the dataset's content hash: XXH3 of its puzzle
/// and solution, seeded with its index (so that the same puzzles in another
/// order hash differently). Sums of these do not depend on how the records
/// were cut into batches or shards.
pub(super) fn record_hash(rec: &Record) -> u64 {
    let puzzle = rec.puzzle.cells();
    if let Some(c) = rec.candidates() {
        // A pencilmark puzzle: its candidates are its content.
        let mut bytes = [0u8; 2 * 81 + 81];
        for (pair, m) in bytes.chunks_exact_mut(2).zip(c.iter()) {
            pair.copy_from_slice(&m.to_le_bytes());
        }
        if let Some(s) = &rec.solution {
            bytes[2 * 81..].copy_from_slice(s.cells());
        }
        return xxhash_rust::xxh3::xxh3_64_with_seed(&bytes, rec.index);
    }
    match &rec.solution {
        // The usual case, and XXH3's cheaper path for short inputs.
        None => xxhash_rust::xxh3::xxh3_64_with_seed(puzzle, rec.index),
        Some(s) => {
            let mut bytes = [0u8; 2 * 81];
            bytes[..81].copy_from_slice(puzzle);
            bytes[81..].copy_from_slice(s.cells());
            xxhash_rust::xxh3::xxh3_64_with_seed(&bytes, rec.index)
        }
    }
}

/// Whom the strategies are paired with: the baseline, and the gate's
/// (candidate, BASE) when BASE is not the baseline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Refs {
    pub(super) baseline: Option<usize>,
    pub(super) gate: Option<(usize, usize)>,
}

/// What the ordered writer accumulates across strategies: the pairs with
/// the baseline (their chunk blocks, in input order), the gate's pair, and
/// each strategy's solving time (to share the wall time).
pub(super) struct Tally {
    pub(super) baseline: Option<usize>,
    pub(super) pairs: Vec<Option<PairAcc>>,
    /// The gate's candidate and its pairs with BASE, when BASE is not the
    /// baseline.
    pub(super) gate: Option<(usize, PairAcc)>,
    pub(super) busy: Vec<u64>,
    /// Time spent in the ordered writer, in ns (one thread at a time).
    pub(super) write_ns: u64,
}

impl Tally {
    /// An empty tally for a group of `strategies`: each strategy paired
    /// with `baseline` (when there are two strategies or more), and the
    /// gate's candidate with its BASE (`gate_pair`: candidate, BASE) when
    /// BASE is not the baseline. Returns it and that gate pair (`None` when
    /// the baseline's pairs already hold it).
    pub(super) fn for_group(
        strategies: &[Strategy],
        baseline: Option<usize>,
        gate_pair: Option<(usize, usize)>,
    ) -> (Tally, Option<(usize, usize)>) {
        let n = strategies.len();
        let busy = vec![0; n];
        let baseline = baseline.filter(|&b| b < n && n > 1);
        let pair_with = |k: usize, r: usize| {
            PairAcc::new(
                strategies[r].name(),
                strategies[r].capabilities().counters,
                strategies[k].capabilities().counters,
            )
        };
        let pairs = (0..n)
            .map(|k| match baseline {
                Some(b) if b != k => Some(pair_with(k, b)),
                _ => None,
            })
            .collect();
        let gate_pair = gate_pair
            .filter(|&(c, r)| c < n && r < n && c != r)
            .filter(|&(_, r)| baseline.is_some() && baseline != Some(r));
        let tally = Tally {
            baseline,
            pairs,
            gate: gate_pair.map(|(c, r)| (c, pair_with(c, r))),
            busy,
            write_ns: 0,
        };
        (tally, gate_pair)
    }
}

/// What a group reports besides its units' statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GroupFacts {
    pub serial: SerialTime,
    /// The wrapping sum of the hashes of every record solved.
    pub content: u64,
    /// Puzzles that repeat a grid seen before in the dataset.
    pub repeats: u64,
    /// Time the strategies took over their chunks, by the chunks' own
    /// clocks (every pass, the clock reads and the chunk loop included), ns.
    pub solving_ns: u64,
    /// CPU time per stage, with `BENCH_SUDOKU_STAGE_TIMES` set.
    pub stages: Option<StageTotals>,
}

/// The time one thread at a time must spend on every puzzle: reading the
/// dataset (one reader) and the ordered writer. With enough solver threads
/// these bound the throughput, whatever the core count.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SerialTime {
    /// In the batch reader.
    pub read_ns: u64,
    /// In the ordered writer.
    pub write_ns: u64,
}
