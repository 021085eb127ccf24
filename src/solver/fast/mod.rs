//! The `fast` engine: band bitboards, band-level locked candidates by table
//! lookup, bulk singles, branching on bivalue cells in crowded areas. See
//! docs/FAST.md for the design and measurements.
//!
//! Representation ([`Board`], 32 words): for every digit `d` and band `b`
//! (three rows), one `u32` holds the 27 cells of the band where `d` is still
//! possible (`w[3 * d + b]`); `w[UNS + b]` holds the band's cells without a
//! value. A placed cell keeps exactly its own digit's bit, so a finished
//! board reads off as a grid directly.
//!
//! Propagation (`Run::propagate`), to a fixpoint:
//! * band updates, for every digit-band that changed since its last update
//!   (found by comparing the board with a snapshot, `Run::prev`): the minirow
//!   mask of the digit in the band indexes [`tables::PERM`], which keeps only
//!   minirows taking part in some way of placing the digit once per row and
//!   once per box of the band (locked candidates in both directions inside
//!   the band, and box hidden singles); a row left with one unsolved cell is
//!   a hidden single, placed at once for the whole band; a column that is its
//!   box's only possible column leaves the two other bands;
//! * naked singles and empty cells of all bands, by bit-sliced counting over
//!   the nine digits;
//! * column confinement: a column no other band can supply confines the
//!   digit to that column in its box (column locked candidates and column
//!   hidden singles).
//!
//! Placements are lazy: a placed cell leaves the other digits and its own
//! row, and the band updates derive the box and column eliminations.
//!
//! Search: an explicit stack of boards (no recursion), values ascending; the
//! last value of a branch cell reuses its parent board instead of copying it.

mod tables;

use super::observer::{observe, Contradiction, Observer, Reason};
use super::{Counters, Limits, SolveResult, Status};
use crate::grid::{Grid, CELLS};
use tables::{
    BAND, BAND_PEERS, COLUMN_TWICE, GIVEN_CONFLICT, GIVEN_PEERS, KEEP_COLS, LONE_MINIROWS, PERM,
    ROW_MINIROWS, ROW_PEERS, SPREAD, SPREAD3,
};

/// Guesses a solve makes before propagation adds column confinement
/// ([`confine_columns`]). The pass costs about a tenth of a node's work and
/// pays only on hard puzzles: on serg_benchmark it changes the board in
/// 0.35 % of its runs and leaves the guesses as they are, on
/// forum_hardest_1106 in 15 %, where dropping it entirely costs 25 % more
/// guesses. Switched on after 8 guesses, every corpus takes fewer
/// instructions (docs/FAST.md, "Column confinement after 8 guesses").
const COLUMNS_AFTER: u64 = 8;

/// Index of the first unsolved-cells word in [`Board::w`].
const UNS: usize = 27;

/// The search state, two cache lines of 32 words: `w[3 * d + b]` holds
/// the cells of band `b` where digit `d + 1` may go (placed cells keep their
/// own digit only); `w[UNS + b]` the cells of band `b` without a value;
/// two words of padding.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Board {
    w: [u32; 32],
}

impl Board {
    const FULL: Board = Board {
        w: {
            let mut w = [BAND; 32];
            w[30] = 0;
            w[31] = 0;
            w
        },
    };
}

/// One open branch: the board it started from and the values left to try.
#[derive(Clone, Copy, Default)]
struct Frame {
    /// Index in the board stack of the board before the guess.
    board: u8,
    cell: u8,
    /// The branch cell's candidates when the branch opened (9-bit digit mask).
    cands: u16,
    /// Candidates not tried yet.
    remaining: u16,
}

/// Boards on the stack: the root, plus at most one per open frame.
const STACK: usize = CELLS + 2;

/// Per-thread workspace of the `fast` engine. Allocated once by
/// [`Workspace::new`]; a solve allocates nothing.
pub struct Workspace {
    boards: Box<[Board]>,
    frames: Box<[Frame]>,
    /// Which compiled search solves run.
    path: Path,
}

/// The compiled builds of the search. All three make the same moves and
/// give identical results and counters; they differ only in instruction
/// selection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// Baseline instructions of the target (any CPU).
    Portable,
    /// x86-64 with POPCNT, LZCNT, BMI1 and BMI2 for population counts and
    /// bit scans; minirow masks by table lookup.
    Bmi,
    /// As [`Path::Bmi`], with minirow masks by one PEXT instead of three
    /// table lookups. Chosen only on CPUs where PEXT is a fast instruction
    /// (see [`fast_pext`]).
    BmiPext,
}

/// The path asked for with [`Path::prefer`].
static PREFERRED: std::sync::OnceLock<Path> = std::sync::OnceLock::new();

impl Path {
    /// The name `meta.json` records (`strategy_details[].code_path`).
    pub fn name(self) -> &'static str {
        match self {
            Path::Portable => "portable",
            Path::Bmi => "x86-64 popcnt+lzcnt+bmi1+bmi2",
            Path::BmiPext => "x86-64 popcnt+lzcnt+bmi1+bmi2, pext",
        }
    }

    /// The path of one of the names `portable`, `bmi` and `pext`.
    pub fn named(name: &str) -> Option<Path> {
        match name {
            "portable" => Some(Path::Portable),
            "bmi" => Some(Path::Bmi),
            "pext" => Some(Path::BmiPext),
            _ => None,
        }
    }

    /// Makes `p` the path [`Path::detect`] gives in this process when this
    /// CPU supports it (`BENCH_SUDOKU_FAST_PATH`, read by `commands`: for
    /// measuring one build against another on one machine; `meta.json`
    /// records the path taken). Set once, before the first solve; a second
    /// call is ignored, so every solve of a process takes one path.
    pub fn prefer(p: Path) {
        let _ = PREFERRED.set(p);
    }

    /// The path set by [`Path::prefer`] when this CPU supports it, else the
    /// fastest path this CPU runs correctly and fast.
    pub fn detect() -> Path {
        if let Some(&p) = PREFERRED.get().filter(|p| p.supported()) {
            return p;
        }
        if !Path::Bmi.supported() {
            Path::Portable
        } else if fast_pext() {
            Path::BmiPext
        } else {
            Path::Bmi
        }
    }

    /// True when this CPU has every instruction the path is compiled for
    /// (whether or not they are fast on it).
    pub fn supported(self) -> bool {
        match self {
            Path::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Path::Bmi | Path::BmiPext => {
                std::is_x86_feature_detected!("popcnt")
                    && std::is_x86_feature_detected!("lzcnt")
                    && std::is_x86_feature_detected!("bmi1")
                    && std::is_x86_feature_detected!("bmi2")
            }
            #[cfg(not(target_arch = "x86_64"))]
            Path::Bmi | Path::BmiPext => false,
        }
    }
}

