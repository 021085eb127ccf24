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
//! Memory stays bounded: at most [`TRACKED`] distinct grids of a dataset
//! are remembered (a hash and one kept time per strategy), the first
//! `TRACKED / SHARDS` of each shard; repeats of a grid first seen after its
//! shard is full are not found. Batches are finished by several threads,
//! so the grids are spread over [`SHARDS`] locks; which of two occurrences
//! counts as the first is the one finished first.

use super::{PuzzleOutcome, Record, CACHE_FACTOR};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// Distinct grids remembered per dataset.
pub(super) const TRACKED: usize = 1 << 18;
/// Locks the remembered grids are spread over.
const SHARDS: usize = 64;
/// A kept time that is not one: no accepted answer.
const NONE: u32 = u32::MAX;

/// The grids of one dataset seen so far.
pub(super) struct Seen {
    /// Made on first use ([`Seen::tables`]), or beforehand, beside the
    /// first solves ([`Seen::make_tables`]).
    shards: OnceLock<Vec<Mutex<Shard>>>,
    /// Room in each shard's table.
    room: usize,
    strategies: usize,
    repeats: AtomicU64,
}

/// The grids of one shard: an open-addressing table of their hashes.
///
/// A batch looks up each of its grids once, and almost every grid is new,
/// so a lookup is nearly always a miss followed by an insert into a table
/// that the solves between two batches have pushed out of the caches. Each
/// entry holds both the hash and its slot in `times` (a miss and its
/// insert read one entry, or a few next to it), and probing is linear from
/// a home taken from the hash's low 32 bits; the shard is chosen by its top
/// bits, so the two never depend on the same bits.
struct Shard {
    /// (grid hash, slot in `times`); a hash of 0 marks an empty entry (a
    /// grid whose hash is 0 is stored as 1). At most three quarters are
    /// used. The length is not rounded up to a power of two, which could
    /// make it nearly twice as large: the tables are zeroed and their
    /// pages faulted in when they are made.
    table: Vec<(u64, u32)>,
    used: usize,
    /// Per slot, each strategy's kept time (ns, saturated) of the first
    /// occurrence.
    times: Vec<u32>,
}

impl Shard {
    /// Room for `room` grids without growing.
    fn new(room: usize, strategies: usize) -> Self {
        // Written, not allocated zeroed: the pages are faulted in here,
        // by the thread that makes the tables, not by the first lookups
        // on the finishing (often solving) threads.
        let len = (room * 4 / 3 + 1).max(8);
        let mut table = Vec::with_capacity(len);
        table.resize(len, (0, 0));
        Shard {
            table,
            used: 0,
            times: Vec::with_capacity(room * strategies),
        }
    }

    /// The entry of `key` (nonzero): where it is, or the empty entry where
    /// it would go.
    #[inline]
    fn find(&self, key: u64) -> usize {
        let len = self.table.len();
        let mut at = home(key, len);
        loop {
            let k = self.table[at].0;
            if k == key || k == 0 {
                return at;
            }
            at += 1;
            if at == len {
                at = 0;
            }
        }
    }

    /// Reads the home entry of each of `keys`, so that their cache misses
    /// overlap instead of coming one after another in the lookups that
    /// follow; returns what it read, for the caller to keep.
    fn touch(&self, keys: impl Iterator<Item = u64>) -> u64 {
        let len = self.table.len();
        keys.fold(0, |acc, key| acc ^ self.table[home(key, len)].0)
    }

    /// Stores `key` (absent) with `slot`, growing the table first when it
    /// would be more than three quarters full.
    fn insert(&mut self, key: u64, slot: u32) {
        if (self.used + 1) * 4 > self.table.len() * 3 {
            let larger = vec![(0, 0); 2 * self.table.len()];
            let old = std::mem::replace(&mut self.table, larger);
            for e in old.into_iter().filter(|e| e.0 != 0) {
                let at = self.find(e.0);
                self.table[at] = e;
            }
        }
        let at = self.find(key);
        self.table[at] = (key, slot);
        self.used += 1;
    }

    /// One grid (nonzero hash `key`, each strategy's kept `times`): the
    /// first occurrence's times when it was seen before; else it is
    /// remembered while there is room.
    fn look(&mut self, key: u64, times: &[u32]) -> Option<&[u32]> {
        let at = self.find(key);
        let (k, slot) = self.table[at];
        if k == key {
            let first = slot as usize * times.len();
            return Some(&self.times[first..first + times.len()]);
        }
        if self.used < TRACKED / SHARDS {
            let slot = self.used as u32;
            self.insert(key, slot);
            self.times.extend_from_slice(times);
        }
        None
    }
}

impl Seen {
    /// Room for the grids of a dataset of `puzzles` puzzles (when known),
    /// so that the tables are not grown while batches are finished. The
    /// tables themselves are made by [`Seen::tables`].
    pub(super) fn new(strategies: usize, puzzles: Option<u64>) -> Self {
        let n = puzzles.map_or(0, |n| n.min(TRACKED as u64) as usize);
        // Grids fall into the shards at random: room for a quarter more
        // than the share of each.
        let room = if n == 0 {
            0
        } else {
            n / SHARDS + n / SHARDS / 4 + 8
        };
        Seen {
            shards: OnceLock::new(),
            room,
            strategies,
            repeats: AtomicU64::new(0),
        }
    }

    /// Makes the tables now ([`Seen::tables`]), so that the first batch
    /// finished need not. Making them is mostly page faults (about a
    /// millisecond for a dataset of 50,000 puzzles), so a run has a thread
    /// that does not solve make them while the first batches are solved:
    /// the reader beside a lone solver thread, or a thread of their own
    /// ([`Seen::worth_a_thread`]).
    pub(super) fn make_tables(&self) {
        self.tables();
    }

