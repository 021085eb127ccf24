//! Puzzles a dataset repeats. A solver that remembers answers is caught
//! by its repeated passes being far faster than its first
//! ([`super::verify`]); a dataset that holds the same grid twice gives it
//! the same chance without any repeated pass (`--repeat 1 --warmup 0`).
//! So each later occurrence of a grid counts as a repeated solve of it:
//! when a strategy solved it at least [`CACHE_FACTOR`] times faster than
//! the occurrence seen first, the solve is far faster, exactly as a later
//! pass would be, and the cache rule of the judge applies to both alike.
//! The repeats are counted for the reports as well.
//!
//! Memory stays bounded: the first [`TRACKED`] distinct grids of a dataset
//! are remembered (a hash and one kept time per strategy); repeats of a
//! grid first seen after that are not found. Batches are finished by
//! several threads, so the grids are spread over [`SHARDS`] locks; which
//! of two occurrences counts as the first is the one finished first.

use super::{PuzzleOutcome, Record, CACHE_FACTOR};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Distinct grids remembered per dataset.
pub(super) const TRACKED: usize = 1 << 18;
/// Locks the remembered grids are spread over.
const SHARDS: usize = 64;
/// A kept time that is not one: no accepted answer.
const NONE: u32 = u32::MAX;

/// The grids of one dataset seen so far.
pub(super) struct Seen {
    shards: Vec<Mutex<Shard>>,
    strategies: usize,
    repeats: AtomicU64,
}

#[derive(Default)]
struct Shard {
    /// Grid hash → its slot in `times` (the key is a hash already: taken
    /// as it is).
    slot: HashMap<u64, u32, BuildHasherDefault<AsIs>>,
    /// Per slot, each strategy's kept time (ns, saturated) of the first
    /// occurrence.
    times: Vec<u32>,
}

impl Seen {
    /// Room for the grids of a dataset of `puzzles` puzzles (when known)
    /// made at once, so that the tables are not grown while batches are
    /// finished.
    pub(super) fn new(strategies: usize, puzzles: Option<u64>) -> Self {
        let n = puzzles.map_or(0, |n| n.min(TRACKED as u64) as usize);
        // Grids fall into the shards at random: room for a quarter more
        // than the share of each.
        let room = if n == 0 {
            0
        } else {
            n / SHARDS + n / SHARDS / 4 + 8
        };
        let shard = || Shard {
            slot: HashMap::with_capacity_and_hasher(room, Default::default()),
            times: Vec::with_capacity(room * strategies),
        };
        Seen {
            shards: (0..SHARDS).map(|_| Mutex::new(shard())).collect(),
            strategies,
            repeats: AtomicU64::new(0),
        }
    }

    /// Occurrences of a grid seen before (each repeat once).
    pub(super) fn repeats(&self) -> u64 {
        self.repeats.load(Ordering::Relaxed)
    }

    /// Looks up each record's grid; a grid seen before marks every
    /// strategy's outcome of it as a repeated solve (far faster when it is
    /// [`CACHE_FACTOR`] times faster than the first occurrence's). `outcomes`
    /// holds each strategy's outcomes in the order of `records`.
    pub(super) fn mark(&self, records: &[Record], outcomes: &mut [&mut Vec<PuzzleOutcome>]) {
        // Hashed without a lock and put in shard order (a counting sort,
        // each shard's grids in batch order); then each shard is locked
        // once for the batch's grids that fall in it.
        let hashes: Vec<u64> = records.iter().map(grid_hash).collect();
        let shard_of = |h: u64| (h % SHARDS as u64) as usize;
        let mut start = [0usize; SHARDS + 1];
        for &h in &hashes {
            start[shard_of(h) + 1] += 1;
        }
        for s in 1..=SHARDS {
            start[s] += start[s - 1];
        }
        let mut next = start;
        let mut order = vec![(0u64, 0u32); hashes.len()];
        for (i, &h) in hashes.iter().enumerate() {
            let at = &mut next[shard_of(h)];
            order[*at] = (h, i as u32);
            *at += 1;
        }
        let mut found = 0;
        for s in (0..SHARDS).filter(|&s| start[s] < start[s + 1]) {
            let mut shard = self.shards[s].lock().unwrap_or_else(|e| e.into_inner());
            for &(h, i) in &order[start[s]..start[s + 1]] {
                found += u64::from(self.look(&mut shard, h, i as usize, outcomes));
            }
        }
        self.repeats.fetch_add(found, Ordering::Relaxed);
    }

    /// One grid of the batch (record `i`, hash `h`) in its locked shard:
    /// a repeat marks every strategy's outcome of it (true), a new grid is
    /// remembered while there is room.
    fn look(
        &self,
        shard: &mut Shard,
        h: u64,
        i: usize,
        outcomes: &mut [&mut Vec<PuzzleOutcome>],
    ) -> bool {
        if let Some(&s) = shard.slot.get(&h) {
            let at = s as usize * self.strategies;
            for (k, o) in outcomes.iter_mut().enumerate() {
                let first = shard.times[at + k];
                if let Some(o) = o.get_mut(i) {
                    again(o, first);
                }
            }
            return true;
        }
        if shard.slot.len() < TRACKED / SHARDS {
            let s = shard.slot.len() as u32;
            shard.slot.insert(h, s);
            shard
                .times
                .extend(outcomes.iter().map(|o| o.get(i).map_or(NONE, kept)));
        }
        false
    }
}

/// The kept time of an accepted answer, saturated to 32 bits; [`NONE`]
/// without one.
fn kept(o: &PuzzleOutcome) -> u32 {
    if o.status.is_fault() || o.rejected() {
        NONE
    } else {
        o.time_ns.min(u64::from(NONE - 1)) as u32
    }
}

/// A repeated solve of a grid whose first occurrence was kept at `first`.
fn again(o: &mut PuzzleOutcome, first: u32) {
    let now = kept(o);
    if first == NONE || now == NONE {
        return;
    }
    o.repeats.repeated = true;
    if u64::from(now).saturating_mul(CACHE_FACTOR) <= u64::from(first) {
        o.repeats.far_faster = true;
    }
}

/// The grid of a record, whatever its index: its cells, or a pencilmark
/// puzzle's candidates.
fn grid_hash(rec: &Record) -> u64 {
    match rec.candidates() {
        Some(c) => {
            let mut bytes = [0u8; 2 * 81];
            for (pair, m) in bytes.chunks_exact_mut(2).zip(c.iter()) {
                pair.copy_from_slice(&m.to_le_bytes());
            }
            xxhash_rust::xxh3::xxh3_64(&bytes)
        }
        None => xxhash_rust::xxh3::xxh3_64(rec.puzzle.cells()),
    }
}

/// A hasher for keys that are hashes already: the key itself.
#[derive(Default)]
struct AsIs(u64);

impl Hasher for AsIs {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}
