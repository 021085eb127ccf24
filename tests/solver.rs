//! Behaviour of the engine under every strategy. Every returned solution is
//! validated against the rules and the givens.

mod common;

use bench_sudoku::grid::Grid;
use bench_sudoku::solver::{Limits, SolveResult, Solver, Status, Strategy};
use common::*;

fn solve(p: &Grid, s: &Strategy, limits: &Limits) -> SolveResult {
    let r = Solver::new().solve(p, s, limits);
    validate(p, s, &r);
    r
}

/// Checks what every result must satisfy.
fn validate(p: &Grid, s: &Strategy, r: &SolveResult) {
    if let Some(sol) = r.solution() {
        if let Err(e) = sol.check_solution_of(p) {
            panic!("{} returned an invalid solution for {p}: {e}", s.name());
        }
    }
    let c = &r.counters;
    assert!(c.backtracks <= c.guesses, "{}: {c:?}", s.name());
    assert!(c.max_depth as u64 <= c.guesses, "{}: {c:?}", s.name());
    assert!(c.max_depth <= 81);
    match r.status {
        Status::Solved => assert_eq!(r.solutions, 1),
        Status::Multiple => assert!(r.solutions >= 2),
        Status::NoSolution | Status::Invalid | Status::Stalled => {
            assert_eq!(r.solutions, 0)
        }
        Status::GaveUp => {}
        st => panic!("{}: a built-in engine reported {st}", s.name()),
    }
    // An exhausted search undoes every guess it made.
    if r.status == Status::NoSolution {
        assert_eq!(c.guesses, c.backtracks, "{}: {c:?}", s.name());
    }
    // The stalled grid keeps the givens and breaks no rule.
    if r.status == Status::Stalled {
        assert!(r.grid.find_conflict().is_none());
        for i in 0..81 {
            if p.get(i) != 0 {
                assert_eq!(r.grid.get(i), p.get(i));
            }
        }
        assert!(!r.grid.is_full());
    }
}

#[test]
fn every_strategy_solves_the_issue_puzzles() {
    let limits = Limits::uniqueness();
    for p in LOGIC_SOLVES
        .iter()
        .chain([&SINGLES_STALL, &EASY, &FAMOUS_HARD])
    {
        let g = grid(p);
        let mut reference: Option<Grid> = None;
        for s in Strategy::all() {
            let r = solve(&g, &s, &limits);
            match (s.name(), r.status) {
                (_, Status::Solved) => {
                    let sol = *r.solution().unwrap();
                    if let Some(prev) = reference {
                        assert_eq!(prev, sol, "{} disagrees on {p}", s.name());
                    }
                    reference = Some(sol);
                    // Unique with limit 2: the search ran to completion.
                    assert_eq!(r.counters.guesses, r.counters.backtracks, "{}", s.name());
                }
                ("logic", Status::Stalled) => {}
                ("naive", Status::GaveUp) => {}
                (name, st) => panic!("{name} on {p}: unexpected {st}"),
            }
        }
        assert!(reference.is_some());
    }
}

#[test]
fn logic_solves_four_and_stalls_on_two() {
    let logic = Strategy::named("logic").unwrap();
    let limits = Limits::uniqueness();
    // Singles alone stall on SINGLES_STALL; the ladder's locked candidates
    // finish it.
    for p in LOGIC_SOLVES.into_iter().chain([SINGLES_STALL]) {
        let r = solve(&grid(p), &logic, &limits);
        assert_eq!(r.status, Status::Solved, "{p}");
        assert_eq!(r.counters.guesses, 0);
        assert!(r.counters.hidden_singles + r.counters.naked_singles > 0);
    }
    let singles = Strategy::parse("hidden,guess=no").unwrap();
    assert_eq!(
        solve(&grid(SINGLES_STALL), &singles, &limits).status,
        Status::Stalled
    );
    for p in [LADDER_STALLS, FAMOUS_HARD] {
        let g = grid(p);
        let r = solve(&g, &logic, &limits);
        assert_eq!(r.status, Status::Stalled, "{p}");
        assert_eq!(r.counters.guesses, 0);
        // `filled` counts the cells logic placed.
        assert_eq!(
            r.filled as usize,
            r.grid.givens() - g.givens(),
            "filled must count placed cells"
        );
        assert_eq!(
            r.filled as u64,
            r.counters.naked_singles + r.counters.hidden_singles
        );
    }
    // LADDER_STALLS yields some progress, up to chains; the famous one none
    // at all.
    let r = solve(&grid(LADDER_STALLS), &logic, &limits);
    assert_eq!(r.filled, 16);
    assert!(r.counters.chain_eliminations > 0 && r.counters.subset_eliminations > 0);
    let r = solve(&grid(FAMOUS_HARD), &logic, &limits);
    assert_eq!(r.filled, 0);
    assert_eq!(
        r.counters.locked_eliminations + r.counters.chain_eliminations,
        0
    );
}

