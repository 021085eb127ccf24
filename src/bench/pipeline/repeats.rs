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
//! `TRACKED / shards` of each shard; repeats of a grid first seen after its
//! shard is full are not found. Batches are finished by several threads,
//! so the grids are spread over locks, a few per finishing thread (at most
//! [`MAX_SHARDS`]); which of two occurrences counts as the first is the
//! one finished first.

use super::{PuzzleOutcome, Record, CACHE_FACTOR};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// Distinct grids remembered per dataset.
pub(super) const TRACKED: usize = 1 << 18;
/// The most locks the remembered grids are spread over.
const MAX_SHARDS: usize = 64;
/// Locks per finishing thread: enough that two threads seldom want the
/// same one, few enough that a batch's grids fill each with several.
const SHARDS_PER_THREAD: usize = 4;
// A table entry holds a slot in 16 bits: no shard holds more grids.
const _: () = assert!(TRACKED / SHARDS_PER_THREAD <= 1 << 16);
/// A kept time that is not one: no accepted answer.
const NONE: u32 = u32::MAX;

/// The grids of one dataset seen so far.
pub(super) struct Seen {
    /// Made on first use ([`Seen::tables`]), or beforehand, beside the
    /// first solves ([`Seen::make_tables`]).
    shards: OnceLock<Vec<Mutex<Shard>>>,
    /// How many shards: a power of two, at most [`MAX_SHARDS`].
    count: usize,
    /// Room in each shard's table.
    room: usize,
    strategies: usize,
    repeats: AtomicU64,
}

/// The grids of one shard: an open-addressing table of their hashes.
///
/// A batch looks up each of its grids once, and almost every grid is new,
/// so a lookup is nearly always a miss followed by an insert into a table
/// that the solves between two batches have pushed out of the caches. An
/// entry is four bytes, a 16-bit tag of the hash above its slot, so the
/// table the lookups wander over (and the pages faulted in to make it) is
/// as small as it can be; a miss and its insert read one entry, or a few
/// next to it, and the full hash, kept by slot, is read only when the tags
/// agree. Probing is linear from a home taken from the hash's low 32 bits,
/// the shard is chosen by its top bits (six at most) and the tag is bits
/// 32-47, so that none of the three depends on another's bits.
struct Shard {
    /// Per entry: the grid hash's tag ([`tag`], never 0) above its slot;
    /// 0 marks an empty entry. At most three quarters are used. The length
    /// is not rounded up to a power of two, which could make it nearly
    /// twice as large: the tables are written and their pages faulted in
    /// when they are made.
    table: Vec<u32>,
    /// Per slot, in the order the grids came: the grid's hash (nonzero).
    keys: Vec<u64>,
    /// Per slot, each strategy's kept time (ns, saturated) of the first
    /// occurrence.
    times: Vec<u32>,
}

/// Where a key is in a shard's table.
enum Entry {
    /// Held, in this slot.
    Slot(usize),
    /// Absent; this empty entry is where it would go.
    Empty(usize),
}

impl Shard {
    /// Room for `room` grids without growing.
    // `vec![0; len]` would allocate zeroed pages and leave their faults to
    // the lookups, which is what the explicit writes below avoid.
    #[allow(clippy::slow_vector_initialization)]
    fn new(room: usize, strategies: usize) -> Self {
        // Written, not allocated zeroed: the pages are faulted in here,
        // by the thread that makes the tables, not by the first lookups
        // on the finishing (often solving) threads.
        let len = (room * 4 / 3 + 1).max(8);
        let mut table = Vec::with_capacity(len);
        table.resize(len, 0);
        Shard {
            table,
            keys: Vec::with_capacity(room),
            times: Vec::with_capacity(room * strategies),
        }
    }

    /// Grids held.
    fn used(&self) -> usize {
        self.keys.len()
    }

