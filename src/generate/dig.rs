//! Puzzles from full grids: clues removed in random order while the
//! solution stays unique.

use crate::grid::{Grid, CELLS};
use crate::random::shuffle;
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

/// True when `puzzle`, whose only solution before `removed` were blanked
/// was `solution`, still has that one solution: no solution differs from
/// `solution` in a removed cell.
///
/// Any other solution differs first in some removed cell `i` (in the order
/// given), so one search per cell covers them all: the earlier removed
/// cells fixed to their known digits, cell `i` barred from its own, and
/// any solution at all (limit 1, `fast`) disproves uniqueness. Cheaper than
/// counting to two, which must find the known solution again and then
/// exhaust the rest of the search.
pub fn unique_after_removing(
    solver: &mut Solver,
    puzzle: &Grid,
    solution: &Grid,
    removed: &[usize],
) -> bool {
    let mut p = *puzzle;
    let mut allowed = [0x1ffu16; CELLS];
    let limits = Limits::first();
    for &c in removed {
        let v = solution.get(c);
        p.set(c, 0);
        allowed[c] = 0x1ff & !(1 << (v - 1));
        let r = solver.fast_restricted(&p, &allowed, &limits);
        if r.solutions > 0 || r.status == Status::GaveUp {
            return false;
        }
        allowed[c] = 0x1ff;
        p.set(c, v);
    }
    true
}

/// Removes clues from `solution` (a full grid) in random order, keeping
/// each removal only when the puzzle still has a unique solution (tested
/// with [`unique_after_removing`]).
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
        let removed = if a == b { &[a][..] } else { &[a, b][..] };
        for &c in removed {
            puzzle.set(c, 0);
        }
        if unique_after_removing(solver, &puzzle, solution, removed) {
            clues -= size;
        } else {
            for &c in removed {
                puzzle.set(c, solution.get(c));
            }
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
        let p = remove_clues(&full, &Removal::default(), &mut rng, &mut solver);
        assert!(p.givens() < 40, "{}", p.givens());
        assert!(is_minimal(&mut solver, &p, &strat));
        assert!(full.is_solution_of(&p));
    }

    #[test]
    fn exclusion_test_agrees_with_counting_to_two() {
        // Blank random sets of one to three cells of random near-minimal
        // puzzles: the exclusion searches must say "unique" exactly when
        // counting solutions (generic engine, `locked`) finds one.
        let (mut rng, mut solver, strat, _) = setup(8);
        let mut agree = [0usize; 2];
        for _ in 0..40 {
            let full = full_grid(&mut rng);
            let removal = Removal {
                min_clues: Some(32),
                symmetric: false,
            };
            let p = remove_clues(&full, &removal, &mut rng, &mut solver);
            let filled: Vec<usize> = (0..CELLS).filter(|&c| p.get(c) != 0).collect();
            for n in 1..=3 {
                let mut cells = filled.clone();
                shuffle(&mut rng, &mut cells);
                cells.truncate(n);
                let mut q = p;
                for &c in &cells {
                    q.set(c, 0);
                }
                let fast = unique_after_removing(&mut solver, &q, &full, &cells);
                assert_eq!(fast, is_unique(&mut solver, &q, &strat), "{q:?} {cells:?}");
                agree[usize::from(fast)] += 1;
            }
        }
        // Both answers occur.
        assert!(agree[0] > 10 && agree[1] > 10, "{agree:?}");
    }

    #[test]
    fn restricted_solve_rules_out_candidates() {
        let (mut rng, mut solver, _, full) = setup(6);
        let p = remove_clues(&full, &Removal::default(), &mut rng, &mut solver);
        let (given, blank) = (
            (0..CELLS).find(|&c| p.get(c) != 0).unwrap(),
            (0..CELLS).find(|&c| p.get(c) == 0).unwrap(),
        );
        let mut allowed = [0x1ffu16; CELLS];
        let limits = Limits::uniqueness();
        // Nothing ruled out: the plain solve.
        let fast = Strategy::named("fast").unwrap();
        let plain = solver.solve(&p, &fast, &limits);
        assert_eq!(solver.fast_restricted(&p, &allowed, &limits), plain);
        // A given's own digit ruled out: no solution.
        allowed[given] = 0x1ff & !(1 << (full.get(given) - 1));
        let r = solver.fast_restricted(&p, &allowed, &limits);
        assert_eq!((r.status, r.solutions), (Status::NoSolution, 0));
        // A blank cell left with only its solution digit: still that solution.
        allowed[given] = 0x1ff;
        allowed[blank] = 1 << (full.get(blank) - 1);
        let r = solver.fast_restricted(&p, &allowed, &limits);
        assert_eq!((r.status, r.grid), (Status::Solved, full));
        // Its solution digit ruled out: no solution (the puzzle is unique).
        allowed[blank] = 0x1ff & !(1 << (full.get(blank) - 1));
        let r = solver.fast_restricted(&p, &allowed, &limits);
        assert_eq!(r.status, Status::NoSolution);
        // A blank cell with no candidate at all: no solution.
        allowed[blank] = 0;
        let r = solver.fast_restricted(&p, &allowed, &limits);
        assert_eq!(r.status, Status::NoSolution);
    }

    #[test]
    fn clue_target_stops_removal() {
        let (mut rng, mut solver, strat, full) = setup(4);
        let removal = Removal {
            min_clues: Some(40),
            symmetric: false,
        };
        let p = remove_clues(&full, &removal, &mut rng, &mut solver);
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
        let p = remove_clues(&full, &removal, &mut rng, &mut solver);
        for c in 0..CELLS {
            assert_eq!(p.get(c) == 0, p.get(CELLS - 1 - c) == 0, "cell {c}");
        }
        assert!(is_unique(&mut solver, &p, &strat));
        assert!(p.givens() < 45);
    }
}
