//! A bounded, order-free sample of per-puzzle points (guesses, solve time)
//! for the scatter chart.
//!
//! Each puzzle gets a pseudo-random rank from its index alone
//! ([`rank`]); a sample keeps the [`CAP`] points of lowest rank. That is a
//! uniform sample without replacement (the ranks are a fixed shuffle of
//! the indexes), and it does not depend on the order the points arrive
//! in: the finishing threads each sample the batches they finished and
//! their samples merge into the one a single pass over the file would
//! give, shards merge into the sample of the unsharded run, and reading
//! `puzzles.csv` back (`bench-sudoku report`, `merge`) picks the same
//! points `run` drew. Every strategy of a dataset shows the same puzzles.

/// Points kept per sample, at most.
pub const CAP: usize = 5000;

/// One sampled puzzle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Kept {
    rank: u64,
    index: u64,
    guesses: u64,
    time_ns: u64,
}

/// The sample of one (dataset, strategy): at most [`CAP`] points once
/// [settled](PointSample::points), up to twice that while points arrive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointSample {
    kept: Vec<Kept>,
    /// Once `kept` has been cut to [`CAP`] points, the highest rank kept:
    /// a point ranked above it can never be in the sample. `u64::MAX`
    /// before that (turning nothing away).
    bound: u64,
}

impl Default for PointSample {
    fn default() -> Self {
        PointSample {
            kept: Vec::new(),
            bound: u64::MAX,
        }
    }
}

/// The rank of puzzle `index`: a bijective mix of its bits (the
/// finalizer of SplitMix64), so distinct puzzles never tie and the
/// lowest ranks are spread evenly over the file.
pub fn rank(index: u64) -> u64 {
    let mut z = index ^ 0x5ca7_7e12_9e37_79b9;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl PointSample {
    /// Offers puzzle `index`'s point: the rank and one comparison, but for
    /// the points stored (the first `2 · CAP`, then ever fewer: about
    /// `CAP · ln(n / CAP)` more of `n` offered).
    #[inline]
    pub fn offer(&mut self, index: u64, guesses: u64, time_ns: u64) {
        let rank = rank(index);
        if rank > self.bound {
            return;
        }
        self.push(Kept {
            rank,
            index,
            guesses,
            time_ns,
        });
    }

    // Out of line: the caller's loop keeps only the rank and the comparison.
    #[inline(never)]
    fn push(&mut self, k: Kept) {
        if self.kept.capacity() == 0 {
            // The most it ever holds: no copy as it grows.
            self.kept.reserve_exact(2 * CAP);
        }
        self.kept.push(k);
        if self.kept.len() >= 2 * CAP {
            self.cut();
        }
    }

    /// Keeps the [`CAP`] points of lowest rank (in no particular order),
    /// in time linear in the points held.
    fn cut(&mut self) {
        if self.kept.len() < CAP {
            return;
        }
        self.kept.select_nth_unstable_by_key(CAP - 1, |k| k.rank);
        self.kept.truncate(CAP);
        self.bound = self.kept[CAP - 1].rank;
    }

    /// Adds another sample's points (of other puzzles of the same unit).
    pub fn merge(&mut self, other: &PointSample) {
        for &k in &other.kept {
            if k.rank <= self.bound {
                self.push(k);
            }
        }
    }

    /// Adds another sample's points, taking its memory when this sample is
    /// still empty: a sample of thousands of points is a fresh allocation
    /// otherwise, whose page faults cost more than the merge.
    pub fn absorb(&mut self, other: PointSample) {
        if self.kept.is_empty() && self.bound == u64::MAX {
            *self = other;
        } else {
            self.merge(&other);
        }
    }

    /// The sampled `(guesses, time_ns)` points, in puzzle order.
    pub fn points(&self) -> Vec<(u64, u64)> {
        let mut s = self.clone();
        s.cut();
        s.kept.sort_unstable_by_key(|k| k.index);
        s.kept.iter().map(|k| (k.guesses, k.time_ns)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(i: u64) -> (u64, u64) {
        (i % 7, 1000 + i)
    }

    fn offered(indexes: impl IntoIterator<Item = u64>) -> PointSample {
        let mut s = PointSample::default();
        for i in indexes {
            let (g, t) = point(i);
            s.offer(i, g, t);
        }
        s
    }

    #[test]
    fn a_small_unit_keeps_every_point_in_puzzle_order() {
        let s = offered((0..100).rev());
        assert_eq!(s.points(), (0..100).map(point).collect::<Vec<_>>());
    }

    #[test]
    fn the_sample_keeps_the_lowest_ranks_whatever_the_order_and_split() {
        let n = 7 * CAP as u64 + 13;
        let whole = offered(0..n);
        // The definition: the CAP lowest-ranked indexes, in index order.
        let mut by_rank: Vec<u64> = (0..n).collect();
        by_rank.sort_by_key(|&i| rank(i));
        let mut chosen = by_rank[..CAP].to_vec();
        chosen.sort_unstable();
        let expected: Vec<(u64, u64)> = chosen.into_iter().map(point).collect();
        assert_eq!(whole.points(), expected);
        // Reversed, and in three parts merged in another order.
        assert_eq!(offered((0..n).rev()).points(), expected);
        let mut merged = offered((0..n).filter(|i| i % 3 == 2));
        merged.merge(&offered((0..n).filter(|i| i % 3 == 0)));
        merged.merge(&offered((0..n).filter(|i| i % 3 == 1)));
        assert_eq!(merged.points(), expected);
        // Absorbed into an empty sample, then into a full one.
        let mut absorbed = PointSample::default();
        absorbed.absorb(offered((0..n).filter(|i| i % 2 == 1)));
        absorbed.absorb(offered((0..n).filter(|i| i % 2 == 0)));
        assert_eq!(absorbed.points(), expected);
        // Drawn from the whole range, not only its start.
        let idx: Vec<u64> = by_rank[..CAP].to_vec();
        assert!(idx.iter().any(|&i| i > n - n / 10));
        assert!(idx.iter().any(|&i| i < n / 10));
    }

    #[test]
    fn ranks_never_tie() {
        let mut r: Vec<u64> = (0..100_000).map(rank).collect();
        r.sort_unstable();
        r.dedup();
        assert_eq!(r.len(), 100_000);
    }
}
