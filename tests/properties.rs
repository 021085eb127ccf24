//! Property tests over generated puzzles: the solution count is invariant
//! under every Sudoku symmetry, counters repeat exactly, and every strategy
//! agrees with `fast`.
//!
//! Puzzles are made from solved grids: a few random non-conflicting seed
//! givens are solved with `locked` (first solution), then a random subset of
//! the cells is kept. Depending on how many are kept the puzzle is unique or
//! has several solutions; optionally one extra given is added on a blank cell
//! with a digit that differs from the grid's solution but repeats no given in
//! its row, column or box — valid-looking givens that often have no solution.
//!
//! Case counts are modest (48 by default) so `cargo test` stays quick in
//! debug builds; `PROPTEST_CASES=N` raises them for a longer run.

use bench_sudoku::grid::row_col_box;
use bench_sudoku::solver::{
    Limits, NoopObserver, SolveResult, Solver, Status, Strategy as SolverStrategy,
};
use bench_sudoku::Grid;
use proptest::prelude::*;
use proptest::test_runner::Config;

/// Budget for the explosive strategies (`naive`, `rowmajor`) in these tests.
const EXPLOSIVE_BUDGET: u64 = 20_000;

fn config() -> Config {
    Config {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(48),
        ..Config::default()
    }
}

fn strategy(name: &str) -> SolverStrategy {
    SolverStrategy::named(name).expect("named strategy")
}

/// Every named strategy and the inference levels above `locked` (the
/// technique ladder at every node of the search).
fn every_strategy() -> Vec<SolverStrategy> {
    let mut all = SolverStrategy::all();
    for level in ["subsets", "fish", "wings", "chains"] {
        all.push(SolverStrategy::parse(&format!("prop={level}")).expect("a level"));
    }
    all
}

/// True when `d` may go in `cell` of `g` without repeating a given.
fn fits(g: &Grid, cell: usize, d: u8) -> bool {
    let (r, c, b) = row_col_box(cell);
    (0..81).all(|o| {
        let (ro, co, bo) = row_col_box(o);
        o == cell || g.get(o) != d || (ro != r && co != c && bo != b)
    })
}

/// A full valid grid: the seed givens that fit, solved by `locked`
/// (falling back to the empty grid's first solution when they do not solve).
fn solved_grid(seed: &[(usize, u8)]) -> Grid {
    let locked = strategy("locked");
    let mut g = Grid::empty();
    for &(cell, d) in seed {
        if g.get(cell) == 0 && fits(&g, cell, d) {
            g.set(cell, d);
        }
    }
    let mut solver = Solver::new();
    let r = solver.solve(&g, &locked, &Limits::first());
    let r = if r.status == Status::Solved {
        r
    } else {
        solver.solve(&Grid::empty(), &locked, &Limits::first())
    };
    assert_eq!(r.status, Status::Solved);
    assert!(r.grid.is_full());
    r.grid
}

/// A generated puzzle with the full grid it was cut from.
#[derive(Clone, Debug)]
struct Case {
    puzzle: Grid,
    /// Whether an extra, solution-breaking given was added.
    contradictory: bool,
}

/// Puzzles with `givens` kept cells (before the optional extra given).
fn puzzles(givens: std::ops::Range<usize>) -> impl Strategy<Value = Case> {
    (
        prop::collection::vec((0usize..81, 1u8..=9), 0..12),
        Just((0..81).collect::<Vec<usize>>()).prop_shuffle(),
        givens,
        prop::bool::weighted(0.25),
        0u8..9,
    )
        .prop_map(|(seed, order, givens, contradictory, shift)| {
            let full = solved_grid(&seed);
            let mut puzzle = Grid::empty();
            for &cell in &order[..givens] {
                puzzle.set(cell, full.get(cell));
            }
            let mut added = false;
            if contradictory {
                // The first blank cell (in the shuffled order) that takes a
                // digit other than its solution without repeating a given.
                'cells: for &cell in &order[givens..] {
                    for k in 0..9 {
                        let d = (shift + k) % 9 + 1;
                        if d != full.get(cell) && fits(&puzzle, cell, d) {
                            puzzle.set(cell, d);
                            added = true;
                            break 'cells;
                        }
                    }
                }
            }
            Case {
                puzzle,
                contradictory: added,
            }
        })
}

// ---------------------------------------------------------------------------
// Symmetries. Each maps a grid cell-by-cell (and digits for relabelling), so
// the same map applies to a puzzle and to its solution.