/// Whether PEXT is a fast (few-cycle, pipelined) instruction on this CPU:
/// every Intel CPU with BMI2, and AMD from family 19h (Zen 3) on. AMD's
/// earlier BMI2 CPUs (and Hygon's, derived from them) run PEXT in
/// microcode, tens of cycles growing with the mask's set bits: there the
/// table lookups are faster. Unknown vendors get the tables too.
fn fast_pext() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::__cpuid;
        // Leaf 0: the vendor string; leaf 1: the family.
        let (vendor, sig) = (__cpuid(0), __cpuid(1));
        let mut name = [0u8; 12];
        name[..4].copy_from_slice(&vendor.ebx.to_le_bytes());
        name[4..8].copy_from_slice(&vendor.edx.to_le_bytes());
        name[8..].copy_from_slice(&vendor.ecx.to_le_bytes());
        let base = (sig.eax >> 8) & 0xF;
        let family = if base == 0xF {
            base + ((sig.eax >> 20) & 0xFF)
        } else {
            base
        };
        match &name {
            b"GenuineIntel" => true,
            b"AuthenticAMD" => family >= 0x19,
            _ => false,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

impl Default for Workspace {
    fn default() -> Self {
        Self::new()
    }
}

/// The other two bands of each band.
const OTHER: [[usize; 2]; 3] = [[1, 2], [0, 2], [0, 1]];

/// For each digit-band `i = 3 * d + b` (and padding up to 32): the band `b`
/// and the indices of the digit's two other bands.
static BAND_AND_OTHERS: [[u8; 3]; 32] = {
    let mut t = [[0u8; 3]; 32];
    let mut i = 0;
    while i < 27 {
        let (d, b) = (i / 3, i % 3);
        t[i] = [
            b as u8,
            (3 * d + OTHER[b][0]) as u8,
            (3 * d + OTHER[b][1]) as u8,
        ];
        i += 1;
    }
    t
};

/// Per-solve bookkeeping shared by the propagation helpers.
struct Run<'o, O: Observer, const PEXT: bool> {
    counters: Counters,
    obs: &'o mut O,
    /// Open branch frames (for observer events).
    depth: u32,
    /// Every digit-band as it was when last brought up to date: a band equal
    /// to its `prev` needs no work.
    prev: Board,
    /// During a sweep: the digit-bands (bit `3 * d + b`) changed after
    /// their last update, so differing from `prev` (see `propagate`).
    dirty: u32,
    /// During a sweep: set when an update placed hidden singles (which
    /// change other digits' bands; `dirty` does not track those).
    singled: bool,
    /// The two-candidate cells of each band, from the last naked-single
    /// pass (valid for the board `propagate` returned true on).
    pairs: [u32; 3],
}

/// The digit-bands (bit `3 * d + b`) that differ from `prev`.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn changed(w: &[u32; 32], prev: &[u32; 32]) -> u32 {
    changed_scalar(w, prev)
}

/// Portable [`changed`] (also the reference for the SSE2 version's test).
#[cfg(any(not(target_arch = "x86_64"), test))]
#[inline(always)]
fn changed_scalar(w: &[u32; 32], prev: &[u32; 32]) -> u32 {
    let mut m = 0u32;
    for i in 0..32 {
        m |= ((w[i] != prev[i]) as u32) << i;
    }
    m & BAND
}

/// The digit-bands (bit `3 * d + b`) that differ from `prev`: eight SSE2
/// compares, packed to one byte per word, two byte masks.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn changed(w: &[u32; 32], prev: &[u32; 32]) -> u32 {
    use core::arch::x86_64::{
        __m128i, _mm_cmpeq_epi32, _mm_loadu_si128, _mm_movemask_epi8, _mm_packs_epi16,
        _mm_packs_epi32,
    };
    let (p, q) = (
        w.as_ptr() as *const __m128i,
        prev.as_ptr() as *const __m128i,
    );
    // SAFETY: SSE2 is part of the x86_64 baseline, so every CPU running this
    // binary has these instructions. Each unaligned load reads words
    // `4k..4k + 4` (k < 8) of a 32-word array: in bounds.
    let (lo, hi) = unsafe {
        let eq = |k: usize| _mm_cmpeq_epi32(_mm_loadu_si128(p.add(k)), _mm_loadu_si128(q.add(k)));
        // Equal words are all ones; the signed packs keep 0 and -1 exact.
        let lo = _mm_packs_epi16(_mm_packs_epi32(eq(0), eq(1)), _mm_packs_epi32(eq(2), eq(3)));
        let hi = _mm_packs_epi16(_mm_packs_epi32(eq(4), eq(5)), _mm_packs_epi32(eq(6), eq(7)));
        (_mm_movemask_epi8(lo) as u32, _mm_movemask_epi8(hi) as u32)
    };
    !(lo | (hi << 16)) & BAND
}

/// Bit-sliced candidate counts of every unsolved cell, per band (lanes
/// 0..3; lane 3 is meaningless): the cells with exactly two candidates, with
/// none, and with exactly one.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn cell_counts(w: &[u32; 32]) -> [[u32; 4]; 3] {
    cell_counts_scalar(w)
}

/// Portable [`cell_counts`] (also the reference for the SSE2 version's
/// test).
#[cfg(any(not(target_arch = "x86_64"), test))]
#[inline(always)]
fn cell_counts_scalar(w: &[u32; 32]) -> [[u32; 4]; 3] {
    let mut out = [[0u32; 4]; 3];
    for band in 0..3 {
        let u = w[UNS + band];
        let (mut one, mut two, mut three) = (0u32, 0u32, 0u32);
        for d in 0..9 {
            let x = w[3 * d + band];
            three |= two & x;
            two |= one & x;
            one |= x;
        }
        out[0][band] = two & !three & u;
        out[1][band] = u & !one;
        out[2][band] = one & !two & u;
    }
    out
}

/// [`cell_counts`] with the three bands in SSE2 lanes: lane `k` of the load
/// at word `3 * d` is digit `d`, band `k`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn cell_counts(w: &[u32; 32]) -> [[u32; 4]; 3] {
    use core::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_andnot_si128, _mm_loadu_si128, _mm_or_si128, _mm_setzero_si128,
        _mm_storeu_si128,
    };
    let p = w.as_ptr();
    let mut out = [[0u32; 4]; 3];
    // SAFETY: SSE2 is part of the x86_64 baseline, so every CPU running this
    // binary has these instructions. The loads read words `3d..3d + 4`
    // (d < 9, so at most word 27) and `UNS..UNS + 4` (27..31) of the
    // 32-word array; the stores write the three 4-word arrays of `out`.
    unsafe {
        let (mut one, mut two, mut three) = (
            _mm_setzero_si128(),
            _mm_setzero_si128(),
            _mm_setzero_si128(),
        );
        for d in 0..9 {
            let x = _mm_loadu_si128(p.add(3 * d) as *const __m128i);
            three = _mm_or_si128(three, _mm_and_si128(two, x));
            two = _mm_or_si128(two, _mm_and_si128(one, x));
            one = _mm_or_si128(one, x);
        }
        let u = _mm_loadu_si128(p.add(UNS) as *const __m128i);
        let pairs = _mm_and_si128(_mm_andnot_si128(three, two), u);
        let empty = _mm_andnot_si128(one, u);
        let singles = _mm_and_si128(_mm_andnot_si128(two, one), u);
        _mm_storeu_si128(out[0].as_mut_ptr() as *mut __m128i, pairs);
        _mm_storeu_si128(out[1].as_mut_ptr() as *mut __m128i, empty);
        _mm_storeu_si128(out[2].as_mut_ptr() as *mut __m128i, singles);
    }
    out
}