    /// Where `key` (nonzero) is: its slot, or the empty entry where it
    /// would go.
    #[inline]
    fn find(&self, key: u64) -> Entry {
        let len = self.table.len();
        let tag = tag(key);
        let mut at = home(key, len);
        loop {
            let e = self.table[at];
            if e == 0 {
                return Entry::Empty(at);
            }
            if e >> 16 == tag {
                let slot = (e & 0xffff) as usize;
                if self.keys[slot] == key {
                    return Entry::Slot(slot);
                }
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
    fn touch(&self, keys: impl Iterator<Item = u64>) -> u32 {
        let len = self.table.len();
        keys.fold(0, |acc, key| acc ^ self.table[home(key, len)])
    }

    /// Stores `key` (absent) in the next slot (below 2^16), with `times`,
    /// growing the table first when it would be more than three quarters
    /// full.
    fn insert(&mut self, key: u64, times: &[u32]) {
        if (self.used() + 1) * 4 > self.table.len() * 3 {
            self.table = vec![0; 2 * self.table.len()];
            for slot in 0..self.keys.len() {
                self.place(self.keys[slot], slot);
            }
        }
        let slot = self.keys.len();
        self.keys.push(key);
        self.times.extend_from_slice(times);
        self.place(key, slot);
    }

    /// Puts the entry of `key` (absent from the table), held in `slot`.
    fn place(&mut self, key: u64, slot: usize) {
        let Entry::Empty(at) = self.find(key) else {
            unreachable!("a key is placed once")
        };
        debug_assert!(slot <= 0xffff);
        self.table[at] = (tag(key) << 16) | slot as u32;
    }

    /// One grid (nonzero hash `key`, each strategy's kept `times`): the
    /// first occurrence's times when it was seen before; else it is
    /// remembered while there is room (`cap` grids).
    fn look(&mut self, key: u64, times: &[u32], cap: usize) -> Option<&[u32]> {
        if let Entry::Slot(slot) = self.find(key) {
            let first = slot * times.len();
            return Some(&self.times[first..first + times.len()]);
        }
        if self.used() < cap {
            self.insert(key, times);
        }
        None
    }
}

impl Seen {
    /// Room for the grids of a dataset of `puzzles` puzzles (when known),
    /// so that the tables are not grown while batches are finished, in a
    /// few shards per finishing thread (`threads`). The tables themselves
    /// are made by [`Seen::tables`].
    pub(super) fn new(strategies: usize, puzzles: Option<u64>, threads: usize) -> Self {
        let count = (threads.max(1) * SHARDS_PER_THREAD)
            .next_power_of_two()
            .min(MAX_SHARDS);
        let n = puzzles.map_or(0, |n| n.min(TRACKED as u64) as usize);
        // Grids fall into the shards at random: room for a quarter more
        // than the share of each.
        let room = if n == 0 {
            0
        } else {
            n / count + n / count / 4 + 8
        };
        Seen {
            shards: OnceLock::new(),
            count,
            room,
            strategies,
            repeats: AtomicU64::new(0),
        }
    }

    /// Makes the tables now ([`Seen::tables`]), so that the first batch
    /// finished need not. Making them is mostly page faults (a few tenths
    /// of a millisecond for a dataset of 50,000 puzzles), so a run has a
    /// thread that would otherwise wait make them while the first batches
    /// are read and solved: the reader beside a lone solver thread, or a
    /// worker waiting for the first batch.
    pub(super) fn make_tables(&self) {
        self.tables();
    }

    /// Whether the tables are made.
    pub(super) fn made(&self) -> bool {
        self.shards.get().is_some()
    }

    /// The tables, made by the first call; a call while another thread
    /// makes them waits for it.
    fn tables(&self) -> &[Mutex<Shard>] {
        self.shards.get_or_init(|| {
            (0..self.count)
                .map(|_| Mutex::new(Shard::new(self.room, self.strategies)))
                .collect()
        })
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
        let (start, order) = in_shard_order(&keys, self.count);
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
        let cap = TRACKED / self.count;
        for s in (0..self.count).filter(|&s| start[s] < start[s + 1]) {
            let mut shard = shards[s].lock().unwrap_or_else(|e| e.into_inner());
            let mine = &order[start[s]..start[s + 1]];
            touched ^= shard.touch(mine.iter().map(|&i| keys[i as usize]));
            for &i in mine {
                let i = i as usize;
                let Some(first) = shard.look(keys[i], &times[i * n..(i + 1) * n], cap) else {
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

/// A hash's tag in a table entry: its bits 32-47 (the home is taken from
/// the bits below, the shard from the top ones), never 0, so that no entry
/// in use is 0.
#[inline]
fn tag(key: u64) -> u32 {
    ((key >> 32) as u32 & 0xffff) | 1
}

/// Where `key`'s probe starts in a table of `len` entries: its low 32 bits
/// scaled to the length (the shard is taken from the top bits).
#[inline]
fn home(key: u64, len: usize) -> usize {
    (((key & 0xffff_ffff) * len as u64) >> 32) as usize
}

/// The shard of a grid's key among `count` (a power of two): its top bits
/// (a shard's table probes from the low 32 bits).
fn shard_of(key: u64, count: usize) -> usize {
    key.checked_shr(64 - count.trailing_zeros()).unwrap_or(0) as usize
}

/// The positions of `keys` in shard order (of `count` shards), each
/// shard's in batch order (a counting sort), and where each shard's
/// positions start in it.
fn in_shard_order(keys: &[u64], count: usize) -> ([usize; MAX_SHARDS + 1], Vec<u32>) {
    let mut start = [0usize; MAX_SHARDS + 1];
    for &key in keys {
        start[shard_of(key, count) + 1] += 1;
    }
    for s in 1..=count {
        start[s] += start[s - 1];
    }
    let mut next = start;
    let mut order = vec![0u32; keys.len()];
    for (i, &key) in keys.iter().enumerate() {
        let at = &mut next[shard_of(key, count)];
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
            // The same home (low half) with different top halves.
            .chain((1..=200u64).map(|i| (i << 40) | 5))
            .collect();
        let mut shard = Shard::new(0, 1);
        for (slot, &key) in keys.iter().enumerate() {
            assert!(
                matches!(shard.find(key), Entry::Empty(_)),
                "absent before it is inserted"
            );
            shard.insert(key, &[slot as u32]);
            assert!(shard.used() * 4 <= shard.table.len() * 3);
        }
        assert_eq!(shard.used(), keys.len());
        for (slot, &key) in keys.iter().enumerate() {
            assert!(matches!(shard.find(key), Entry::Slot(s) if s == slot));
            assert_eq!(shard.times[slot], slot as u32);
        }
        assert!(matches!(shard.find(2), Entry::Empty(_)));
    }

    #[test]
    fn a_shard_keeps_each_grids_first_times_until_it_is_full() {
        let strategies = 3;
        let mut shard = Shard::new(0, strategies);
        let times = |key: u64| [key as u32, key as u32 + 1, NONE];
        let cap = TRACKED / MAX_SHARDS;
        for key in 1..=cap as u64 + 10 {
            assert_eq!(shard.look(key, &times(key), cap), None, "new");
        }
        assert_eq!(shard.used(), cap);
        for key in 1..=cap as u64 {
            // A repeat brings back the first occurrence's times, not its own.
            assert_eq!(shard.look(key, &[7, 7, 7], cap), Some(&times(key)[..]));
        }
        // Grids after the shard was full were not remembered.
        assert_eq!(shard.look(cap as u64 + 1, &times(1), cap), None);
    }

    #[test]
    fn sized_for_a_known_dataset_the_tables_never_grow() {
        for (threads, count) in [(1, 4), (2, 8), (3, 16), (16, 64), (100, 64)] {
            let seen = Seen::new(2, Some(10_000), threads);
            assert_eq!(seen.tables().len(), count);
            let room = 10_000 / count + 10_000 / count / 4 + 8;
            for shard in seen.tables() {
                let shard = shard.lock().unwrap();
                assert!(room * 4 <= shard.table.len() * 3);
                assert!(shard.keys.capacity() >= room);
                assert!(shard.times.capacity() >= 2 * room);
            }
        }
    }

    #[test]
    fn keys_fall_into_every_shard_by_their_top_bits() {
        for count in [1usize, 2, 8, 64] {
            let keys: Vec<u64> = (0..count as u64)
                .map(|s| s.checked_shl(64 - count.trailing_zeros()).unwrap_or(0) | 1)
                .collect();
            let (start, order) = in_shard_order(&keys, count);
            for s in 0..count {
                assert_eq!(&order[start[s]..start[s + 1]], &[s as u32]);
            }
        }
    }
}
