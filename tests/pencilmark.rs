//! Pencilmark puzzles (729 characters: nine per cell, the digit while it is
//! a candidate, `.` once eliminated): eliminations that change the answer
//! or make a puzzle unique, every strategy agreeing from the same masks,
//! and malformed files named by line.

mod common;

use bench_sudoku::grid::pencilmark::{self, Candidates};
use bench_sudoku::grid::CELLS;
use bench_sudoku::solver::{Limits, NoopObserver, Solver, Status, Strategy};
use bench_sudoku::Grid;
use common::{bin, err, scratch, text};

/// A minimal puzzle of `datasets/hard.csv` (line 2) and its solution.
const PUZZLE: &str =
    "005000080800501097700800200000020000006740800240006105509000000630008500070000000";
const SOLUTION: &str =
    "395274681862531497714869253983125764156743829247986135529617348631498572478352916";

/// The candidate masks of a plain puzzle: givens keep their digit, blanks
/// keep all nine.
fn masks_of(p: &Grid) -> Candidates {
    std::array::from_fn(|c| match p.get(c) {
        0 => 0x1ff,
        v => 1 << (v - 1),
    })
}

/// Every strategy's count (up to 3) and first solution from `masks`.
fn every_strategy(p: &Grid, masks: &Candidates) -> Vec<(String, Status, u32, Grid)> {
    let mut solver = Solver::new();
    Strategy::all()
        .into_iter()
        .filter(|s| s.name() != "logic")
        .map(|s| {
            let r = solver.solve_builtin_with(
                p,
                Some(masks),
                s.builtin().unwrap(),
                &Limits::uniqueness().with_solutions(3),
                &mut NoopObserver,
            );
            (s.name().to_string(), r.status, r.solutions, r.grid)
        })
        .collect()
}

/// A clue of `PUZZLE` whose removal leaves exactly two solutions, the
/// puzzle without it, and the second solution.
fn two_solution_puzzle() -> (usize, Grid, Grid) {
    let (p, s) = (Grid::parse(PUZZLE).unwrap(), Grid::parse(SOLUTION).unwrap());
    let fast = Strategy::named("fast").unwrap();
    let mut solver = Solver::new();
    for c in (0..CELLS).filter(|&c| p.get(c) != 0) {
        let mut q = p;
        q.set(c, 0);
        let r = solver.solve(&q, &fast, &Limits::uniqueness().with_solutions(3));
        if r.solutions == 2 {
            let mut masks = masks_of(&q);
            masks[c] &= !(1 << (s.get(c) - 1));
            let other = solver.fast_restricted(&q, &masks, &Limits::first());
            assert_eq!(other.status, Status::Solved);
            return (c, q, other.grid);
        }
    }
    panic!("no clue of the puzzle leaves exactly two solutions");
}

#[test]
fn eliminations_make_a_puzzle_unique_and_change_its_answer() {
    let s = Grid::parse(SOLUTION).unwrap();
    let (c, q, t) = two_solution_puzzle();
    assert_ne!(t, s);
    assert!(t.is_solution_of(&q));
    // Without eliminations: two solutions, for every strategy.
    for (name, status, n, _) in every_strategy(&q, &masks_of(&q)) {
        assert_eq!((status, n), (Status::Multiple, 2), "{name}");
    }
    // Ruling out the first solution's digit at the removed clue: the other
    // solution, unique, for every strategy.
    let mut masks = masks_of(&q);
    masks[c] &= !(1 << (s.get(c) - 1));
    for (name, status, n, g) in every_strategy(&q, &masks) {
        assert_eq!((status, n, g), (Status::Solved, 1, t), "{name}");
    }
    // Ruling out the other one's instead: the first solution, unique.
    let mut masks = masks_of(&q);
    masks[c] &= !(1 << (t.get(c) - 1));
    for (name, status, n, g) in every_strategy(&q, &masks) {
        assert_eq!((status, n, g), (Status::Solved, 1, s), "{name}");
    }
    // Both ruled out: no solution.
    masks[c] &= !(1 << (s.get(c) - 1));
    for (name, status, n, _) in every_strategy(&q, &masks) {
        assert_eq!((status, n), (Status::NoSolution, 0), "{name}");
    }
    // Eliminations of digits no solution uses change nothing.
    let p = Grid::parse(PUZZLE).unwrap();
    let mut masks = masks_of(&p);
    for (cell, m) in masks.iter_mut().enumerate() {
        if p.get(cell) == 0 && cell % 2 == 0 {
            let keep = 1 << (s.get(cell) - 1);
            *m = keep | (keep << 1 & 0x1ff) | 1;
        }
    }
    for (name, status, n, g) in every_strategy(&p, &masks) {
        assert_eq!((status, n, g), (Status::Solved, 1, s), "{name}");
    }
}

