//! Command-line definitions (clap derive) and dispatch. The work lives in
//! [`crate::commands`].

use crate::commands;
use crate::dataset::Format;
use crate::solver::external;
use crate::solver::strategy::spec_help;
use crate::solver::{Strategy, DEFAULT_MAX_GUESSES};
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::time::Duration;

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

Exit status: 0 when every line was read and every answer checked out, 1 when an answer was
wrong or an external solver failed on a puzzle, 2 on a malformed puzzle, a bad option or a
solver that cannot be loaded or started.")]
    Solve(SolveArgs),
    /// Classify every puzzle of a file as unique / multiple / no_solution /
    /// invalid and print the counts.
    #[command(
        after_help = "The file holds one 81-character puzzle per line ('1'-'9' givens, '.' or '0' blanks);
'#' comment lines, blank lines and CRLF line ends are skipped. CSV datasets (as for `run`) and
gzip work too.

Examples:
  bench-sudoku check puzzles.txt
  bench-sudoku check --list --strict puzzles.txt   (print every non-unique puzzle; exit 1 if any)

Exit status: 0 when the file was read, 1 with --strict when a puzzle is not unique or when an
external solver's answer was wrong (or it failed on a puzzle), 2 on a malformed line or unreadable file."
    )]
    Check(CheckArgs),
    /// Benchmark strategies on datasets: every puzzle timed and verified on
    /// all cores; CSV/JSON/Markdown reports and HdrHistograms.
    #[command(after_help = RUN_HELP)]
    Run(RunArgs),
    /// Generate unique-solution puzzles selected by search effort (CSV).
    Generate(crate::generate::cli::GenerateArgs),
    /// List the strategies with their axes and a one-line description.
    #[command(after_help = spec_help())]
    Strategies(StrategiesArgs),
    /// Compare two results directories: exact counter changes and a
    /// bootstrap verdict on solve times; exit 1 on a regression (CI gate).
    #[command(after_help = commands::compare::COMPARE_HELP)]
    Compare(commands::compare::CompareArgs),
    /// Merge the results directories of `run --shard K/N` into one.
    #[command(after_help = commands::merge::MERGE_HELP)]
    Merge(commands::merge::MergeArgs),
    /// Write benchmark-tracker files (Bencher BMF, github-action-benchmark)
    /// from an existing results directory.
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

Exit status: 0 when the page was written, 2 when DIR is not a results directory or cannot be written.")]
    Report(ReportArgs),
}

const RUN_HELP: &str = "Examples:
  bench-sudoku run datasets/hard.csv
  bench-sudoku run datasets/easy.csv datasets/hard.csv -s all
  bench-sudoku run puzzles.txt -s locked -s 'prop=hidden,branch=max' -j 1 --repeat 5 --warmup 1
  bench-sudoku run big.csv.gz --limit 100000 --shuffle --seed 7 --no-puzzle-csv --out results/big
  bench-sudoku run datasets/hard.csv --shard 2/3 --out r2          (then: merge r1 r2 r3 --out DIR)
  bench-sudoku run datasets/hard.csv --export bmf bmf.json --export github-benchmark gab.json
  bench-sudoku run datasets/hard.csv -s fast -s 'lib=./libmysolver.so'     (tdoku's C signature, symbol 'solve')
  bench-sudoku run datasets/hard.csv -s fast -s 'cmd=python3 examples/solvers/python/solver.py'
  bench-sudoku run datasets/hard.csv --solvers solvers.toml -s fast -s tdoku -s mine
  bench-sudoku run datasets/hard.csv -s fast -s fast,name=again               (an A/A run)
  bench-sudoku run hard.csv -s 'lib=old.so,name=base' -s 'lib=new.so,name=head' --gate base:head

Datasets: CSV with a header (puzzle column quizzes|puzzle|quiz|question|sudoku; optional
solution column solutions|solution|answer, id, and a rating/difficulty column) or plain
lines of 81 characters ('#' comments, blank lines, CRLF). gzip is read transparently.
Blanks are '0' or '.'. Every returned solution is checked against the rules and the
givens, and against the dataset's solution when there is one.

Outputs in --out DIR (default results/<dataset>-<UTC time>/): puzzles.csv (one row per
puzzle x strategy, input order), summary.csv, summary.json, summary.md, meta.json and
histograms/<dataset>-<strategy>{,.guesses,.depth}.{hgrm,hdr},
charts/<dataset>-{latency,guesses,scatter,paired}.svg and report.html (the page to open;
'bench-sudoku report DIR' regenerates it); gate.md with --gate.

Two or more strategies run interleaved: each chunk of puzzles is solved by every strategy
in turn on one thread, pass by pass, and each strategy's per-puzzle times are paired with the
baseline's (geometric mean of the ratios with a 95% bootstrap interval, median, wins / ties /
losses, guesses ratio). How timing and pairing work and how far to trust them:
docs/MEASUREMENT.md.

