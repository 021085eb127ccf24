//! Complete grids in bulk (`generate --grids N`).
//!
//! A grid is made in two steps:
//!
//! 1. **Search**: the three diagonal boxes (1, 5, 9) share no row or column,
//!    so each gets an independent, uniformly random arrangement of the nine
//!    digits; the `fast` engine completes them (first solution, values
//!    ascending). Should a completion not exist, new boxes are drawn.
//! 2. **Shuffle**: a uniformly random member of the group of moves that
//!    keep every grid valid: a relabelling of the nine digits (9!), an
//!    order of the bands and one of the stacks (3! each), an order of the
//!    rows inside each band and of the columns inside each stack (3! each,
//!    six times), and a transposition or not.
//!
//! The distribution this gives: every cell holds every digit with
//! probability exactly 1/9 (the relabelling alone guarantees it), and every
//! grid of the completed grid's equivalence class under those moves is
//! equally likely. The classes themselves are not equally likely — their
//! weights are those of step 1 — as with any generator that does not
//! enumerate the 5,472,730,538 classes.
//!
//! Grid `k` draws all its randomness from ChaCha8 seeded with the seed on
//! stream `k` (see [`super::candidate_rng`]), so the output does not depend
//! on the thread count.

use super::fill::shuffle;
use crate::grid::{Grid, CELLS};
use crate::solver::{Limits, Solver, Status};
use rand::RngCore;

/// The cells of box `b` (0..9) in row-major order.
fn box_cells(b: usize) -> [usize; 9] {
    let (r0, c0) = (b / 3 * 3, b % 3 * 3);
    std::array::from_fn(|i| (r0 + i / 3) * 9 + c0 + i % 3)
}

/// The completed grid of step 1 (see the module docs).
pub fn searched_grid<R: RngCore + ?Sized>(rng: &mut R, solver: &mut Solver) -> Grid {
    let all = [0x1ffu16; CELLS];
    loop {
        let mut puzzle = Grid::empty();
        for b in [0, 4, 8] {
            let mut digits = [1u8, 2, 3, 4, 5, 6, 7, 8, 9];
            shuffle(rng, &mut digits);
            for (cell, d) in box_cells(b).into_iter().zip(digits) {
                puzzle.set(cell, d);
            }
        }
        // `fast_restricted` with nothing ruled out is the plain `fast` solve.
        let r = solver.fast_restricted(&puzzle, &all, &Limits::first());
        if r.status == Status::Solved {
            return r.grid;
        }
    }
}

/// A validity-preserving rearrangement of a grid: output cell `(r, c)`
/// takes input cell `(rows[r], cols[c])` (or `(cols[c], rows[r])` when
/// transposed), with its digit relabelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transform {
    rows: [u8; 9],
    cols: [u8; 9],
    transpose: bool,
    /// `digits[d]`: the new label of digit `d` (index 0 unused).
    digits: [u8; 10],
}

/// A uniformly random order of the bands (or stacks) and of the three lines
/// inside each: line `i` of the result is line `order[i]` of the original.
fn line_order<R: RngCore + ?Sized>(rng: &mut R) -> [u8; 9] {
    let mut blocks = [0u8, 1, 2];
    shuffle(rng, &mut blocks);
    let mut order = [0u8; 9];
    for (i, &b) in blocks.iter().enumerate() {
        let mut inner = [0u8, 1, 2];
        shuffle(rng, &mut inner);
        for (j, &l) in inner.iter().enumerate() {
            order[3 * i + j] = 3 * b + l;
        }
    }
    order
}

impl Transform {
    /// A uniformly random member of the group (see the module docs).
    pub fn random<R: RngCore + ?Sized>(rng: &mut R) -> Self {
        let rows = line_order(rng);
        let cols = line_order(rng);
        let transpose = rng.next_u32() & 1 == 1;
        let mut labels = [1u8, 2, 3, 4, 5, 6, 7, 8, 9];
        shuffle(rng, &mut labels);
        let mut digits = [0u8; 10];
        digits[1..].copy_from_slice(&labels);
        Transform {
            rows,
            cols,
            transpose,
            digits,
        }
    }

    /// The rearranged grid (blanks stay blank).
    pub fn apply(&self, g: &Grid) -> Grid {
        let src = g.cells();
        let mut out = [0u8; CELLS];
        for r in 0..9 {
            for c in 0..9 {
                let (sr, sc) = (self.rows[r] as usize, self.cols[c] as usize);
                let from = if self.transpose {
                    sc * 9 + sr
                } else {
                    sr * 9 + sc
                };
                out[r * 9 + c] = self.digits[src[from] as usize];
            }
        }
        Grid::from_cells(out).unwrap_or_default()
    }
}

/// Grid `k`'s two steps with its own random stream.
pub fn shuffled_grid<R: RngCore + ?Sized>(rng: &mut R, solver: &mut Solver) -> Grid {
    let g = searched_grid(rng, solver);
    Transform::random(rng).apply(&g)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::candidate_rng;

    #[test]
    fn transforms_keep_grids_valid_and_puzzles_solvable_alike() {
        let mut solver = Solver::new();
        let mut rng = candidate_rng(3, 0);
        let g = searched_grid(&mut rng, &mut solver);
        assert!(g.is_full() && g.is_solution_of(&Grid::empty()));
        let mut seen = std::collections::HashSet::new();
        for _ in 0..50 {
            let t = Transform::random(&mut rng);
            let h = t.apply(&g);
            assert!(h.is_full() && h.is_solution_of(&Grid::empty()), "{h:?}");
            seen.insert(h);
            // A puzzle and its solution move together.
            let mut p = g;
            for c in (0..CELLS).step_by(2) {
                p.set(c, 0);
            }
            assert!(h.is_solution_of(&t.apply(&p)));
        }
        assert!(seen.len() > 45);
    }

    #[test]
    fn line_orders_keep_lines_in_their_blocks() {
        let mut rng = candidate_rng(9, 1);
        for _ in 0..100 {
            let o = line_order(&mut rng);
            let mut sorted = o;
            sorted.sort_unstable();
            assert_eq!(sorted, [0, 1, 2, 3, 4, 5, 6, 7, 8]);
            for block in o.chunks(3) {
                assert!(block.iter().all(|&l| l / 3 == block[0] / 3), "{o:?}");
            }
        }
    }
}