/// Column confinement of every digit-band: where the other two bands
/// cannot hold the digit in a column, this band must, so its box is confined
/// to that column (`tables::REQUIRED_KEEP`). True when a band changed.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn confine_columns(w: &mut [u32; 32]) -> bool {
    confine_columns_scalar(w)
}

/// Portable [`confine_columns`] (also the reference for the SSE2 version's
/// test).
#[cfg(any(not(target_arch = "x86_64"), test))]
#[inline(always)]
fn confine_columns_scalar(w: &mut [u32; 32]) -> bool {
    use tables::REQUIRED_KEEP;
    let mut any = false;
    for d in 0..9 {
        let [a0, a1, a2] = [w[3 * d], w[3 * d + 1], w[3 * d + 2]];
        let [c0, c1, c2] = [columns(a0), columns(a1), columns(a2)];
        let n0 = a0 & REQUIRED_KEEP[!(c1 | c2) & 511];
        let n1 = a1 & REQUIRED_KEEP[!(c0 | c2) & 511];
        let n2 = a2 & REQUIRED_KEEP[!(c0 | c1) & 511];
        any |= (n0 != a0) | (n1 != a1) | (n2 != a2);
        w[3 * d] = n0;
        w[3 * d + 1] = n1;
        w[3 * d + 2] = n2;
    }
    any
}

/// [`confine_columns`] with SSE2, one digit per vector (lane `k` of the load
/// at word `3 * d` is band `k`; lane 3 is kept as it is), computing
/// `tables::REQUIRED_KEEP` arithmetically. The results go to a scratch array and
/// back to the board only when something changed (rarely), so the board
/// sees no stores that later overlapping loads would have to wait for.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn confine_columns(w: &mut [u32; 32]) -> bool {
    use core::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi32, _mm_loadu_si128, _mm_madd_epi16,
        _mm_movemask_epi8, _mm_mullo_epi16, _mm_or_si128, _mm_set1_epi32, _mm_setr_epi32,
        _mm_setzero_si128, _mm_shuffle_epi32, _mm_slli_epi32, _mm_srli_epi32, _mm_storeu_si128,
        _mm_xor_si128,
    };
    let mut out = [[0u32; 4]; 9];
    let p = w.as_ptr();
    // SAFETY: SSE2 is part of the x86_64 baseline, so every CPU running this
    // binary has these instructions. The loads read words `3d..3d + 4`
    // (d < 9: at most word 27) of the 32-word board; the stores write the
    // 4-word arrays of `out`.
    let changed = unsafe {
        let c511 = _mm_set1_epi32(511);
        let lanes = _mm_setr_epi32(511, 511, 511, 0);
        let boxes = _mm_set1_epi32(0b001_001_001);
        let mut diff = _mm_setzero_si128();
        for (d, o) in out.iter_mut().enumerate() {
            let a = _mm_loadu_si128(p.add(3 * d) as *const __m128i);
            // Columns of each band, then of the other two bands.
            let c = _mm_or_si128(
                a,
                _mm_or_si128(_mm_srli_epi32::<9>(a), _mm_srli_epi32::<18>(a)),
            );
            let c = _mm_and_si128(c, c511);
            // Lanes (1, 0, 0, 3) and (2, 2, 1, 3).
            let others = _mm_or_si128(_mm_shuffle_epi32::<0xC1>(c), _mm_shuffle_epi32::<0xDA>(c));
            // Required columns (none in lane 3).
            let m = _mm_andnot_si128(others, lanes);
            let (m1, m2) = (_mm_srli_epi32::<1>(m), _mm_srli_epi32::<2>(m));
            // Per box (at its first column's bit): any required column, and
            // two or more.
            let any = _mm_and_si128(_mm_or_si128(m, _mm_or_si128(m1, m2)), boxes);
            let two = _mm_or_si128(
                _mm_and_si128(m, _mm_or_si128(m1, m2)),
                _mm_and_si128(m1, m2),
            );
            // Spread over the box's three columns: a 16-bit multiply by 7
            // (values below 512, upper halves zero).
            let seven = _mm_set1_epi32(7);
            let any = _mm_mullo_epi16(any, seven);
            let two = _mm_mullo_epi16(_mm_and_si128(two, boxes), seven);
            // Columns of boxes without a required column, plus the required
            // column of boxes with exactly one.
            let keep = _mm_or_si128(_mm_andnot_si128(any, c511), _mm_andnot_si128(two, m));
            // In all three rows: `keep * 513` (a 16 × 16 → 32-bit multiply,
            // the upper halves are zero) is rows 0 and 1.
            let keep = _mm_or_si128(
                _mm_madd_epi16(keep, _mm_set1_epi32(513)),
                _mm_slli_epi32::<18>(keep),
            );
            let n = _mm_and_si128(a, keep);
            diff = _mm_or_si128(diff, _mm_xor_si128(a, n));
            _mm_storeu_si128(o.as_mut_ptr() as *mut __m128i, n);
        }
        let diff = _mm_and_si128(diff, _mm_setr_epi32(-1, -1, -1, 0));
        _mm_movemask_epi8(_mm_cmpeq_epi32(diff, _mm_setzero_si128())) != 0xFFFF
    };
    if changed {
        for (d, o) in out.iter().enumerate() {
            w[3 * d..3 * d + 3].copy_from_slice(&o[..3]);
        }
    }
    changed
}

/// The cells of each value per band: word `3 * v + band` holds the cells of
/// band `band` with value `v` (0 for blanks, so words 0..3 are the blank
/// cells); words 30..48 are zero.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn given_masks(cells: &[u8; CELLS]) -> [u32; 48] {
    given_masks_scalar(cells)
}

/// Portable [`given_masks`] (also the reference for the SSE2 version's
/// test).
#[cfg(any(not(target_arch = "x86_64"), test))]
#[inline(always)]
fn given_masks_scalar(cells: &[u8; CELLS]) -> [u32; 48] {
    let mut g = [0u32; 48];
    for (band, cells) in cells.chunks_exact(27).enumerate() {
        for (p, &v) in cells.iter().enumerate() {
            // Values are 0..=9 (a `Grid` invariant); the mask keeps any
            // index in bounds regardless.
            g[3 * (v as usize & 15) + band] |= 1 << p;
        }
    }
    g
}

