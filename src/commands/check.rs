//! `bench-sudoku check FILE`: classify every puzzle by its number of solutions.

use super::{parse_strategy, CmdResult};
use crate::cli::CheckArgs;
use crate::grid::Grid;
use crate::solver::{Limits, Solver, Status};
use anyhow::Context;
use std::io::{BufRead, BufReader, Read, Write};

pub fn run(args: &CheckArgs) -> CmdResult {
    let strategy = parse_strategy(&args.strategy)?;
    let limits = Limits::uniqueness().with_max_guesses(args.engine.max_guesses);
    let path = &args.file;
    let name = path.display();
    if path.is_dir() {
        anyhow::bail!("{name}: is a directory, not a puzzle file");
    }
    let file = std::fs::File::open(path).with_context(|| format!("{name}: cannot open"))?;
    let mut reader = BufReader::new(file);
    let mut solver = Solver::new();
    let mut counts = [0u64; Status::ALL.len()];
    let mut out = std::io::stdout().lock();
    let mut buf = Vec::new();
    let mut line_no = 0u64;
    let mut total = 0u64;
    loop {
        buf.clear();
        let n = reader
            .by_ref()
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buf)
            .with_context(|| format!("{name}:{}: cannot read", line_no + 1))?;
        if n == 0 {
            break;
        }
        line_no += 1;
        if buf.len() > MAX_LINE && !buf.ends_with(b"\n") {
            anyhow::bail!("{name}:{line_no}: line too long (over {MAX_LINE} bytes)");
        }
        let mut t = buf.trim_ascii();
        if line_no == 1 {
            t = t.strip_prefix(b"\xEF\xBB\xBF".as_slice()).unwrap_or(t);
        }
        if t.is_empty() || t.starts_with(b"#") {
            continue;
        }
        let grid = Grid::parse_bytes(t).map_err(|e| anyhow::anyhow!("{name}:{line_no}: {e}"))?;
        total += 1;
        let r = solver.solve(&grid, &strategy, &limits);
        if let Some(s) = r.solution() {
            s.check_solution_of(&grid).map_err(|e| {
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

/// Longest line accepted (a puzzle line is 81 characters plus decoration).
const MAX_LINE: usize = 64 * 1024;
