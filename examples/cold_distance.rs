//! How far apart two solves of one puzzle must be for the second to be as
//! slow as the first: the measurement behind the pipeline's cold order
//! (docs/MEASUREMENT.md, "Cold by default").
//!
//! For each window W, the corpus is cut into windows of W puzzles; each
//! window is solved twice in a row, every solve timed alone, so the second
//! solve of a puzzle comes W - 1 other solves after its first. The table
//! prints the mean of the first and second solves and their ratio (1.00:
//! the repeat learned nothing), beside a whole pass over the corpus timed
//! once from outside (no clock read per puzzle; each puzzle solved once).
//!
//! usage: cargo run --release --example cold_distance -- [-s STRATEGY] [--max N] [--rounds R] [--windows 1,16,256] FILE...
use bench_sudoku::solver::{Limits, Solver, Strategy};
use bench_sudoku::Grid;
use std::time::Instant;

fn take(args: &mut Vec<String>, flag: &str) -> Option<String> {
    let i = args.iter().position(|a| a == flag)?;
    let v = args.get(i + 1).cloned();
    args.drain(i..(i + 2).min(args.len()));
    v
}

fn read(path: &str, max: usize) -> Vec<Grid> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| !l.starts_with('#') && l.len() >= 81)
        .filter_map(|l| l[..81].parse().ok())
        .take(max)
        .collect()
}

/// Mean ns of the first and the second solves of every puzzle, windows of
/// `w` puzzles solved twice in a row.
fn windows(solver: &mut Solver, strat: &Strategy, puzzles: &[Grid], w: usize) -> (f64, f64) {
    let limits = Limits::first();
    let (mut first, mut second) = (0u128, 0u128);
    for window in puzzles.chunks(w) {
        for pass in 0..2 {
            for p in window {
                let t = Instant::now();
                let r = solver.solve(p, strat, &limits);
                let ns = t.elapsed().as_nanos();
                std::hint::black_box(r);
                if pass == 0 {
                    first += ns;
                } else {
                    second += ns;
                }
            }
        }
    }
    let n = puzzles.len() as f64;
    (first as f64 / n, second as f64 / n)
}

/// Mean ns per puzzle of one pass over the corpus, timed as a whole.
fn whole_pass(solver: &mut Solver, strat: &Strategy, puzzles: &[Grid]) -> f64 {
    let limits = Limits::first();
    let t = Instant::now();
    for p in puzzles {
        std::hint::black_box(solver.solve(p, strat, &limits));
    }
    t.elapsed().as_nanos() as f64 / puzzles.len() as f64
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let strategy = take(&mut args, "-s").unwrap_or_else(|| "fast".into());
    let max: usize = take(&mut args, "--max").map_or(20_000, |v| v.parse().expect("--max N"));
    let list = take(&mut args, "--windows")
        .unwrap_or_else(|| "1,2,4,8,16,32,64,128,256,512,1024,4096".into());
    let ws: Vec<usize> = list
        .split(',')
        .map(|v| v.parse().expect("--windows"))
        .collect();
    let strat = Strategy::named(&strategy).expect("strategy");
    let rounds: usize = take(&mut args, "--rounds").map_or(7, |v| v.parse().expect("--rounds N"));
    for path in &args {
        let puzzles = read(path, max);
        let mut solver = Solver::new();
        // One pass first, so that the code and tables are in place.
        whole_pass(&mut solver, &strat, &puzzles);
        // Rounds visit every window size in turn, so that a slow minute of
        // a shared machine spreads over all of them. The means printed are
        // the fastest round's (interference only adds time); the ratio is
        // the median of each round's own ratio.
        let mut runs: Vec<Vec<(f64, f64)>> = vec![Vec::new(); ws.len()];
        let mut wholes = Vec::new();
        for _ in 0..rounds {
            wholes.push(whole_pass(&mut solver, &strat, &puzzles));
            for (i, &w) in ws.iter().enumerate() {
                runs[i].push(windows(&mut solver, &strat, &puzzles, w));
            }
        }
        let whole = fastest(wholes);
        println!(
            "{path}: {} puzzles, {strategy}, whole pass {whole:.1} ns/puzzle (fastest of {rounds} rounds)",
            puzzles.len()
        );
        println!(
            "{:>7} {:>12} {:>12} {:>14} {:>14}",
            "window", "first ns", "second ns", "second/first", "second/whole"
        );
        for (&w, r) in ws.iter().zip(runs) {
            let ratio = median(r.iter().map(|(a, b)| b / a).collect());
            let a = fastest(r.iter().map(|x| x.0).collect());
            let b = fastest(r.iter().map(|x| x.1).collect());
            println!(
                "{w:>7} {a:>12.1} {b:>12.1} {ratio:>14.3} {:>14.3}",
                b / whole
            );
        }
    }
}

fn fastest(v: Vec<f64>) -> f64 {
    v.into_iter().fold(f64::MAX, f64::min)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