/// [`given_masks`] with SSE2: each band's 27 bytes in two 16-byte loads,
/// compared with each value 0..=9 at once.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn given_masks(cells: &[u8; CELLS]) -> [u32; 48] {
    use core::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };
    let mut g = [0u32; 48];
    let p = cells.as_ptr();
    // Per band: the offsets of its two loads, and how many leading bytes of
    // the second to drop. The second load of bands 0 and 1 starts 16 bytes
    // in (its bytes past the band are masked off); band 2's would run past
    // the grid, so it ends at the last cell instead and drops the five bytes
    // the first load has.
    const LOADS: [(usize, usize, u32); 3] = [(0, 16, 0), (27, 43, 0), (54, 65, 5)];
    for (band, &(lo, hi, skip)) in LOADS.iter().enumerate() {
        // SAFETY: SSE2 is part of the x86_64 baseline, so every CPU running
        // this binary has these instructions. Each load reads 16 bytes at
        // offset 0, 16, 27, 43, 54 or 65 of the 81-byte array: in bounds
        // (65 + 16 = 81).
        unsafe {
            let lo = _mm_loadu_si128(p.add(lo) as *const __m128i);
            let hi = _mm_loadu_si128(p.add(hi) as *const __m128i);
            for v in 0..10 {
                let k = _mm_set1_epi8(v as i8);
                let a = _mm_movemask_epi8(_mm_cmpeq_epi8(lo, k)) as u32;
                let b = (_mm_movemask_epi8(_mm_cmpeq_epi8(hi, k)) as u32) >> skip;
                g[3 * v + band] = (a | (b << 16)) & BAND;
            }
        }
    }
    g
}

/// Nonzero when some value word `g[3..30]` (see `solve_impl`) has two cells
/// in one minirow.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn minirow_conflicts(g: &[u32; 48]) -> u32 {
    minirow_conflicts_scalar(g)
}

/// Portable [`minirow_conflicts`] (also the reference for the SSE2
/// version's test).
#[cfg(any(not(target_arch = "x86_64"), test))]
#[inline(always)]
fn minirow_conflicts_scalar(g: &[u32; 48]) -> u32 {
    let mut bad = 0;
    for &x in &g[3..30] {
        bad |= (x & (x >> 1) & 0x36D_B6DB) | (x & (x >> 2) & 0x124_9249);
    }
    bad
}

/// [`minirow_conflicts`] with SSE2, four words at a time: words 3..31, the
/// values 1..=9 plus word 30 (value 10, band 0), which is always empty
/// because cell values are 0..=9 (a `Grid` invariant).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn minirow_conflicts(g: &[u32; 48]) -> u32 {
    use core::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpeq_epi32, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi32, _mm_setzero_si128, _mm_srli_epi32,
    };
    let p = g.as_ptr();
    // SAFETY: SSE2 is part of the x86_64 baseline, so every CPU running this
    // binary has these instructions. The loads read words `3 + 4k..7 + 4k`
    // (k < 7: at most word 30) of the 48-word array.
    unsafe {
        let (k1, k2) = (_mm_set1_epi32(0x36D_B6DB), _mm_set1_epi32(0x124_9249));
        let mut bad = _mm_setzero_si128();
        for k in 0..7 {
            let x = _mm_loadu_si128(p.add(3 + 4 * k) as *const __m128i);
            let a = _mm_and_si128(_mm_and_si128(x, _mm_srli_epi32::<1>(x)), k1);
            let b = _mm_and_si128(_mm_and_si128(x, _mm_srli_epi32::<2>(x)), k2);
            bad = _mm_or_si128(bad, _mm_or_si128(a, b));
        }
        (_mm_movemask_epi8(_mm_cmpeq_epi32(bad, _mm_setzero_si128())) != 0xFFFF) as u32
    }
}

/// 9-bit minirow mask of a band (bit `3 * row + box`): by PEXT when
/// `PEXT`, else by table. `PEXT` may be true only where BMI2 is known to
/// be present: inside [`Workspace::solve_x86_features`] and in a test that
/// checks `Path::BmiPext.supported()` first.
#[inline(always)]
fn minirows<const PEXT: bool>(a: u32) -> usize {
    #[cfg(target_arch = "x86_64")]
    if PEXT {
        // Bit `3 * k` of `t` is set when minirow `k` of `a` has a cell; PEXT
        // packs those nine bits together.
        let t = a | (a >> 1) | (a >> 2);
        // SAFETY: `PEXT` is true only in code reached from
        // `solve_x86_features`, which `dispatch` calls only after BMI2 was
        // detected on this CPU (`Path::supported`), and in the unit test
        // `minirows_by_pext_match_table`, which returns early without it.
        return unsafe { core::arch::x86_64::_pext_u32(t, 0x124_9249) } as usize;
    }
    minirows_table(a)
}

/// [`minirows`] by three lookups of [`ROW_MINIROWS`] (portable, and the
/// reference for the PEXT version's test).
#[inline(always)]
fn minirows_table(a: u32) -> usize {
    (ROW_MINIROWS[(a & 511) as usize] as usize
        | (ROW_MINIROWS[((a >> 9) & 511) as usize] as usize) << 3
        | (ROW_MINIROWS[(a >> 18) as usize & 511] as usize) << 6)
        & 511
}

/// Bit `d` of `x` (9 bits) at bit `3 * d`: by PDEP when `PEXT` (see
/// [`minirows`] on when that may be true), else by table.
#[inline(always)]
fn spread3<const PEXT: bool>(x: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if PEXT {
        // SAFETY: as in `minirows`: `PEXT` is true only in code reached
        // from `solve_x86_features` after BMI2 was detected, or in a test
        // that checks for it first.
        return unsafe { core::arch::x86_64::_pdep_u32(x, 0x124_9249) };
    }
    SPREAD3[(x & 511) as usize]
}

/// The cells of `a` that are alone in their band row. Every row of `a` must
/// be non-empty. (The band update finds them by table instead; this is the
/// reference its test compares with.)
#[cfg(test)]
fn row_singles(a: u32) -> u32 {
    // Lowest bit of each row: no borrow crosses a row because none is empty.
    let low = a & !(a.wrapping_sub(1 | (1 << 9) | (1 << 18)));
    let rest = a ^ low;
    let mut keep = 0;
    if rest & 511 == 0 {
        keep |= 511;
    }
    if rest & (511 << 9) == 0 {
        keep |= 511 << 9;
    }
    if rest & (511 << 18) == 0 {
        keep |= 511 << 18;
    }
    low & keep
}

/// The columns (9-bit mask) of a band's cells.
#[inline(always)]
fn columns(a: u32) -> usize {
    ((a | (a >> 9) | (a >> 18)) & 511) as usize
}

/// Candidate digits (9-bit mask) of band cell `p` in band `band`.
#[inline(always)]
fn cell_cands(b: &Board, band: usize, p: u32) -> u16 {
    let mut m = 0u16;
    for d in 0..9 {
        m |= (((b.w[3 * d + band] >> p) & 1) as u16) << d;
    }
    m
}

/// Places a guess: digit `d` in cell `p` of band `band`, whose candidates
/// are `cands` (9-bit digit mask, `d` among them). The cell loses its other
/// digits and the digit its row; the band updates do the rest (box, and the
/// column in the other bands). Returns the digit-bands it changed (bit
/// `3 * d + band`).
#[inline(always)]
fn assign<const PEXT: bool>(b: &mut Board, d: usize, band: usize, p: u32, cands: u16) -> u32 {
    let bit = 1u32 << p;
    let i = 3 * d + band;
    b.w[UNS + band] &= !bit;
    for d2 in 0..9 {
        b.w[3 * d2 + band] &= !bit;
    }
    // Digit `d2` at bit `3 * d2`: the digits that lose the cell.
    let lost = spread3::<PEXT>(cands as u32);
    // The digit itself keeps the cell and loses the rest of its row.
    let own = b.w[i] | bit;
    let mine = own & !ROW_PEERS[p as usize];
    b.w[i] = mine;
    ((lost << band) & !(1 << i)) | (((mine != own) as u32) << i)
}

