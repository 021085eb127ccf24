//! The `fast` strategy against the reference `locked` strategy: statuses,
//! solutions, solution counts, counters and observer events.
//!
//! Corpus cross-validation runs only when `BENCH_SUDOKU_CORPORA` names a
//! directory holding the standard corpora (see `corpus_fast_matches_locked`).

use bench_sudoku::solver::{Counters, Limits, Observer, SolveResult, Solver, Status, Strategy};
use bench_sudoku::Grid;
use proptest::prelude::*;

const PUZZLES: [&str; 6] = [
    "009020034070008006600500000003900080700040002050002700000001007200300090480060500",
    "000007308200000007097805600070100906005903700901008030002304560800000001504200000",
    "100040007050002090008000400070200008006090100300008050001000600020800040600030005",
    "850000200060000010001000437000302000005080900000701000586000300020000050007000046",
    "060593000901000500030400090108020004400309001200010609080006020004000807000785010",
    "800000000070090200003600000050007000000045700000100030001000068008500010090000400",
];

fn fast() -> Strategy {
    Strategy::named("fast").unwrap()
}

fn locked() -> Strategy {
    Strategy::named("locked").unwrap()
}

fn grid(s: &str) -> Grid {
    Grid::parse(s).unwrap()
}

/// Asserts that `fast` and `locked` agree on `puzzle` under `limits` and that
/// every returned solution is valid. Returns the `fast` result.
fn agree(solver: &mut Solver, puzzle: &Grid, limits: &Limits) -> SolveResult {
    let a = solver.solve(puzzle, &fast(), limits);
    let b = solver.solve(puzzle, &locked(), limits);
    assert_eq!(a.status, b.status, "status of {puzzle}");
    assert_eq!(a.solutions, b.solutions, "solution count of {puzzle}");
    if a.solutions > 0 {
        a.grid
            .check_solution_of(puzzle)
            .unwrap_or_else(|e| panic!("fast solution of {puzzle}: {e}"));
    }
    if a.status == Status::Solved && limits.solutions >= 2 {
        assert_eq!(a.grid, b.grid, "unique solution of {puzzle}");
    }
    if a.status == Status::Invalid {
        assert_eq!(a.conflict, b.conflict);
        assert_eq!(a.grid, *puzzle);
    }
    a
}

/// The search-counter invariants of every run; a run that explored its
/// whole tree (`complete`) undid every guess.
fn check_counters(c: &Counters, complete: bool) {
    assert_eq!(c.nodes, 1 + c.guesses, "nodes = root + guesses");
    assert!(c.backtracks <= c.guesses);
    if complete {
        assert_eq!(c.backtracks, c.guesses);
    }
    if c.guesses > 0 {
        assert!(c.max_depth >= 1);
        assert!(c.max_depth as u64 <= c.guesses);
    } else {
        assert_eq!(c.max_depth, 0);
    }
}

#[test]
fn named_puzzles_match_locked() {
    let mut solver = Solver::new();
    for p in PUZZLES {
        let puzzle = grid(p);
        let r = agree(&mut solver, &puzzle, &Limits::uniqueness());
        assert_eq!(r.status, Status::Solved, "{p}");
        assert_eq!(r.solutions, 1);
        assert_eq!(r.filled as usize, 81 - puzzle.givens());
        // Proving uniqueness explores the whole tree.
        check_counters(&r.counters, true);
        // First solution: the same grid.
        let first = agree(&mut solver, &puzzle, &Limits::first());
        assert_eq!(first.grid, r.grid);
        assert!(first.counters.guesses <= r.counters.guesses);
    }
}

#[test]
fn singles_only_puzzle_counts_every_placement() {
    let mut solver = Solver::new();
    let puzzle = grid(PUZZLES[0]);
    let r = solver.solve(&puzzle, &fast(), &Limits::uniqueness());
    assert_eq!(r.status, Status::Solved);
    assert_eq!(r.counters.guesses, 0);
    assert_eq!(
        r.counters.naked_singles + r.counters.hidden_singles,
        (81 - puzzle.givens()) as u64
    );
}

#[test]
fn deterministic() {
    let mut a = Solver::new();
    let mut b = Solver::new();
    for p in PUZZLES {
        let puzzle = grid(p);
        for limits in [Limits::first(), Limits::uniqueness()] {
            let x = a.solve(&puzzle, &fast(), &limits);
            let y = a.solve(&puzzle, &fast(), &limits);
            let z = b.solve(&puzzle, &fast(), &limits);
            assert_eq!(x, y);
            assert_eq!(x, z);
        }
    }
}