External solvers (docs/SOLVERS.md): -s 'lib=PATH[,symbol=NAME|,solver=NAME]…' loads a
shared library, -s 'cmd=COMMAND' runs a program speaking docs/SOLVER-PROTOCOL.md, and
--solvers FILE names them. Their answers are verified like every strategy's, and their
counts checked against bench-sudoku's own engine; a crash, a timeout (--timeout) or a
protocol error is an outcome of its puzzle, and the run goes on.

Exit status: 0 success; 1 when an answer disagrees with the dataset's solution, the
rules or bench-sudoku's count of solutions, or an external solver failed on a puzzle
(crashed, timeout, protocol_error, error), or when the --gate failed; 2 on bad input (file:line: what is wrong),
a solver that cannot be loaded or started, or an unusable output directory; 130 when
interrupted (partial results written, meta.json \"complete\": false).";

/// Options shared by the commands that solve.
#[derive(Debug, Args, Clone)]
pub struct EngineArgs {
    /// Per-puzzle guess budget; past it a puzzle is reported `gave_up`.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_GUESSES)]
    pub max_guesses: u64,
    #[command(flatten)]
    pub solvers: SolverArgs,
}

/// Options of external solvers, shared by the commands that take `-s`.
#[derive(Debug, Args, Clone)]
pub struct SolverArgs {
    /// A TOML file naming external solvers ([solvers.LABEL] tables with
    /// lib/symbol/solver/config/reentrant/isolate, cmd, or spec; see
    /// docs/SOLVERS.md); each LABEL is then a strategy name. Repeatable.
    #[arg(long = "solvers", value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Per-puzzle time limit of external solvers (e.g. 500ms, 10s, 2m). A
    /// solver process that does not answer in time is killed and restarted
    /// (outcome `timeout`); a library in this process (no isolate=yes)
    /// cannot be stopped, so the run then ends with an error.
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "60s",
        value_parser = parse_timeout
    )]
    pub timeout: Duration,
}

fn parse_timeout(s: &str) -> Result<Duration, String> {
    let d = humantime::parse_duration(s).map_err(|e| format!("{e} (e.g. 500ms, 10s, 2m)"))?;
    if d.is_zero() {
        return Err("a timeout must be above zero".into());
    }
    Ok(d)
}

impl SolverArgs {
    /// The context strategies are parsed in: the options of external
    /// solvers and the labels of the `--solvers` files.
    pub fn context(&self, max_guesses: u64) -> anyhow::Result<external::Context> {
        let mut ctx = external::Context::new(external::Options {
            timeout: self.timeout,
            max_guesses,
            exe: None,
        });
        for f in &self.files {
            ctx.load_solvers_file(f)?;
        }
        Ok(ctx)
    }

    /// Parses one strategy spec in this context.
    pub fn strategy(&self, spec: &str, max_guesses: u64) -> anyhow::Result<Strategy> {
        Ok(Strategy::parse_in(spec, &self.context(max_guesses)?)?)
    }
}

