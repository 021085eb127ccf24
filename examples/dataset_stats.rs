//! Measures a generated CSV dataset (temporary, until `bench-sudoku run`
//! exists): checks every puzzle is unique with the stored solution, then
//! reports clue range and per-strategy guesses and single-threaded time.
//!
//! ```text
//! cargo run --release --example dataset_stats -- datasets/hard.csv mrv hidden locked
//! ```

use anyhow::{bail, Context};
use bench_sudoku::solver::{Limits, Solver, Status, Strategy};
use bench_sudoku::Grid;
use std::time::Instant;

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        bail!("usage: dataset_stats FILE.csv [STRATEGY...]");
    };
    let mut strategies: Vec<Strategy> = args
        .map(|s| Strategy::parse(&s))
        .collect::<Result<_, _>>()?;
    if strategies.is_empty() {
        strategies = ["mrv", "hidden", "locked"]
            .iter()
            .filter_map(|n| Strategy::named(n))
            .collect();
    }
    let mut reader = csv::Reader::from_path(&path).with_context(|| path.clone())?;
    let mut rows = Vec::new();
    for rec in reader.records() {
        let rec = rec?;
        let puzzle = Grid::parse(&rec[0])?;
        let solution = Grid::parse(&rec[1])?;
        let stored: u64 = rec[3].parse()?;
        rows.push((puzzle, solution, stored));
    }
    let mut solver = Solver::new();
    let locked = Strategy::parse("locked")?;
    let (mut lo, mut hi, mut sum) = (81, 0, 0usize);
    for (i, (p, s, _)) in rows.iter().enumerate() {
        let r = solver.solve(p, &locked, &Limits::uniqueness());
        if r.status != Status::Solved || r.grid != *s || s.check_solution_of(p).is_err() {
            bail!("row {}: not unique or solution differs", i + 1);
        }
        lo = lo.min(p.givens());
        hi = hi.max(p.givens());
        sum += p.givens();
    }
    let n = rows.len().max(1);
    println!(
        "{path}: {} puzzles, all unique with the stored solution; clues {lo}-{hi} (mean {:.1})",
        rows.len(),
        sum as f64 / n as f64
    );
    for strategy in &strategies {
        let start = Instant::now();
        let (mut total, mut max, mut zero, mut mismatch) = (0u64, 0u64, 0usize, 0usize);
        let mut solved = 0usize;
        for (p, _, stored) in &rows {
            let r = solver.solve(p, strategy, &Limits::uniqueness());
            solved += usize::from(r.status == Status::Solved);
            let g = r.counters.guesses;
            total += g;
            max = max.max(g);
            zero += usize::from(g == 0);
            mismatch += usize::from(strategy.name() == "hidden" && g != *stored);
        }
        println!(
            "  {:<8} solved {:>5}  guesses mean {:>8.2} max {:>6}  no-guess {:>5}  time {:>8.1} ms (1 thread, limit 2){}",
            strategy.name(),
            solved,
            total as f64 / n as f64,
            max,
            zero,
            start.elapsed().as_secs_f64() * 1e3,
            if mismatch > 0 {
                format!("  ({mismatch} differ from the guesses column)")
            } else {
                String::new()
            }
        );
    }
    Ok(())
}
