//! `bench-sudoku solve`: one puzzle from the argument, or many from stdin.

use super::args::EngineArgs;
use super::CmdResult;
use crate::dataset::MAX_LINE_BYTES;
use crate::grid::pencilmark::{self, Candidates};
use crate::grid::Grid;
use crate::report::terminal::ABSENT;
use crate::solver::strategy::spec_help;
use crate::solver::{
    Answer, Counter, CounterSet, Limits, SolveResult, Solver, Status, Strategy, TraceObserver,
};
use anyhow::Context;
use clap::Args;
use serde::Serialize;
use std::io::{BufRead, BufWriter, Read, Write};
use std::time::Instant;

#[derive(Debug, Args)]
pub struct SolveArgs {
    /// The puzzle: 81 characters, '1'-'9' givens, '.' or '0' blanks. Omit it,
    /// or give '-', to read puzzles from standard input, one per line.
    #[arg(value_name = "PUZZLE|-")]
    pub puzzle: Option<String>,
    /// Strategy name or spec.
    #[arg(short, long, default_value = "hidden", long_help = spec_help())]
    pub strategy: String,
    /// Count solutions up to N, N ≥ 1 (2 proves uniqueness; 1 stops at the
    /// first).
    #[arg(long, value_name = "N", default_value_t = 2,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub count: u32,
    /// Print the solving process step by step.
    #[arg(long)]
    pub trace: bool,
    /// One JSON object per puzzle (JSON Lines).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// One puzzle's answer as printed by `solve --json`. A counter the
/// strategy does not report is null.
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
    pub guesses: Option<u64>,
    pub backtracks: Option<u64>,
    pub max_depth: Option<u64>,
    pub nodes: Option<u64>,
    pub naked_singles: Option<u64>,
    pub hidden_singles: Option<u64>,
    /// Candidates removed by each inference level (the generic engine's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locked_eliminations: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subset_eliminations: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fish_eliminations: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wing_eliminations: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chain_eliminations: Option<u64>,
    pub time_ns: u64,
    /// Where `time_ns` comes from (`harness`, `solver`, `round_trip`).
    pub clock: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conflict: Option<String>,
    /// What is wrong with the answer (a grid that breaks a rule or a given,
    /// a count that differs from bench-sudoku's own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wrong: Option<String>,
    /// What went wrong when an external solver failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<Vec<String>>,
}

pub fn run(args: &SolveArgs) -> CmdResult {
    #[cfg(unix)]
    if let Some(code) = supervised(args)? {
        return Ok(code);
    }
    let strategy = args
        .engine
        .solvers
        .strategy(&args.strategy, args.engine.max_guesses)?;
    #[cfg(unix)]
    super::supervise::loaded();
    if args.trace && !strategy.capabilities().trace {
        anyhow::bail!(
            "--trace: strategy {} cannot show its solving process (it is an external solver)",
            strategy.name()
        );
    }
    let limits = Limits::uniqueness()
        .with_solutions(args.count)
        .with_max_guesses(args.engine.max_guesses);
    let stdout = std::io::stdout();
    let mut s = Session {
        out: BufWriter::new(stdout.lock()),
        solver: Solver::new(),
        strategy: &strategy,
        limits: &limits,
        args,
        supervised: supervised_child(),
    };
    let bad = match args.puzzle.as_deref() {
        Some(p) if p != "-" => {
            let (grid, cands) =
                parse_puzzle(p).map_err(|e| anyhow::anyhow!("puzzle argument: {e}"))?;
            s.puzzle(1, 0, (grid, cands.as_deref()))? as u64
        }
        _ => s.stdin()?,
    };
    s.out.flush()?;
    if bad > 0 && !args.json {
        eprintln!("bench-sudoku: {bad} answer(s) wrong or failed");
    }
    #[cfg(unix)]
    super::supervise::unloading();
    Ok(if bad > 0 { 1 } else { 0 })
}