#[derive(Clone, Debug)]
enum Symmetry {
    /// Digit `d` becomes `perm[d - 1]`.
    Relabel([u8; 9]),
    /// Rows of `band` permuted by `perm`.
    RowsInBand {
        band: usize,
        perm: [usize; 3],
    },
    /// Bands permuted.
    Bands([usize; 3]),
    /// Columns of `stack` permuted by `perm`.
    ColsInStack {
        stack: usize,
        perm: [usize; 3],
    },
    /// Stacks permuted.
    Stacks([usize; 3]),
    Transpose,
}

impl Symmetry {
    /// The transformed grid: `out[r][c] = g[source(r, c)]`, digits relabelled.
    fn apply(&self, g: &Grid) -> Grid {
        let mut out = Grid::empty();
        for r in 0..9 {
            for c in 0..9 {
                let (sr, sc) = match *self {
                    Symmetry::Relabel(_) => (r, c),
                    Symmetry::RowsInBand { band, perm } if r / 3 == band => {
                        (band * 3 + perm[r % 3], c)
                    }
                    Symmetry::RowsInBand { .. } => (r, c),
                    Symmetry::Bands(perm) => (perm[r / 3] * 3 + r % 3, c),
                    Symmetry::ColsInStack { stack, perm } if c / 3 == stack => {
                        (r, stack * 3 + perm[c % 3])
                    }
                    Symmetry::ColsInStack { .. } => (r, c),
                    Symmetry::Stacks(perm) => (r, perm[c / 3] * 3 + c % 3),
                    Symmetry::Transpose => (c, r),
                };
                let v = g.get(sr * 9 + sc);
                let v = match self {
                    Symmetry::Relabel(perm) if v != 0 => perm[v as usize - 1],
                    _ => v,
                };
                out.set(r * 9 + c, v);
            }
        }
        out
    }
}

fn perm3() -> impl Strategy<Value = [usize; 3]> {
    Just(vec![0usize, 1, 2])
        .prop_shuffle()
        .prop_map(|v| [v[0], v[1], v[2]])
}

fn relabel() -> impl Strategy<Value = Symmetry> {
    Just((1u8..=9).collect::<Vec<u8>>())
        .prop_shuffle()
        .prop_map(|v| Symmetry::Relabel(v.try_into().unwrap()))
}

fn rows_in_band() -> impl Strategy<Value = Symmetry> {
    (0usize..3, perm3()).prop_map(|(band, perm)| Symmetry::RowsInBand { band, perm })
}

fn bands() -> impl Strategy<Value = Symmetry> {
    perm3().prop_map(Symmetry::Bands)
}

fn cols_in_stack() -> impl Strategy<Value = Symmetry> {
    (0usize..3, perm3()).prop_map(|(stack, perm)| Symmetry::ColsInStack { stack, perm })
}

fn stacks() -> impl Strategy<Value = Symmetry> {
    perm3().prop_map(Symmetry::Stacks)
}

