//! Development harness: the cost of the answer check run on every solution
//! (`Grid::is_solution_of`, which uses AVX2 when the CPU has it) against its
//! portable version, on the `fast` engine's solutions of the given files.
//! usage: cargo run --release --example answer_check -- [--rounds N] FILE...
use bench_sudoku::solver::{Limits, Solver, Strategy};
use bench_sudoku::Grid;
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut rounds = 7usize;
    if let Some(i) = args.iter().position(|a| a == "--rounds") {
        rounds = args[i + 1].parse().expect("--rounds N");
        args.drain(i..=i + 1);
    }
    let strategy = Strategy::named("fast").expect("the fast strategy");
    for path in &args {
        let text = std::fs::read_to_string(path).expect("readable file");
        let puzzles: Vec<Grid> = text
            .lines()
            .map(|l| l.trim_end_matches('\r'))
            .filter(|l| !l.starts_with('#') && l.len() >= 81)
            .map(|l| l[..81].parse().expect("a puzzle line"))
            .collect();
        let mut solver = Solver::new();
        let solutions: Vec<Grid> = puzzles
            .iter()
            .map(|p| solver.solve(p, &strategy, &Limits::first()).grid)
            .collect();
        // Alternate the two checks; keep each one's best round.
        let (mut simd, mut portable) = (f64::MAX, f64::MAX);
        for _ in 0..rounds {
            for (which, best) in [(0, &mut simd), (1, &mut portable)] {
                let t = Instant::now();
                let mut valid = 0usize;
                for (s, p) in solutions.iter().zip(&puzzles) {
                    let s = black_box(s);
                    valid += if which == 0 {
                        s.is_solution_of(p)
                    } else {
                        s.is_solution_of_portable(p)
                    } as usize;
                }
                assert_eq!(valid, puzzles.len(), "every solution is valid");
                *best = best.min(t.elapsed().as_secs_f64());
            }
        }
        let per = |t: f64| t * 1e9 / puzzles.len() as f64;
        println!(
            "{path}: {} solutions, is_solution_of {:.1} ns, portable {:.1} ns (best of {rounds})",
            puzzles.len(),
            per(simd),
            per(portable)
        );
    }
}
