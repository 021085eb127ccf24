//! Full grids by classic randomized backtracking.

use crate::grid::{Grid, CELLS};
use crate::random::shuffle;
use rand::RngCore;

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
