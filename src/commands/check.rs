//! `bench-sudoku check FILE`: classify every puzzle by its number of solutions.

use super::{parse_strategy, CmdResult};
use crate::cli::CheckArgs;
use crate::dataset::{self, Format};
use crate::solver::{Limits, Solver, Status};
use std::io::Write;

pub fn run(args: &CheckArgs) -> CmdResult {
    let strategy = parse_strategy(&args.strategy)?;
    let limits = Limits::uniqueness().with_max_guesses(args.engine.max_guesses);
    let name = args.file.display();
    // The dataset reader: plain lines (or CSV, gzip), bounded lines, and
    // `file:line: what is wrong` errors.
    let reader = dataset::open(&args.file, Format::Auto)?;
    let mut solver = Solver::new();
    let mut counts = [0u64; Status::ALL.len()];
    let mut out = std::io::stdout().lock();
    let mut total = 0u64;
    for item in reader {
        let rec = item?;
        let line_no = rec.line;
        total += 1;
        let r = solver.solve(&rec.puzzle, &strategy, &limits);
        if let Some(s) = r.solution() {
            s.check_solution_of(&rec.puzzle).map_err(|e| {
                anyhow::anyhow!("{name}:{line_no}: engine returned an invalid solution: {e}")
            })?;
        }
        counts[r.status as usize] += 1;
        if args.list && r.status != Status::Solved {
            let label = label(r.status);
            match r.conflict {
                Some(c) => writeln!(out, "{name}:{line_no}: {label} ({c})")?,
                None => writeln!(out, "{name}:{line_no}: {label}")?,
            }
        }
    }
    writeln!(
        out,
        "{name}: {total} puzzles (strategy {})",
        strategy.name()
    )?;
    for st in Status::ALL {
        let n = counts[st as usize];
        if n > 0
            || matches!(
                st,
                Status::Solved | Status::Multiple | Status::NoSolution | Status::Invalid
            )
        {
            writeln!(out, "  {:12} {n:>9}", label(st))?;
        }
    }
    let not_unique = total - counts[Status::Solved as usize];
    Ok(if args.strict && not_unique > 0 { 1 } else { 0 })
}

/// `check` speaks of unique puzzles rather than solved ones.
fn label(st: Status) -> &'static str {
    match st {
        Status::Solved => "unique",
        other => other.as_str(),
    }
}
