//! `generate --hard-for` and `generate --grids` through the binary: every
//! puzzle unique (by `check` and by an independent counter written here),
//! constraints obeyed, objective columns re-measurable, output independent
//! of the thread count, bad start files named by line. Small step counts:
//! fast in debug.

mod common;

use bench_sudoku::generate::{generate_grids, is_minimal, uniqueness_strategy};
use bench_sudoku::solver::{Limits, Solver, Strategy};
use bench_sudoku::Grid;
use common::{bin, err, scratch, text};

/// Solutions of `g`, counted up to `limit` by plain backtracking on the
/// cell with the fewest legal digits (no propagation, no shared code with
/// the engines).
fn count_solutions(g: &mut [u8; 81], limit: u32) -> u32 {
    let legal = |g: &[u8; 81], c: usize| -> u16 {
        let (r, col) = (c / 9, c % 9);
        let (br, bc) = (r / 3 * 3, col / 3 * 3);
        let mut used = 0u16;
        for i in 0..9 {
            used |= 1 << g[r * 9 + i];
            used |= 1 << g[i * 9 + col];
            used |= 1 << g[(br + i / 3) * 9 + bc + i % 3];
        }
        !used & 0x3fe
    };
    let mut best: Option<(usize, u16)> = None;
    for c in 0..81 {
        if g[c] == 0 {
            let m = legal(g, c);
            if best.is_none_or(|(_, b)| m.count_ones() < b.count_ones()) {
                best = Some((c, m));
            }
        }
    }
    let Some((c, m)) = best else {
        return 1;
    };
    let mut n = 0;
    for d in 1..=9u8 {
        if m & (1 << d) != 0 {
            g[c] = d;
            n += count_solutions(g, limit - n);
            g[c] = 0;
            if n >= limit {
                break;
            }
        }
    }
    n
}

/// The rows of a `--hard-for` CSV after its `#` line and header.
struct Row {
    puzzle: Grid,
    solution: Grid,
    clues: usize,
    objective: u64,
    guesses: u64,
    backtracks: u64,
    start: u64,
}

fn rows(csv: &str) -> Vec<Row> {
    let mut lines = csv.lines();
    assert!(
        lines.next().unwrap().starts_with("# bench-sudoku "),
        "{csv}"
    );
    assert_eq!(
        lines.next(),
        Some("puzzle,solution,clues,objective,guesses,backtracks,max_depth,nodes,start_objective")
    );
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), 9, "{l}");
            Row {
                puzzle: Grid::parse(f[0]).unwrap(),
                solution: Grid::parse(f[1]).unwrap(),
                clues: f[2].parse().unwrap(),
                objective: f[3].parse().unwrap(),
                guesses: f[4].parse().unwrap(),
                backtracks: f[5].parse().unwrap(),
                start: f[8].parse().unwrap(),
            }
        })
        .collect()
}

fn generate(args: &[&str]) -> String {
    let o = bin(&[&["generate", "-q"], args].concat());
    assert!(o.status.success(), "{}", err(&o));
    text(&o.stdout)
}

