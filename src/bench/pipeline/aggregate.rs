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
}

/// Every thread's accumulators: one slot per thread that finishes batches,
/// made on its first batch.
pub(super) struct Partials {
    slots: Vec<Mutex<Option<Vec<Part>>>>,
    /// Empty accumulators to clone for a new slot.
    template: Vec<(UnitStats, Option<PairAcc>)>,
}

impl Partials {
    /// Accumulators for `threads` finishing threads, shaped like `stats`
    /// and `pairs` (which must be empty).
    pub(super) fn new(threads: usize, stats: &[UnitStats], pairs: &[Option<PairAcc>]) -> Self {
        Partials {
            slots: (0..threads.max(1)).map(|_| Mutex::new(None)).collect(),
            template: stats.iter().cloned().zip(pairs.iter().cloned()).collect(),
        }
    }

    /// Adds one batch's verified outcomes (one list per strategy, each in
    /// the same order) to slot `slot`'s accumulators. Only the thread that
    /// owns the slot uses it, so the lock is never contended.
    pub(super) fn add(
        &self,
        slot: usize,
        baseline: Option<usize>,
        outcomes: &[Vec<PuzzleOutcome>],
    ) {
        let mut guard = self.slots[slot % self.slots.len()]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let parts = guard.get_or_insert_with(|| {
            self.template
                .iter()
                .map(|(stats, pairs)| Part {
                    stats: stats.clone(),
                    small: SmallCounts::default(),
                    pairs: pairs.clone(),
                })
                .collect()
        });
        for (part, list) in parts.iter_mut().zip(outcomes) {
            for o in list {
                part.stats.record_counting(o, &mut part.small);
            }
        }
        if let Some(b) = baseline {
            for (k, part) in parts.iter_mut().enumerate() {
                if let Some(acc) = part.pairs.as_mut() {
                    for (bo, o) in outcomes[b].iter().zip(&outcomes[k]) {
                        acc.add(bo, o);
                    }
                }
            }
        }
    }

    /// Adds every slot's accumulators, in slot order, to `stats` and
    /// `pairs` (which hold what the ordered writer kept).
    pub(super) fn merge_into(self, stats: &mut [UnitStats], pairs: &mut [Option<PairAcc>]) {
        for slot in self.slots {
            let Some(parts) = slot.into_inner().unwrap_or_else(|e| e.into_inner()) else {
                continue;
            };
            for (k, mut part) in parts.into_iter().enumerate() {
                part.small.flush(&mut part.stats);
                // Adding histograms of the same configuration cannot fail
                // (the target grows as needed).
                let _ = stats[k].merge_outcomes(&part.stats);
                if let (Some(acc), Some(p)) = (pairs[k].as_mut(), part.pairs.as_ref()) {
                    acc.merge_pairs(p);
                }
            }
        }
    }
}

/// What the ordered writer accumulates across strategies: the pairs with
/// the baseline (their chunk blocks, in input order) and each strategy's
/// solving time (to share the wall time).
pub(super) struct Tally {
    pub(super) baseline: Option<usize>,
    pub(super) pairs: Vec<Option<PairAcc>>,
    pub(super) busy: Vec<u64>,
    /// Time spent in the ordered writer, in ns (one thread at a time).
    pub(super) write_ns: u64,
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
