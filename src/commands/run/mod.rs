//! `bench-sudoku run`: the parallel batch benchmark and its reports.

mod execute;
mod finish;
mod meta;
mod outputs;
mod plan;
mod progress;
pub mod scan;
#[cfg(unix)]
pub mod supervise;

pub use progress::ProgressMode;

use super::args::EngineArgs;
use super::CmdResult;
use crate::bench;
use crate::dataset::Format;
use crate::report::terminal;
use crate::solver::strategy::spec_help;
use crate::solver::{external, Strategy};
use clap::Args;
use std::path::{Path, PathBuf};

pub const RUN_HELP: &str = "Examples:
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
  bench-sudoku run hard.csv -s 'lib=old.so,name=base' -s 'lib=new.so,name=head' --gate base:head \
      --threshold 0.5 --budget 60s --transform 1      (rounds until decided, at most a minute)

Datasets: CSV with a header (puzzle column quizzes|puzzle|quiz|question|sudoku; optional
solution column solutions|solution|answer, id, and a rating/difficulty column) or plain
lines of 81 characters ('#' comments, blank lines, CRLF). gzip is read transparently.
Blanks are '0' or '.'. Every returned solution is checked against the rules and the
givens, and against the dataset's solution when there is one.

Outputs in --out DIR (default results/<dataset>-<UTC time>/): puzzles.csv (one row per
puzzle x strategy, input order), summary.csv, summary.json, summary.md, meta.json and
histograms/<dataset>-<strategy>{,.guesses,.depth}.{hgrm,hdr},
charts/<dataset>-{latency,guesses,scatter,paired}.svg and report.html (the page to open;
'bench-sudoku report DIR' regenerates it); gate.md with --gate. meta.json is written last
and says whether the run is complete. A directory is written by one run at a time (lock
file .bench-sudoku.lock): another run on it is refused, naming the first. --export and
--gate-summary files may not be inputs or files of the results directory.

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

Every answer of every pass is verified; a rejected answer (it breaks the rules, disagrees
with the dataset's solution or bench-sudoku's count of solutions, or changed between passes)
is not a solve and has no time. A run that loads a library into its own process (lib=
without isolate=yes) measures in a supervised child: a crash, an exit() or a call that
outlives --timeout in that library names the strategy and the puzzle, and what was measured
before is kept, marked incomplete (docs/RELIABILITY.md).

Solvers cannot stop or signal bench-sudoku (Linux): every process that runs solver code runs
under a seccomp filter that refuses a signal or a stop aimed at bench-sudoku; a solver process
that tries dies of SIGSYS (a fault of its puzzle), a library in the process ends the run with
159. No output (--out, --export, --gate-summary) may replace a dataset, a --solvers file or a
solver's library, program or script. An interrupt stops solver processes at once.";

/// `run --help`'s text after the options: [`RUN_HELP`] and the table of
/// exit statuses ([`crate::support::exit`]).
pub fn run_help() -> String {
    format!("{RUN_HELP}\n\n{}", crate::support::exit::help_text())
}

