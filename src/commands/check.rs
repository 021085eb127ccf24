//! `bench-sudoku check FILE`: classify every puzzle by its number of solutions.

use super::args::EngineArgs;
use super::CmdResult;
use crate::dataset::{self, Format};
use crate::solver::strategy::spec_help;
use crate::solver::{Limits, Solver, Status};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// File of 81-character puzzle lines.
    pub file: PathBuf,
    /// Strategy used to count solutions.
    #[arg(short, long, default_value = "locked", long_help = spec_help())]
    pub strategy: String,
    /// Print each puzzle that is not unique, with its line number.
    #[arg(long)]
    pub list: bool,
    /// Exit with status 1 when any puzzle is not unique.
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub engine: EngineArgs,
}

pub fn run(args: &CheckArgs) -> CmdResult {
    let strategy = args
        .engine
        .solvers
        .strategy(&args.strategy, args.engine.max_guesses)?;
    let limits = Limits::uniqueness().with_max_guesses(args.engine.max_guesses);
    // Printed on every line it is part of: control characters escaped.
    let name = args.file.display().to_string();
    let name = crate::report::printable(&name);
    // The dataset reader: plain lines (or CSV, gzip), bounded lines, and
    // `file:line: what is wrong` errors.
    // `-`, a pipe or a FIFO is copied to a temporary file first (as `run`
    // does), so that every way of giving a dataset works alike.
    let spool = if dataset::is_stream(&args.file) {
        Some(dataset::spool(&args.file)?)
    } else {
        None
    };
    let source = spool.as_deref().unwrap_or(&args.file);
    let reader = dataset::open_as(source, &args.file, Format::Auto)?;
    let mut solver = Solver::new();
    let mut counts = [0u64; Status::ALL.len()];
    let mut out = std::io::stdout().lock();
    let mut total = 0u64;
    let mut wrong = 0u64;
    for item in reader {
        let rec = item?;
        let line_no = rec.line;
        total += 1;
        let cands = rec.candidates();
        let a = solver.answer_with(&rec.puzzle, cands, &strategy, &limits);
        let r = &a.result;
        // A wrong answer is not a classification: it is listed whatever
        // --list says, and the file's counts leave it out.
        if let Some(w) =
            super::solve::check_answer(&mut solver, &rec.puzzle, cands, &strategy, &limits, &a)
        {
            wrong += 1;
            writeln!(
                out,
                "{name}:{line_no}: WRONG ({})",
                crate::report::printable(&w.to_string())
            )?;
            continue;
        }
        counts[r.status as usize] += 1;
        if r.status.is_fault() {
            let note = a.note.as_deref().unwrap_or("");
            writeln!(
                out,
                "{name}:{line_no}: {} ({})",
                r.status,
                crate::report::printable(note)
            )?;
        } else if args.list && r.status != Status::Solved {
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
    if wrong > 0 {
        writeln!(out, "  {:12} {wrong:>9}", "WRONG")?;
    }
    let faults: u64 = Status::FAULTS.iter().map(|&s| counts[s as usize]).sum();
    let not_unique = total - counts[Status::Solved as usize];
    Ok(
        if wrong > 0 || faults > 0 || (args.strict && not_unique > 0) {
            1
        } else {
            0
        },
    )
}

/// `check` speaks of unique puzzles rather than solved ones.
fn label(st: Status) -> &'static str {
    match st {
        Status::Solved => "unique",
        other => other.as_str(),
    }
}