/// A library loaded into the process runs in a supervised child, which its
/// crash, exit or hang cannot take down unnoticed: in the supervisor, the
/// child's exit status (or its fault's); `None` in the child, or where the
/// strategy does not run in the process.
#[cfg(unix)]
fn supervised(args: &SolveArgs) -> anyhow::Result<Option<i32>> {
    let puzzle = |c: &crate::board::Call| {
        let text = c.text.as_deref().unwrap_or("?");
        match c.puzzle {
            Some((_, 0)) => format!("the puzzle argument ({text})"),
            Some((index, line)) => format!("puzzle {index} (stdin:{line}: {text})"),
            None => "a puzzle".to_string(),
        }
    };
    super::supervise::one_thread("solve", &args.strategy, &args.engine, &puzzle)
}

/// What solving puzzles one after another needs.
struct Session<'a, W: Write> {
    out: W,
    solver: Solver,
    strategy: &'a Strategy,
    limits: &'a Limits,
    args: &'a SolveArgs,
    /// In a supervised child: each answer is written out before the next
    /// puzzle is solved, so that a crash loses none of them.
    supervised: bool,
}

impl<W: Write> Session<'_, W> {
    /// Solves and prints puzzle `index` (read from stdin line `line`, 0 for
    /// the argument); returns whether its answer was wrong or failed.
    fn puzzle(
        &mut self,
        index: u64,
        line: u64,
        puzzle: (Grid, Option<&Candidates>),
    ) -> anyhow::Result<bool> {
        // Named on a supervisor's board before it is solved.
        #[cfg(unix)]
        if let Some(slot) = crate::board::this_thread_slot() {
            let mut text = [b'.'; 81];
            text.copy_from_slice(&puzzle.0.to_line().as_bytes()[..81]);
            slot.puzzle(index, line, &text);
        }
        let (strategy, limits, args) = (self.strategy, self.limits, self.args);
        let bad = one(
            &mut self.out,
            &mut self.solver,
            index,
            puzzle,
            strategy,
            limits,
            args,
        )?;
        if self.supervised {
            self.out.flush()?;
        }
        Ok(bad)
    }

    /// Every puzzle of standard input, one per line; returns how many
    /// answers were wrong or failed.
    fn stdin(&mut self) -> anyhow::Result<u64> {
        let mut stdin = std::io::stdin().lock();
        let (mut index, mut bad) = (0u64, 0u64);
        let mut buf = Vec::new();
        for n in 0.. {
            // Lines are bounded as dataset lines are: a longer one is an
            // error, never a growing buffer.
            buf.clear();
            let read = (&mut stdin)
                .take(MAX_LINE_BYTES as u64 + 1)
                .read_until(b'\n', &mut buf)
                .with_context(|| format!("stdin:{}: cannot read", n + 1))?;
            if read == 0 {
                break;
            }
            if buf.len() > MAX_LINE_BYTES {
                anyhow::bail!("stdin:{}: line longer than {MAX_LINE_BYTES} bytes", n + 1);
            }
            let line = String::from_utf8_lossy(&buf);
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            let (grid, cands) =
                parse_puzzle(t).map_err(|e| anyhow::anyhow!("stdin:{}: {e}", n + 1))?;
            index += 1;
            bad += self.puzzle(index, n + 1, (grid, cands.as_deref()))? as u64;
        }
        if index == 0 && !self.args.json {
            writeln!(self.out, "no puzzles on standard input")?;
        }
        Ok(bad)
    }
}

/// Whether this process is a supervised measuring child.
fn supervised_child() -> bool {
    #[cfg(unix)]
    return crate::board::this().is_some();
    #[cfg(not(unix))]
    false
}

/// A puzzle argument or line: 81 cells, or 729 characters of pencilmarks
/// (then with its candidate masks).
pub fn parse_puzzle(text: &str) -> Result<(Grid, Option<Box<Candidates>>), String> {
    let t = text.trim();
    if t.len() == pencilmark::PENCILMARK_LEN {
        return pencilmark::parse(t.as_bytes())
            .map(|(g, c)| (g, Some(Box::new(c))))
            .map_err(|e| format!("pencilmark puzzle: {e}"));
    }
    Grid::parse(t).map(|g| (g, None)).map_err(|e| e.to_string())
}

