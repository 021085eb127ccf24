//! Command-line definitions (clap derive) and dispatch. The work lives in
//! [`crate::commands`].

use crate::commands;
use crate::solver::strategy::SPEC_HELP;
use crate::solver::DEFAULT_MAX_GUESSES;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// Benchmark Sudoku solver strategies: exact search-effort counters, latency
/// percentiles, every answer verified.
#[derive(Debug, Parser)]
#[command(name = "bench-sudoku", version, about, long_about = None)]
#[command(after_help = "Examples:
  bench-sudoku solve 009020034070008006600500000003900080700040002050002700000001007200300090480060500
  bench-sudoku solve -s logic --trace 850000200060000010001000437000302000005080900000701000586000300020000050007000046
  bench-sudoku check puzzles.txt
  bench-sudoku strategies")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Solve one puzzle (argument) or many (stdin, one per line); print the
    /// solution, the outcome and the search counters.
    #[command(after_help = "Examples:
  bench-sudoku solve 800000000070090200003600000050007000000045700000100030001000068008500010090000400
  bench-sudoku solve -s mrv --json < puzzles.txt
  bench-sudoku solve -s 'prop=naked,branch=max' --trace 0000...   (81 characters)
  bench-sudoku solve --count 10 ................................................................................. (empty grid: stops at 10)

Exit status: 0 when every line was read (whatever the outcomes), 2 on a malformed puzzle or bad option.")]
    Solve(SolveArgs),
    /// Classify every puzzle of a file as unique / multiple / no_solution /
    /// invalid and print the counts.
    #[command(
        after_help = "The file holds one 81-character puzzle per line ('1'-'9' givens, '.' or '0' blanks);
'#' comment lines, blank lines and CRLF line ends are skipped.

Examples:
  bench-sudoku check puzzles.txt
  bench-sudoku check --list --strict puzzles.txt   (print every non-unique puzzle; exit 1 if any)

Exit status: 0 when the file was read, 1 with --strict when a puzzle is not unique, 2 on a malformed line or unreadable file."
    )]
    Check(CheckArgs),
    /// List the strategies with their axes and a one-line description.
    #[command(after_help = SPEC_HELP)]
    Strategies(StrategiesArgs),
}

/// Options shared by the commands that solve.
#[derive(Debug, Args, Clone)]
pub struct EngineArgs {
    /// Per-puzzle guess budget; past it a puzzle is reported `gave_up`.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_GUESSES)]
    pub max_guesses: u64,
}

#[derive(Debug, Args)]
pub struct SolveArgs {
    /// The puzzle: 81 characters, '1'-'9' givens, '.' or '0' blanks. Omit it,
    /// or give '-', to read puzzles from standard input, one per line.
    #[arg(value_name = "PUZZLE|-")]
    pub puzzle: Option<String>,
    /// Strategy name or spec.
    #[arg(short, long, default_value = "hidden", long_help = SPEC_HELP)]
    pub strategy: String,
    /// Count solutions up to N (2 proves uniqueness; 1 stops at the first).
    #[arg(long, value_name = "N", default_value_t = 2)]
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

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// File of 81-character puzzle lines.
    pub file: PathBuf,
    /// Strategy used to count solutions.
    #[arg(short, long, default_value = "locked", long_help = SPEC_HELP)]
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

#[derive(Debug, Args)]
pub struct StrategiesArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Parses the command line and runs the command; returns the exit status.
pub fn main() -> i32 {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Solve(a) => commands::solve::run(a),
        Command::Check(a) => commands::check::run(a),
        Command::Strategies(a) => commands::strategies::run(a),
    };
    commands::exit_code(result)
}