/// A puzzle with several solutions: givens of a solved grid removed until
/// `locked` finds two or more.
fn multi_solution_puzzle() -> Grid {
    let mut solver = Solver::new();
    let puzzle = grid(PUZZLES[3]);
    let solution = solver.solve(&puzzle, &locked(), &Limits::first()).grid;
    let mut g = solution;
    // Blank cells in a fixed scattered order.
    for k in 0..81 {
        let cell = (k * 37) % 81;
        g.set(cell, 0);
        let r = solver.solve(&g, &locked(), &Limits::uniqueness());
        if r.status == Status::Multiple {
            return g;
        }
    }
    unreachable!("an emptied grid has many solutions")
}

#[test]
fn multiple_solutions_are_counted() {
    let mut solver = Solver::new();
    let puzzle = multi_solution_puzzle();
    let r = agree(&mut solver, &puzzle, &Limits::uniqueness());
    assert_eq!(r.status, Status::Multiple);
    assert_eq!(r.solutions, 2);
    check_counters(&r.counters, false);
    // Count all of them (the puzzle has few blanks).
    let all = agree(&mut solver, &puzzle, &Limits::first().with_solutions(1000));
    assert!(all.solutions >= 2 && all.solutions < 1000);
    assert_eq!(all.counters.guesses, all.counters.backtracks);
}

#[test]
fn empty_grid_has_multiple_solutions() {
    let mut solver = Solver::new();
    let r = agree(&mut solver, &Grid::empty(), &Limits::uniqueness());
    assert_eq!(r.status, Status::Multiple);
    assert_eq!(r.solutions, 2);
    assert!(r.counters.guesses < 200, "{:?}", r.counters);
    let first = solver.solve(&Grid::empty(), &fast(), &Limits::first());
    assert_eq!(first.status, Status::Solved);
    assert!(first.grid.is_solution_of(&Grid::empty()));
    assert_eq!(first.filled, 81);
}

#[test]
fn no_solution_with_valid_givens() {
    // Row 1 needs a 9 in r1c9, but column 9 already has one.
    let mut s = String::from("12345678.");
    s.push_str("........9");
    s.push_str(&".".repeat(63));
    let puzzle = grid(&s);
    assert!(puzzle.find_conflict().is_none());
    let mut solver = Solver::new();
    let r = agree(&mut solver, &puzzle, &Limits::uniqueness());
    assert_eq!(r.status, Status::NoSolution);
    assert_eq!(r.grid, puzzle);
    assert_eq!(r.filled, 0);
    assert_eq!(r.counters.guesses, r.counters.backtracks);

    // A subtler one that needs search: a puzzle of the list with a given
    // changed to a digit that breaks no rule but leaves no solution.
    let mut solver = Solver::new();
    let base = grid(PUZZLES[1]);
    let mut found = false;
    'outer: for cell in 0..81 {
        if base.get(cell) != 0 {
            continue;
        }
        for v in 1..=9 {
            let mut g = base;
            g.set(cell, v);
            if g.find_conflict().is_some() {
                continue;
            }
            let r = agree(&mut solver, &g, &Limits::uniqueness());
            if r.status == Status::NoSolution {
                check_counters(&r.counters, true);
                found = true;
                break 'outer;
            }
        }
    }
    assert!(found);
}

#[test]
fn conflicting_givens_are_invalid() {
    let mut solver = Solver::new();
    for (a, b) in [(0usize, 8usize), (0, 72), (0, 20), (40, 41)] {
        let mut g = Grid::empty();
        g.set(a, 5);
        g.set(b, 5);
        let r = agree(&mut solver, &g, &Limits::uniqueness());
        assert_eq!(r.status, Status::Invalid);
        assert!(r.conflict.is_some());
        assert_eq!(r.counters, Counters::default());
    }
    // A conflict among many givens of a real puzzle.
    let mut g = grid(PUZZLES[0]);
    g.set(0, 9); // 9 is already in row 1
    let r = agree(&mut solver, &g, &Limits::first());
    assert_eq!(r.status, Status::Invalid);
}

#[test]
fn guess_budget_gives_up() {
    let mut solver = Solver::new();
    let limits = Limits::first()
        .with_solutions(u32::MAX)
        .with_max_guesses(10);
    let r = solver.solve(&Grid::empty(), &fast(), &limits);
    assert_eq!(r.status, Status::GaveUp);
    assert_eq!(r.counters.guesses, 10);
    assert!(r.counters.backtracks <= 10);
    // A solution found before the budget ran out is kept.
    let g1 = solver
        .solve(&Grid::empty(), &fast(), &Limits::first())
        .counters
        .guesses;
    let r = solver.solve(&Grid::empty(), &fast(), &limits.with_max_guesses(g1 + 50));
    assert_eq!(r.status, Status::GaveUp);
    assert_eq!(r.counters.guesses, g1 + 50);
    assert!(r.solutions >= 1);
    assert!(r.grid.is_solution_of(&Grid::empty()));
    // Budget zero on a puzzle that needs a guess.
    let r = solver.solve(
        &grid(PUZZLES[5]),
        &fast(),
        &Limits::first().with_max_guesses(0),
    );
    assert_eq!(r.status, Status::GaveUp);
    assert_eq!(r.counters.guesses, 0);
    assert_eq!(r.solutions, 0);
}