#[test]
fn stronger_propagation_never_needs_more_guesses_here() {
    // Measured facts about these puzzles (not a law in general): locked
    // solves the fourth puzzle without guessing; hidden needs a few.
    let limits = Limits::uniqueness();
    let g = grid(SINGLES_STALL);
    let hidden = solve(&g, &Strategy::named("hidden").unwrap(), &limits);
    let locked = solve(&g, &Strategy::named("locked").unwrap(), &limits);
    assert_eq!(locked.counters.guesses, 0);
    assert!(hidden.counters.guesses > 0);
    let famous = grid(FAMOUS_HARD);
    let mrv = solve(&famous, &Strategy::named("mrv").unwrap(), &limits);
    let hidden = solve(&famous, &Strategy::named("hidden").unwrap(), &limits);
    let locked = solve(&famous, &Strategy::named("locked").unwrap(), &limits);
    assert!(mrv.counters.guesses > hidden.counters.guesses);
    assert!(hidden.counters.guesses > locked.counters.guesses);
    assert!(locked.counters.guesses > 0);
}

#[test]
fn multiple_solutions_are_counted_up_to_the_limit() {
    let empty = Grid::empty();
    for s in Strategy::all() {
        if s.name() == "logic" {
            let r = solve(&empty, &s, &Limits::uniqueness());
            assert_eq!(r.status, Status::Stalled);
            continue;
        }
        let r = solve(&empty, &s, &Limits::uniqueness());
        assert_eq!(r.status, Status::Multiple, "{}", s.name());
        assert_eq!(r.solutions, 2);
        let r = solve(&empty, &s, &Limits::first().with_solutions(25));
        assert_eq!(r.status, Status::Multiple, "{}", s.name());
        assert_eq!(r.solutions, 25, "{}", s.name());
    }
    // A puzzle with exactly two solutions (a deadly rectangle left open).
    let sol = solve(
        &grid(EASY),
        &Strategy::named("hidden").unwrap(),
        &Limits::uniqueness(),
    )
    .grid;
    let two = deadly_rectangle(&sol);
    for s in Strategy::all() {
        let r = solve(&two, &s, &Limits::first().with_solutions(10));
        if s.name() == "logic" {
            assert_eq!(r.status, Status::Stalled);
            continue;
        }
        assert_eq!(r.status, Status::Multiple, "{}", s.name());
        assert_eq!(r.solutions, 2, "{}: exactly two solutions", s.name());
        assert_eq!(r.counters.guesses, r.counters.backtracks);
    }
}

#[test]
fn every_complete_strategy_counts_all_solutions_alike() {
    // A minimal puzzle with a band's clues removed has many solutions: a
    // count to the end (limit far above it) must agree between exact
    // cover and the cell-branching engines, and the search must run to
    // completion (every guess undone).
    let hard =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/datasets/hard.csv")).unwrap();
    let p = grid(hard.lines().nth(1).unwrap().split(',').next().unwrap());
    let mut open = p;
    for c in 0..15 {
        open.set(c, 0);
    }
    let all = Limits::first().with_solutions(1_000_000);
    let reference = solve(&open, &Strategy::named("fast").unwrap(), &all);
    assert_eq!(reference.status, Status::Multiple);
    assert!(reference.solutions > 1000, "{}", reference.solutions);
    for name in ["dlx", "hidden", "locked", "mrv"] {
        let r = solve(&open, &Strategy::named(name).unwrap(), &all);
        assert_eq!(
            (r.status, r.solutions),
            (Status::Multiple, reference.solutions),
            "{name}"
        );
        assert_eq!(r.counters.guesses, r.counters.backtracks, "{name}");
    }
}

