//! `run --transform SEED`: every puzzle solved as a random isomorph, its
//! answer mapped back and verified against the puzzle as read.

mod common;

use bench_sudoku::grid::transform::Transform;
use bench_sudoku::solver::{Limits, Solver, Strategy};
use bench_sudoku::Grid;
use common::{bin, corpora, err, read_corpus, scratch};
use proptest::prelude::*;
use rand::SeedableRng;

fn dataset(name: &str) -> String {
    format!("{}/datasets/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn transformed_runs_verify_every_answer_and_record_the_seed() {
    let dir = scratch("transform-run");
    let run = |extra: &[&str], out: &str| {
        let out = dir.join(out);
        let mut args = vec![
            "run".to_string(),
            dataset("hard.csv"),
            "-s".into(),
            "fast".into(),
            "-s".into(),
            "hidden".into(),
            "--limit".into(),
            "200".into(),
            "-q".into(),
            "--out".into(),
            out.to_string_lossy().into_owned(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = bin(&args);
        assert!(o.status.success(), "{}", err(&o));
        (
            common::json(&out.join("summary.json")),
            common::json(&out.join("meta.json")),
        )
    };
    let (plain, _) = run(&[], "plain");
    let (a, meta) = run(&["--transform", "7"], "t7");
    let (b, _) = run(&["--transform", "7", "-j", "1"], "t7-j1");
    let (c, _) = run(&["--transform", "8"], "t8");
    assert_eq!(meta["options"]["transform"], 7, "{meta}");
    for s in [&plain, &a, &b, &c] {
        for unit in s["results"].as_array().unwrap() {
            // Every answer mapped back equals the dataset's solution.
            assert_eq!(unit["solved"], 200, "{unit}");
            assert_eq!(unit["mismatches"], 0, "{unit}");
        }
    }
    let guesses = |s: &serde_json::Value| s["results"][0]["guesses_total"].as_u64().unwrap();
    // The same seed gives the same isomorphs (any thread count); another
    // seed or none gives other work for a solver that depends on
    // orientation.
    assert_eq!(guesses(&a), guesses(&b));
    assert_ne!(guesses(&a), guesses(&plain));
    assert_ne!(guesses(&a), guesses(&c));

    // A solver whose answers are wrong is still caught after mapping back.
    let spec = common::no_solution_solver(&dir);
    let out = dir.join("liar");
    let o = bin(&[
        "run",
        &dataset("easy.csv"),
        "-s",
        &spec,
        "--limit",
        "20",
        "--transform",
        "3",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    let s = common::json(&out.join("summary.json"));
    assert_eq!(s["results"][0]["mismatches"], 20, "{s}");
}

proptest! {
    /// A puzzle and its solution move together, and inverting undoes.
    #[test]
    fn isomorphs_map_solutions_back(seed in any::<u64>(), line in 1usize..1000) {
        let hard = std::fs::read_to_string(dataset("hard.csv")).unwrap();
        let row = hard.lines().nth(line).unwrap();
        let mut f = row.split(',');
        let p = Grid::parse(f.next().unwrap()).unwrap();
        let s = Grid::parse(f.next().unwrap()).unwrap();
        let t = Transform::random(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
        let (tp, ts) = (t.apply(&p), t.apply(&s));
        prop_assert!(ts.is_solution_of(&tp));
        prop_assert_eq!(tp.givens(), p.givens());
        prop_assert_eq!(t.invert(&tp), p);
        let r = Solver::new().solve(&tp, &Strategy::named("fast").unwrap(), &Limits::uniqueness());
        prop_assert_eq!(t.invert(&r.grid), s);
    }
}

/// `fast` on a random isomorph of every corpus puzzle: the answer mapped
/// back solves the original and the count is the same.
#[test]
fn corpus_fast_answers_survive_isomorphs() {
    let Some(dir) = corpora() else {
        eprintln!("BENCH_SUDOKU_CORPORA not set: corpus isomorph check skipped");
        return;
    };
    let fast = Strategy::named("fast").unwrap();
    let mut solver = Solver::new();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    for file in [
        "puzzles2_17_clue",
        "puzzles3_magictour_top1465",
        "puzzles5_forum_hardest_1905_11+",
        "puzzles6_forum_hardest_1106",
        "puzzles7_serg_benchmark",
    ] {
        let puzzles = read_corpus(&dir.join(file));
        for p in puzzles.iter().step_by(7) {
            let t = Transform::random(&mut rng);
            let plain = solver.solve(p, &fast, &Limits::uniqueness());
            let iso = solver.solve(&t.apply(p), &fast, &Limits::uniqueness());
            assert_eq!(
                (iso.status, iso.solutions),
                (plain.status, plain.solutions),
                "{file} {p}"
            );
            if plain.solutions == 1 {
                assert_eq!(t.invert(&iso.grid), plain.grid, "{file} {p}");
            }
            assert!(t.invert(&iso.grid).is_solution_of(p) || iso.solutions == 0);
        }
        eprintln!("{file}: isomorphs agree");
    }
}