impl<O: Observer, const PEXT: bool> Run<'_, O, PEXT> {
    /// Brings digit-band `i = 3 * d + band` up to date: band-level locked
    /// candidates ([`PERM`]), hidden singles of its rows, columns locked in a
    /// box leave the other bands. False on a contradiction.
    #[inline(always)]
    fn update(&mut self, b: &mut Board, i: usize) -> bool {
        // `i < 27`; the masks below only spare the compiler bounds checks.
        let i = i & 31;
        let [band, j1, j2] = BAND_AND_OTHERS[i];
        let (band, j1, j2) = (band as usize & 3, j1 as usize & 31, j2 as usize & 31);
        let d = i / 3;
        let a = b.w[i];
        let m = minirows::<PEXT>(a);
        let a2 = a & PERM[m];
        if a2 == 0 {
            observe!(O, self.report_band(a, d, band));
            return false;
        }
        // Columns that are their box's only one: they leave the other bands,
        // and where such a column meets the only minirow of a row, that
        // cell is the row's only one (`LONE_MINIROWS`).
        let keep = KEEP_COLS[columns(a2)];
        let s = LONE_MINIROWS[m] & !keep & b.w[UNS + band];
        if s != 0 {
            // New hidden singles: the rows of the digit with one cell left.
            // The box and column of each are handled by PERM and KEEP_COLS.
            b.w[UNS + band] &= !s;
            for d2 in 0..9 {
                b.w[3 * d2 + band] &= !s;
            }
            self.singled = true;
            self.counters.hidden_singles += s.count_ones() as u64;
            observe!(O, {
                let mut m = s;
                while m != 0 {
                    let p = m.trailing_zeros();
                    m &= m - 1;
                    self.obs.placed(
                        (27 * band as u32 + p) as u8,
                        d as u8 + 1,
                        Reason::HiddenSingle,
                        self.depth,
                    );
                }
            });
        }
        b.w[i] = a2;
        self.prev.w[i] = a2;
        let (x1, x2) = (b.w[j1], b.w[j2]);
        b.w[j1] = x1 & keep;
        b.w[j2] = x2 & keep;
        self.dirty = (self.dirty & !(1 << i))
            | ((((x1 & !keep) != 0) as u32) << j1)
            | ((((x2 & !keep) != 0) as u32) << j2);
        true
    }

    /// Observer only: names a unit where digit `d` has no place after the
    /// band update of `a` failed.
    fn report_band(&mut self, a: u32, d: usize, band: usize) {
        let mut unit = 3 * band as u8; // default: the band's first row
        for r in 0..3 {
            if (a >> (9 * r)) & 511 == 0 {
                unit = (3 * band + r) as u8;
                break;
            }
        }
        for k in 0..3 {
            let boxm = (7 << (3 * k)) * ((1 << 18) | (1 << 9) | 1);
            if a & boxm == 0 {
                unit = (18 + 3 * band + k) as u8;
                break;
            }
        }
        self.obs.contradiction(
            Contradiction::NoPlace {
                unit,
                digit: d as u8 + 1,
            },
            self.depth,
        );
    }

    /// Observer only: reports an empty cell.
    fn report_cell(&mut self, band: usize, p: u32) {
        self.obs.contradiction(
            Contradiction::NoCandidates {
                cell: (27 * band as u32 + p) as u8,
            },
            self.depth,
        );
    }

    /// Propagates to a fixpoint. False on a contradiction. `todo`: the
    /// digit-bands that differ from `prev` (bit `3 * d + b`).
    #[inline(always)]
    fn propagate(&mut self, b: &mut Board, mut todo: u32) -> bool {
        loop {
            // Sweep the digit-bands until none changes: first the ones that
            // differ from their snapshot, then the ones the sweep itself
            // changed after updating them (`dirty`, kept by `update`: the
            // same set, without reloading the board with wide loads just
            // after narrow stores to it).
            while todo != 0 {
                self.dirty = 0;
                self.singled = false;
                while todo != 0 {
                    let i = todo.trailing_zeros() as usize;
                    todo &= todo - 1;
                    if !self.update(b, i) {
                        return false;
                    }
                }
                todo = if self.singled {
                    changed(&b.w, &self.prev.w)
                } else {
                    self.dirty
                };
            }
            // A complete board at the band fixpoint is a solution: every
            // digit-band has a cell in each row and box (`PERM`), a placed
            // cell keeps at most its own digit, so each digit has exactly
            // one cell per row and box, and a column locked in one band
            // left the others (`KEEP_COLS`). Nothing below could change it.
            if complete(b) {
                return true;
            }
            // Naked singles and empty cells, band by band.
            let [pairs, empty, singles] = cell_counts(&b.w);
            self.pairs = [pairs[0], pairs[1], pairs[2]];
            let mut placed = false;
            // The digit-bands the singles change (all others equal `prev`).
            todo = 0;
            for band in 0..3 {
                if empty[band] != 0 {
                    observe!(O, self.report_cell(band, empty[band].trailing_zeros()));
                    return false;
                }
                let s = singles[band];
                if s == 0 {
                    continue;
                }
                placed = true;
                b.w[UNS + band] &= !s;
                self.counters.naked_singles += s.count_ones() as u64;
                for d in 0..9 {
                    let i = 3 * d + band;
                    let mut m = b.w[i] & s;
                    if m == 0 {
                        continue;
                    }
                    // The digit leaves the rest of each new single's row; the
                    // band update does the box and column.
                    let old = b.w[i];
                    let mut x = old;
                    while m != 0 {
                        let p = m.trailing_zeros();
                        m &= m - 1;
                        x &= !ROW_PEERS[p as usize];
                        observe!(
                            O,
                            self.obs.placed(
                                (27 * band as u32 + p) as u8,
                                d as u8 + 1,
                                Reason::NakedSingle,
                                self.depth
                            )
                        );
                    }
                    b.w[i] = x;
                    todo |= ((x != old) as u32) << i;
                }
            }
            if placed {
                continue;
            }
            // Columns: where the other two bands cannot hold a digit in a
            // column, this band must; its box is confined to that column.
            // Only once the solve has made `COLUMNS_AFTER` guesses: most
            // puzzles that need fewer are solved as fast without it.
            if self.counters.guesses < COLUMNS_AFTER || !confine_columns(&mut b.w) {
                return true;
            }
            todo = changed(&b.w, &self.prev.w);
        }
    }
}

/// True when every cell has a value.
#[inline(always)]
fn complete(b: &Board) -> bool {
    (b.w[UNS] | b.w[UNS + 1] | b.w[UNS + 2]) == 0
}