/// Blanks the four corners of a rectangle whose values swap (a b / b a)
/// within two boxes: the puzzle then has exactly two solutions.
fn deadly_rectangle(sol: &Grid) -> Grid {
    for r1 in 0..9 {
        for r2 in (r1 + 1)..9 {
            if r1 / 3 != r2 / 3 {
                continue;
            }
            for c1 in 0..9 {
                for c2 in (c1 + 1)..9 {
                    if c1 / 3 == c2 / 3 {
                        continue;
                    }
                    let a = sol.get(r1 * 9 + c1);
                    let b = sol.get(r1 * 9 + c2);
                    if sol.get(r2 * 9 + c1) == b && sol.get(r2 * 9 + c2) == a {
                        let mut g = *sol;
                        for cell in [r1 * 9 + c1, r1 * 9 + c2, r2 * 9 + c1, r2 * 9 + c2] {
                            g.set(cell, 0);
                        }
                        return g;
                    }
                }
            }
        }
    }
    panic!("no deadly rectangle in {sol}");
}

#[test]
fn valid_givens_without_solution() {
    let g = grid(NO_SOLUTION);
    assert!(g.find_conflict().is_none());
    for s in Strategy::all() {
        let r = solve(&g, &s, &Limits::uniqueness());
        match (s.name(), r.status) {
            (_, Status::NoSolution) => {
                assert_eq!(r.counters.guesses, r.counters.backtracks, "{}", s.name())
            }
            ("logic", Status::Stalled) | ("naive", Status::GaveUp) => {}
            (name, st) => panic!("{name}: unexpected {st}"),
        }
    }
    // The propagating strategies must search to prove it.
    let r = solve(
        &g,
        &Strategy::named("hidden").unwrap(),
        &Limits::uniqueness(),
    );
    assert!(r.counters.guesses >= 2);
}

#[test]
fn conflicting_givens_are_invalid_and_named() {
    let mut cells = *grid(EASY).cells();
    // r1c1 is blank in EASY; put the 6 of r1c2 next to it.
    assert_eq!(cells[0], 0);
    cells[0] = 6;
    let g = Grid::from_cells(cells).unwrap();
    for s in Strategy::all() {
        let r = solve(&g, &s, &Limits::uniqueness());
        assert_eq!(r.status, Status::Invalid, "{}", s.name());
        let c = r.conflict.expect("conflict named");
        assert_eq!(c.to_string(), "r1c1 and r1c2 are both 6");
        assert_eq!(r.counters.nodes, 0);
    }
}

#[test]
fn counters_are_identical_across_runs_and_workspaces() {
    let mut shared = Solver::new();
    for p in LOGIC_SOLVES
        .iter()
        .chain([&SINGLES_STALL, &FAMOUS_HARD, &NO_SOLUTION])
    {
        let g = grid(p);
        for s in Strategy::all() {
            let limits = Limits::uniqueness().with_max_guesses(200_000);
            let a = shared.solve(&g, &s, &limits);
            let b = shared.solve(&g, &s, &limits);
            let c = Solver::new().solve(&g, &s, &limits);
            assert_eq!(a, b, "{} on {p}", s.name());
            assert_eq!(a, c, "{} on {p}", s.name());
        }
    }
}

#[test]
fn the_guess_budget_stops_explosive_strategies() {
    let g = grid(FAMOUS_HARD);
    for name in ["naive", "rowmajor"] {
        let s = Strategy::named(name).unwrap();
        let r = solve(&g, &s, &Limits::uniqueness().with_max_guesses(5_000));
        assert_eq!(r.status, Status::GaveUp, "{name}");
        assert_eq!(r.counters.guesses, 5_000, "{name}: exactly the budget");
    }
    // Counting every solution of an empty grid stops at the budget too.
    let s = Strategy::named("hidden").unwrap();
    let r = solve(
        &Grid::empty(),
        &s,
        &Limits::first()
            .with_solutions(u32::MAX)
            .with_max_guesses(10_000),
    );
    assert_eq!(r.status, Status::GaveUp);
    assert!(r.solutions > 2);
}