#[derive(Debug, Args)]
pub struct SolveArgs {
    /// The puzzle: 81 characters, '1'-'9' givens, '.' or '0' blanks. Omit it,
    /// or give '-', to read puzzles from standard input, one per line.
    #[arg(value_name = "PUZZLE|-")]
    pub puzzle: Option<String>,
    /// Strategy name or spec.
    #[arg(short, long, default_value = "hidden", long_help = spec_help())]
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

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Dataset files (CSV with a header, or plain 81-character lines; .gz ok).
    #[arg(required = true, value_name = "DATASET")]
    pub datasets: Vec<PathBuf>,
    /// Strategy to run (repeat the option for several; 'all' for every named
    /// strategy) [default: mrv, hidden, locked, fast].
    #[arg(short = 's', long = "strategy", value_name = "STRATEGY", long_help = spec_help())]
    pub strategies: Vec<String>,
    /// Solver threads [default: all logical cores].
    #[arg(
        short = 'j',
        long,
        value_name = "N",
        default_value_t = 0,
        hide_default_value = true
    )]
    pub threads: usize,
    /// Results directory [default: results/<dataset-stem>-<UTC timestamp>].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Replace the results already in --out DIR.
    #[arg(long)]
    pub force: bool,
    /// Measured passes over every batch; the per-puzzle time kept is the
    /// minimum over them [default: 3 with --gate, else 1].
    #[arg(long, value_name = "N")]
    pub repeat: Option<u32>,
    /// Discarded passes before the measured ones [default: 1 when two or
    /// more strategies run interleaved, else 0]. Interleaved strategies
    /// solve the same puzzles one after another, and a puzzle's first solve
    /// is slower than the next ones (its data and branches are new), so
    /// without a warm-up the strategy that goes first is penalised.
    #[arg(long, value_name = "N")]
    pub warmup: Option<u32>,
    /// Only the first N puzzles of each dataset.
    #[arg(long, value_name = "N")]
    pub limit: Option<u64>,
    /// Solve in a random order (within each batch of --batch-size puzzles);
    /// results stay in input order.
    #[arg(long)]
    pub shuffle: bool,
    /// Seed of --shuffle and of the paired statistics' bootstrap.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,
    /// Run the strategies one after another on each dataset. By default,
    /// with two or more strategies, every chunk of puzzles is solved by each
    /// strategy in turn on one thread (interleaved, the order rotating from
    /// chunk to chunk and from pass to pass), and each strategy's per-puzzle times are paired with
    /// the baseline's.
    #[arg(long)]
    pub sequential: bool,
    /// The strategy the others are paired with [default: BASE of --gate, or
    /// the first -s].
    #[arg(long, value_name = "LABEL")]
    pub baseline: Option<String>,
    /// CI gate: exit 1 when strategy CANDIDATE is slower than BASE beyond
    /// --threshold with the whole 95% interval of the paired ratio beyond it,
    /// when either side has a rejected answer or a fault, or when their
    /// answers differ; the verdict is printed and written to gate.md. Give
    /// the two sides labels with name=LABEL, e.g. -s 'lib=old.so,name=base'
    /// -s 'lib=new.so,name=head' --gate base:head.
    #[arg(long, value_name = "BASE:CANDIDATE")]
    pub gate: Option<String>,
    /// The gate's threshold: a slowdown in percent the whole interval must
    /// exceed.
    #[arg(long, value_name = "PCT", default_value_t = crate::compare::gate::DEFAULT_THRESHOLD, requires = "gate")]
    pub threshold: f64,
    /// Also fail the gate when a search counter differs on some puzzle.
    #[arg(long, value_enum, value_name = "WHAT", requires = "gate")]
    pub fail_on: Option<crate::commands::compare::FailOn>,
    /// Also append the gate's Markdown verdict to FILE (e.g.
    /// "$GITHUB_STEP_SUMMARY").
    #[arg(long, value_name = "FILE", requires = "gate")]
    pub gate_summary: Option<PathBuf>,
    /// Count solutions up to N (1: first solution, the usual benchmark; 2:
    /// also prove uniqueness).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub count: u32,
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Dataset format.
    #[arg(long, value_enum, default_value_t = Format::Auto)]
    pub format: Format,
    /// Do not write puzzles.csv (summaries and histograms only).
    #[arg(long)]
    pub no_puzzle_csv: bool,
    /// Skip malformed rows (counted and listed in the report) instead of
    /// stopping.
    #[arg(long)]
    pub skip_invalid: bool,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
    /// Puzzles per batch (the unit of work in flight and the shuffle window).
    #[arg(long, value_name = "N", default_value_t = crate::bench::DEFAULT_BATCH)]
    pub batch_size: usize,
    /// Only shard K of N of every dataset: the puzzles whose 0-based index
    /// % N == K - 1 (after --limit). Combine the shards with `merge`.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<crate::bench::Shard>,
    /// Also write a benchmark-tracker file: FORMAT `bmf` (Bencher Metric
    /// Format) or `github-benchmark` (github-action-benchmark
    /// customSmallerIsBetter). Repeatable.
    #[arg(long = "export", num_args = 2, value_names = ["FORMAT", "FILE"])]
    pub export: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A results directory written by `bench-sudoku run`.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct StrategiesArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Also list (and check) the external solvers of these TOML files.
    #[command(flatten)]
    pub solvers: SolverArgs,
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
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Solve(a) => commands::solve::run(a),
        Command::Check(a) => commands::check::run(a),
        Command::Run(a) => commands::run::run(a),
        Command::Generate(a) => commands::generate(a),
        Command::Strategies(a) => commands::strategies::run(a),
        Command::Compare(a) => commands::compare::run(a),
        Command::Merge(a) => commands::merge::run(a),
        Command::Export(a) => commands::export::run(a),
        Command::Serve(a) => commands::serve::run(a),
        Command::Report(a) => commands::report::run(a),
    };
    commands::exit_code(result)
}