#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Dataset files (CSV with a header, or plain 81-character lines; .gz ok).
    #[arg(required = true, value_name = "DATASET")]
    pub datasets: Vec<PathBuf>,
    /// Strategy to run (repeat the option for several; 'all' for every named
    /// strategy) [default: mrv, hidden, locked, fast].
    #[arg(short = 's', long = "strategy", value_name = "STRATEGY", long_help = spec_help())]
    pub strategies: Vec<String>,
    /// Solver threads, 0 to 4096 [default: 0, all logical cores]. A list
    /// (-j 1,2,4) runs the same work once per value: a scan of `threads`
    /// (see --scan).
    #[arg(
        short = 'j',
        long = "threads",
        value_name = "N[,N…]",
        value_delimiter = ',',
        default_value = "0",
        hide_default_value = true,
        value_parser = super::args::threads_parser()
    )]
    pub threads: Vec<usize>,
    /// Run the same work once per value of one option and compare:
    /// threads, batch-size, repeat, warmup, max-guesses, count, or a
    /// strategy spec key: prop, branch, order, root, guess for built-in
    /// strategies with axes, symbol, solver, config, reentrant, isolate for
    /// lib= solvers (set on every -s that takes the key; the others, such
    /// as fast, run unchanged at every value). One results directory holds a subdirectory per value
    /// (KEY=VALUE), scan.csv / scan.json / scan.md and charts/scan-*.svg
    /// (speedup over the first value with the ideal line for threads, mean
    /// time by value otherwise). E.g. --scan batch-size=256,1024,4096.
    #[arg(long, value_name = "KEY=V1,V2,…")]
    pub scan: Option<String>,
    /// Rounds of a scan (-j with several values, --scan), 1 to 20: after a
    /// warm-up round (each value once on at most 1,000 puzzles, discarded)
    /// every value runs once per round, the values alternating (A, B, A,
    /// B, …), and the round with the median wall time is kept per value.
    #[arg(long, value_name = "N", default_value_t = 3,
          value_parser = clap::value_parser!(u32).range(1..=20))]
    pub scan_rounds: u32,
    /// Results directory [default: results/<dataset-stem>-<UTC timestamp>].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Replace the results already in --out DIR.
    #[arg(long)]
    pub force: bool,
    /// Measured passes over every batch, 1 to 1000; the per-puzzle time
    /// kept is the minimum over them [default: 3 with --gate, else 1].
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=super::args::MAX_PASSES as i64))]
    pub repeat: Option<u32>,
    /// Discarded passes before the measured ones [default: 1 when two or
    /// more strategies run interleaved, else 0]. Interleaved strategies
    /// solve the same puzzles one after another, and a puzzle's first solve
    /// is slower than the next ones (its data and branches are new), so
    /// without a warm-up the strategy that goes first is penalised. Allowed:
    /// 0 to 1000.
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u32).range(0..=super::args::MAX_PASSES as i64))]
    pub warmup: Option<u32>,
    /// Time practised solves: each chunk's passes (warm-up and repeats)
    /// back to back, so the CPU has just solved the puzzle it times (what
    /// criterion-style loops measure, 15-35 % faster on the corpora). By
    /// default timing is cold: every pass goes over a whole batch before
    /// the next pass starts, so a puzzle's repeats are a batch of other
    /// solves apart (docs/MEASUREMENT.md). Recorded in meta.json
    /// (`timing`) and shown wherever times are.
    #[arg(long)]
    pub practised: bool,
    /// Only the first N puzzles of each dataset (N ≥ 1).
    #[arg(long, value_name = "N", value_parser = super::args::positive_u64())]
    pub limit: Option<u64>,
    /// Solve in a random order (within each batch of --batch-size puzzles);
    /// results stay in input order.
    #[arg(long)]
    pub shuffle: bool,
    /// Seed of --shuffle and of the paired statistics' bootstrap.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,
    /// Solve every puzzle as a random isomorph (digits relabelled, rows and
    /// columns permuted within bands and stacks, bands and stacks
    /// permuted, maybe transposed), drawn from SEED and the puzzle's index,
    /// so that no solver wins by a corpus's orientation. Answers are mapped
    /// back and verified against the puzzle as read; the seed is recorded
    /// in meta.json.
    #[arg(long, value_name = "SEED")]
    pub transform: Option<u64>,
    /// Run the strategies one after another on each dataset. By default,
    /// with two or more strategies, every chunk of puzzles is solved by each
    /// strategy in turn on one thread (interleaved, the order changing from
    /// chunk to chunk and from pass to pass so that each strategy takes each
    /// turn, and comes right after each other, equally often), and each
    /// strategy's per-puzzle times are paired with the baseline's.
    #[arg(long)]
    pub sequential: bool,
    /// The strategy the others are paired with in the tables and
    /// summary.json (a yardstick such as fast) [default: BASE of --gate, or
    /// the first -s]. With --gate, CANDIDATE is also paired with BASE,
    /// whatever the baseline: the verdict is on those pairs.
    #[arg(long, value_name = "LABEL")]
    pub baseline: Option<String>,
    /// The revision of the solver under test, recorded in meta.json: the
    /// revision of every external solver whose spec gives no rev=
    /// (without it, `git describe --always --dirty` of the work tree holding
    /// the solver's file, when there is one). Built-in strategies are at
    /// bench-sudoku's own build.
    #[arg(long, value_name = "REV", value_parser = crate::solver::revision::check)]
    pub revision: Option<String>,
    /// CI gate on the paired ratio CANDIDATE / BASE (geometric mean with a
    /// 95% interval): exit 1 when the whole interval lies above
    /// +--threshold (regressed), when either side has a rejected answer or
    /// a fault, or when their answers differ; otherwise exit 2 when a
    /// dataset's time cannot be judged: fewer than 10 chunks of puzzles (up
    /// to 64 each, fewer for a small dataset so that it fills 20, at least
    /// 8, never more than --batch-size: give 80 puzzles or more), a side
    /// that solved no puzzle, or sides timed by different clocks;
    /// otherwise exit 3 when a dataset is undecided (the interval neither
    /// wholly beyond ±--threshold nor wholly within it; see --undecided);
    /// otherwise exit 0: every dataset unchanged (the whole interval within
    /// ±--threshold) or improved (wholly below −--threshold). The verdict,
    /// with the smallest change the run could detect (the interval's
    /// half-width), is printed and written to gate.md and summary.json.
    /// Give the two sides labels with name=LABEL, e.g. -s
    /// 'lib=old.so,name=base' -s 'lib=new.so,name=head' --gate base:head.
    #[arg(long, value_name = "BASE:CANDIDATE")]
    pub gate: Option<String>,
    /// The gate's threshold in percent (0 < PCT ≤ 1000): regressed beyond
    /// +PCT, improved beyond −PCT, unchanged within ±PCT.
    #[arg(long, value_name = "PCT", default_value_t = crate::compare::gate::DEFAULT_THRESHOLD,
          requires = "gate", value_parser = super::args::parse_percent)]
    pub threshold: f64,
    /// With --gate: measure round after round (each a whole pass over the
    /// datasets, cold, interleaved and paired as the first; with
    /// --transform SEED new isomorphs each round) until every dataset is
    /// regressed, improved or unchanged, or another round would not end
    /// within DURATION from the start of the run (1ms to 365d, e.g. 60s,
    /// 5m). The interval is then a 95% confidence sequence over every
    /// round, valid however many rounds are looked at (docs/MEASUREMENT.md
    /// §5). The run ends within DURATION plus one round. With slow solvers
    /// (both sides' means 50µs or more) and no --repeat or --warmup, rounds
    /// after the first make 2 measured passes and no warm-up.
    #[arg(long, value_name = "DURATION", requires = "gate",
          value_parser = super::args::parse_budget)]
    pub budget: Option<std::time::Duration>,
    /// What an undecided gate exits with: fail (3, the default) or pass
    /// (0, the verdict still says undecided).
    #[arg(long, value_enum, value_name = "WHAT", default_value_t = Undecided::Fail,
          requires = "gate")]
    pub undecided: Undecided,
    /// Also fail the gate when a search counter differs on some puzzle.
    #[arg(long, value_enum, value_name = "WHAT", requires = "gate")]
    pub fail_on: Option<crate::commands::compare::FailOn>,
    /// Also append the gate's Markdown verdict to FILE (e.g.
    /// "$GITHUB_STEP_SUMMARY").
    #[arg(long, value_name = "FILE", requires = "gate")]
    pub gate_summary: Option<PathBuf>,
    /// Count solutions up to N, N ≥ 1 (1: first solution, the usual
    /// benchmark; 2: also prove uniqueness).
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..))]
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
    /// No progress display (the same as --progress none).
    #[arg(short, long)]
    pub quiet: bool,
    /// Print every column of the result table (throughput, p90, max,
    /// outcomes, the no-guess share), the paired table and how each figure
    /// was measured; without it the terminal shows the compact table
    /// (within 120 columns). summary.md and report.html always have
    /// everything.
    #[arg(long)]
    pub details: bool,
    /// Progress display on standard error: a bar, a plain line every
    /// --progress-interval (for CI logs), or none. auto: the bar on a
    /// terminal, plain lines otherwise.
    #[arg(long, value_enum, value_name = "HOW", default_value_t = ProgressMode::Auto)]
    pub progress: ProgressMode,
    /// Time between two plain progress lines, 1ms to 24h (e.g. 10s, 1m).
    #[arg(long, value_name = "DURATION", default_value = "10s",
          value_parser = super::args::parse_interval)]
    pub progress_interval: std::time::Duration,
    /// Puzzles per batch, 1 to 65536 (the unit of work in flight and the
    /// shuffle window) [default: 256; 64 in a run that loads a library
    /// into its process and solves each puzzle once, whose rows are kept a
    /// batch at a time should the library take the process down; with
    /// repeated passes 256 there too, so that a strategy's repeats of a
    /// puzzle stay 256 of its own solves apart (cold)].
    #[arg(long, value_name = "N",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=super::args::MAX_BATCH))]
    pub batch_size: Option<usize>,
    /// Only shard K of N of every dataset (1 ≤ K ≤ N): the puzzles whose
    /// 0-based index % N == K - 1 (after --limit). Combine the shards with
    /// `merge`.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<crate::bench::Shard>,
    /// Also write a benchmark-tracker file: FORMAT `bmf` (Bencher Metric
    /// Format) or `github-benchmark` (github-action-benchmark
    /// customSmallerIsBetter). Repeatable.
    #[arg(long = "export", num_args = 2, value_names = ["FORMAT", "FILE"])]
    pub export: Vec<String>,
    /// Set by a scan for each of its rounds: the round's tables and its
    /// directory (moved or removed by the scan) are not printed; the scan
    /// prints its own table at the end.
    #[arg(skip)]
    pub scan_round: bool,
}

