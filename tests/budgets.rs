//! Budgets and pathological inputs: every strategy terminates within its
//! guess budget on sparse puzzles, the empty grid and a puzzle that makes
//! `naive` explode, and reports `gave_up` or the right count.

mod common;

use bench_sudoku::solver::{Limits, SolveResult, Solver, Status, Strategy, DEFAULT_MAX_GUESSES};
use bench_sudoku::Grid;
use common::*;

/// A valid full grid (the solution of `FAMOUS_HARD`).
const FULL: &str =
    "812753649675491283943682175154237896369845721287169534521974368438526917796318452";

/// Checks what every outcome must satisfy under `limits`.
fn check_bounded(s: &Strategy, puzzle: &Grid, limits: &Limits, r: &SolveResult) {
    let name = s.name();
    assert!(
        r.counters.guesses <= limits.max_guesses,
        "{name}: {} guesses over a budget of {} on {puzzle}",
        r.counters.guesses,
        limits.max_guesses
    );
    assert!(r.solutions <= limits.solutions, "{name} on {puzzle}");
    if r.solutions > 0 {
        assert!(
            r.grid.is_solution_of(puzzle),
            "{name}: wrong answer on {puzzle}"
        );
    }
    match r.status {
        Status::GaveUp => assert_eq!(
            r.counters.guesses, limits.max_guesses,
            "{name}: gave up before the budget on {puzzle}"
        ),
        Status::Stalled => assert_eq!(name, "logic", "{name} stalled on {puzzle}"),
        _ => {}
    }
}

/// Subsets of a valid grid with 0..=16 givens have several solutions (no
/// 16-clue Sudoku exists): every strategy reports `multiple` with exactly the
/// requested count, `gave_up` within the budget, or (logic) `stalled`.
#[test]
fn sparse_puzzles_terminate_within_budget() {
    let full = grid(FULL);
    let mut rng = TestRng::new(16);
    let mut solver = Solver::new();
    let limits = Limits::first().with_solutions(3).with_max_guesses(50_000);
    for givens in 0..=16 {
        for _ in 0..3 {
            let mut cells: Vec<usize> = (0..81).collect();
            rng.shuffle(&mut cells);
            let mut puzzle = Grid::empty();
            for &c in &cells[..givens] {
                puzzle.set(c, full.get(c));
            }
            for s in Strategy::all() {
                let r = solver.solve(&puzzle, &s, &limits);
                check_bounded(&s, &puzzle, &limits, &r);
                match r.status {
                    Status::Multiple => assert_eq!(r.solutions, 3, "{} on {puzzle}", s.name()),
                    Status::GaveUp => assert!(s.explosive(), "{} gave up on {puzzle}", s.name()),
                    Status::Stalled => {}
                    st => panic!("{}: {st} on {givens}-given subset {puzzle}", s.name()),
                }
            }
        }
    }
}

/// Count mode on the empty grid stops exactly at the limit, for every
/// strategy that guesses.
#[test]
fn empty_grid_count_stops_at_the_limit() {
    let mut solver = Solver::new();
    let empty = Grid::empty();
    for n in [1, 2, 1000] {
        let limits = Limits::first().with_solutions(n);
        for s in Strategy::all() {
            let r = solver.solve(&empty, &s, &limits);
            check_bounded(&s, &empty, &limits, &r);
            if s.name() == "logic" {
                assert_eq!(r.status, Status::Stalled);
                continue;
            }
            let want = if n == 1 {
                Status::Solved
            } else {
                Status::Multiple
            };
            assert_eq!(r.status, want, "{} count {n}", s.name());
            assert_eq!(r.solutions, n, "{} count {n}", s.name());
        }
    }
}

/// `naive` needs more than the default budget on this puzzle: it gives up
/// after exactly `DEFAULT_MAX_GUESSES` guesses; the other strategies solve it.
#[test]
fn naive_explosion_gives_up_at_the_default_budget() {
    let puzzle = grid(FAMOUS_HARD);
    let mut solver = Solver::new();
    let limits = Limits::uniqueness();
    assert_eq!(limits.max_guesses, DEFAULT_MAX_GUESSES);
    for s in Strategy::all() {
        let r = solver.solve(&puzzle, &s, &limits);
        check_bounded(&s, &puzzle, &limits, &r);
        match s.name() {
            "naive" => {
                assert_eq!(r.status, Status::GaveUp);
                assert_eq!(r.counters.guesses, DEFAULT_MAX_GUESSES);
            }
            "logic" => assert_eq!(r.status, Status::Stalled),
            "rowmajor" => assert!(matches!(r.status, Status::Solved | Status::GaveUp)),
            name => assert_eq!(r.status, Status::Solved, "{name}"),
        }
    }
    // A small budget is honoured exactly, by every guessing strategy.
    let small = Limits::uniqueness().with_max_guesses(5);
    for s in Strategy::all() {
        let r = solver.solve(&puzzle, &s, &small);
        check_bounded(&s, &puzzle, &small, &r);
        if s.name() != "logic" {
            assert_eq!(r.status, Status::GaveUp, "{}", s.name());
        }
    }
}

/// `solve --count 1000` on the empty grid prints 1000 solutions counted,
/// status multiple; `--max-guesses` turns the naive explosion into gave_up.
#[test]
fn cli_count_and_max_guesses() {
    let empty = "0".repeat(81);
    let out = command()
        .args(["solve", "--json", "--count", "1000", &empty])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["status"], "multiple", "{v}");
    assert_eq!(v["solutions"], 1000, "{v}");

    let out = command()
        .args([
            "solve",
            "--json",
            "-s",
            "naive",
            "--max-guesses",
            "1000",
            FAMOUS_HARD,
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["status"], "gave_up", "{v}");
    assert_eq!(v["guesses"], 1000, "{v}");
}
