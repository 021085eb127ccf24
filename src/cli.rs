//! The command line: the subcommands (clap derive) and dispatch. Each
//! command's options are its own `Args` struct in [`crate::commands`]
//! (shared ones in [`crate::commands::args`]); this module only imports
//! them, and nothing in `commands` imports this module.

use crate::commands;
use crate::solver::external;
use crate::solver::strategy::spec_help;
use clap::{CommandFactory, Parser, Subcommand};

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

  bench-sudoku solve -s 'lib=./libmysolver.so' 800000000070090200003600000050007000000045700000100030001000068008500010090000400

Every answer is checked against the rules and the givens; an external solver's count of
solutions is also checked against bench-sudoku's own engine.

A library loaded into the process (lib= without isolate=yes) runs in a supervised child: its
crash, exit() or hang, or a signal it aims at bench-sudoku, is named with the puzzle, and the
answers printed before are kept.

Exit status: 0 when every line was read and every answer checked out, 1 when an answer was
wrong or an external solver failed on a puzzle, 2 on a malformed puzzle, a bad option, a
solver that cannot be loaded or started, or a solver process the system cannot start (too
many open files, no memory); 124 a library call did not return within --timeout, 125 a library
ended the process (exit, _exit), 128+N the process died of signal N (159: the library tried to
stop or signal bench-sudoku, which is refused).")]
    Solve(commands::solve::SolveArgs),
    /// Classify every puzzle of a file as unique / multiple / no_solution /
    /// invalid and print the counts.
    #[command(
        after_help = "The file holds one 81-character puzzle per line ('1'-'9' givens, '.' or '0' blanks);
'#' comment lines, blank lines and CRLF line ends are skipped. CSV datasets (as for `run`) and
gzip work too.

Examples:
  bench-sudoku check puzzles.txt
  bench-sudoku check --list --strict puzzles.txt   (print every non-unique puzzle; exit 1 if any)
  bench-sudoku check --rate puzzles.txt            (also the distribution of technique ratings)

A file with a rating column (as `rate` writes) gets the distribution of its ratings by class
without --rate.

A library loaded into the process (lib= without isolate=yes) runs in a supervised child: its
crash, exit() or hang, or a signal it aims at bench-sudoku, is named with the puzzle's line.

Exit status: 0 when the file was read, 1 with --strict when a puzzle is not unique or when an
external solver's answer was wrong (or it failed on a puzzle), or with --rate when a rating step
was unsound (a bug), 2 on a malformed line or unreadable file, or a solver process the system
cannot start (too many open files, no memory); 124 a library call did not return within --timeout,
125 a library ended the process (exit, _exit), 128+N the process died of signal N (159: the
library tried to stop or signal bench-sudoku, which is refused)."
    )]
    Check(commands::check::CheckArgs),
    /// Rate every puzzle of datasets by the techniques a logical solver
    /// needs (hardest technique, class, steps per technique); write the
    /// ratings as a CSV dataset.
    #[command(after_help = commands::rate::RATE_HELP)]
    Rate(commands::rate::RateArgs),
    /// Benchmark strategies on datasets: every puzzle timed and verified on
    /// all cores; CSV/JSON/Markdown reports and HdrHistograms.
    #[command(after_help = commands::run::run_help())]
    Run(commands::run::RunArgs),
    /// Generate unique-solution puzzles (selected by search effort, or
    /// searched to be hard for a strategy with --hard-for) or complete grids
    /// (--grids).
    #[command(after_help = commands::generate::GENERATE_HELP)]
    Generate(commands::generate::GenerateArgs),
    /// List the strategies with their axes and a one-line description.
    #[command(after_help = format!("Examples:
  bench-sudoku strategies
  bench-sudoku strategies --solvers solvers.toml     (also the external solvers it names)

{}", spec_help()))]
    Strategies(commands::strategies::StrategiesArgs),
    /// Compare two results directories: exact counter changes and a
    /// bootstrap verdict on solve times; exit 1 on a regression (CI gate).
    #[command(after_help = commands::compare::COMPARE_HELP)]
    Compare(commands::compare::CompareArgs),
    /// Merge the results directories of `run --shard K/N` into one.
    #[command(after_help = commands::merge::MERGE_HELP)]
    Merge(commands::merge::MergeArgs),
    /// Write benchmark-tracker files (Bencher BMF, github-action-benchmark)
    /// from an existing results directory.
    #[command(after_help = "Examples:
  bench-sudoku export results/hard --export bmf bmf.json
  bench-sudoku export results/hard --export github-benchmark gab.json   (tool: customSmallerIsBetter)

