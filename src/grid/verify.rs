//! The answer check run on every solution of a benchmark: is a grid a valid,
//! complete solution that keeps a puzzle's givens?
//!
//! Two implementations that must agree on every input (a test compares them
//! cell by cell, value by value): a portable one, and one for x86_64 CPUs
//! with AVX2, chosen at run time. On the 17-clue corpus's solutions the
//! AVX2 one takes about half the time (31 ns a grid against 60 ns, best of
//! 7 rounds: `cargo run --release --example answer_check -- FILE`).

use super::CELLS;

/// True when `sol` is a complete grid obeying every rule and keeping every
/// given (non-zero cell) of `puzzle`. Cells outside `0..=9` never pass.
#[inline]
pub(super) fn is_solution(sol: &[u8; CELLS], puzzle: &[u8; CELLS]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: `is_solution_avx2` only needs the CPU to support AVX2 (and
        // what it implies), which was detected just above.
        return unsafe { is_solution_avx2(sol, puzzle) };
    }
    is_solution_portable(sol, puzzle)
}

/// Bits of the row (0–8), column (9–17) and box (18–26) of each cell.
const CELL_UNITS: [u32; CELLS] = {
    let mut t = [0u32; CELLS];
    let mut i = 0;
    while i < CELLS {
        let [r, c, b] = crate::grid::CELL_UNITS[i];
        t[i] = 1 << r | 1 << c | 1 << b;
        i += 1;
    }
    t
};

/// All 27 unit bits.
const ALL_UNITS: u32 = (1 << 27) - 1;

/// The portable check (and the reference for the AVX2 one).
pub(super) fn is_solution_portable(sol: &[u8; CELLS], puzzle: &[u8; CELLS]) -> bool {
    // Every given kept, every cell 1..=9 (both vectorize).
    let mut kept = true;
    let mut max = 0u8;
    for (&v, &g) in sol.iter().zip(puzzle) {
        kept &= g == 0 || g == v;
        max = max.max(v);
    }
    if !kept || max > 9 {
        return false;
    }
    // For each value, the rows, columns and boxes it occurs in (27 bits).
    // All 27 for each of 1..=9 means each digit occurs at least 9 times;
    // with 81 cells that is exactly 9 times, so once in every row, column
    // and box: a valid grid. A blank (0) covers nothing.
    let mut seen = [0u32; 16];
    // Unrolled so that each cell's unit bits are an immediate operand: three
    // instructions per cell.
    macro_rules! cover {
        ($($i:literal)*) => {
            $( seen[sol[$i] as usize & 15] |= CELL_UNITS[$i]; )*
        };
    }
    cover!(
         0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19
        20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39
        40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59
        60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79
        80
    );
    seen[1..=9].iter().all(|&m| m == ALL_UNITS)
}