/// Counts observer events.
#[derive(Default)]
struct Events {
    guesses: u64,
    backtracks: u64,
    solutions: u32,
    contradictions: u64,
    placed: u64,
    max_depth: u32,
}

impl Observer for Events {
    fn placed(&mut self, cell: u8, digit: u8, _: bench_sudoku::solver::observer::Reason, _: u32) {
        assert!(cell < 81 && (1..=9).contains(&digit));
        self.placed += 1;
    }
    fn guess(&mut self, cell: u8, digit: u8, candidates: u16, depth: u32) {
        assert!(cell < 81 && (1..=9).contains(&digit));
        assert!(candidates & (1 << (digit - 1)) != 0);
        assert!(candidates.count_ones() >= 2);
        self.guesses += 1;
        self.max_depth = self.max_depth.max(depth);
    }
    fn backtrack(&mut self, _: u32) {
        self.backtracks += 1;
    }
    fn solution(&mut self, count: u32) {
        self.solutions = count;
    }
    fn contradiction(&mut self, _: bench_sudoku::solver::observer::Contradiction, _: u32) {
        self.contradictions += 1;
    }
}

#[test]
fn observer_sees_every_event() {
    let mut solver = Solver::new();
    for p in PUZZLES
        .iter()
        .map(|p| grid(p))
        .chain([multi_solution_puzzle()])
    {
        let mut ev = Events::default();
        let r = solver.solve_observed(&p, &fast(), &Limits::uniqueness(), &mut ev);
        // Same result as without an observer.
        assert_eq!(r, solver.solve(&p, &fast(), &Limits::uniqueness()));
        assert_eq!(ev.guesses, r.counters.guesses);
        assert_eq!(ev.backtracks, r.counters.backtracks);
        assert_eq!(ev.solutions, r.solutions);
        assert_eq!(ev.max_depth, r.counters.max_depth);
        assert_eq!(
            ev.placed,
            r.counters.naked_singles + r.counters.hidden_singles
        );
        // Every branch off the path to a unique solution ends in a dead end.
        if r.status == Status::Solved && r.counters.guesses > 0 {
            assert!(ev.contradictions > 0);
        }
    }
}