/// The solution count (limit 2) of `p` and of `sym(p)` agree under `fast` and
/// `locked`; a unique solution maps to the unique solution; a conflict stays a
/// conflict.
fn check_invariant(case: &Case, sym: &Symmetry) -> Result<(), TestCaseError> {
    let mut solver = Solver::new();
    let limits = Limits::uniqueness();
    let image = sym.apply(&case.puzzle);
    prop_assert_eq!(image.givens(), case.puzzle.givens());
    for name in ["fast", "locked"] {
        let s = strategy(name);
        let a = solver.solve(&case.puzzle, &s, &limits);
        let b = solver.solve(&image, &s, &limits);
        prop_assert_ne!(a.status, Status::GaveUp, "{} on {}", name, case.puzzle);
        prop_assert_eq!(a.status, b.status, "{}: {} vs {}", name, case.puzzle, image);
        prop_assert_eq!(a.solutions, b.solutions);
        if a.status == Status::Solved {
            prop_assert_eq!(sym.apply(&a.grid), b.grid, "{} on {}", name, image);
        }
        if let Some(sol) = a.solution() {
            prop_assert!(b.grid.is_solution_of(&image));
            prop_assert!(sym.apply(sol).is_solution_of(&image));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn count_invariant_under_relabelling(case in puzzles(17..45), sym in relabel()) {
        check_invariant(&case, &sym)?;
    }

    #[test]
    fn count_invariant_under_rows_within_bands(case in puzzles(17..45), sym in rows_in_band()) {
        check_invariant(&case, &sym)?;
    }

    #[test]
    fn count_invariant_under_band_permutation(case in puzzles(17..45), sym in bands()) {
        check_invariant(&case, &sym)?;
    }

    #[test]
    fn count_invariant_under_columns_within_stacks(case in puzzles(17..45), sym in cols_in_stack()) {
        check_invariant(&case, &sym)?;
    }

    #[test]
    fn count_invariant_under_stack_permutation(case in puzzles(17..45), sym in stacks()) {
        check_invariant(&case, &sym)?;
    }

    #[test]
    fn count_invariant_under_transpose(case in puzzles(17..45)) {
        check_invariant(&case, &Symmetry::Transpose)?;
    }

    /// Exact counters: the same solver twice and a fresh solver give the
    /// same result, field for field, under every strategy.
    #[test]
    fn counters_repeat_exactly(case in puzzles(20..40)) {
        let mut reused = Solver::new();
        for s in every_strategy() {
            let limits = limits_for(&s);
            let first = reused.solve(&case.puzzle, &s, &limits);
            let again = reused.solve(&case.puzzle, &s, &limits);
            let fresh = Solver::new().solve(&case.puzzle, &s, &limits);
            prop_assert_eq!(first, again, "{} repeated on {}", s.name(), case.puzzle);
            prop_assert_eq!(first, fresh, "{} fresh on {}", s.name(), case.puzzle);
        }
    }

    /// Every strategy agrees with `fast`: status, and the solution when it is
    /// unique. `logic` may stall; explosive strategies may give up.
    #[test]
    fn every_strategy_agrees_with_fast(case in puzzles(22..50)) {
        let mut solver = Solver::new();
        let reference = solver.solve(&case.puzzle, &strategy("fast"), &Limits::uniqueness());
        prop_assert!(
            !matches!(reference.status, Status::GaveUp | Status::Stalled | Status::Invalid),
            "fast: {} on {}", reference.status, case.puzzle
        );
        if !case.contradictory {
            // Cut from a full grid: at least that solution exists.
            prop_assert_ne!(reference.status, Status::NoSolution);
        }
        for s in every_strategy() {
            let r = solver.solve(&case.puzzle, &s, &limits_for(&s));
            check_agreement(&s, &case.puzzle, &r, &reference)?;
        }
    }
}

proptest! {
    #![proptest_config(config())]

    /// Pencilmark puzzles: random candidates eliminated from the blank cells
    /// of a puzzle (the grid it was cut from may lose its own digits too).
    /// Every complete strategy starting from those masks agrees with `fast`
    /// on the status and count, every answer keeps to the candidates, and
    /// eliminating nothing changes nothing.
    #[test]
    fn every_strategy_agrees_from_candidate_masks(
        case in puzzles(20..40),
        elim in prop::collection::vec((0usize..81, 0u16..0x200), 0..60),
    ) {
        let mut masks = [0x1ffu16; 81];
        for &(cell, gone) in &elim {
            if case.puzzle.get(cell) == 0 {
                // Leave at least one candidate: an empty cell is a read
                // error, not a puzzle.
                let kept = masks[cell] & !gone;
                if kept != 0 {
                    masks[cell] = kept;
                }
            }
        }
        let mut solver = Solver::new();
        let limits = Limits::uniqueness().with_solutions(3);
        let fast = strategy("fast");
        let reference = solver.solve_builtin_with(
            &case.puzzle, Some(&masks), fast.builtin().unwrap(), &limits, &mut NoopObserver);
        let plain = solver.solve(&case.puzzle, &fast, &limits);
        let all = solver.solve_builtin_with(
            &case.puzzle, Some(&[0x1ff; 81]), fast.builtin().unwrap(), &limits, &mut NoopObserver);
        prop_assert_eq!(plain, all);
        for s in every_strategy().into_iter().filter(|s| !s.explosive() && s.name() != "logic") {
            let r = solver.solve_builtin_with(
                &case.puzzle, Some(&masks), s.builtin().unwrap(), &limits, &mut NoopObserver);
            prop_assert_eq!((r.status, r.solutions), (reference.status, reference.solutions),
                "{} on {} with masks {:?}", s.name(), case.puzzle, masks);
            if r.solutions > 0 {
                prop_assert!(r.grid.is_solution_of(&case.puzzle));
                prop_assert_eq!(bench_sudoku::grid::pencilmark::violation(&r.grid, &masks), None);
                if r.solutions == 1 {
                    prop_assert_eq!(r.grid, reference.grid);
                }
            }
        }
    }
}

/// Default limits, with a small budget for the explosive strategies.
fn limits_for(s: &SolverStrategy) -> Limits {
    if s.explosive() {
        Limits::uniqueness().with_max_guesses(EXPLOSIVE_BUDGET)
    } else {
        Limits::uniqueness()
    }
}

fn check_agreement(
    s: &SolverStrategy,
    puzzle: &Grid,
    r: &SolveResult,
    reference: &SolveResult,
) -> Result<(), TestCaseError> {
    if let Some(sol) = r.solution() {
        prop_assert!(
            sol.check_solution_of(puzzle).is_ok(),
            "{}: wrong answer on {}",
            s.name(),
            puzzle
        );
    }
    match r.status {
        Status::Stalled => prop_assert_eq!(s.name(), "logic"),
        Status::GaveUp => prop_assert!(s.explosive(), "{} gave up on {}", s.name(), puzzle),
        st => {
            prop_assert_eq!(st, reference.status, "{} on {}", s.name(), puzzle);
            prop_assert_eq!(r.solutions, reference.solutions);
            if st == Status::Solved {
                prop_assert_eq!(r.grid, reference.grid, "{} on {}", s.name(), puzzle);
            }
        }
    }
    Ok(())
}

/// The generator gives a real mix: unique, multiple and no-solution puzzles
/// (deterministic sample).
#[test]
fn generated_puzzles_mix_statuses() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{RngAlgorithm, TestRng, TestRunner};
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    let gen = puzzles(17..50);
    let fast = strategy("fast");
    let mut solver = Solver::new();
    let mut counts = std::collections::BTreeMap::new();
    for _ in 0..200 {
        let case = gen.new_tree(&mut runner).unwrap().current();
        let r = solver.solve(&case.puzzle, &fast, &Limits::uniqueness());
        *counts.entry(r.status).or_insert(0u32) += 1;
    }
    eprintln!("{counts:?}");
    for st in [Status::Solved, Status::Multiple, Status::NoSolution] {
        assert!(counts.get(&st).copied().unwrap_or(0) >= 10, "{counts:?}");
    }
}

proptest! {
    #![proptest_config(config())]

    /// The fast bitmask answer check (run on every benchmark result) agrees
    /// with the detailed one on valid grids, damaged grids (a cell changed,
    /// blanked or swapped with another; two rows or columns swapped) and
    /// puzzles whose givens the grid keeps or breaks.
    #[test]
    fn answer_checks_agree(
        seed in prop::collection::vec((0usize..81, 1u8..=9), 0..12),
        edits in prop::collection::vec((0usize..81, 0u8..=9, 0usize..81, 0u8..5), 0..3),
        keep in prop::collection::vec(any::<bool>(), 81),
        given_cell in 0usize..81,
        given_digit in 1u8..=9,
    ) {
        let sol = solved_grid(&seed);
        let mut puzzle = Grid::empty();
        for (cell, &k) in keep.iter().enumerate() {
            if k {
                puzzle.set(cell, sol.get(cell));
            }
        }
        let mut other = puzzle;
        other.set(given_cell, given_digit);
        let mut g = sol;
        for &(cell, v, cell2, kind) in &edits {
            match kind {
                0 => g.set(cell, v),
                1 => g.set(cell, 0),
                // Whole rows or columns swapped: rows and columns stay valid,
                // boxes break when the two are in different bands/stacks.
                3 => {
                    let (r1, r2) = (cell / 9, cell2 / 9);
                    for c in 0..9 {
                        let (a, b) = (g.get(9 * r1 + c), g.get(9 * r2 + c));
                        g.set(9 * r1 + c, b);
                        g.set(9 * r2 + c, a);
                    }
                }
                4 => {
                    let (c1, c2) = (cell % 9, cell2 % 9);
                    for r in 0..9 {
                        let (a, b) = (g.get(9 * r + c1), g.get(9 * r + c2));
                        g.set(9 * r + c1, b);
                        g.set(9 * r + c2, a);
                    }
                }
                _ => {
                    let (a, b) = (g.get(cell), g.get(cell2));
                    g.set(cell, b);
                    g.set(cell2, a);
                }
            }
        }
        for p in [Grid::empty(), puzzle, other] {
            prop_assert_eq!(
                g.is_solution_of(&p),
                g.check_solution_of(&p).is_ok(),
                "grid {} puzzle {}", g, p
            );
            prop_assert!(sol.is_solution_of(&Grid::empty()));
        }
    }
}