/// What is wrong with an answer, if anything: a grid that is not a solution
/// of the puzzle (or puts a digit that is not among a pencilmark puzzle's
/// candidates), or (for external solvers) a count that differs from
/// bench-sudoku's own.
pub fn check_answer(
    solver: &mut Solver,
    puzzle: &Grid,
    cands: Option<&Candidates>,
    strategy: &Strategy,
    limits: &Limits,
    a: &Answer,
) -> Option<String> {
    let r = &a.result;
    if r.status.is_fault() {
        return None;
    }
    let wrong_grid = match (&a.note, r.solution()) {
        (Some(note), _) => Some(note.to_string()),
        (None, _) if a.unwritten => None,
        (None, Some(g)) => g
            .check_solution_of(puzzle)
            .err()
            .map(|e| e.to_string())
            .or_else(|| {
                let (cell, d) = pencilmark::violation(g, cands?)?;
                Some(format!(
                    "{}={d} is not among the cell's candidates",
                    crate::grid::cell_name(cell)
                ))
            }),
        (None, None) => None,
    };
    if let Some(w) = wrong_grid {
        return Some(format!("invalid answer: {w}"));
    }
    if strategy.builtin().is_some() {
        return None;
    }
    solver
        .count_disagrees(puzzle, r, limits, !a.unwritten)
        .map(|n| {
            format!(
                "said {} solution(s), bench-sudoku's engine counts {n} (up to the same limit)",
                r.solutions
            )
        })
}

/// Solves and prints one puzzle; returns whether its answer was wrong or
/// the solver failed.
fn one(
    out: &mut impl Write,
    solver: &mut Solver,
    index: u64,
    (puzzle, cands): (Grid, Option<&Candidates>),
    strategy: &Strategy,
    limits: &Limits,
    args: &SolveArgs,
) -> anyhow::Result<bool> {
    let grid = &puzzle;
    if index == 1 {
        // Warm-up: the first solve of a process pays for cold caches and
        // page faults (and an external solver's start); the time shown is a
        // warm one.
        solver.answer_with(grid, cands, strategy, limits);
    }
    let t = Instant::now();
    let a = solver.answer_with(grid, cands, strategy, limits);
    let elapsed = t.elapsed().as_nanos() as u64;
    let time_ns = a.time_ns.unwrap_or(elapsed);
    let r = &a.result;
    let wrong = check_answer(solver, grid, cands, strategy, limits, &a);
    let trace = match (args.trace, strategy.builtin()) {
        (true, Some(b)) => {
            let mut obs = TraceObserver::default();
            let traced = solver.solve_builtin_with(grid, cands, b, limits, &mut obs);
            debug_assert_eq!(traced.counters, r.counters);
            Some(obs.out)
        }
        _ => None,
    };
    let failed = wrong.is_some() || r.status.is_fault();

    if args.json {
        let rec = record(index, grid, strategy, &a, time_ns, wrong, trace);
        serde_json::to_writer(&mut *out, &rec)?;
        writeln!(out)?;
        return Ok(failed);
    }

    if index > 1 {
        writeln!(out)?;
    }
    match cands {
        Some(c) => writeln!(out, "puzzle {index}: {}", pencilmark::format(c))?,
        None => writeln!(out, "puzzle {index}: {}", grid.to_line())?,
    }
    if let Some(t) = &trace {
        out.write_all(t.as_bytes())?;
    }
    if (r.solution().is_some() && !a.unwritten) || r.status == Status::Stalled {
        write!(out, "{:#}", r.grid)?;
    }
    writeln!(out, "status: {}", describe(&a, limits))?;
    if let Some(w) = &wrong {
        writeln!(out, "WRONG: {w}")?;
    }
    writeln!(out, "{}", counters_line(strategy, r, time_ns))?;
    Ok(failed)
}