#[test]
fn hard_for_puzzles_are_unique_measured_and_independent_of_threads() {
    let args = [
        "--hard-for",
        "fast",
        "-n",
        "5",
        "--max-steps",
        "600",
        "--seed",
        "3",
    ];
    let one = generate(&[&args[..], &["-j", "1"]].concat());
    let two = generate(&[&args[..], &["-j", "2"]].concat());
    assert_eq!(one, two, "the output must not depend on -j");
    let first = one.lines().next().unwrap();
    assert!(
        first.contains("generate --hard-for fast --objective guesses --solutions 1 -n 5 --seed 3 --max-steps 600"),
        "{first}"
    );
    assert!(!first.contains("-j"), "{first}");
    let rows = rows(&one);
    assert_eq!(rows.len(), 5);
    let fast = Strategy::named("fast").unwrap();
    let mut solver = Solver::new();
    for r in &rows {
        let mut cells = *r.puzzle.cells();
        assert_eq!(count_solutions(&mut cells, 2), 1, "{:?}", r.puzzle);
        r.solution.check_solution_of(&r.puzzle).unwrap();
        assert_eq!(r.clues, r.puzzle.givens());
        // The objective is fast's guess count to the first solution, as
        // `run` measures it.
        let m = solver.solve(&r.puzzle, &fast, &Limits::first());
        assert_eq!(m.grid, r.solution);
        assert_eq!(
            (r.objective, r.guesses),
            (m.counters.guesses, m.counters.guesses)
        );
        assert_eq!(r.backtracks, m.counters.backtracks);
        // The best state is never worse than the start.
        assert!(r.objective >= r.start);
    }
    // The searches climb: over five searches some puzzle needs guessing.
    assert!(rows.iter().any(|r| r.objective > r.start), "{one}");

    // `check --strict` reads the file (its `#` line too) and finds every
    // puzzle unique.
    let dir = scratch("hard-check");
    let file = dir.join("hard.csv");
    std::fs::write(&file, &one).unwrap();
    let o = bin(&["check", "--strict", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}{}", text(&o.stdout), err(&o));
    assert!(
        text(&o.stdout).contains("unique               5"),
        "{}",
        text(&o.stdout)
    );
}

#[test]
fn constraints_hold_in_every_state() {
    let csv = generate(&[
        "--hard-for",
        "hidden",
        "-n",
        "3",
        "--max-steps",
        "150",
        "--seed",
        "9",
        "--minimal",
        "--symmetric",
        "--max-clues",
        "30",
        "--objective",
        "nodes",
        "--solutions",
        "2",
    ]);
    let first = csv.lines().next().unwrap();
    assert!(
        first.contains("--minimal --symmetric --max-clues 30"),
        "{first}"
    );
    let hidden = Strategy::named("hidden").unwrap();
    let mut solver = Solver::new();
    for r in rows(&csv) {
        assert!(r.clues <= 30, "{}", r.clues);
        for c in 0..81 {
            assert_eq!(r.puzzle.get(c) == 0, r.puzzle.get(80 - c) == 0, "cell {c}");
        }
        // Symmetric removal: no symmetric pair can go (and the puzzle is
        // unique).
        let mut cells = *r.puzzle.cells();
        assert_eq!(count_solutions(&mut cells, 2), 1);
        for c in (0..=40).filter(|&c| r.puzzle.get(c) != 0) {
            let mut q = *r.puzzle.cells();
            q[c] = 0;
            q[80 - c] = 0;
            assert_eq!(count_solutions(&mut q, 2), 2, "pair {c} of {:?}", r.puzzle);
        }
        let m = solver.solve(&r.puzzle, &hidden, &Limits::uniqueness());
        assert_eq!(r.objective, m.counters.nodes);
    }
    // Without symmetry, --minimal means minimal.
    let csv = generate(&[
        "--hard-for",
        "fast",
        "-n",
        "2",
        "--max-steps",
        "150",
        "--minimal",
    ]);
    let mut solver = Solver::new();
    for r in rows(&csv) {
        assert!(is_minimal(&mut solver, &r.puzzle, &uniqueness_strategy()));
    }
}

#[test]
fn searches_start_from_a_file_and_bad_starts_name_their_line() {
    let dir = scratch("hard-from");
    let good = dir.join("start.txt");
    let start = "000000010400000000020000000000050407008000300001090000300400200050100000000806000";
    std::fs::write(&good, format!("# one 17-clue puzzle\n{start}\n")).unwrap();
    let csv = generate(&[
        "--hard-for",
        "fast",
        "-n",
        "2",
        "--max-steps",
        "100",
        "--from",
        good.to_str().unwrap(),
    ]);
    let rows = rows(&csv);
    let fast = Strategy::named("fast").unwrap();
    let g = Solver::new()
        .solve(&Grid::parse(start).unwrap(), &fast, &Limits::first())
        .counters
        .guesses;
    for r in &rows {
        assert_eq!(r.start, g);
        assert!(r.objective >= g);
    }

    let bad = dir.join("bad.txt");
    // Line 3 has two solutions (a clue of the unique puzzle removed).
    let two = format!("0{}", &start[1..]).replacen('1', "0", 1);
    std::fs::write(&bad, format!("{start}\n\n{two}\n")).unwrap();
    let o = bin(&[
        "generate",
        "--hard-for",
        "fast",
        "--from",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = err(&o);
    assert!(e.contains(&format!("{}:3:", bad.display())), "{e}");
    assert!(e.contains("exactly one solution"), "{e}");
}

#[test]
fn options_that_need_hard_for_or_conflict_are_refused() {
    for args in [
        &["generate", "--objective", "time"][..],
        &["generate", "--max-steps", "5"],
        &["generate", "--hard-for", "fast", "--min-guesses", "3"],
        &["generate", "--hard-for", "fast", "--grids", "3"],
        &["generate", "--grids", "3", "--minimal"],
        &["generate", "--hard-for", "fast", "--budget", "0s"],
    ] {
        let o = bin(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", err(&o));
    }
}

#[test]
fn grids_are_valid_reproducible_and_spread_digits_evenly() {
    let one = generate(&["--grids", "3000", "--seed", "5", "-j", "1"]);
    let two = generate(&["--grids", "3000", "--seed", "5", "-j", "2"]);
    assert_eq!(one, two);
    let empty = Grid::empty();
    let lines: Vec<&str> = one.lines().collect();
    assert_eq!(lines.len(), 3000);
    for l in &lines {
        let g = Grid::parse(l).unwrap();
        assert!(g.is_full() && g.is_solution_of(&empty), "{l}");
    }
    let distinct: std::collections::HashSet<&&str> = lines.iter().collect();
    assert_eq!(distinct.len(), 3000);

    // Each digit equally often in each cell: a chi-square statistic over
    // all 81 cells (648 degrees of freedom: mean 648, sd 36) stays within
    // six standard deviations.
    let n = 9000u64;
    let mut counts = vec![[0u64; 9]; 81];
    generate_grids(11, n, 0, |g| {
        for (c, &v) in g.cells().iter().enumerate() {
            counts[c][v as usize - 1] += 1;
        }
        true
    })
    .unwrap();
    let expected = n as f64 / 9.0;
    let chi2: f64 = counts
        .iter()
        .flatten()
        .map(|&k| (k as f64 - expected).powi(2) / expected)
        .sum();
    assert!(chi2 < 648.0 + 6.0 * 36.0, "chi-square {chi2}");
    assert!(chi2 > 648.0 - 6.0 * 36.0, "chi-square {chi2} (too even)");
}

#[test]
fn an_external_solver_is_not_trusted() {
    // A protocol solver that claims no puzzle has a solution: the search
    // cannot even measure its start, and says so (exit 2, nothing written).
    let dir = scratch("hard-liar");
    let spec = common::no_solution_solver(&dir);
    let out = dir.join("out.csv");
    let o = bin(&[
        "generate",
        "--hard-for",
        &spec,
        "-n",
        "1",
        "--max-steps",
        "5",
        "-j",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    let e = err(&o);
    assert!(e.contains("did not give the known unique solution"), "{e}");
    assert!(!out.exists());
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("partial"))
        .collect();
    assert!(leftovers.is_empty());
    // Its counters lack `nodes`: that objective is refused up front.
    let o = bin(&["generate", "--hard-for", &spec, "--objective", "nodes"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("does not report nodes"), "{}", err(&o));
}

#[test]
fn the_shipped_adversarial_dataset_is_what_its_columns_say() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/datasets/adversarial-fast.csv");
    let csv = std::fs::read_to_string(path).unwrap();
    assert!(csv
        .lines()
        .next()
        .unwrap()
        .contains("generate --hard-for fast --objective guesses --solutions 1 -n 300 --seed 1 --max-steps 250000"));
    let rows = rows(&csv);
    assert_eq!(rows.len(), 300);
    let fast = Strategy::named("fast").unwrap();
    let locked = Strategy::named("locked").unwrap();
    let mut solver = Solver::new();
    let mut total = 0;
    for r in &rows {
        let m = solver.solve(&r.puzzle, &fast, &Limits::first());
        assert_eq!((m.grid, m.counters.guesses), (r.solution, r.objective));
        let u = solver.solve(&r.puzzle, &locked, &Limits::uniqueness());
        assert_eq!((u.solutions, u.grid), (1, r.solution));
        total += r.objective;
    }
    // The mean quoted in datasets/README.md.
    assert_eq!(total, 181_598);
}

/// The `#` line of a `--hard-for` file is the command that makes the file
/// again, run as written: a strategy spec with commas is quoted.
#[test]
fn the_header_of_a_spec_run_again_makes_the_same_file() {
    let args = [
        "--hard-for",
        "prop=hidden,order=desc",
        "-n",
        "2",
        "--max-steps",
        "200",
        "--seed",
        "5",
    ];
    let first = generate(&args);
    let header = first.lines().next().unwrap();
    assert!(
        header.contains("--hard-for 'prop=hidden,order=desc'"),
        "{header}"
    );
    let command = header
        .split_once(" generate ")
        .map(|(_, rest)| rest)
        .expect("a generate command");
    let words = shlex::split(command).expect("shell words");
    let words: Vec<&str> = std::iter::once("generate")
        .chain(words.iter().map(String::as_str))
        .collect();
    let o = bin(&words);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(text(&o.stdout), first);
}