/// The grid of a board (placed cells only), without branches: the value
/// bits of each band as four bit planes, spread to one byte per cell eight
/// cells at a time ([`SPREAD`]).
fn to_grid(b: &Board) -> Grid {
    // Room for the last band's fourth eight-cell chunk (cells 78..86).
    let mut buf = [0u8; CELLS + 7];
    for band in 0..3 {
        let solved = BAND & !b.w[UNS + band];
        let w = |d: usize| b.w[3 * d + band] & solved;
        // Bit `k` of the value `d + 1` of every placed cell.
        let planes = [
            w(0) | w(2) | w(4) | w(6) | w(8),
            w(1) | w(2) | w(5) | w(6),
            w(3) | w(4) | w(5) | w(6),
            w(7) | w(8),
        ];
        for chunk in 0..4 {
            let mut v = 0u64;
            for (k, plane) in planes.iter().enumerate() {
                v |= SPREAD[((plane >> (8 * chunk)) & 255) as usize] << k;
            }
            // Chunk 3 also writes five zero bytes past the band, which the
            // next band (or nothing) overwrites.
            let at = 27 * band + 8 * chunk;
            buf[at..at + 8].copy_from_slice(&v.to_le_bytes());
        }
    }
    let mut cells = [0u8; CELLS];
    cells.copy_from_slice(&buf[..CELLS]);
    // A placed cell keeps exactly its own digit, so each value is one digit
    // `d + 1` (or 0 for an unplaced cell): 0..=9.
    Grid::from_cells_unchecked(cells)
}

/// The branch cell (band, position) of a propagated, unfinished board whose
/// two-candidate cells are `pairs`: the pair cell with the most unsolved
/// cells among its 20 peers (row, box and column; first one on ties; a guess
/// in a crowded area propagates further), else the first cell with the
/// fewest candidates.
#[inline(always)]
fn choose(b: &Board, pairs: &[u32; 3]) -> (usize, u32) {
    if *pairs == [0; 3] {
        return choose_fewest(b);
    }
    let mut best = (0usize, 0u32);
    let mut best_n = -1i32;
    for (band, &pair) in pairs.iter().enumerate() {
        let own = b.w[UNS + band];
        // The unsolved cells of the two other bands, one per half, so that
        // one count covers the cell's column in both.
        let [o1, o2] = OTHER[band];
        let others = b.w[UNS + o1] as u64 | (b.w[UNS + o2] as u64) << 32;
        let mut m = pair;
        while m != 0 {
            let p = m.trailing_zeros();
            m &= m - 1;
            // Unsolved peers: row, box and column in the band, plus the
            // column in the two other bands. (`p < 27`; the mask only spares
            // the bounds checks of the 32-entry tables.)
            let q = p as usize & 31;
            let n = ((own & BAND_PEERS[q]).count_ones() + (others & COLUMN_TWICE[q]).count_ones())
                as i32;
            if n > best_n {
                best_n = n;
                best = (band, p);
            }
        }
    }
    best
}

/// The first cell with the fewest candidates (no cell has two).
#[cold]
fn choose_fewest(b: &Board) -> (usize, u32) {
    let mut best = (0usize, 0u32);
    let mut best_n = u32::MAX;
    for band in 0..3 {
        let mut rest = b.w[UNS + band];
        while rest != 0 {
            let p = rest.trailing_zeros();
            rest &= rest - 1;
            let n = cell_cands(b, band, p).count_ones();
            if n < best_n {
                best = (band, p);
                best_n = n;
            }
        }
    }
    best
}

/// Removes from `b` the candidates `allowed` rules out (bit `d - 1` of
/// `allowed[c]`: digit `d` still possible in cell `c`). False when a given's
/// own digit is ruled out: then there is no solution. A blank cell left
/// with no candidate is found by the first propagation.
fn restrict(b: &mut Board, puzzle: &Grid, allowed: &[u16; CELLS]) -> bool {
    for (c, (&mask, &v)) in allowed.iter().zip(puzzle.cells()).enumerate() {
        let gone = !mask & 0x1ff;
        if gone == 0 {
            continue;
        }
        if v != 0 {
            if gone & (1 << (v - 1)) != 0 {
                return false;
            }
            continue;
        }
        let (band, bit) = (c / 27, 1u32 << (c % 27));
        let mut g = gone;
        while g != 0 {
            let d = g.trailing_zeros() as usize;
            g &= g - 1;
            b.w[3 * d + band] &= !bit;
        }
    }
    true
}

impl Workspace {
    /// Allocates the board and frame stacks (the engine's only allocation).
    pub fn new() -> Self {
        Workspace {
            boards: vec![Board::FULL; STACK].into_boxed_slice(),
            frames: vec![Frame::default(); CELLS].into_boxed_slice(),
            path: Path::detect(),
        }
    }

    /// A workspace that never takes the CPU-specific path (for
    /// cross-checking it against the portable one).
    pub fn new_portable() -> Self {
        Workspace {
            path: Path::Portable,
            ..Self::new()
        }
    }

    /// A workspace running `path`, when this CPU supports it (for
    /// cross-checking the paths against each other; [`Workspace::new`]
    /// picks the fastest).
    pub fn with_path(path: Path) -> Option<Self> {
        path.supported().then(|| Workspace {
            path,
            ..Self::new()
        })
    }

    /// The compiled search this workspace runs.
    pub fn path(&self) -> Path {
        self.path
    }

    /// True when solves run the code compiled for the CPU features found at
    /// run time (x86-64 with POPCNT, LZCNT, BMI1 and BMI2).
    pub fn uses_cpu_features(&self) -> bool {
        self.path != Path::Portable
    }

    /// Solves `puzzle` within `limits`, reporting events to `obs`.
    pub fn solve<O: Observer>(
        &mut self,
        puzzle: &Grid,
        limits: &Limits,
        obs: &mut O,
    ) -> SolveResult {
        self.dispatch(puzzle, None, limits, obs)
    }

    /// Solves `puzzle` with some candidates already ruled out: digit `d`
    /// may go in blank cell `c` only when bit `d - 1` of `allowed[c]` is
    /// set. A given whose own digit is not allowed leaves no solution. The
    /// counters count the same search as [`Workspace::solve`] on the
    /// restricted board.
    pub fn solve_restricted<O: Observer>(
        &mut self,
        puzzle: &Grid,
        allowed: &[u16; CELLS],
        limits: &Limits,
        obs: &mut O,
    ) -> SolveResult {
        self.dispatch(puzzle, Some(allowed), limits, obs)
    }

    /// [`Workspace::solve`] or, with `allowed`,
    /// [`Workspace::solve_restricted`].
    #[inline(always)]
    pub fn dispatch<O: Observer>(
        &mut self,
        puzzle: &Grid,
        allowed: Option<&[u16; CELLS]>,
        limits: &Limits,
        obs: &mut O,
    ) -> SolveResult {
        match self.path {
            Path::Portable => self.solve_portable(puzzle, allowed, limits, obs),
            // SAFETY (both arms): a workspace holds a path other than
            // `Portable` only when `Path::supported` detected every feature
            // `solve_x86_features` is compiled for on the CPU running this
            // process (`Path::detect`, `Workspace::with_path`).
            #[cfg(target_arch = "x86_64")]
            Path::Bmi => unsafe {
                self.solve_x86_features::<O, false>(puzzle, allowed, limits, obs)
            },
            #[cfg(target_arch = "x86_64")]
            Path::BmiPext => unsafe {
                self.solve_x86_features::<O, true>(puzzle, allowed, limits, obs)
            },
            #[cfg(not(target_arch = "x86_64"))]
            Path::Bmi | Path::BmiPext => unreachable!("x86-64 paths are never supported elsewhere"),
        }
    }

