//! Development harness: the peer's method on the `fast` engine alone.
//! usage: cargo run --release --example engine_loop -- [--rounds N] [-s STRATEGY] FILE...
use bench_sudoku::solver::{Limits, Solver, Strategy};
use bench_sudoku::Grid;
use std::time::Instant;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut rounds = 5usize;
    let mut strategy = "fast".to_string();
    if let Some(i) = args.iter().position(|a| a == "--rounds") {
        rounds = args[i + 1].parse().unwrap();
        args.drain(i..=i + 1);
    }
    if let Some(i) = args.iter().position(|a| a == "-s") {
        strategy = args[i + 1].clone();
        args.drain(i..=i + 1);
    }
    let strat = Strategy::named(&strategy).expect("strategy");
    for path in &args {
        let text = std::fs::read_to_string(path).unwrap();
        let puzzles: Vec<Grid> = text
            .lines()
            .map(|l| l.trim_end_matches('\r'))
            .filter(|l| !l.starts_with('#') && l.len() >= 81)
            .map(|l| l[..81].parse().unwrap())
            .collect();
        let mut solver = Solver::new();
        let limits = Limits::first();
        let mut best = f64::MAX;
        let mut guesses = 0u64;
        for _ in 0..rounds {
            guesses = 0;
            let t = Instant::now();
            for p in &puzzles {
                let r = solver.solve(p, &strat, &limits);
                guesses += r.counters.guesses;
            }
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!(
            "{path}: {} puzzles, {:.3} us/puzzle, {:.2} guesses/puzzle",
            puzzles.len(),
            best * 1e6 / puzzles.len() as f64,
            guesses as f64 / puzzles.len() as f64
        );
    }
}