pub use super::args::Undecided;

/// Strategies run when no `-s` is given: the classic propagating ones plus
/// the fastest engine.
pub const DEFAULT_STRATEGIES: &[&str] = &["mrv", "hidden", "locked", "fast"];

/// Exit status when a thread of the run panicked (an internal error; the
/// sysexits.h code for one): what was measured before is written, marked
/// incomplete.
pub use crate::support::exit::EXIT_PANIC;

/// Runs `run`: a supervised child when a solver library is loaded into
/// the process, a scan when asked for one, else one measurement in named
/// steps — plan, claim the outputs, start, measure, report, verdict.
pub fn run(args: &RunArgs) -> CmdResult {
    // A --budget counts from here.
    let started = std::time::Instant::now();
    // A run that loads a solver into its process measures in a supervised
    // child, which a crash, an exit or a hang of that solver cannot take
    // down with the results (see `supervise`).
    #[cfg(unix)]
    if supervise::needed(args)? {
        return supervise::run(args);
    }
    #[cfg(unix)]
    if let Some(b) = crate::board::this() {
        b.started();
    }
    // Signals are caught from the start: one that comes while solvers are
    // loaded or started stops the run after that, and their processes are
    // stopped as they should be (not left to the default action's death).
    let _ = interrupted();
    if args.budget.is_some() && (args.scan.is_some() || args.threads.len() > 1) {
        anyhow::bail!("--budget: a scan runs each value once; give --budget to a run without --scan or a list of -j");
    }
    if let Some(plan) = scan::plan(args)? {
        return scan::run(args, &plan);
    }
    let plan = plan::plan(args)?;
    measure(args, plan, started)
}