#[test]
fn run_check_and_solve_read_pencilmark_files() {
    let s = Grid::parse(SOLUTION).unwrap();
    let (c, q, t) = two_solution_puzzle();
    let mut masks = masks_of(&q);
    masks[c] &= !(1 << (s.get(c) - 1));
    let line = pencilmark::format(&masks);
    let plain = pencilmark::format(&masks_of(&Grid::parse(PUZZLE).unwrap()));
    let dir = scratch("pencil-run");
    let file = dir.join("pm.txt");
    std::fs::write(&file, format!("# pencilmarks\n{line}\n{plain}\n")).unwrap();
    let f = file.to_str().unwrap();

    let o = bin(&["check", "--strict", f]);
    assert!(o.status.success(), "{}{}", text(&o.stdout), err(&o));
    assert!(
        text(&o.stdout).contains("unique               2"),
        "{}",
        text(&o.stdout)
    );

    let o = bin(&["solve", &line, "-s", "dlx", "--trace"]);
    assert!(o.status.success(), "{}", err(&o));
    let out = text(&o.stdout);
    assert!(out.contains(&format!("puzzle 1: {line}")), "{out}");
    assert!(out.contains("status: solved"), "{out}");
    assert!(out.contains(&format!("{t:#}")), "{out}");

    let results = dir.join("results");
    let o = bin(&[
        "run",
        f,
        "-s",
        "fast",
        "-s",
        "dlx",
        "-s",
        "hidden",
        "-s",
        "naive",
        "--count",
        "2",
        "-j",
        "2",
        "-q",
        "--out",
        results.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", err(&o));
    let summary = common::json(&results.join("summary.json"));
    for unit in summary["results"].as_array().unwrap() {
        assert_eq!(unit["solved"], 2, "{unit}");
        assert_eq!(unit["mismatches"], 0, "{unit}");
    }
    let meta = common::json(&results.join("meta.json"));
    assert_eq!(meta["datasets"][0]["format"], "pencilmark", "{meta}");

    // An external solver takes 81-cell puzzles only: an `error` outcome
    // saying why, exit 1 (a solver fault), never a wrong answer.
    let spec = common::no_solution_solver(&dir);
    let o = bin(&[
        "run",
        f,
        "-s",
        &spec,
        "-q",
        "--out",
        dir.join("ext").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    let summary = common::json(&dir.join("ext/summary.json"));
    assert_eq!(summary["results"][0]["error"], 2, "{summary}");
    assert!(
        summary["fault_list"].to_string().contains("pencilmark"),
        "{summary}"
    );
}

#[test]
fn malformed_pencilmark_lines_name_the_line() {
    let dir = scratch("pencil-bad");
    let good = pencilmark::format(&masks_of(&Grid::parse(PUZZLE).unwrap()));
    let mut misplaced = good.clone().into_bytes();
    // r1c1's first character stands for digit 1: a 2 there is misplaced.
    misplaced[0] = b'2';
    let mut empty = good.clone().into_bytes();
    empty[9..18].copy_from_slice(b".........");
    let cases: [(&str, String, &str); 5] = [
        ("short", good[..728].to_string(), "expected 729 characters"),
        (
            "misplaced",
            String::from_utf8(misplaced).unwrap(),
            "'2' at position 1 stands where digit 1",
        ),
        (
            "empty",
            String::from_utf8(empty).unwrap(),
            "r1c2 has no candidate",
        ),
        (
            "mixed81",
            PUZZLE.to_string(),
            "a puzzle of 81 characters in a file of 729-character puzzles",
        ),
        (
            "mixed729",
            String::new(),
            "a puzzle of 729 characters in a file of 81-character puzzles",
        ),
    ];
    for (name, bad, message) in cases {
        let file = dir.join(format!("{name}.txt"));
        let body = if name == "mixed729" {
            format!("{PUZZLE}\n\n{good}\n")
        } else {
            format!("{good}\n\n{bad}\n")
        };
        std::fs::write(&file, body).unwrap();
        let f = file.to_str().unwrap();
        for cmd in [
            &["check", f][..],
            &[
                "run",
                f,
                "-s",
                "fast",
                "-q",
                "--out",
                dir.join(name).to_str().unwrap(),
            ],
        ] {
            let o = bin(cmd);
            assert_eq!(o.status.code(), Some(2), "{name} {cmd:?}: {}", err(&o));
            let e = err(&o);
            assert!(e.contains(&format!("{f}:3:")), "{name}: {e}");
            assert!(e.contains(message), "{name}: {e}");
        }
    }
}