    /// The search compiled for baseline x86-64 (or any other target).
    #[inline(never)]
    fn solve_portable<O: Observer>(
        &mut self,
        puzzle: &Grid,
        allowed: Option<&[u16; CELLS]>,
        limits: &Limits,
        obs: &mut O,
    ) -> SolveResult {
        self.solve_impl::<O, false>(puzzle, allowed, limits, obs)
    }

    /// The same search compiled with POPCNT/LZCNT/BMI (and, with `PEXT`,
    /// minirow masks by PEXT): only instruction selection differs
    /// (population counts, bit scans, bit gathering), so results and
    /// counters are identical to [`Workspace::solve_portable`].
    ///
    /// # Safety
    ///
    /// The CPU must support POPCNT, LZCNT, BMI1 and BMI2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2")]
    #[inline(never)]
    unsafe fn solve_x86_features<O: Observer, const PEXT: bool>(
        &mut self,
        puzzle: &Grid,
        allowed: Option<&[u16; CELLS]>,
        limits: &Limits,
        obs: &mut O,
    ) -> SolveResult {
        self.solve_impl::<O, PEXT>(puzzle, allowed, limits, obs)
    }

    #[inline(always)]
    fn solve_impl<O: Observer, const PEXT: bool>(
        &mut self,
        puzzle: &Grid,
        allowed: Option<&[u16; CELLS]>,
        limits: &Limits,
        obs: &mut O,
    ) -> SolveResult {
        let boards = &mut self.boards[..];
        let frames = &mut self.frames[..];
        let mut run = Run::<O, PEXT> {
            counters: Counters::default(),
            obs,
            depth: 0,
            prev: Board::FULL,
            dirty: 0,
            singled: false,
            pairs: [0; 3],
        };

        // Givens, in bulk: the cells of each value per band (index
        // `3 * v + band`, value 0 for blanks), then each digit's candidates
        // are the blank cells outside the rows, boxes and columns of its
        // givens. Two givens of a digit sharing a row, box or column make the
        // puzzle invalid.
        let g = given_masks(puzzle.cells());
        // Two givens of a digit in one minirow (same row and box).
        let mut bad = minirow_conflicts(&g);
        {
            let b = &mut boards[0];
            for d in 0..9 {
                let gs = [g[3 * d + 3], g[3 * d + 4], g[3 * d + 5]];
                let cs = gs.map(|x| columns(x) as u32);
                bad |= (cs[0] & cs[1]) | (cs[0] & cs[2]) | (cs[1] & cs[2]);
                let cols = cs[0] | cs[1] | cs[2];
                let in_cols = cols | (cols << 9) | (cols << 18);
                for band in 0..3 {
                    let x = gs[band];
                    // Two minirows of givens in one row or one box: the
                    // table's `GIVEN_CONFLICT` bit (blanks never have it).
                    let peers = GIVEN_PEERS[minirows::<PEXT>(x)];
                    bad |= peers & GIVEN_CONFLICT;
                    b.w[3 * d + band] = (g[band] & !peers & !in_cols) | x;
                }
            }
            b.w[UNS..UNS + 3].copy_from_slice(&g[..3]);
            b.w[30] = 0;
            b.w[31] = 0;
        }
        if bad != 0 {
            return SolveResult::invalid(puzzle);
        }
        if let Some(allowed) = allowed {
            if !restrict(&mut boards[0], puzzle, allowed) {
                return SolveResult::given_ruled_out(puzzle);
            }
        }
        let givens = CELLS as u32 - (g[0].count_ones() + g[1].count_ones() + g[2].count_ones());
        let result = |status: Status, solutions: u32, grid: Grid, counters: Counters| {
            let empty = if solutions > 0 {
                0
            } else {
                grid.cells().iter().filter(|&&v| v == 0).count() as u32
            };
            SolveResult {
                status,
                solutions,
                grid,
                counters,
                filled: (CELLS as u32 - givens - empty) as u8,
                conflict: None,
            }
        };

        run.counters.nodes = 1;
        let mut w = 0usize; // the working board
        let mut sp = 0usize; // open frames
        let mut solutions = 0u32;
        let mut first = *puzzle;
        // The digit-bands the next propagation starts from: at the root
        // every one the givens changed, after a guess the ones it changed.
        let mut todo = changed(&boards[0].w, &run.prev.w);
        'search: loop {
            // One propagation per node: the root, or the guess just placed.
            if run.propagate(&mut boards[w], todo) {
                if complete(&boards[w]) {
                    solutions += 1;
                    observe!(O, run.obs.solution(solutions));
                    if solutions == 1 {
                        first = to_grid(&boards[w]);
                    }
                    if solutions >= limits.solutions {
                        break 'search;
                    }
                    // Count on: treat as a dead end and backtrack.
                } else {
                    if run.counters.guesses >= limits.max_guesses {
                        return result(Status::GaveUp, solutions, first, run.counters);
                    }
                    let (band, p) = choose(&boards[w], &run.pairs);
                    let cands = cell_cands(&boards[w], band, p);
                    let d = cands.trailing_zeros() as usize;
                    let cell = 27 * band as u32 + p;
                    frames[sp] = Frame {
                        board: w as u8,
                        cell: cell as u8,
                        cands,
                        remaining: cands & !(1 << d),
                    };
                    sp += 1;
                    run.depth = sp as u32;
                    if run.depth > run.counters.max_depth {
                        run.counters.max_depth = run.depth;
                    }
                    let (lo, hi) = boards.split_at_mut(w + 1);
                    hi[0] = lo[w];
                    w += 1;
                    run.counters.guesses += 1;
                    run.counters.nodes += 1;
                    observe!(O, run.obs.guess(cell as u8, d as u8 + 1, cands, run.depth));
                    // `run.prev` already holds this board's digit-bands: a
                    // propagation that succeeds leaves every one up to
                    // date, equal to its snapshot (after a backtrack it
                    // does not, and is set below).
                    todo = assign::<PEXT>(&mut boards[w], d, band, p, cands);
                    continue 'search;
                }
            }
            // Backtrack: undo the newest guess and try the next value of the
            // newest frame that still has one.
            loop {
                if sp == 0 {
                    break 'search;
                }
                run.counters.backtracks += 1;
                let frame = &mut frames[sp - 1];
                if frame.remaining == 0 {
                    sp -= 1;
                    run.depth = sp as u32;
                    observe!(O, run.obs.backtrack(run.depth));
                    continue;
                }
                if run.counters.guesses >= limits.max_guesses {
                    return result(Status::GaveUp, solutions, first, run.counters);
                }
                let d = frame.remaining.trailing_zeros() as usize;
                frame.remaining &= !(1 << d);
                let base = frame.board as usize;
                let cell = frame.cell as u32;
                let cands = frame.cands;
                if frame.remaining != 0 {
                    let (lo, hi) = boards.split_at_mut(base + 1);
                    hi[0] = lo[base];
                    w = base + 1;
                } else {
                    // The last value: the parent board is not needed again.
                    w = base;
                }
                observe!(O, run.obs.backtrack(run.depth - 1));
                run.counters.guesses += 1;
                run.counters.nodes += 1;
                observe!(O, run.obs.guess(cell as u8, d as u8 + 1, cands, run.depth));
                run.prev = boards[w];
                todo = assign::<PEXT>(&mut boards[w], d, (cell / 27) as usize, cell % 27, cands);
                continue 'search;
            }
        }

