//! Cross-validation of every strategy against `fast` on the benchmark
//! corpora (opt-in: `BENCH_SUDOKU_CORPORA` names the directory; see
//! DEVELOPERS.md and docs/VALIDATION.md).
//!
//! * By default a sample (every 25th puzzle of each corpus) × every strategy,
//!   so CI's `cargo test --release -- corpus` stays short.
//! * With `BENCH_SUDOKU_FULL=1`: every puzzle × every strategy.
//!
//! Checked: zero wrong answers (every returned solution keeps the givens and
//! follows the rules) and zero disagreements with `fast` (status; solution
//! count with limit 2; the solution itself when unique). `logic` may stall.
//! `naive` and `rowmajor` run under a budget of [`EXPLOSIVE_BUDGET`] guesses,
//! the others under the default budget (1,000,000); a strategy that spends
//! its whole budget may report `gave_up` (`mrv`, with naked singles only,
//! does on a few 17-clue puzzles). Give-ups are counted and printed.

mod common;

use bench_sudoku::solver::{Limits, SolveResult, Solver, Status, Strategy};
use bench_sudoku::Grid;
use common::*;
use rayon::prelude::*;
use std::time::Instant;

const FILES: [&str; 5] = [
    "puzzles2_17_clue",
    "puzzles3_magictour_top1465",
    "puzzles5_forum_hardest_1905_11+",
    "puzzles6_forum_hardest_1106",
    "puzzles7_serg_benchmark",
];

/// Guess budget of the explosive strategies in this test.
const EXPLOSIVE_BUDGET: u64 = 20_000;

/// Every n-th puzzle in the sampled form.
const SAMPLE_STEP: usize = 25;

#[derive(Default)]
struct Tally {
    checked: u64,
    gave_up: u64,
    stalled: u64,
    failures: Vec<String>,
}

impl Tally {
    fn merge(mut self, other: Tally) -> Tally {
        self.checked += other.checked;
        self.gave_up += other.gave_up;
        self.stalled += other.stalled;
        self.failures.extend(other.failures);
        self
    }
}

/// One puzzle under one strategy against the `fast` reference.
fn check(
    s: &Strategy,
    puzzle: &Grid,
    limits: &Limits,
    r: &SolveResult,
    reference: &SolveResult,
) -> Tally {
    let mut t = Tally {
        checked: 1,
        ..Tally::default()
    };
    let mut fail = |what: String| t.failures.push(format!("{} on {puzzle}: {what}", s.name()));
    if let Some(sol) = r.solution() {
        if let Err(e) = sol.check_solution_of(puzzle) {
            fail(format!("wrong answer ({e})"));
        }
    }
    match r.status {
        Status::Stalled if s.name() == "logic" => t.stalled += 1,
        Status::GaveUp if r.counters.guesses == limits.max_guesses => t.gave_up += 1,
        st if st != reference.status => fail(format!("{st}, fast says {}", reference.status)),
        _ if r.solutions != reference.solutions => fail(format!(
            "{} solutions, fast says {}",
            r.solutions, reference.solutions
        )),
        Status::Solved if r.grid != reference.grid => {
            fail(format!("solution {} differs from fast's", r.grid))
        }
        _ => {}
    }
    t
}