/// One measurement of `plan`, from its results directory to its exit
/// status.
fn measure(args: &RunArgs, plan: plan::Plan, started: std::time::Instant) -> CmdResult {
    // File-level problems surface before anything is created.
    // Every dataset's size is estimated (a pass over the file, or a sample
    // of a compressed one): the progress display shows it, and a small
    // dataset gets smaller chunks, so that its paired interval has the
    // chunks it needs.
    let infos = bench::inspect(&plan.opts, true)?;
    let (out, outputs) = outputs::output_dir(args, &infos)?;
    // Written by its absolute name; shown as it was given.
    let shown = std::env::current_dir()
        .ok()
        .and_then(|cwd| out.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| out.clone());
    let stop = interrupted();
    let pool = bench::pool(plan.opts.threads)?;
    let mut meta = meta::start(args, &plan, &infos, &out)?;
    #[cfg(unix)]
    if let Some(b) = crate::board::this() {
        b.results_dir(&out);
        b.phase(crate::board::Phase::Measuring);
    }
    // Said now, before the work, and again in every report.
    let start_warnings = meta.warnings().len();
    for w in meta.warnings() {
        super::print_err(&format!("bench-sudoku: warning: {w}"));
    }
    let measured = execute::execute(args, &plan, &infos, &pool, &out, &stop, started)?;
    meta.options.puzzle_csv = measured.puzzle_csv;
    meta::finish(
        &mut meta,
        &measured.results,
        &infos,
        pool.current_num_threads(),
    );
    let (results, verdict, by_class) = finish::reports(&plan, &meta, &measured, &out, &outputs)?;
    if !args.scan_round {
        finish::tables(args, &plan, &meta, (&results, by_class.as_ref()))?;
    }
    for w in terminal::warnings(&meta, &results)
        .into_iter()
        .skip(start_warnings)
    {
        super::print_err(&format!("bench-sudoku: warning: {w}"));
    }
    if let Some(v) = &verdict {
        finish::verdict(v, &out, &outputs)?;
    }
    let stopped = measured.results.stopped.as_ref();
    finish::closing(args, stopped, &results, &shown)?;
    let code = finish::exit_code(stopped, &results, verdict.as_ref());
    // The solvers are unloaded here, after the results: a supervisor then
    // tells a library's destructor that hangs or crashes from the run.
    #[cfg(unix)]
    if let Some(b) = crate::board::this() {
        b.phase(crate::board::Phase::Unloading);
    }
    drop(plan);
    Ok(code)
}