/// `strategy S  guesses N  backtracks N …  time T`: the search counters
/// (those the strategy does not report, and all of a fault's, shown as
/// absent) and the time, with the clock that took it when it is not the
/// harness's.
fn counters_line(strategy: &Strategy, r: &SolveResult, time_ns: u64) -> String {
    let caps = strategy.capabilities();
    let shown = |counter: Counter| {
        caps.counters
            .value(counter, &r.counters)
            .filter(|_| !r.status.is_fault())
            .map_or(ABSENT.to_string(), |v| v.to_string())
    };
    let mut line = format!("strategy {}", strategy.name());
    for counter in Counter::ALL {
        // The elimination counters when the strategy's levels removed
        // something.
        let search = CounterSet::SEARCH.has(counter);
        if search || caps.counters.value(counter, &r.counters).unwrap_or(0) > 0 {
            line.push_str(&format!("  {} {}", counter.name(), shown(counter)));
        }
    }
    if !r.status.is_fault() {
        line.push_str(&format!(
            "  time {}",
            crate::report::terminal::fmt_ns(time_ns as f64)
        ));
        if caps.clock != crate::solver::Clock::Harness {
            line.push_str(&format!(" ({})", caps.clock.as_str()));
        }
    }
    line
}

/// A one-line account of the outcome.
pub fn describe(a: &Answer, limits: &Limits) -> String {
    let r: &SolveResult = &a.result;
    match r.status {
        Status::Solved if a.unwritten && limits.solutions >= 2 => {
            "solved (unique solution; the solver wrote no grid)".into()
        }
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
            "stalled (no guessing; filled {} cells, {} left; highest inference level that helped: {})",
            r.filled,
            r.grid.cells().iter().filter(|&&v| v == 0).count(),
            r.counters.highest_level().unwrap_or("none")
        ),
        Status::GaveUp => format!(
            "gave_up (guess budget of {} exhausted; {} solution(s) found before)",
            limits.max_guesses, r.solutions
        ),
        Status::Crashed | Status::Timeout | Status::ProtocolError | Status::Error => {
            format!("{}: {}", r.status, a.note.as_deref().unwrap_or("no detail"))
        }
    }
}

fn record<'a>(
    index: u64,
    grid: &Grid,
    strategy: &'a Strategy,
    a: &Answer,
    time_ns: u64,
    wrong: Option<String>,
    trace: Option<String>,
) -> SolveRecord<'a> {
    let r = &a.result;
    let c = &r.counters;
    let caps = strategy.capabilities();
    let reported = if r.status.is_fault() {
        CounterSet::NONE
    } else {
        caps.counters
    };
    let v = |counter: Counter| reported.value(counter, c);
    SolveRecord {
        index,
        puzzle: grid.to_line(),
        strategy: strategy.name(),
        status: r.status,
        solutions: r.solutions,
        solution: r.solution().filter(|_| !a.unwritten).map(|g| g.to_line()),
        grid: (r.status == Status::Stalled).then(|| r.grid.to_line()),
        filled: r.filled,
        guesses: v(Counter::Guesses),
        backtracks: v(Counter::Backtracks),
        max_depth: v(Counter::MaxDepth),
        nodes: v(Counter::Nodes),
        naked_singles: v(Counter::NakedSingles),
        hidden_singles: v(Counter::HiddenSingles),
        locked_eliminations: v(Counter::LockedEliminations),
        subset_eliminations: v(Counter::SubsetEliminations),
        fish_eliminations: v(Counter::FishEliminations),
        wing_eliminations: v(Counter::WingEliminations),
        chain_eliminations: v(Counter::ChainEliminations),
        time_ns,
        clock: caps.clock.as_str(),
        conflict: r.conflict.map(|c| c.to_string()),
        wrong,
        fault: r
            .status
            .is_fault()
            .then(|| a.note.as_deref().unwrap_or("").to_string()),
        trace: trace.map(|t| t.lines().map(|l| l.trim_start().to_string()).collect()),
    }
}