#[test]
fn any_grid_of_digits_is_handled() {
    // Dense pseudo-random grids: mostly invalid, some not; never a panic.
    let mut solver = Solver::new();
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for density in [2u64, 5, 10, 30, 60, 100] {
        for _ in 0..40 {
            let mut g = Grid::empty();
            for cell in 0..81 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if x % 100 < density {
                    g.set(cell, (x / 100 % 10) as u8);
                }
            }
            agree(
                &mut solver,
                &g,
                &Limits::uniqueness().with_max_guesses(20_000),
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Property: fast and locked agree on puzzles made from random valid grids.

/// A valid full grid: the pattern solution, relabelled and shuffled with
/// validity-preserving symmetries.
fn shuffled_solution(seed: &[u8]) -> Grid {
    let mut r = seed.iter().copied().cycle();
    let mut pick = |n: usize| r.next().unwrap() as usize % n;
    // Digits.
    let mut digits: Vec<u8> = (1..=9).collect();
    for i in (1..9).rev() {
        digits.swap(i, pick(i + 1));
    }
    // Rows: bands, then rows inside bands; the same for columns.
    let perm = |pick: &mut dyn FnMut(usize) -> usize| {
        let mut bands = [0usize, 1, 2];
        for i in (1..3).rev() {
            bands.swap(i, pick(i + 1));
        }
        let mut out = Vec::with_capacity(9);
        for b in bands {
            let mut rows = [0usize, 1, 2];
            for i in (1..3).rev() {
                rows.swap(i, pick(i + 1));
            }
            out.extend(rows.iter().map(|r| b * 3 + r));
        }
        out
    };
    let rows = perm(&mut pick);
    let cols = perm(&mut pick);
    let transpose = pick(2) == 1;
    let mut cells = [0u8; 81];
    for r in 0..9 {
        for c in 0..9 {
            let (sr, sc) = (rows[r], cols[c]);
            let (sr, sc) = if transpose { (sc, sr) } else { (sr, sc) };
            // The pattern grid: row sr, column sc.
            let v = (sr * 3 + sr / 3 + sc) % 9;
            cells[r * 9 + c] = digits[v];
        }
    }
    Grid::from_cells(cells).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn fast_agrees_with_locked(
        seed in proptest::collection::vec(any::<u8>(), 64),
        keep in 0u32..=100,
        blanks in proptest::collection::vec(any::<u8>(), 81),
        extra in proptest::collection::vec((0usize..81, 1u8..=9), 0..3),
        limit in 1u32..=4,
    ) {
        let solution = shuffled_solution(&seed);
        prop_assert!(solution.is_solution_of(&Grid::empty()));
        // Keep each given with probability keep% (17..100 clues typical).
        let mut puzzle = solution;
        for (cell, b) in blanks.iter().enumerate() {
            if (*b as u32 * 100 / 256) >= keep {
                puzzle.set(cell, 0);
            }
        }
        // Possibly wrong extra givens (contradictions or no solution).
        for (cell, v) in &extra {
            puzzle.set(*cell, *v);
        }
        let mut solver = Solver::new();
        let limits = Limits::first().with_solutions(limit).with_max_guesses(200_000);
        let r = agree(&mut solver, &puzzle, &limits);
        if r.status == Status::Solved && extra.is_empty() && limit >= 2 {
            prop_assert_eq!(r.grid, solution);
        }
        if r.status != Status::Invalid {
            let complete = r.status == Status::NoSolution
                || (r.status == Status::Solved && limit >= 2);
            check_counters(&r.counters, complete);
        }
    }
}

// ---------------------------------------------------------------------------
// Corpora (opt-in).

#[test]
fn corpus_fast_matches_locked() {
    let Some(dir) = std::env::var_os("BENCH_SUDOKU_CORPORA") else {
        eprintln!("note: BENCH_SUDOKU_CORPORA is not set; skipping the corpus cross-check");
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    let files = [
        "puzzles2_17_clue",
        "puzzles3_magictour_top1465",
        "puzzles5_forum_hardest_1905_11+",
        "puzzles6_forum_hardest_1106",
        "puzzles7_serg_benchmark",
    ];
    let mut solver = Solver::new();
    let limits = Limits::uniqueness();
    let mut seen = 0;
    for name in files {
        let path = dir.join(name);
        let Ok(text) = std::fs::read_to_string(&path) else {
            eprintln!("note: {} not found; skipped", path.display());
            continue;
        };
        let mut n = 0usize;
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let puzzle = Grid::parse(line).unwrap_or_else(|e| panic!("{name}: {e}"));
            let r = agree(&mut solver, &puzzle, &limits);
            assert_ne!(r.status, Status::GaveUp, "{name}: {line}");
            if name.starts_with("puzzles7") {
                assert_eq!(r.status, Status::Multiple, "{name}: {line}");
            } else {
                assert_eq!(r.status, Status::Solved, "{name}: {line}");
            }
            n += 1;
        }
        eprintln!("{name}: {n} puzzles agree");
        seen += 1;
    }
    assert!(seen > 0, "no corpus file found in {}", dir.display());
}

// ---------------------------------------------------------------------------
// The CPU-specific build of the search against the portable one.

#[test]
fn cpu_feature_path_matches_portable_path() {
    use bench_sudoku::solver::fast::{Path, Workspace};
    use bench_sudoku::solver::NoopObserver;
    let mut portable = Workspace::new_portable();
    assert!(!portable.uses_cpu_features());
    assert_eq!(portable.path(), Path::Portable);
    // Every compiled path this CPU can run, whether or not `new` would pick
    // it (PEXT is slow but correct on some CPUs).
    let mut others: Vec<Workspace> = [Path::Bmi, Path::BmiPext]
        .into_iter()
        .filter_map(Workspace::with_path)
        .collect();
    others.push(Workspace::new());
    if others.len() == 1 {
        eprintln!("note: this CPU takes the portable path; comparing it with itself");
    }
    let mut puzzles: Vec<Grid> = PUZZLES.iter().map(|p| grid(p)).collect();
    puzzles.push(Grid::empty());
    puzzles.push(multi_solution_puzzle());
    // Many generated puzzles: shuffled solutions thinned to 20..40 givens.
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    for _ in 0..300 {
        let mut seed = [0u8; 64];
        for s in seed.iter_mut() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *s = x as u8;
        }
        let mut g = shuffled_solution(&seed);
        let keep = 20 + (x % 21);
        for cell in 0..81 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x % 81 >= keep {
                g.set(cell, 0);
            }
        }
        puzzles.push(g);
    }
    let limits = [
        Limits::first(),
        Limits::uniqueness(),
        Limits::first().with_solutions(20).with_max_guesses(300),
    ];
    for p in &puzzles {
        for l in &limits {
            let b = portable.solve(p, l, &mut NoopObserver);
            for other in &mut others {
                let a = other.solve(p, l, &mut NoopObserver);
                assert_eq!(a, b, "{p} under {l:?} on {:?}", other.path());
            }
        }
    }
}
