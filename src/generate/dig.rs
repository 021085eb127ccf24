//! Puzzles from full grids: clues removed in random order while the
//! solution stays unique.

use super::fill::shuffle;
use crate::grid::{Grid, CELLS};
use crate::solver::{Branch, Config, Limits, Propagation, Solver, Status, Strategy, ValueOrder};
use rand::RngCore;

/// How far clue removal goes, and in what pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Removal {
    /// Stop removing once the puzzle is down to this many clues. `None`:
    /// keep going until no clue can be removed — the puzzle is then minimal.
    /// A puzzle can end above the target when no further clue can go.
    pub min_clues: Option<usize>,
    /// Remove clues in pairs symmetric under 180° rotation (cell `i` with
    /// cell `80 - i`; the centre alone), so puzzles keep that symmetry.
    /// With `min_clues: None` the puzzle is then minimal among symmetric
    /// puzzles: no symmetric pair can be removed, though a single clue may.
    pub symmetric: bool,
}

/// The strategy that proves uniqueness while removing clues. Any complete
/// strategy counts solutions correctly; this one needs the fewest guesses.
/// (The named strategy `locked`.)
pub fn uniqueness_strategy() -> Strategy {
    Strategy::generic(Config::new(
        Propagation::Locked,
        Branch::Mrv,
        ValueOrder::Asc,
    ))
}

/// True when `puzzle` has exactly one solution (counted up to two with
/// `strategy` under [`Limits::uniqueness`]). A search that gives up counts
/// as not unique.
pub fn is_unique(solver: &mut Solver, puzzle: &Grid, strategy: &Strategy) -> bool {
    let r = solver.solve(puzzle, strategy, &Limits::uniqueness());
    r.status == Status::Solved && r.solutions == 1
}

/// Removes clues from `solution` (a full grid) in random order, keeping
/// each removal only when the puzzle still has a unique solution.
///
/// Every cell (or symmetric pair) is tried once, in an order drawn from
/// `rng`. A removal that fails now would fail later too (fewer clues never
/// mean fewer solutions), so one pass is enough: without a clue target the
/// result is minimal.
pub fn remove_clues<R: RngCore + ?Sized>(
    solution: &Grid,
    removal: &Removal,
    rng: &mut R,
    solver: &mut Solver,
    strategy: &Strategy,
) -> Grid {
    let mut orbits: Vec<[usize; 2]> = if removal.symmetric {
        (0..=CELLS / 2).map(|c| [c, CELLS - 1 - c]).collect()
    } else {
        (0..CELLS).map(|c| [c, c]).collect()
    };
    shuffle(rng, &mut orbits);
    let mut puzzle = *solution;
    let mut clues = puzzle.givens();
    let floor = removal.min_clues.unwrap_or(0);
    for [a, b] in orbits {
        if clues <= floor {
            break;
        }
        let size = if a == b { 1 } else { 2 };
        if clues - size < floor || puzzle.get(a) == 0 {
            continue;
        }
        let (va, vb) = (puzzle.get(a), puzzle.get(b));
        puzzle.set(a, 0);
        puzzle.set(b, 0);
        if is_unique(solver, &puzzle, strategy) {
            clues -= size;
        } else {
            puzzle.set(a, va);
            puzzle.set(b, vb);
        }
    }
    puzzle
}

/// True when no single clue of `puzzle` can be removed without losing
/// uniqueness (and the puzzle itself is unique).
pub fn is_minimal(solver: &mut Solver, puzzle: &Grid, strategy: &Strategy) -> bool {
    if !is_unique(solver, puzzle, strategy) {
        return false;
    }
    let mut p = *puzzle;
    (0..CELLS).filter(|&c| puzzle.get(c) != 0).all(|c| {
        let v = p.get(c);
        p.set(c, 0);
        let unique = is_unique(solver, &p, strategy);
        p.set(c, v);
        !unique
    })
}

#[cfg(test)]
mod tests {
    use super::super::fill::full_grid;
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn setup(seed: u64) -> (ChaCha8Rng, Solver, Strategy, Grid) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let full = full_grid(&mut rng);
        (rng, Solver::new(), uniqueness_strategy(), full)
    }

    #[test]
    fn minimal_removal_gives_unique_minimal_puzzles() {
        let (mut rng, mut solver, strat, full) = setup(3);
        let p = remove_clues(&full, &Removal::default(), &mut rng, &mut solver, &strat);
        assert!(p.givens() < 40, "{}", p.givens());
        assert!(is_minimal(&mut solver, &p, &strat));
        assert!(full.is_solution_of(&p));
    }

    #[test]
    fn clue_target_stops_removal() {
        let (mut rng, mut solver, strat, full) = setup(4);
        let removal = Removal {
            min_clues: Some(40),
            symmetric: false,
        };
        let p = remove_clues(&full, &removal, &mut rng, &mut solver, &strat);
        assert_eq!(p.givens(), 40);
        assert!(is_unique(&mut solver, &p, &strat));
    }

    #[test]
    fn symmetric_removal_keeps_rotational_symmetry() {
        let (mut rng, mut solver, strat, full) = setup(5);
        let removal = Removal {
            min_clues: None,
            symmetric: true,
        };
        let p = remove_clues(&full, &removal, &mut rng, &mut solver, &strat);
        for c in 0..CELLS {
            assert_eq!(p.get(c) == 0, p.get(CELLS - 1 - c) == 0, "cell {c}");
        }
        assert!(is_unique(&mut solver, &p, &strat));
        assert!(p.givens() < 45);
    }
}
