//! Throwaway-grade timing harness for the `fast` strategy (tuning aid).
//!
//! usage: cargo run --release --example fast_timing -- [--rounds N] [--strategy S] [--check] FILE...
//!
//! Loads each puzzle file into memory ('#' lines and blank lines skipped),
//! then times single-threaded first-solution solves, best of N rounds, and
//! prints mean microseconds per puzzle. `--check` first compares every
//! puzzle against `locked` under uniqueness limits.
use bench_sudoku::solver::{Limits, Solver, Status, Strategy};
use bench_sudoku::Grid;
use std::time::Instant;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut rounds = 5usize;
    let mut strategy = "fast".to_string();
    let mut check = false;
    let mut files = Vec::new();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--rounds" => {
                rounds = args[i + 1].parse().expect("--rounds N");
                i += 1;
            }
            "--strategy" => {
                strategy = args[i + 1].clone();
                i += 1;
            }
            "--check" => check = true,
            _ => files.push(std::mem::take(&mut args[i])),
        }
        i += 1;
    }
    let strat = Strategy::parse(&strategy).expect("strategy");
    let reference = Strategy::named("locked").unwrap();
    let mut solver = Solver::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("read");
        let puzzles: Vec<Grid> = text
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(|l| Grid::parse(l).expect("puzzle"))
            .collect();
        if check {
            let mut bad = 0;
            for p in &puzzles {
                let a = solver.solve(p, &strat, &Limits::uniqueness());
                let b = solver.solve(p, &reference, &Limits::uniqueness());
                let same = a.status == b.status
                    && a.solutions == b.solutions
                    && (a.status != Status::Solved || a.grid == b.grid)
                    && (a.solutions == 0 || a.grid.is_solution_of(p));
                if !same {
                    bad += 1;
                    if bad < 5 {
                        eprintln!("MISMATCH {p}: {:?} vs {:?}", a.status, b.status);
                    }
                }
            }
            eprintln!(
                "{path}: {} puzzles checked, {bad} mismatches",
                puzzles.len()
            );
        }
        let limits = Limits::first();
        let mut best = f64::MAX;
        let mut solved = 0;
        let (mut guesses, mut nodes) = (0u64, 0u64);
        for _ in 0..rounds {
            let t = Instant::now();
            solved = 0;
            guesses = 0;
            nodes = 0;
            for p in &puzzles {
                let r = solver.solve(p, &strat, &limits);
                solved += (r.solutions > 0) as usize;
                guesses += r.counters.guesses;
                nodes += r.counters.nodes;
            }
            best = best.min(t.elapsed().as_secs_f64());
        }
        let n = puzzles.len().max(1) as f64;
        println!(
            "{{\"file\":\"{path}\",\"strategy\":\"{strategy}\",\"puzzles\":{},\"solved\":{solved},\"usec_per_puzzle\":{:.4},\"guesses_per_puzzle\":{:.3},\"nodes_per_puzzle\":{:.3}}}",
            puzzles.len(),
            best * 1e6 / n,
            guesses as f64 / n,
            nodes as f64 / n
        );
    }
}