#[test]
fn corpus_every_strategy_agrees_with_fast() {
    let Some(dir) = corpora() else {
        eprintln!("BENCH_SUDOKU_CORPORA not set: corpus cross-validation skipped");
        return;
    };
    let full = std::env::var_os("BENCH_SUDOKU_FULL").is_some_and(|v| v == "1");
    let step = if full { 1 } else { SAMPLE_STEP };
    let fast = Strategy::named("fast").unwrap();
    let strategies = Strategy::all();
    let started = Instant::now();
    let mut failures = Vec::new();
    for file in FILES {
        let puzzles: Vec<Grid> = read_corpus(&dir.join(file))
            .into_iter()
            .step_by(step)
            .collect();
        assert!(!puzzles.is_empty(), "{file} is empty");
        let t0 = Instant::now();
        let references: Vec<SolveResult> = puzzles
            .par_iter()
            .map_init(Solver::new, |solver, p| {
                solver.solve(p, &fast, &Limits::uniqueness())
            })
            .collect();
        for (p, r) in puzzles.iter().zip(&references) {
            assert!(
                matches!(r.status, Status::Solved | Status::Multiple),
                "fast: {} on {file} puzzle {p}",
                r.status
            );
            assert!(r.grid.is_solution_of(p), "fast: wrong answer on {p}");
        }
        for s in &strategies {
            let limits = if s.explosive() {
                Limits::uniqueness().with_max_guesses(EXPLOSIVE_BUDGET)
            } else {
                Limits::uniqueness()
            };
            let t1 = Instant::now();
            let tally = puzzles
                .par_iter()
                .zip(&references)
                .map_init(Solver::new, |solver, (p, reference)| {
                    check(s, p, &limits, &solver.solve(p, s, &limits), reference)
                })
                .reduce(Tally::default, Tally::merge);
            eprintln!(
                "{file:<32} {:<9} {:>6} checked  {:>6} gave_up  {:>6} stalled  {:>3} failures  {:>8.1?}",
                s.name(),
                tally.checked,
                tally.gave_up,
                tally.stalled,
                tally.failures.len(),
                t1.elapsed()
            );
            failures.extend(tally.failures);
        }
        eprintln!("{file}: {} puzzles in {:.1?}", puzzles.len(), t0.elapsed());
    }
    eprintln!(
        "corpus cross-validation ({}): {:.1?}",
        if full { "full" } else { "sampled" },
        started.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{} failures, first ones:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}

/// The guess budget of explosive strategies in the round trips below.
fn budget(s: &Strategy) -> u64 {
    if s.explosive() {
        EXPLOSIVE_BUDGET
    } else {
        bench_sudoku::solver::DEFAULT_MAX_GUESSES
    }
}

/// Every built-in strategy loaded back from the `capi` library (through
/// bench-sudoku's interface and through tdoku's signature) and served over
/// the protocol (`serve`, as `cmd=`) gives the built-in strategy's answers
/// and counters on every corpus: statuses, counts, solutions, and every
/// counter both report. `fast` is checked with the benchmark's limit (1) as
/// well as 2.
///
/// tdoku's signature cannot say "gave up" or "stalled" (a give-up reads as
/// the solutions found so far), and it has no budget argument: for the
/// explosive strategies the library's default budget applies there, so
/// they go through the other two ways only.
#[test]
fn corpus_capi_and_serve_round_trips_agree_with_the_built_in_strategies() {
    let Some(dir) = corpora() else {
        eprintln!("BENCH_SUDOKU_CORPORA not set: corpus round trips skipped");
        return;
    };
    let full = std::env::var_os("BENCH_SUDOKU_FULL").is_some_and(|v| v == "1");
    let step = if full { 1 } else { SAMPLE_STEP };
    let lib = capi();
    let started = Instant::now();
    for file in FILES {
        let puzzles: Vec<Grid> = read_corpus(&dir.join(file))
            .into_iter()
            .step_by(step)
            .collect();
        for s in Strategy::all() {
            let name = s.name();
            let t = Instant::now();
            let mut variants = vec![
                Strategy::parse(&format!("lib={},solver={name},name=capi", lib.display())).unwrap(),
                Strategy::parse(&format!(
                    "cmd={BIN} serve -s {name} --max-guesses {},name=served",
                    budget(&s)
                ))
                .unwrap(),
            ];
            if !s.explosive() {
                variants.push(
                    Strategy::parse(&format!(
                        "lib={},symbol=bench_sudoku_{name},name=capi-tdoku",
                        lib.display()
                    ))
                    .unwrap(),
                );
            }
            let mut limits = vec![Limits::uniqueness().with_max_guesses(budget(&s))];
            if name == "fast" {
                limits.push(Limits::first());
            }
            for v in &variants {
                let says_unfinished = v.name() != "capi-tdoku";
                for l in &limits {
                    // Chunks on all cores; one served process per chunk.
                    puzzles
                        .par_chunks(256)
                        .for_each(|chunk| same_answers(&s, v, chunk, l, says_unfinished));
                }
            }
            eprintln!(
                "{file:<32} {name:<9} {} puzzles × {} loaded-back variants agree  {:>8.1?}",
                puzzles.len(),
                variants.len(),
                t.elapsed()
            );
        }
    }
    eprintln!("corpus round trips: {:.1?}", started.elapsed());
}
