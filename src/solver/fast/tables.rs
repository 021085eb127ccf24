//! Lookup tables of the band representation, all built at compile time.
//!
//! A band is three rows of the grid (rows `3b..3b+3`). For one digit, the
//! band's candidate cells fit in 27 bits: bit `9 * r + c` is row `r` of the
//! band (0..3) and column `c` (0..9). A *minirow* is the three cells where a
//! row of the band meets a box; its presence bit in a 9-bit minirow mask is
//! `3 * r + k` for band row `r` and box `k` of the band.

/// Candidate bits of a whole band.
pub const BAND: u32 = (1 << 27) - 1;

/// 3-bit minirow presence of one 9-bit band row: bit `k` set when any of
/// columns `3k..3k+3` is set.
pub static ROW_MINIROWS: [u8; 512] = build_row_minirows();

/// Indexed by a 9-bit minirow mask: the band cells (27 bits) that lie in a
/// minirow belonging to at least one way of placing the digit once per row
/// and once per box of the band (a 3×3 permutation inside the mask). Zero
/// when there is no such way. Idempotent: the minirows of `PERM[m] & a` map
/// to the same cells again.
pub static PERM: [u32; 512] = build_perm();

/// Indexed by a 9-bit minirow mask, as [`PERM`]: the cells of each minirow
/// that [`PERM`] keeps and that is the only one it keeps in its row. Such a
/// minirow is also the only one left in its box (each way of placing the
/// digit uses the row's box there), so where its box has one column left
/// (see [`KEEP_COLS`]) it is a single cell, the row's only one: a hidden
/// single.
pub static LONE_MINIROWS: [u32; 512] = build_lone_minirows();

/// Indexed by the 9-bit column mask of a digit inside one band: the cells to
/// keep in the two other bands. A column that is the only possible column of
/// its box in this band must hold the digit here, so it is cleared elsewhere.
pub static KEEP_COLS: [u32; 512] = build_keep_cols();

/// Indexed by the 9-bit mask of columns where no other band can hold the
/// digit (so this band must): the band cells to keep. In a box with one such
/// column the digit is confined to that column; a box with two or more is
/// emptied (a contradiction the band update then reports).
#[cfg(any(not(target_arch = "x86_64"), test))]
pub static REQUIRED_KEEP: [u32; 512] = build_required_keep();

/// For each band cell `p` (0..27): the other cells of its row, of its box and
/// of its column inside the band. Entries 27..32 are empty, so that any
/// bit index masked to five bits is a valid index.
pub static BAND_PEERS: [u32; 32] = build_band_peers();

/// For each band cell `p` (0..27): its column's three cells, in the low and
/// in the high half (the column in two other bands, packed as `u64`).
/// Entries 27..32 are empty.
pub static COLUMN_TWICE: [u64; 32] = build_column_twice();

/// Indexed by the 9-bit minirow mask of a digit's givens in a band: every
/// cell of the rows and boxes those givens occupy, plus [`GIVEN_CONFLICT`]
/// when two of the minirows share a row or a box.
pub static GIVEN_PEERS: [u32; 512] = build_given_peers();

/// The bit of [`GIVEN_PEERS`] (outside the band's 27) marking two givens of
/// a digit in one row or box.
pub const GIVEN_CONFLICT: u32 = 1 << 31;

/// For each band cell `p` (0..27): the other cells of its row.
pub static ROW_PEERS: [u32; 27] = build_row_peers();

/// Bit `d` of the 9-bit index at bit `3 * d`: a digit mask as the
/// digit-band bits (`3 * d + band`) of band 0.
pub static SPREAD3: [u32; 512] = build_spread3();

/// Byte `j` of `SPREAD[x]` is bit `j` of `x` (0 or 1): eight cells of a
/// bit plane as eight bytes.
pub static SPREAD: [u64; 256] = build_spread();

const fn build_spread3() -> [u32; 512] {
    let mut t = [0u32; 512];
    let mut x = 0;
    while x < 512 {
        let mut d = 0;
        while d < 9 {
            t[x] |= ((x as u32 >> d) & 1) << (3 * d);
            d += 1;
        }
        x += 1;
    }
    t
}

const fn build_spread() -> [u64; 256] {
    let mut t = [0u64; 256];
    let mut x = 0;
    while x < 256 {
        let mut j = 0;
        while j < 8 {
            t[x] |= ((x as u64 >> j) & 1) << (8 * j);
            j += 1;
        }
        x += 1;
    }
    t
}