#[test]
fn value_order_and_branch_axes_change_the_search() {
    let g = grid(SINGLES_STALL);
    let run = |spec: &str, limits: &Limits| solve(&g, &Strategy::parse(spec).unwrap(), limits);
    let unique = Limits::uniqueness();
    let first = Limits::first();
    // Proving uniqueness explores the whole tree: value order cannot matter.
    let asc = run("prop=naked,branch=mrv,order=asc", &unique);
    let desc = run("mrv", &unique);
    assert_eq!(asc.counters, desc.counters);
    // For the first solution it does.
    let asc1 = run("prop=naked,branch=mrv,order=asc", &first);
    let desc1 = run("mrv", &first);
    assert_eq!(asc1.grid, desc1.grid);
    assert_ne!(asc1.counters, desc1.counters);
    // Fewest-candidate branching beats first-cell and most-candidate branching.
    let max = run("prop=naked,branch=max", &unique);
    let first_cell = run("prop=naked,branch=first", &unique);
    assert_eq!(asc.grid, max.grid);
    assert!(asc.counters.guesses < first_cell.counters.guesses);
    assert!(first_cell.counters.guesses < max.counters.guesses);
}

#[test]
fn strategies_agree_on_hundreds_of_generated_puzzles() {
    let hidden = Strategy::named("hidden").unwrap();
    let limits = Limits::uniqueness().with_max_guesses(20_000);
    let mut solver = Solver::new();
    let seeds: Vec<Grid> = LOGIC_SOLVES
        .iter()
        .chain([&SINGLES_STALL, &EASY, &FAMOUS_HARD])
        .map(|p| solver.solve(&grid(p), &hidden, &limits).grid)
        .collect();
    let mut rng = TestRng::new(2026);
    let strategies = Strategy::all();
    let (mut unique, mut multiple) = (0, 0);
    for i in 0..300 {
        let sol = random_symmetry(&seeds[i % seeds.len()], &mut rng);
        let mut cells = *sol.cells();
        // Keep between 26 and 50 clues: unique and multiple-solution puzzles.
        let keep = 26 + rng.below(25);
        let mut order: Vec<usize> = (0..81).collect();
        rng.shuffle(&mut order);
        for &c in &order[keep..] {
            cells[c] = 0;
        }
        let p = Grid::from_cells(cells).unwrap();
        let reference = solver.solve(&p, &Strategy::named("locked").unwrap(), &limits);
        validate(&p, &hidden, &reference);
        match reference.status {
            Status::Solved => unique += 1,
            Status::Multiple => multiple += 1,
            st => panic!("locked: {st} on {p}"),
        }
        for s in &strategies {
            let r = solver.solve(&p, s, &limits);
            validate(&p, s, &r);
            match (s.name(), r.status) {
                ("logic", Status::Stalled) | (_, Status::GaveUp) => {}
                (_, st) => {
                    assert_eq!(st, reference.status, "{} on {p}", s.name());
                    if st == Status::Solved {
                        assert_eq!(r.grid, reference.grid, "{} on {p}", s.name());
                    }
                }
            }
        }
    }
    assert!(
        unique > 50 && multiple > 50,
        "{unique} unique, {multiple} multiple"
    );
}

/// Every strategy against `locked` on a sample of each corpus (all of it
/// for the propagating strategies). Enabled by BENCH_SUDOKU_CORPORA.
#[test]
fn corpus_cross_check() {
    let Some(dir) = corpora() else {
        eprintln!("BENCH_SUDOKU_CORPORA not set: corpus cross-check skipped");
        return;
    };
    let locked = Strategy::named("locked").unwrap();
    let mut solver = Solver::new();
    for file in [
        "puzzles2_17_clue",
        "puzzles3_magictour_top1465",
        "puzzles5_forum_hardest_1905_11+",
        "puzzles6_forum_hardest_1106",
        "puzzles7_serg_benchmark",
    ] {
        let puzzles = read_corpus(&dir.join(file));
        assert!(!puzzles.is_empty());
        for s in Strategy::all() {
            // Explosive strategies: every 97th puzzle, within a small budget.
            let (step, budget) = if s.explosive() {
                (97, 50_000)
            } else {
                (7, 1_000_000)
            };
            let limits = Limits::uniqueness().with_max_guesses(budget);
            for p in puzzles.iter().step_by(step) {
                let reference = solver.solve(p, &locked, &limits);
                let r = solver.solve(p, &s, &limits);
                validate(p, &s, &r);
                match (s.name(), r.status) {
                    ("logic", Status::Stalled) | (_, Status::GaveUp) => {}
                    (_, st) => {
                        assert_eq!(st, reference.status, "{file}: {} on {p}", s.name());
                        if st == Status::Solved {
                            assert_eq!(r.grid, reference.grid, "{file}: {} on {p}", s.name());
                        }
                    }
                }
            }
        }
    }
}