/// The run's stop flag, raised by the first SIGINT, SIGTERM or SIGHUP.
fn interrupted() -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    super::interrupt::flag("finishing the batches in flight and writing partial results")
}

/// The strategy specs as `run` reads them (the defaults when none).
pub(super) fn specs(args: &RunArgs) -> Vec<String> {
    if args.strategies.is_empty() {
        DEFAULT_STRATEGIES.iter().map(|s| s.to_string()).collect()
    } else {
        args.strategies.clone()
    }
}

/// `-s` values: names, specs, labels of `--solvers` files, or `all`; none →
/// the default set. Two strategies may not share a label.
pub fn strategies(specs: &[String], ctx: &external::Context) -> anyhow::Result<Vec<Strategy>> {
    let mut out: Vec<Strategy> = Vec::new();
    let specs: Vec<String> = if specs.is_empty() {
        DEFAULT_STRATEGIES.iter().map(|s| s.to_string()).collect()
    } else {
        specs.to_vec()
    };
    #[cfg(unix)]
    let board = crate::board::this();
    #[cfg(unix)]
    if let Some(b) = board {
        b.phase(crate::board::Phase::Loading);
    }
    for (i, spec) in specs.iter().enumerate() {
        // A library's initialisers run as it is loaded: a supervisor can
        // then say which spec took the process down.
        #[cfg(unix)]
        if let Some(b) = board {
            b.loading(Some(i));
        }
        let _ = i;
        let found = if spec == "all" {
            Strategy::all()
        } else {
            vec![Strategy::parse_in(spec, ctx)?]
        };
        for s in found {
            if out.contains(&s) {
                continue;
            }
            if let Some(other) = out.iter().find(|o| o.name() == s.name()) {
                anyhow::bail!(
                    "two strategies are labelled {:?} ({} and {}); give one of them name=LABEL",
                    s.name(),
                    other.axes(),
                    s.axes()
                );
            }
            out.push(s);
        }
    }
    #[cfg(unix)]
    if let Some(b) = board {
        b.loading(None);
    }
    Ok(out)
}