/// Column `c` (0..9) inside a band: three cells.
#[cfg(test)]
pub static COLUMN: [u32; 9] = build_columns();

const fn build_row_minirows() -> [u8; 512] {
    let mut t = [0u8; 512];
    let mut row = 0;
    while row < 512 {
        let mut k = 0;
        while k < 3 {
            if (row >> (3 * k)) & 7 != 0 {
                t[row] |= 1 << k;
            }
            k += 1;
        }
        row += 1;
    }
    t
}

/// The six permutations of the three boxes of a band (row r → box p[r]).
const PERMS: [[usize; 3]; 6] = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
];

const fn build_perm() -> [u32; 512] {
    let mut t = [0u32; 512];
    let mut m = 0usize;
    while m < 512 {
        let mut allowed = 0usize;
        let mut i = 0;
        while i < 6 {
            let p = PERMS[i];
            let bits: usize = (1 << p[0]) | (1 << (3 + p[1])) | (1 << (6 + p[2]));
            if m & bits == bits {
                allowed |= bits;
            }
            i += 1;
        }
        let mut cells = 0u32;
        let mut r = 0;
        while r < 3 {
            let mut k = 0;
            while k < 3 {
                if allowed & (1 << (3 * r + k)) != 0 {
                    cells |= 7 << (9 * r + 3 * k);
                }
                k += 1;
            }
            r += 1;
        }
        t[m] = cells;
        m += 1;
    }
    t
}

const fn build_lone_minirows() -> [u32; 512] {
    let perm = build_perm();
    let mut t = [0u32; 512];
    let mut m = 0;
    while m < 512 {
        let mut r = 0;
        while r < 3 {
            // The kept minirows of row `r`: PERM keeps whole minirows.
            let row = (perm[m] >> (9 * r)) & 511;
            let mut kept = 0u32;
            let mut k = 0;
            while k < 3 {
                if (row >> (3 * k)) & 7 != 0 {
                    kept |= 1 << k;
                }
                k += 1;
            }
            if kept.count_ones() == 1 {
                t[m] |= 7 << (9 * r + 3 * kept.trailing_zeros());
            }
            r += 1;
        }
        m += 1;
    }
    t
}

const fn build_given_peers() -> [u32; 512] {
    let mut t = [0u32; 512];
    let mut m = 0;
    while m < 512 {
        let mut cells = 0u32;
        let mut r = 0;
        while r < 3 {
            if (m >> (3 * r)) & 7 != 0 {
                cells |= 511 << (9 * r);
            }
            r += 1;
        }
        let mut k = 0;
        while k < 3 {
            if (m >> k) & 0b001_001_001 != 0 {
                cells |= (7 << (3 * k)) * ((1 << 18) | (1 << 9) | 1);
            }
            k += 1;
        }
        let x = m as u32;
        let conflict = (x & (x >> 1) & 0b011_011_011)
            | (x & (x >> 2) & 0b001_001_001)
            | (x & (x >> 3) & 0o77)
            | (x & (x >> 6) & 0o7);
        if conflict != 0 {
            cells |= GIVEN_CONFLICT;
        }
        t[m] = cells;
        m += 1;
    }
    t
}

const fn build_row_peers() -> [u32; 27] {
    let mut t = [0u32; 27];
    let mut p = 0;
    while p < 27 {
        t[p] = (511 << (9 * (p / 9))) & !(1 << p);
        p += 1;
    }
    t
}

const fn build_columns() -> [u32; 9] {
    let mut t = [0u32; 9];
    let mut c = 0;
    while c < 9 {
        t[c] = (1 << c) | (1 << (9 + c)) | (1 << (18 + c));
        c += 1;
    }
    t
}

const fn build_keep_cols() -> [u32; 512] {
    let cols = build_columns();
    let mut t = [0u32; 512];
    let mut m = 0;
    while m < 512 {
        let mut keep = BAND;
        let mut k = 0;
        while k < 3 {
            let g = (m >> (3 * k)) & 7;
            if g == 1 || g == 2 || g == 4 {
                let c = 3 * k + (g as u32).trailing_zeros() as usize;
                keep &= !cols[c];
            }
            k += 1;
        }
        t[m] = keep;
        m += 1;
    }
    t
}

