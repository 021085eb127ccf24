//! The technique rating from the outside: `rate` writes a dataset that the
//! other commands read as it is, names bad input by file and line, gives
//! the same bytes on any thread count; `generate --rating` keeps its band;
//! `check` shows the distribution; the engine's inference levels count the
//! same on any thread count. With `BENCH_SUDOKU_CORPORA` (the `corpus`
//! test): every removal of the rater checked against the solutions of the
//! standard corpora, and every forum-hardest puzzle at the top of the
//! scale.

mod common;

use bench_sudoku::rating::{self, Class, Depth, Outcome, Rater, Solutions};
use bench_sudoku::solver::{Limits, Solver, Status, Strategy};
use common::*;
use rayon::prelude::*;
use std::path::Path;

/// The rows of a CSV file as maps from column name to field.
fn rows(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            header
                .iter()
                .cloned()
                .zip(rec.iter().map(String::from))
                .collect()
        })
        .collect()
}

#[test]
fn rate_writes_a_dataset_that_run_and_check_read() {
    let dir = scratch("dataset");
    let input = hard_csv(&dir, "hard", 40);
    let out = dir.join("rated.csv");
    let o = bin(&[
        "rate",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-j",
        "2",
    ]);
    assert!(o.status.success(), "{}", err(&o));
    // The summary on standard error names the classes.
    let e = err(&o);
    assert!(
        e.contains("rated 40 puzzles") && e.contains("fiendish"),
        "{e}"
    );
    let rated = rows(&out);
    assert_eq!(rated.len(), 40);
    for r in &rated {
        assert_eq!(r["outcome"], "rated");
        let v: rating::Value = r["rating"].parse().unwrap();
        assert_eq!(Class::parse(&r["class"]), Some(Class::of(v)));
        let steps: u32 = r["steps"].parse().unwrap();
        assert!(steps > 0);
    }
    // `run` reads it as an ordinary dataset: solutions checked, the rating
    // column carried to puzzles.csv.
    let res = dir.join("res");
    let o = bin(&[
        "run",
        out.to_str().unwrap(),
        "-s",
        "fast",
        "-q",
        "--out",
        res.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", err(&o));
    let puzzles = rows(&res.join("puzzles.csv"));
    assert_eq!(puzzles.len(), 40);
    for (p, r) in puzzles.iter().zip(&rated) {
        assert_eq!(p["rating"], r["rating"]);
        assert_eq!(p["matches_solution"], "true");
    }
    // `check` reads the rating column back.
    let o = bin(&["check", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", err(&o));
    let text = text(&o.stdout);
    assert!(
        text.contains("ratings (from the file's rating column"),
        "{text}"
    );
    assert!(text.contains("fiendish"), "{text}");
}

#[test]
fn rate_gives_the_same_bytes_on_any_thread_count() {
    let dir = scratch("threads");
    let input = dir.join("hard.txt");
    std::fs::write(&input, hard_lines(120)).unwrap();
    let run = |j: &str| {
        let o = bin(&["rate", input.to_str().unwrap(), "-j", j, "-q"]);
        assert!(o.status.success(), "{}", err(&o));
        o.stdout
    };
    assert_eq!(run("1"), run("2"));
}

#[test]
fn rate_names_bad_input_and_writes_nothing() {
    let dir = scratch("bad");
    let input = dir.join("bad.txt");
    let good = hard_lines(2);
    std::fs::write(&input, format!("{good}12345\n")).unwrap();
    let out = dir.join("out.csv");
    let o = bin(&["rate", input.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let e = err(&o);
    assert!(e.contains("bad.txt:3"), "{e}");
    assert!(!out.exists(), "no output after an error");
    // The output may not be the input.
    let o = bin(&[
        "rate",
        input.to_str().unwrap(),
        "-o",
        input.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(std::fs::read_to_string(&input).unwrap().starts_with(&good));
    // A missing file is named.
    let o = bin(&["rate", "no-such-file.txt"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("no-such-file.txt"), "{}", err(&o));
}

#[test]
fn puzzles_without_one_solution_are_rows_without_a_rating() {
    let dir = scratch("unrated");
    let input = dir.join("mixed.txt");
    std::fs::write(
        &input,
        format!("{EASY}\n{}\n{NO_SOLUTION}\n", ".".repeat(81)),
    )
    .unwrap();
    let o = bin(&["rate", input.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", err(&o));
    let path = dir.join("out.csv");
    std::fs::write(&path, &o.stdout).unwrap();
    let r = rows(&path);
    let outcomes: Vec<&str> = r.iter().map(|x| x["outcome"].as_str()).collect();
    assert_eq!(outcomes, ["rated", "multiple", "no_solution"]);
    assert!(r[1]["rating"].is_empty() && r[1]["class"].is_empty());
    assert_eq!(r[0]["line"], "1");
}

#[test]
fn generate_keeps_its_rating_band_and_check_rates() {
    let dir = scratch("generate");
    let out = dir.join("gen.csv");
    let o = bin(&[
        "generate",
        "-n",
        "6",
        "--seed",
        "5",
        "--rating",
        "hard",
        "-j",
        "1",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", err(&o));
    let gen = rows(&out);
    assert_eq!(gen.len(), 6);
    let mut rater = Rater::new();
    for r in &gen {
        assert_eq!(r["class"], "hard");
        let Outcome::Rated(rating) = rater.rate(&grid(&r["puzzle"]), None).unwrap() else {
            panic!("not rated")
        };
        assert_eq!(rating.value.to_string(), r["rating"]);
        assert_eq!(rating.hardest.name(), r["hardest"]);
    }
    let o = bin(&["check", "--rate", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", err(&o));
    let t = text(&o.stdout);
    assert!(
        t.contains("ratings (rated, ") && t.contains("hard               6"),
        "{t}"
    );
    // A band no class can fill is refused before any work.
    let o = bin(&["generate", "--rating", "9..3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("empty"), "{}", err(&o));
}

#[test]
fn inference_levels_count_the_same_on_any_thread_count() {
    let dir = scratch("levels");
    let input = hard_csv(&dir, "hard", 60);
    let totals = |j: &str| {
        let res = dir.join(format!("res-{j}"));
        let mut args = vec!["run", input.to_str().unwrap(), "-j", j, "-q", "--out"];
        args.push(res.to_str().unwrap());
        for s in [
            "prop=locked",
            "prop=subsets",
            "prop=fish",
            "prop=wings",
            "prop=chains",
        ] {
            args.extend(["-s", s]);
        }
        let o = bin(&args);
        assert!(o.status.success(), "{}", err(&o));
        let summary = json(&res.join("summary.json"));
        let counters = [
            "guesses_total",
            "nodes_total",
            "locked_eliminations_total",
            "subset_eliminations_total",
            "fish_eliminations_total",
            "wing_eliminations_total",
            "chain_eliminations_total",
        ];
        let per: Vec<Vec<u64>> = summary["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| counters.iter().map(|c| r[c].as_u64().unwrap()).collect())
            .collect();
        // puzzles.csv, every column but the time.
        let rows: Vec<Vec<(String, String)>> = rows(&res.join("puzzles.csv"))
            .into_iter()
            .map(|r| {
                let mut r: Vec<(String, String)> =
                    r.into_iter().filter(|(k, _)| k != "time_ns").collect();
                r.sort();
                r
            })
            .collect();
        (per, rows)
    };
    let (one, rows_one) = totals("1");
    let (two, rows_two) = totals("2");
    assert_eq!(one, two);
    assert_eq!(rows_one, rows_two);
    // On these puzzles the subsets level finds subsets, the chains level
    // chains, and no stronger level guesses more than locked candidates
    // alone; locked candidates count nothing above their own level.
    assert!(one[1][3] > 0 && one[4][6] > 0, "{one:?}");
    assert!(one.iter().all(|r| r[0] <= one[0][0]), "{one:?}");
    assert_eq!(one[0][3..], [0, 0, 0, 0]);
}

/// The corpora with one solution per puzzle, and the one with several.
const UNIQUE: [&str; 4] = [
    "puzzles2_17_clue",
    "puzzles3_magictour_top1465",
    "puzzles5_forum_hardest_1905_11+",
    "puzzles6_forum_hardest_1106",
];
const SEVERAL: &str = "puzzles7_serg_benchmark";

/// Every n-th puzzle of a corpus in the sampled form (all of the small
/// ones); every puzzle with `BENCH_SUDOKU_FULL=1`.
fn sample(puzzles: Vec<bench_sudoku::Grid>, full: bool) -> Vec<bench_sudoku::Grid> {
    let step = if full || puzzles.len() <= 2000 { 1 } else { 25 };
    puzzles.into_iter().step_by(step).collect()
}

#[test]
fn corpus_ratings_are_sound_and_the_hardest_list_is_extreme() {
    let Some(dir) = corpora() else {
        eprintln!("BENCH_SUDOKU_CORPORA not set: corpus rating checks skipped");
        return;
    };
    let full = std::env::var_os("BENCH_SUDOKU_FULL").is_some_and(|v| v == "1");
    for name in UNIQUE {
        let puzzles = sample(read_corpus(&dir.join(name)), full);
        // Every removal is checked against the solution inside `rate`: an
        // unsound one is an error.
        let ratings: Vec<_> = puzzles
            .par_iter()
            .map_init(Rater::new, |r, p| r.rate(p, None))
            .collect();
        let mut dist = rating::Distribution::default();
        for (p, r) in puzzles.iter().zip(&ratings) {
            match r {
                Ok(Outcome::Rated(rating)) => {
                    if name.contains("1905") {
                        assert_eq!(rating.class, Class::Extreme, "{}", p.to_line());
                    }
                }
                other => panic!("{name}: {}: {other:?}", p.to_line()),
            }
            dist.add(r);
        }
        eprintln!(
            "{name}: {} puzzles rated\n{}",
            puzzles.len(),
            dist.render("  ")
        );
    }
    // Several solutions: each removal is checked against all of them.
    let puzzles = sample(read_corpus(&dir.join(SEVERAL)), full);
    let step = if full { 1 } else { 4 };
    let checked: Vec<_> = puzzles
        .par_iter()
        .step_by(step)
        .map_init(Solver::new, |solver, p| {
            let mut oracle = Solutions::new(p, None, solver);
            rating::grade(p, None, &mut oracle, Depth::Trial).map(|g| g.is_some())
        })
        .collect();
    for (p, r) in puzzles.iter().step_by(step).zip(&checked) {
        assert!(matches!(r, Ok(true)), "{}: {r:?}", p.to_line());
    }
    eprintln!(
        "{SEVERAL}: {} puzzles checked against all their solutions",
        checked.len()
    );
}

#[test]
fn corpus_inference_levels_agree_with_fast() {
    let Some(dir) = corpora() else {
        eprintln!("BENCH_SUDOKU_CORPORA not set: corpus inference levels skipped");
        return;
    };
    let full = std::env::var_os("BENCH_SUDOKU_FULL").is_some_and(|v| v == "1");
    let levels: Vec<Strategy> = ["prop=subsets", "prop=fish", "prop=wings", "prop=chains"]
        .iter()
        .map(|s| Strategy::parse(s).unwrap())
        .collect();
    let fast = Strategy::named("fast").unwrap();
    for name in UNIQUE.iter().chain([&SEVERAL]) {
        let step = if full { 1 } else { 100 };
        let puzzles: Vec<_> = read_corpus(&dir.join(name))
            .into_iter()
            .step_by(step)
            .collect();
        let bad: Vec<String> = puzzles
            .par_iter()
            .map_init(Solver::new, |solver, p| {
                let want = solver.solve(p, &fast, &Limits::uniqueness());
                levels
                    .iter()
                    .filter_map(|s| {
                        let got = solver.solve(p, s, &Limits::uniqueness());
                        let same = got.status == want.status
                            && got.solutions == want.solutions
                            && (want.status != Status::Solved || got.grid == want.grid);
                        (!same)
                            .then(|| format!("{} on {}: {:?}", s.name(), p.to_line(), got.status))
                    })
                    .collect::<Vec<_>>()
            })
            .flatten()
            .collect();
        assert!(bad.is_empty(), "{name}: {bad:?}");
        eprintln!(
            "{name}: {} puzzles × 4 levels agree with fast",
            puzzles.len()
        );
    }
}

#[test]
fn pencilmark_and_standard_input_are_rated_like_any_dataset() {
    // The same puzzle as 81 cells, and as 729 pencilmarks with nothing
    // eliminated, read from standard input.
    let marks: String = EASY
        .bytes()
        .map(|b| match b {
            b'0' => "123456789".to_string(),
            d => (1..=9u8)
                .map(|k| if b'0' + k == d { d as char } else { '.' })
                .collect(),
        })
        .collect();
    let mut child = command()
        .args(["rate", "-", "-q"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{marks}\n").as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", err(&o));
    let dir = scratch("pencilmark");
    let path = dir.join("out.csv");
    std::fs::write(&path, &o.stdout).unwrap();
    let r = rows(&path);
    assert_eq!(r[0]["puzzle"], marks);
    let Outcome::Rated(plain) = rating::rate(&grid(EASY)).unwrap() else {
        panic!()
    };
    assert_eq!(r[0]["rating"], plain.value.to_string());
    assert_eq!(r[0]["solution"], plain.solution.to_line_zeros());
    assert_eq!(r[0]["file"], "-");
}
