//! Full grids by classic randomized backtracking, and the small random
//! helpers the generator shares.
//!
//! The helpers draw only raw words from the generator (`next_u32`), so the
//! puzzles depend on nothing but the ChaCha8 key stream, which is
//! value-stable across platforms and `rand` versions.

use crate::grid::{Grid, CELLS};
use rand::RngCore;

/// A uniform integer in `0..n` (`n > 0`), without modulo bias
/// (Lemire's multiply-and-reject method). Returns 0 when `n == 0`.
pub fn below<R: RngCore + ?Sized>(rng: &mut R, n: u32) -> u32 {
    if n == 0 {
        return 0;
    }
    let mut m = u64::from(rng.next_u32()) * u64::from(n);
    let mut low = m as u32;
    if low < n {
        let threshold = n.wrapping_neg() % n;
        while low < threshold {
            m = u64::from(rng.next_u32()) * u64::from(n);
            low = m as u32;
        }
    }
    (m >> 32) as u32
}

/// Shuffles `items` in place (Fisher–Yates, drawing with [`below`]).
pub fn shuffle<T, R: RngCore + ?Sized>(rng: &mut R, items: &mut [T]) {
    for i in (1..items.len()).rev() {
        // `i < items.len() <= u32::MAX` for every slice this module shuffles.
        let j = below(rng, (i + 1) as u32) as usize;
        items.swap(i, j);
    }
}

/// Row, column and box of every cell.
const fn unit_indices() -> [[u8; 3]; CELLS] {
    let mut t = [[0u8; 3]; CELLS];
    let mut cell = 0;
    while cell < CELLS {
        let (r, c, b) = crate::grid::row_col_box(cell);
        t[cell] = [r as u8, c as u8, b as u8];
        cell += 1;
    }
    t
}

const UNIT_OF: [[u8; 3]; CELLS] = unit_indices();

/// The state of [`full_grid`]'s search.
struct Filler {
    /// Bit `d` set when digit `d` (1..=9) is placed in the row / column / box.
    rows: [u16; 9],
    cols: [u16; 9],
    boxes: [u16; 9],
    cells: [u8; CELLS],
    /// Per cell: its legal digits when the search entered it, in random
    /// order; how many there are; how many were tried.
    order: [[u8; 9]; CELLS],
    len: [u8; CELLS],
    tried: [u8; CELLS],
}

impl Filler {
    fn new() -> Self {
        Filler {
            rows: [0; 9],
            cols: [0; 9],
            boxes: [0; 9],
            cells: [0; CELLS],
            order: [[0; 9]; CELLS],
            len: [0; CELLS],
            tried: [0; CELLS],
        }
    }

    /// Lists `cell`'s legal digits in a random order.
    fn enter<R: RngCore + ?Sized>(&mut self, rng: &mut R, cell: usize) {
        let [r, c, b] = UNIT_OF[cell];
        let used = self.rows[r as usize] | self.cols[c as usize] | self.boxes[b as usize];
        let mut digits = [1u8, 2, 3, 4, 5, 6, 7, 8, 9];
        shuffle(rng, &mut digits);
        let mut n = 0;
        for d in digits {
            if used & (1 << d) == 0 {
                self.order[cell][n] = d;
                n += 1;
            }
        }
        self.len[cell] = n as u8;
        self.tried[cell] = 0;
    }

    fn toggle(&mut self, cell: usize, digit: u8) {
        let [r, c, b] = UNIT_OF[cell];
        let bit = 1u16 << digit;
        self.rows[r as usize] ^= bit;
        self.cols[c as usize] ^= bit;
        self.boxes[b as usize] ^= bit;
    }
}

/// A random complete, valid grid.
///
/// The classic randomized backtracker: it fills the first empty cell (cells
/// in row-major order), trying that cell's legal digits in a random order,
/// and backs up to the previous cell when a cell has no digit left. Digit
/// sets are kept as bitmasks per row, column and box. Starting from the
/// empty grid a completion always exists, so the search always ends with a
/// full grid.
pub fn full_grid<R: RngCore + ?Sized>(rng: &mut R) -> Grid {
    let mut f = Filler::new();
    let mut cell = 0usize;
    f.enter(rng, cell);
    while cell < CELLS {
        if f.tried[cell] < f.len[cell] {
            // Later cells are still empty, so every digit listed when the
            // search entered this cell is still legal here.
            let d = f.order[cell][f.tried[cell] as usize];
            f.tried[cell] += 1;
            f.toggle(cell, d);
            f.cells[cell] = d;
            cell += 1;
            if cell < CELLS {
                f.enter(rng, cell);
            }
        } else if cell == 0 {
            // Unreachable from the empty grid; start over rather than fail.
            f.enter(rng, cell);
        } else {
            // Dead end: undo the previous cell's digit and try its next one.
            cell -= 1;
            f.toggle(cell, f.cells[cell]);
            f.cells[cell] = 0;
        }
    }
    Grid::from_cells(f.cells).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn below_stays_in_range_and_hits_every_value() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut seen = [0u32; 9];
        for _ in 0..2000 {
            let v = below(&mut rng, 9);
            assert!(v < 9);
            seen[v as usize] += 1;
        }
        assert!(seen.iter().all(|&n| n > 150), "{seen:?}");
        assert_eq!(below(&mut rng, 1), 0);
        assert_eq!(below(&mut rng, 0), 0);
    }

    #[test]
    fn shuffle_is_a_permutation() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut v: Vec<u32> = (0..50).collect();
        shuffle(&mut rng, &mut v);
        assert_ne!(v, (0..50).collect::<Vec<_>>());
        v.sort_unstable();
        assert_eq!(v, (0..50).collect::<Vec<_>>());
    }

    #[test]
    fn full_grids_are_valid_and_vary() {
        let mut rng = ChaCha8Rng::seed_from_u64(42);
        let a = full_grid(&mut rng);
        let b = full_grid(&mut rng);
        for g in [a, b] {
            assert!(g.is_full());
            assert!(g.is_solution_of(&Grid::empty()), "{g:?}");
        }
        assert_ne!(a, b);
        let mut again = ChaCha8Rng::seed_from_u64(42);
        assert_eq!(full_grid(&mut again), a);
    }
}