        result(
            Status::of_completed_search(solutions),
            solutions,
            first,
            run.counters,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift words for the SIMD-against-scalar checks.
    fn words(x: &mut u64) -> [u32; 32] {
        let mut w = [0u32; 32];
        for v in w.iter_mut() {
            *x ^= *x << 13;
            *x ^= *x >> 7;
            *x ^= *x << 17;
            *v = *x as u32;
        }
        w
    }

    #[test]
    fn minirows_by_pext_match_table() {
        if !Path::BmiPext.supported() {
            eprintln!("note: no BMI2 on this CPU; the PEXT path is never taken");
            return;
        }
        // Every pattern of each row, with the other rows random; then
        // random bands.
        let mut x = 0x6A09_E667_F3BC_C908u64;
        for row in 0..3 {
            for v in 0..512u32 {
                let r = words(&mut x)[0] & BAND;
                let a = (r & !(511 << (9 * row))) | (v << (9 * row));
                assert_eq!(minirows::<true>(a), minirows_table(a), "{a:#x}");
            }
        }
        for _ in 0..20000 {
            let w = words(&mut x);
            for a in [w[0] & BAND, w[1] & w[2] & BAND, w[3] & w[4] & w[5] & BAND] {
                assert_eq!(minirows::<true>(a), minirows_table(a), "{a:#x}");
            }
        }
    }

    #[test]
    fn hidden_singles_by_table_match_row_singles() {
        // Every band a digit can take (`PERM` leaves a non-empty band with
        // every row and box occupied): the table's singles are exactly the
        // cells alone in their row.
        let mut x = 0x4F1B_BCDC_BEFE_A5A5u64;
        let mut checked = 0;
        for round in 0..60000 {
            let w = words(&mut x);
            let a = match round % 3 {
                0 => w[0],
                1 => w[0] & w[1],
                _ => w[0] & w[1] & w[2],
            } & BAND;
            let m = minirows_table(a);
            let a2 = a & PERM[m];
            if a2 == 0 {
                continue;
            }
            checked += 1;
            let by_table = LONE_MINIROWS[m] & !KEEP_COLS[columns(a2)];
            assert_eq!(by_table, row_singles(a2), "{a:#x}");
        }
        assert!(checked > 10000, "{checked}");
    }

    #[test]
    fn spread3_by_pdep_matches_table() {
        for x in 0..512u32 {
            let mut want = 0;
            for d in 0..9 {
                want |= ((x >> d) & 1) << (3 * d);
            }
            assert_eq!(spread3::<false>(x), want, "{x:#b}");
            if Path::BmiPext.supported() {
                assert_eq!(spread3::<true>(x), want, "{x:#b}");
            }
        }
    }

    #[test]
    fn changed_matches_scalar() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..2000 {
            let w = words(&mut x);
            let mut prev = w;
            // Change a random subset of the words (some by one bit).
            let pick = words(&mut x);
            for i in 0..32 {
                match pick[i] % 4 {
                    0 => prev[i] ^= 1 << (pick[i] >> 27),
                    1 => prev[i] = pick[(i + 1) % 32],
                    _ => {}
                }
            }
            assert_eq!(changed(&w, &prev), changed_scalar(&w, &prev));
            assert_eq!(changed(&w, &w), 0);
        }
    }

    #[test]
    fn confine_columns_matches_scalar() {
        let mut x = 0x0DDB_1A5E_5BAD_5EEDu64;
        for round in 0..20000 {
            let mut w = words(&mut x);
            // Sparse digit-bands, so that columns are often missing from
            // two bands (and boxes end up with one or more required ones).
            let thin = [words(&mut x), words(&mut x), words(&mut x)];
            for i in 0..27 {
                let keep = match round % 4 {
                    0 => thin[0][i],
                    1 => thin[0][i] & thin[1][i],
                    2 => thin[0][i] & thin[1][i] & thin[2][i],
                    _ => thin[0][i] | thin[1][i],
                };
                w[i] &= BAND & keep;
            }
            for v in &mut w[27..] {
                *v &= BAND;
            }
            let (mut a, mut b) = (w, w);
            assert_eq!(confine_columns(&mut a), confine_columns_scalar(&mut b));
            assert_eq!(a, b);
        }
    }

    #[test]
    fn given_masks_match_scalar() {
        let mut x = 0x3C6E_F372_FE94_F82Bu64;
        for round in 0..4000 {
            let w = [words(&mut x), words(&mut x), words(&mut x)];
            let mut cells = [0u8; CELLS];
            for (c, v) in cells.iter_mut().enumerate() {
                let r = w[c / 32][c % 32];
                // Sparse rounds (mostly blanks) and dense ones.
                *v = if round % 2 == 0 && !r.is_multiple_of(3) {
                    0
                } else {
                    (r % 10) as u8
                };
            }
            assert_eq!(given_masks(&cells), given_masks_scalar(&cells));
        }
    }

    #[test]
    fn minirow_conflicts_match_scalar() {
        let mut x = 0x5DEE_CE66_D1CE_4E5Du64;
        for round in 0..4000 {
            let (a, b) = (words(&mut x), words(&mut x));
            let mut g = [0u32; 48];
            for i in 3..30 {
                // One or two random bits per word, sometimes none.
                let bit = |r: u32| 1u32 << (r % 27);
                g[i] = match (a[i] ^ b[i]) % 4 {
                    0 => 0,
                    1 => bit(a[i]),
                    _ => bit(a[i]) | if round % 3 == 0 { bit(b[i]) } else { 0 },
                };
            }
            assert_eq!(
                minirow_conflicts(&g) != 0,
                minirow_conflicts_scalar(&g) != 0
            );
        }
    }

    #[test]
    fn cell_counts_match_scalar() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for round in 0..4000 {
            let mut w = words(&mut x);
            // Sparse digit words (few candidates per cell) reach every count.
            let thin = words(&mut x);
            let more = words(&mut x);
            for i in 0..27 {
                w[i] &= BAND & (thin[i] | if round % 2 == 0 { more[i] } else { 0 });
            }
            for k in 0..3 {
                w[UNS + k] &= BAND;
            }
            let (a, b) = (cell_counts(&w), cell_counts_scalar(&w));
            for k in 0..3 {
                for band in 0..3 {
                    assert_eq!(a[k][band], b[k][band]);
                }
            }
        }
    }
}
