//! The engine under every named strategy on arbitrary grids.
//!
//! The first 81 input bytes, each `% 10`, are the cells (missing bytes are
//! blanks). For every strategy: no panic; a `solved`/`multiple` grid is a
//! valid solution that keeps the givens; `invalid` exactly when the givens
//! conflict. Solution counts (limit 2) agree between every pair of
//! strategies that finished (neither `gave_up` nor `stalled`). A small guess
//! budget makes the explosive strategies (`naive`, `rowmajor`) give up fast.
#![no_main]

use bench_sudoku::solver::{Limits, Solver, Status, Strategy};
use bench_sudoku::Grid;
use libfuzzer_sys::fuzz_target;
use std::cell::RefCell;

const MAX_GUESSES: u64 = 20_000;

thread_local! {
    static STATE: RefCell<(Solver, Vec<Strategy>)> =
        RefCell::new((Solver::new(), Strategy::all()));
}

fuzz_target!(|data: &[u8]| {
    let mut cells = [0u8; 81];
    for (c, &b) in cells.iter_mut().zip(data) {
        *c = b % 10;
    }
    let puzzle = Grid::from_cells(cells).expect("values 0..=9");
    let conflicting = puzzle.find_conflict().is_some();
    let limits = Limits::uniqueness().with_max_guesses(MAX_GUESSES);
    STATE.with(|state| {
        let (solver, strategies) = &mut *state.borrow_mut();
        // (strategy name, status, solution) of the strategies that finished.
        let mut finished: Vec<(&str, Status, Option<Grid>)> = Vec::new();
        for s in strategies.iter() {
            let r = solver.solve(&puzzle, s, &limits);
            let name = s.name();
            assert_eq!(
                r.status == Status::Invalid,
                conflicting,
                "{name}: invalid iff the givens conflict on {puzzle}"
            );
            match r.status {
                Status::Solved | Status::Multiple => {
                    if let Err(e) = r.grid.check_solution_of(&puzzle) {
                        panic!("{name}: bad {} grid for {puzzle}: {e}", r.status);
                    }
                    let want = if r.status == Status::Solved { 1 } else { 2 };
                    assert_eq!(r.solutions, want, "{name}: solution count on {puzzle}");
                }
                Status::NoSolution | Status::Invalid => {
                    assert_eq!(r.solutions, 0, "{name}: solution count on {puzzle}");
                }
                Status::Stalled => {
                    assert_eq!(name, "logic", "only logic stalls ({puzzle})");
                }
                Status::GaveUp => {
                    assert!(
                        r.counters.guesses >= MAX_GUESSES,
                        "{name}: gave up after {} guesses on {puzzle}",
                        r.counters.guesses
                    );
                    // A solution found before the budget ran out is still checked.
                    if r.solutions > 0 {
                        if let Err(e) = r.grid.check_solution_of(&puzzle) {
                            panic!("{name}: bad grid after giving up on {puzzle}: {e}");
                        }
                    }
                }
                fault => panic!("{name}: a built-in engine reported {fault} on {puzzle}"),
            }
            if !matches!(r.status, Status::GaveUp | Status::Stalled) {
                finished.push((name, r.status, r.solution().copied()));
            }
        }
        if let Some((first, status, solution)) = finished.first().copied() {
            for &(name, st, sol) in &finished[1..] {
                assert_eq!(st, status, "{name} vs {first} on {puzzle}");
                if st == Status::Solved {
                    assert_eq!(
                        sol, solution,
                        "{name} vs {first}: unique solution on {puzzle}"
                    );
                }
            }
        }
    });
});
