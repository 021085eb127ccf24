//! `bench-sudoku solve`: one puzzle from the argument, or many from stdin.

use super::{parse_strategy, CmdResult};
use crate::cli::SolveArgs;
use crate::grid::Grid;
use crate::solver::{Limits, SolveResult, Solver, Status, Strategy, TraceObserver};
use anyhow::Context;
use serde::Serialize;
use std::io::{BufRead, BufWriter, Write};
use std::time::Instant;

/// One puzzle's answer as printed by `solve --json`.
#[derive(Debug, Serialize)]
pub struct SolveRecord<'a> {
    pub index: u64,
    pub puzzle: String,
    pub strategy: &'a str,
    pub status: Status,
    pub solutions: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub solution: Option<String>,
    /// Partly filled grid of a `stalled` result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grid: Option<String>,
    pub filled: u8,
    pub guesses: u64,
    pub backtracks: u64,
    pub max_depth: u32,
    pub nodes: u64,
    pub naked_singles: u64,
    pub hidden_singles: u64,
    pub time_ns: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conflict: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<Vec<String>>,
}

pub fn run(args: &SolveArgs) -> CmdResult {
    let strategy = parse_strategy(&args.strategy)?;
    let limits = Limits::uniqueness()
        .with_solutions(args.count)
        .with_max_guesses(args.engine.max_guesses);
    let mut solver = Solver::new();
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());

    match args.puzzle.as_deref() {
        Some(p) if p != "-" => {
            let grid = Grid::parse(p).map_err(|e| anyhow::anyhow!("puzzle argument: {e}"))?;
            one(&mut out, &mut solver, 1, &grid, &strategy, &limits, args)?;
        }
        _ => {
            let stdin = std::io::stdin();
            let mut index = 0u64;
            for (n, line) in stdin.lock().lines().enumerate() {
                let line = line.with_context(|| format!("stdin:{}: cannot read", n + 1))?;
                let t = line.trim();
                if t.is_empty() || t.starts_with('#') {
                    continue;
                }
                let grid = Grid::parse(t).map_err(|e| anyhow::anyhow!("stdin:{}: {e}", n + 1))?;
                index += 1;
                one(
                    &mut out,
                    &mut solver,
                    index,
                    &grid,
                    &strategy,
                    &limits,
                    args,
                )?;
            }
            if index == 0 && !args.json {
                writeln!(out, "no puzzles on standard input")?;
            }
        }
    }
    out.flush()?;
    Ok(0)
}

fn one(
    out: &mut impl Write,
    solver: &mut Solver,
    index: u64,
    grid: &Grid,
    strategy: &Strategy,
    limits: &Limits,
    args: &SolveArgs,
) -> anyhow::Result<()> {
    if index == 1 {
        // Warm-up: the first solve of a process pays for cold caches and
        // page faults; the time shown is a warm one.
        solver.solve(grid, strategy, limits);
    }
    let t = Instant::now();
    let r = solver.solve(grid, strategy, limits);
    let time_ns = t.elapsed().as_nanos() as u64;
    if let Some(s) = r.solution() {
        // Every answer is verified before it is shown.
        s.check_solution_of(grid)
            .map_err(|e| anyhow::anyhow!("engine returned an invalid solution: {e}"))?;
    }
    let trace = if args.trace {
        let mut obs = TraceObserver::default();
        let traced = solver.solve_observed(grid, strategy, limits, &mut obs);
        debug_assert_eq!(traced.counters, r.counters);
        Some(obs.out)
    } else {
        None
    };

    if args.json {
        let rec = record(index, grid, strategy, &r, time_ns, trace);
        serde_json::to_writer(&mut *out, &rec)?;
        writeln!(out)?;
        return Ok(());
    }

    if index > 1 {
        writeln!(out)?;
    }
    writeln!(out, "puzzle {index}: {}", grid.to_line())?;
    if let Some(t) = &trace {
        out.write_all(t.as_bytes())?;
    }
    if r.solution().is_some() || r.status == Status::Stalled {
        write!(out, "{:#}", r.grid)?;
    }
    writeln!(out, "status: {}", describe(&r, limits))?;
    let c = &r.counters;
    writeln!(
        out,
        "strategy {}  guesses {}  backtracks {}  max_depth {}  nodes {}  naked_singles {}  hidden_singles {}  time {}",
        strategy.name(),
        c.guesses,
        c.backtracks,
        c.max_depth,
        c.nodes,
        c.naked_singles,
        c.hidden_singles,
        crate::report::terminal::fmt_ns(time_ns as f64)
    )?;
    Ok(())
}

/// A one-line account of the outcome.
pub fn describe(r: &SolveResult, limits: &Limits) -> String {
    match r.status {
        Status::Solved if limits.solutions >= 2 => "solved (unique solution)".into(),
        Status::Solved => "solved (first solution; uniqueness not checked)".into(),
        Status::Multiple if r.solutions >= limits.solutions => format!(
            "multiple (stopped at the limit of {} solutions; first shown)",
            r.solutions
        ),
        Status::Multiple => format!("multiple ({} solutions; first shown)", r.solutions),
        Status::NoSolution => "no_solution".into(),
        Status::Invalid => match &r.conflict {
            Some(c) => format!("invalid (givens conflict: {c})"),
            None => "invalid (givens conflict)".into(),
        },
        Status::Stalled => format!(
            "stalled (no guessing; filled {} cells, {} left)",
            r.filled,
            r.grid.cells().iter().filter(|&&v| v == 0).count()
        ),
        Status::GaveUp => format!(
            "gave_up (guess budget of {} exhausted; {} solution(s) found before)",
            limits.max_guesses, r.solutions
        ),
    }
}

fn record<'a>(
    index: u64,
    grid: &Grid,
    strategy: &'a Strategy,
    r: &SolveResult,
    time_ns: u64,
    trace: Option<String>,
) -> SolveRecord<'a> {
    let c = &r.counters;
    SolveRecord {
        index,
        puzzle: grid.to_line(),
        strategy: strategy.name(),
        status: r.status,
        solutions: r.solutions,
        solution: r.solution().map(|g| g.to_line()),
        grid: (r.status == Status::Stalled).then(|| r.grid.to_line()),
        filled: r.filled,
        guesses: c.guesses,
        backtracks: c.backtracks,
        max_depth: c.max_depth,
        nodes: c.nodes,
        naked_singles: c.naked_singles,
        hidden_singles: c.hidden_singles,
        time_ns,
        conflict: r.conflict.map(|c| c.to_string()),
        trace: trace.map(|t| t.lines().map(|l| l.trim_start().to_string()).collect()),
    }
}