    /// The tables, made by the first call; a call while another thread
    /// makes them waits for it.
    fn tables(&self) -> &[Mutex<Shard>] {
        self.shards.get_or_init(|| {
            (0..SHARDS)
                .map(|_| Mutex::new(Shard::new(self.room, self.strategies)))
                .collect()
        })
    }

    /// Whether the tables are large enough for a thread to make them to
    /// be worth its start (tens of microseconds).
    pub(super) fn worth_a_thread(&self) -> bool {
        self.room * SHARDS >= 1 << 14
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
        // Hashed without a lock and put in shard order; then each shard is
        // locked once for the batch's grids that fall in it.
        let keys: Vec<u64> = records.iter().map(|r| grid_hash(r).max(1)).collect();
        let (start, order) = in_shard_order(&keys);
        // Each strategy's kept times, read in batch order (the outcomes are
        // large; the lookups below visit the grids in shard order).
        let n = self.strategies;
        let mut times = vec![NONE; records.len() * n];
        for (k, list) in outcomes.iter().enumerate().take(n) {
            for (i, o) in list.iter().enumerate().take(records.len()) {
                times[i * n + k] = kept(o);
            }
        }
        let shards = self.tables();
        let mut found = 0;
        let mut touched = 0;
        for s in (0..SHARDS).filter(|&s| start[s] < start[s + 1]) {
            let mut shard = shards[s].lock().unwrap_or_else(|e| e.into_inner());
            let mine = &order[start[s]..start[s + 1]];
            touched ^= shard.touch(mine.iter().map(|&i| keys[i as usize]));
            for &i in mine {
                let i = i as usize;
                let Some(first) = shard.look(keys[i], &times[i * n..(i + 1) * n]) else {
                    continue;
                };
                found += 1;
                for (o, &first) in outcomes.iter_mut().zip(first) {
                    if let Some(o) = o.get_mut(i) {
                        again(o, first);
                    }
                }
            }
        }
        // Kept, so that the reads are not optimised away.
        std::hint::black_box(touched);
        self.repeats.fetch_add(found, Ordering::Relaxed);
    }
}

/// Where `key`'s probe starts in a table of `len` entries: its low 32 bits
/// scaled to the length (the shard is taken from the top bits).
#[inline]
fn home(key: u64, len: usize) -> usize {
    (((key & 0xffff_ffff) * len as u64) >> 32) as usize
}

/// The shard of a grid's key: its top bits (a shard's table probes from
/// the low 32 bits).
fn shard_of(key: u64) -> usize {
    (key >> (64 - SHARDS.trailing_zeros())) as usize
}

/// The positions of `keys` in shard order, each shard's in batch order (a
/// counting sort), and where each shard's positions start in it.
fn in_shard_order(keys: &[u64]) -> ([usize; SHARDS + 1], Vec<u32>) {
    let mut start = [0usize; SHARDS + 1];
    for &key in keys {
        start[shard_of(key) + 1] += 1;
    }
    for s in 1..=SHARDS {
        start[s] += start[s - 1];
    }
    let mut next = start;
    let mut order = vec![0u32; keys.len()];
    for (i, &key) in keys.iter().enumerate() {
        let at = &mut next[shard_of(key)];
        order[*at] = i as u32;
        *at += 1;
    }
    (start, order)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_finds_every_key_it_holds_and_no_other_as_it_grows() {
        // Keys whose homes coincide probe past each other.
        let keys: Vec<u64> = (1..=3000u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
            .chain((1..=200u64).map(|i| i << 20))
            .collect();
        let mut shard = Shard::new(0, 1);
        for (slot, &key) in keys.iter().enumerate() {
            let (k, _) = shard.table[shard.find(key)];
            assert_eq!(k, 0, "absent before it is inserted");
            shard.insert(key, slot as u32);
            assert!(shard.used * 4 <= shard.table.len() * 3);
        }
        assert_eq!(shard.used, keys.len());
        for (slot, &key) in keys.iter().enumerate() {
            assert_eq!(shard.table[shard.find(key)], (key, slot as u32));
        }
        assert_eq!(shard.table[shard.find(2)].0, 0);
    }

    #[test]
    fn a_shard_keeps_each_grids_first_times_until_it_is_full() {
        let strategies = 3;
        let mut shard = Shard::new(0, strategies);
        let times = |key: u64| [key as u32, key as u32 + 1, NONE];
        let cap = TRACKED / SHARDS;
        for key in 1..=cap as u64 + 10 {
            assert_eq!(shard.look(key, &times(key)), None, "new");
        }
        assert_eq!(shard.used, cap);
        for key in 1..=cap as u64 {
            // A repeat brings back the first occurrence's times, not its own.
            assert_eq!(shard.look(key, &[7, 7, 7]), Some(&times(key)[..]));
        }
        // Grids after the shard was full were not remembered.
        assert_eq!(shard.look(cap as u64 + 1, &times(1)), None);
    }

    #[test]
    fn sized_for_a_known_dataset_the_tables_never_grow() {
        let seen = Seen::new(2, Some(10_000));
        let room = 10_000 / SHARDS + 10_000 / SHARDS / 4 + 8;
        for shard in seen.tables() {
            let shard = shard.lock().unwrap();
            assert!(room * 4 <= shard.table.len() * 3);
            assert!(shard.times.capacity() >= 2 * room);
        }
    }
}