A run that stopped early (meta.json \"complete\": false) is refused unless --allow-incomplete;
a directory without meta.json (its run did not finish writing its results) always is. FILE may
not be a file of DIR (e.g. DIR/summary.json); a FIFO or a device (/dev/stdout) is written
through, a symbolic link is followed (the link stays).

Exit status: 0 when the files were written, 2 when DIR is not a finished results directory or a file cannot be written.")]
    Export(commands::export::ExportArgs),
    /// Speak the solver protocol (docs/SOLVER-PROTOCOL.md) on stdin/stdout
    /// for any strategy: the reference implementation of the protocol, and
    /// how `isolate=yes` runs a library in child processes.
    #[command(after_help = commands::serve::SERVE_HELP)]
    Serve(commands::serve::ServeArgs),
    /// Regenerate report.html and charts/*.svg of an existing results
    /// directory (from summary.json, histograms/*.hdr and puzzles.csv).
    #[command(after_help = "Examples:
  bench-sudoku report results/hard-20261121T192750Z
  scripts/render-report.sh results/hard-20261121T192750Z shot.png   (PNG via headless Chromium)

A run that stopped early gets a page that says so (INCOMPLETE RUN); a directory without
meta.json (its run did not finish writing its results) is refused, and so is one another
command is writing.

Exit status: 0 when the page was written, 2 when DIR is not a results directory or cannot be written.")]
    Report(commands::report::ReportArgs),
    /// A solver's revisions side by side, from results directories and
    /// history files: per series the paired ratio to the yardstick (with its
    /// interval) and the times by revision, the revisions where the ratio
    /// stepped; in the terminal and, with --out, as trend.csv, SVG charts and
    /// HTML.
    #[command(after_help = "Examples:
  bench-sudoku trend history.jsonl                        (a history file of `history add`)
  bench-sudoku trend history.jsonl --out trend            (also trend.csv, trend.html, charts/*.svg)
  bench-sudoku trend history.jsonl --repo . --fail-on-step   (CI: revisions in git order; exit 1 on a step)
  bench-sudoku trend results/main-*                       (results directories)

Lines are grouped by dataset and series (a strategy's label, or history add --series) and, within a
series, by revision (rev=, run --revision, git describe of the solver's work tree, or bench-sudoku's
build for a built-in strategy), oldest first by first run or, with --repo, in git order. The ratio to
the yardstick (the run's baseline, e.g. fast) was measured paired in the same process: a slower or
faster runner moves both sides alike, so the ratio follows the solver. A step is named at the first
revision of a new level when the ratio changed by more than --threshold (5%) with the 95% intervals
apart (asv-style step detection: a piecewise-constant fit, then only the steps that matter).

Runs with rejected answers, faults, or that stopped early (--allow-incomplete) are shown and not judged.

Exit status: 0 when the table was printed (with --fail-on-step: no step to slower at the revisions
judged); 1 with --fail-on-step when the ratio stepped to slower at the newest revision (or at --since REV
or later); 2 when an input cannot be read, is given twice or is incomplete, or (--fail-on-step) when a
revision that counts cannot be judged.")]
    Trend(commands::trend::TrendArgs),
    /// Keep a history of a solver's runs: `history add DIR… --file FILE`
    /// appends one line per run, dataset and strategy (revision, time,
    /// machine, the paired ratio to the yardstick with its interval, times,
    /// counters) for `trend`.
    #[command(after_help = "Examples:
  bench-sudoku history add results/head --file history.jsonl
  bench-sudoku history add results/gate --file history.jsonl -s head --series mysolver

The file is JSON Lines (one object per line, results/README.md describes the fields); keep it in a
branch, a cache or an artifact of your CI. A run already in the file is not added twice; the file is
replaced whole by a rename, so a reader never sees half a line.

Exit status: 0 when the lines were added; 2 when a directory cannot be loaded or is incomplete, a -s
label is not in a run, or the file cannot be read or written.")]
    History(commands::history::HistoryArgs),
    /// The body of a pull-request comment for a results directory: the
    /// gate's verdict and the results tables, with a marker by which a CI
    /// job finds and updates its earlier comment.
    #[command(after_help = commands::comment::COMMENT_HELP)]
    Comment(commands::comment::CommentArgs),
    /// The standard benchmark corpora: list them (name, puzzles, source,
    /// SHA-256, licence), or `corpora fetch DIR` to download them from
    /// their public source, each checked against its SHA-256.
    #[command(after_help = commands::corpora::CORPORA_HELP)]
    Corpora(commands::corpora::CorporaArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish,
    /// powershell).
    #[command(after_help = "Examples:
  bench-sudoku completions bash > ~/.local/share/bash-completion/completions/bench-sudoku
  bench-sudoku completions zsh > ~/.zfunc/_bench-sudoku      (with fpath+=~/.zfunc in .zshrc)
  bench-sudoku completions fish > ~/.config/fish/completions/bench-sudoku.fish")]
    Completions(commands::completions::CompletionsArgs),
    /// Print the manual page bench-sudoku(1), or write one page per command.
    #[command(after_help = "Examples:
  bench-sudoku man | man -l -
  bench-sudoku man --out ~/.local/share/man/man1     (then: man bench-sudoku-run)")]
    Man(commands::completions::ManArgs),
}

/// Parses the command line and runs the command; returns the exit status.
pub fn main() -> i32 {
    main_with(Vec::new())
}

/// Like [`main`], with `solvers` added to the strategies of every command
/// (`-s LABEL`): a Rust program that implements
/// [`ExternalSolver`](crate::solver::ExternalSolver) gets the whole tool
/// around its solver (see `examples/solvers/rust/main.rs`).
pub fn main_with(solvers: Vec<(String, std::sync::Arc<dyn crate::solver::ExternalSolver>)>) -> i32 {
    for (label, solver) in solvers {
        if let Err(e) = external::register(&label, solver) {
            eprintln!("bench-sudoku: error: {e}");
            return 2;
        }
    }
    if let Err(e) = commands::environment::apply() {
        eprintln!("bench-sudoku: error: {e}");
        return 2;
    }
    commands::interrupt::ignore_file_size_signal();
    let cli = Cli::parse();
    // A solve given up (the environment, an interrupt) unwinds out of a
    // command that does not catch it itself: it ends the command with its
    // status and reason. Anything else that unwinds is a panic, as before.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| dispatch(&cli)))
        .unwrap_or_else(|payload| match payload.downcast::<external::Abandon>() {
            Ok(a) if a.environment => Err(anyhow::anyhow!("{}", a.why)),
            Ok(_) => Ok(commands::interrupt::EXIT_INTERRUPTED),
            Err(payload) => std::panic::resume_unwind(payload),
        });
    let code = commands::exit_code(result);
    // No process a solver started outlives the command.
    #[cfg(unix)]
    external::reaper::sweep();
    // A supervised measuring child says it finished, and how.
    #[cfg(unix)]
    if let Some(board) = crate::board::this() {
        board.finished(code);
    }
    code
}

/// Runs the command of `cli`.
fn dispatch(cli: &Cli) -> commands::CmdResult {
    match &cli.command {
        Command::Solve(a) => commands::solve::run(a),
        Command::Check(a) => commands::check::run(a),
        Command::Rate(a) => commands::rate::run(a),
        Command::Run(a) => commands::run::run(a),
        Command::Generate(a) => commands::generate::run(a),
        Command::Strategies(a) => commands::strategies::run(a),
        Command::Compare(a) => commands::compare::run(a),
        Command::Merge(a) => commands::merge::run(a),
        Command::Export(a) => commands::export::run(a),
        Command::Serve(a) => commands::serve::run(a),
        Command::Report(a) => commands::report::run(a),
        Command::Trend(a) => commands::trend::run(a),
        Command::History(a) => commands::history::run(a),
        Command::Corpora(a) => commands::corpora::run(a),
        Command::Comment(a) => commands::comment::run(a),
        Command::Completions(a) => commands::completions::completions(a, Cli::command()),
        Command::Man(a) => commands::completions::man(a, Cli::command()),
    }
}
