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

pub use crate::grid::transform::Transform;
use crate::grid::{Grid, CELLS};
use crate::random::shuffle;
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
}