#[cfg(any(not(target_arch = "x86_64"), test))]
const fn build_required_keep() -> [u32; 512] {
    let cols = build_columns();
    let mut t = [0u32; 512];
    let mut m = 0;
    while m < 512 {
        let mut keep = BAND;
        let mut k = 0;
        while k < 3 {
            let g = (m >> (3 * k)) & 7;
            if g != 0 {
                let boxm = cols[3 * k] | cols[3 * k + 1] | cols[3 * k + 2];
                keep &= !boxm;
                if g == 1 || g == 2 || g == 4 {
                    let c = 3 * k + (g as u32).trailing_zeros() as usize;
                    keep |= cols[c];
                }
            }
            k += 1;
        }
        t[m] = keep;
        m += 1;
    }
    t
}

const fn build_column_twice() -> [u64; 32] {
    let mut t = [0u64; 32];
    let mut p = 0;
    while p < 27 {
        let col = build_columns()[p % 9] as u64;
        t[p] = col | (col << 32);
        p += 1;
    }
    t
}

const fn build_band_peers() -> [u32; 32] {
    let mut t = [0u32; 32];
    let mut p = 0;
    while p < 27 {
        let (r, c) = (p / 9, p % 9);
        let mut q = 0;
        while q < 27 {
            let (qr, qc) = (q / 9, q % 9);
            if q != p && (qr == r || qc == c || qc / 3 == c / 3) {
                t[p] |= 1 << q;
            }
            q += 1;
        }
        p += 1;
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perm_of_full_mask_keeps_everything() {
        assert_eq!(PERM[511], BAND);
        assert_eq!(PERM[0], 0);
        // The diagonal alone: only the identity permutation.
        let diag = 1 | (1 << 4) | (1 << 8);
        assert_eq!(PERM[diag], 7 | (7 << 12) | (7 << 24));
        // Two rows confined to box 0: no permutation.
        assert_eq!(PERM[1 | (1 << 3) | (7 << 6)], 0);
    }

    #[test]
    fn perm_is_idempotent() {
        for (m, &a) in PERM.iter().enumerate() {
            let mut m2 = 0usize;
            for r in 0..3 {
                m2 |= (ROW_MINIROWS[((a >> (9 * r)) & 511) as usize] as usize) << (3 * r);
            }
            assert_eq!(PERM[m2], a, "mask {m:#b}");
        }
    }

    #[test]
    fn required_keep_confines_boxes() {
        assert_eq!(REQUIRED_KEEP[0], BAND);
        // Column 4 required: box 1 keeps column 4 only.
        let box1 = COLUMN[3] | COLUMN[4] | COLUMN[5];
        assert_eq!(REQUIRED_KEEP[1 << 4], (BAND & !box1) | COLUMN[4]);
        // Columns 3 and 5 both required: box 1 is emptied.
        assert_eq!(REQUIRED_KEEP[(1 << 3) | (1 << 5)], BAND & !box1);
    }

    #[test]
    fn given_peers_cover_rows_and_boxes() {
        // A given in row 0, box 1: row 0 and box 1.
        let box1 = COLUMN[3] | COLUMN[4] | COLUMN[5];
        assert_eq!(GIVEN_PEERS[1 << 1], 511 | box1);
        assert_eq!(GIVEN_PEERS[0], 0);
        // Row 0 in boxes 0 and 2 (one row), then rows 0 and 2 in box 1.
        assert_ne!(GIVEN_PEERS[0b000_000_101] & GIVEN_CONFLICT, 0);
        assert_ne!(GIVEN_PEERS[0b010_000_010] & GIVEN_CONFLICT, 0);
        // A diagonal of minirows: no two share a row or box.
        assert_eq!(GIVEN_PEERS[0b100_010_001] & GIVEN_CONFLICT, 0);
    }

    #[test]
    fn spread_puts_bits_in_bytes() {
        assert_eq!(SPREAD[0], 0);
        assert_eq!(SPREAD[1], 1);
        assert_eq!(SPREAD[0b1000_0010], (1 << 56) | (1 << 8));
        assert_eq!(SPREAD[255], 0x0101_0101_0101_0101);
    }

    #[test]
    fn band_peers_count() {
        for (p, peers) in BAND_PEERS.iter().enumerate().take(27) {
            // 8 in the row, 6 more in the box (the column lies in the box).
            assert_eq!(peers.count_ones(), 14, "cell {p}");
        }
    }

    #[test]
    fn keep_cols_clears_lone_columns() {
        // Columns 0 (alone in box 0), 3 and 4 (box 1), 8 (alone in box 2).
        let m = 1 | (1 << 3) | (1 << 4) | (1 << 8);
        assert_eq!(KEEP_COLS[m], BAND & !COLUMN[0] & !COLUMN[8]);
    }
}