/// The check with one byte lane per cell.
///
/// Each cell's digit `d` becomes the bit `2^d`, split over two bytes by
/// table lookups (`lo` holds 2^1..2^7, `hi` holds 2^8 and 2^9 as 1 and 2):
///
/// - a column or box holds all nine digits when the OR of its nine cells'
///   bits has bits 1..=9 set (nine cells, nine digits: each exactly once);
///   rows are loaded at `9 * r`, so columns are lanes and OR-ing rows gives
///   every column at once, and OR-ing neighbouring lanes of a band gives its
///   boxes;
/// - a row, lying along the lanes, is summed instead (the sum of absolute
///   differences against zero adds eight bytes at once): nine bits `2^d`
///   with `d` in 1..=9 add up to `2^10 - 2` only when the nine `d` differ.
///   A sum of `k` powers of two has at most `k` one-bits, and fewer when two
///   of them are equal (`2^j + 2^j = 2^(j+1)`); `2^10 - 2` has nine.
///
/// A blank (0) maps to no bit, so a unit holding one fails both tests.
/// Values above 9 are refused first: the lookup uses only a byte's low four
/// bits.
///
/// # Safety
///
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn is_solution_avx2(sol: &[u8; CELLS], puzzle: &[u8; CELLS]) -> bool {
    use core::arch::x86_64::{
        __m128i, __m256i, _mm256_add_epi64, _mm256_and_si256, _mm256_cmpeq_epi32,
        _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_min_epu8, _mm256_movemask_epi8,
        _mm256_or_si256, _mm256_permute2x128_si256, _mm256_sad_epu8, _mm256_set1_epi8,
        _mm256_set_m128i, _mm256_setr_epi32, _mm256_setr_epi8, _mm256_setzero_si256,
        _mm256_shuffle_epi32, _mm256_shuffle_epi8, _mm256_slli_epi64, _mm256_srli_si256,
        _mm_loadu_si128, _mm_srli_si128,
    };
    let (s, p) = (sol.as_ptr(), puzzle.as_ptr());

    // Givens kept and every cell at most 9: 32 cells at a time, at offsets
    // 0, 32 and 49 (49 + 32 = 81; cells 49..64 are looked at twice).
    // SAFETY (loads): each reads bytes `off..off + 32` with `off + 32 <= 81`.
    let zero = _mm256_setzero_si256();
    let nine = _mm256_set1_epi8(9);
    let mut ok = _mm256_set1_epi8(-1);
    for off in [0, 32, 49] {
        let v = _mm256_loadu_si256(s.add(off) as *const __m256i);
        let g = _mm256_loadu_si256(p.add(off) as *const __m256i);
        let kept = _mm256_or_si256(_mm256_cmpeq_epi8(g, zero), _mm256_cmpeq_epi8(g, v));
        let small = _mm256_cmpeq_epi8(_mm256_min_epu8(v, nine), v);
        ok = _mm256_and_si256(ok, _mm256_and_si256(kept, small));
    }
    if _mm256_movemask_epi8(ok) != -1 {
        return false;
    }

    // Two rows per register, one in each 128-bit half: the byte lookups,
    // sums and byte shifts below work on each half on its own. (Rows,
    // bands and lanes are numbered from 0.) Rows r and r + 3 (r < 3) share
    // a register, so OR-ing the three gives band 0 in the low half and
    // band 1 in the high half; then rows 6 and 7; row 8 fills both halves
    // of the last.
    #[rustfmt::skip]
    let lo_bits = _mm256_setr_epi8(
        0, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0,
    );
    #[rustfmt::skip]
    let hi_bits = _mm256_setr_epi8(
        0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0,
    );
    // The nine lanes of a row in each half.
    #[rustfmt::skip]
    let row_lanes = _mm256_setr_epi8(
        -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0,
        -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0,
    );
    // A row's sum, 2^10 - 2, in the low dword of each 64-bit quarter.
    let row_total = _mm256_setr_epi32(1022, 0, 1022, 0, 1022, 0, 1022, 0);
    let mut rows_ok = _mm256_set1_epi8(-1);
    // SAFETY (row loads): row `r < 8` reads bytes `9r..9r + 16`, at most
    // 79 < 81; row 8 reads bytes `65..81`.
    macro_rules! row {
        ($r:expr) => {
            _mm_loadu_si128(s.add(9 * $r) as *const __m128i)
        };
    }
    // Row 8 in lanes 0..9: loaded from offset 65 and moved down 7 lanes,
    // so that no load passes cell 80.
    let last = _mm_srli_si128(_mm_loadu_si128(s.add(65) as *const __m128i), 7);
    // The bits of two rows (`hi` half, `lo` half); checks both rows' sums:
    // the sums of lanes 0..8 and 8..16 land in the two 64-bit quarters of
    // each half, which are added and compared.
    macro_rules! bits_of_rows {
        ($hi:expr, $lo:expr) => {{
            let rows = _mm256_and_si256(_mm256_set_m128i($hi, $lo), row_lanes);
            let lo = _mm256_shuffle_epi8(lo_bits, rows);
            let hi = _mm256_shuffle_epi8(hi_bits, rows);
            let sum = _mm256_add_epi64(
                _mm256_sad_epu8(lo, zero),
                _mm256_slli_epi64(_mm256_sad_epu8(hi, zero), 8),
            );
            let total = _mm256_add_epi64(sum, _mm256_shuffle_epi32(sum, 0b01_00_11_10));
            rows_ok = _mm256_and_si256(rows_ok, _mm256_cmpeq_epi32(total, row_total));
            (lo, hi)
        }};
    }
    let (mut bands_lo, mut bands_hi) = (zero, zero);
    for r in 0..3 {
        let (lo, hi) = bits_of_rows!(row!(r + 3), row!(r));
        bands_lo = _mm256_or_si256(bands_lo, lo);
        bands_hi = _mm256_or_si256(bands_hi, hi);
    }
    let (lo67, hi67) = bits_of_rows!(row!(7), row!(6));
    let (lo8, hi8) = bits_of_rows!(last, last);
    // (Macros rather than closures: a closure would not be compiled with
    // this function's target features on every supported compiler.)
    macro_rules! swap_halves {
        ($x:expr) => {
            _mm256_permute2x128_si256($x, $x, 1)
        };
    }
    // Band 2 in both halves: rows 6 | 7 | 8 and 7 | 6 | 8.
    let band2_lo = _mm256_or_si256(_mm256_or_si256(lo67, swap_halves!(lo67)), lo8);
    let band2_hi = _mm256_or_si256(_mm256_or_si256(hi67, swap_halves!(hi67)), hi8);
    let (all_lo, all_hi) = (_mm256_set1_epi8(-2), _mm256_set1_epi8(3));
    // The lanes holding all nine digits' bits, as a 32-bit mask.
    macro_rules! full {
        ($lo:expr, $hi:expr) => {
            _mm256_movemask_epi8(_mm256_and_si256(
                _mm256_cmpeq_epi8($lo, all_lo),
                _mm256_cmpeq_epi8($hi, all_hi),
            )) as u32
        };
    }
    // Columns: bands 0 | 1 | 2, in both halves; lanes 0..9.
    let cols_lo = _mm256_or_si256(_mm256_or_si256(bands_lo, swap_halves!(bands_lo)), band2_lo);
    let cols_hi = _mm256_or_si256(_mm256_or_si256(bands_hi, swap_halves!(bands_hi)), band2_hi);
    let cols_ok = full!(cols_lo, cols_hi) & 0x1FF == 0x1FF;
    // Boxes: lanes 0, 3 and 6 of a band OR-ed with its next two lanes.
    macro_rules! boxes {
        ($x:expr) => {
            _mm256_or_si256(
                _mm256_or_si256($x, _mm256_srli_si256($x, 1)),
                _mm256_srli_si256($x, 2),
            )
        };
    }
    const BOX_LANES: u32 = 0b1001001;
    const BOX_LANES_2: u32 = BOX_LANES | BOX_LANES << 16;
    let boxes_ok = full!(boxes!(bands_lo), boxes!(bands_hi)) & BOX_LANES_2 == BOX_LANES_2
        && full!(boxes!(band2_lo), boxes!(band2_hi)) & BOX_LANES == BOX_LANES;
    _mm256_movemask_epi8(rows_ok) == -1 && cols_ok && boxes_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOLUTION: &str =
        "812753649943682175675491283154237896369845721287169534521974368438526917796318452";
    const PUZZLE: &str =
        "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4..";

    fn cells(line: &str) -> [u8; CELLS] {
        let mut c = [0u8; CELLS];
        for (i, b) in line.bytes().enumerate() {
            c[i] = if b == b'.' { 0 } else { b - b'0' };
        }
        c
    }

    /// Both checks on one grid; they must agree.
    fn both(sol: &[u8; CELLS], puzzle: &[u8; CELLS]) -> bool {
        let portable = is_solution_portable(sol, puzzle);
        assert_eq!(is_solution(sol, puzzle), portable, "{sol:?} / {puzzle:?}");
        portable
    }

    #[test]
    fn valid_solutions_pass_both() {
        let (sol, puzzle) = (cells(SOLUTION), cells(PUZZLE));
        assert!(both(&sol, &puzzle));
        assert!(both(&sol, &[0; CELLS]));
        assert!(both(&sol, &sol));
        // Relabelling digits, swapping rows within a band and transposing
        // keep a solution valid.
        let relabel: Vec<u8> = sol.iter().map(|&v| v % 9 + 1).collect();
        assert!(both(&relabel.try_into().unwrap(), &[0; CELLS]));
        let mut rows = sol;
        rows[..9].copy_from_slice(&sol[9..18]);
        rows[9..18].copy_from_slice(&sol[..9]);
        assert!(both(&rows, &[0; CELLS]));
        let t: [u8; CELLS] = std::array::from_fn(|i| sol[i % 9 * 9 + i / 9]);
        assert!(both(&t, &[0; CELLS]));
    }

    #[test]
    fn every_single_cell_change_is_refused_by_both() {
        let (sol, puzzle) = (cells(SOLUTION), cells(PUZZLE));
        for cell in 0..CELLS {
            for v in 0..=255u8 {
                if v == sol[cell] {
                    continue;
                }
                let mut g = sol;
                g[cell] = v;
                assert!(!both(&g, &[0; CELLS]), "cell {cell} = {v}");
                assert!(!both(&g, &puzzle), "cell {cell} = {v}");
            }
        }
    }

    #[test]
    fn swaps_and_changed_givens_agree() {
        let (sol, puzzle) = (cells(SOLUTION), cells(PUZZLE));
        // Swapping two cells with different digits always breaks a unit
        // (a row or column gets one of them twice); equal digits change
        // nothing.
        for a in 0..CELLS {
            for b in a + 1..CELLS {
                let mut g = sol;
                g.swap(a, b);
                let valid = both(&g, &[0; CELLS]);
                assert_eq!(valid, g == sol, "swap {a} {b}");
            }
        }
        // A given that differs from the answer, at every cell.
        for cell in 0..CELLS {
            let mut p = puzzle;
            p[cell] = sol[cell] % 9 + 1;
            assert!(!both(&sol, &p), "given at {cell}");
        }
    }

    #[test]
    fn grids_wrong_in_one_kind_of_unit_only_are_refused() {
        // Rows and columns right, boxes wrong: a cyclic Latin square.
        let boxes_wrong: [u8; CELLS] = std::array::from_fn(|i| ((i / 9 + i % 9) % 9 + 1) as u8);
        assert!(!both(&boxes_wrong, &[0; CELLS]));
        // Rows and boxes right, columns wrong: rows r and r + 3 are equal.
        let cols_wrong: [u8; CELLS] =
            std::array::from_fn(|i| ((i % 9 + 3 * (i / 9 % 3)) % 9 + 1) as u8);
        assert!(!both(&cols_wrong, &[0; CELLS]));
        // Columns and boxes right, rows wrong: the transpose of the last.
        let rows_wrong: [u8; CELLS] = std::array::from_fn(|i| cols_wrong[i % 9 * 9 + i / 9]);
        assert!(!both(&rows_wrong, &[0; CELLS]));
        // The same from a valid grid: rotating the three cells of column 1
        // in box 1 keeps that column and box, and breaks rows 1-3.
        let mut g = cells(SOLUTION);
        let (a, b, c) = (g[0], g[9], g[18]);
        (g[0], g[9], g[18]) = (b, c, a);
        assert!(!both(&g, &[0; CELLS]));
    }
}
