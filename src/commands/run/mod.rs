//! `bench-sudoku run`: the parallel batch benchmark and its reports.

pub mod scan;
#[cfg(unix)]
pub mod supervise;

use super::args::EngineArgs;
use super::CmdResult;
use crate::bench::metrics::UnitStats;
use crate::bench::sysinfo::{
    self, DatasetMeta, HarnessMeta, Meta, RunOptionsMeta, StagesMeta, StrategyMeta,
};
use crate::bench::{self, NoRows, Progress, PuzzleCsv, RowSink, RunOptions, Stop};
use crate::commands::compare::FailOn;
use crate::compare::gate::{Gate, Verdict};
use crate::dataset::Format;
use crate::report::{self, terminal, Report};
use crate::results::{self, claim::Claim, dest::Dest, dest::Guard};
use crate::solver::strategy::spec_help;
use crate::solver::{external, Engine, Limits, Strategy};
use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

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

Exit status: 0 success (with --gate: every dataset unchanged or improved); 1 when an answer
was rejected, an external solver failed on a puzzle (crashed, timeout, protocol_error,
error), or the --gate failed (regressed, or answers that differ); 2 on bad input (file:line:
what is wrong), a solver that cannot be loaded or started, an unusable output directory, or
a --gate that could not judge a dataset (and nothing failed); 3 when the --gate is
undecided on a dataset (and nothing failed or was not judged; --undecided pass makes that
0); 70 a thread panicked; 124 a library call in the process did not return within
--timeout; 125 a library in the process ended it (exit, _exit); 128+N the measuring process
died of signal N (139: SIGSEGV); 130 when interrupted. Every status but 0, 1 and 3 keeps
what was measured before, with meta.json \"complete\": false.";

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
    /// strategy in turn on one thread (interleaved, the order rotating from
    /// chunk to chunk and from pass to pass), and each strategy's per-puzzle times are paired with
    /// the baseline's.
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
    /// to 64 each, never more than --batch-size: give 640 puzzles or more),
    /// a side that solved no puzzle, or sides timed by different clocks;
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
    /// §5). The run ends within DURATION plus one round.
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
    /// shuffle window).
    #[arg(long, value_name = "N", default_value_t = crate::bench::DEFAULT_BATCH,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=super::args::MAX_BATCH))]
    pub batch_size: usize,
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

/// `--undecided`: whether an undecided gate fails (exit 3) or passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Undecided {
    /// Exit 3 (unless something failed or was not judged).
    Fail,
    /// Exit 0; the verdict still says undecided.
    Pass,
}

/// Strategies run when no `-s` is given: the classic propagating ones plus
/// the fastest engine.
pub const DEFAULT_STRATEGIES: &[&str] = &["mrv", "hidden", "locked", "fast"];

use super::interrupt::EXIT_INTERRUPTED;

/// Exit status when a thread of the run panicked (an internal error; the
/// sysexits.h code for one): what was measured before is written, marked
/// incomplete.
pub const EXIT_PANIC: i32 = 70;

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
    let board = crate::board::this();
    #[cfg(unix)]
    if let Some(b) = board {
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
    // External solvers are loaded or started here: one that cannot be stops
    // the run before anything is created.
    let ctx = args.engine.solvers.context(args.engine.max_guesses)?;
    let mut strategies = strategies(&args.strategies, &ctx)?;
    for s in &mut strategies {
        s.resolve_revision(args.revision.as_deref());
    }
    let external = strategies
        .iter()
        .any(|s| matches!(s.engine(), Engine::External(_)));
    let trackers = super::export::tracker_exporters(&args.export)?;
    let labels: Vec<&str> = strategies.iter().map(|s| s.name()).collect();
    let gate = match &args.gate {
        None => None,
        Some(spec) => {
            if args.sequential {
                anyhow::bail!("--gate pairs the puzzles of an interleaved run: drop --sequential");
            }
            if !(args.threshold.is_finite() && args.threshold >= 0.0) {
                anyhow::bail!("--threshold {}: expected a percentage >= 0", args.threshold);
            }
            let (base, candidate) = Gate::parse(spec, &labels).map_err(anyhow::Error::msg)?;
            Some(Gate {
                base,
                candidate,
                threshold: args.threshold,
                fail_on_counters: args.fail_on == Some(FailOn::Counters),
                undecided_passes: args.undecided == Undecided::Pass,
            })
        }
    };
    // The gate pairs CANDIDATE with BASE whatever the baseline: with
    // `--baseline OTHER` (a yardstick such as fast) every strategy is also
    // paired with OTHER.
    let baseline_label = match (&args.baseline, &gate) {
        (Some(b), _) => b.clone(),
        (None, Some(g)) => g.base.clone(),
        (None, None) => labels[0].to_string(),
    };
    let baseline = labels
        .iter()
        .position(|l| *l == baseline_label)
        .ok_or_else(|| {
            anyhow::anyhow!(
                "--baseline {baseline_label}: not a strategy of the run ({})",
                labels.join(", ")
            )
        })?;
    if args.sequential && args.baseline.is_some() {
        anyhow::bail!("--baseline pairs the puzzles of an interleaved run: drop --sequential");
    }
    let several = strategies.len() > 1;
    let gate_pair = gate.as_ref().map(|g| {
        let at = |l: &str| labels.iter().position(|x| *x == l).unwrap_or(0);
        (at(&g.candidate), at(&g.base))
    });
    let opts = RunOptions {
        datasets: args.datasets.clone(),
        strategies,
        threads: match args.threads.first().copied().unwrap_or(0) {
            0 => sysinfo::logical_cores(),
            n => n,
        },
        repeat: args
            .repeat
            .unwrap_or(if gate.is_some() { 3 } else { 1 })
            .max(1),
        warmup: args
            .warmup
            .unwrap_or(if several && !args.sequential { 1 } else { 0 }),
        practised: args.practised,
        limit: args.limit,
        shuffle: args.shuffle,
        transform: args.transform,
        seed: args.seed,
        limits: Limits::first()
            .with_solutions(args.count)
            .with_max_guesses(args.engine.max_guesses),
        format: args.format,
        batch_size: args.batch_size.max(1),
        skip_invalid: args.skip_invalid,
        shard: args.shard,
        sequential: args.sequential,
        baseline,
        gate_pair,
        rotation: 0,
    };
    let mode = match (args.quiet, args.progress) {
        (true, _) => ProgressMode::None,
        (false, ProgressMode::Auto) if std::io::stderr().is_terminal() => ProgressMode::Bar,
        (false, ProgressMode::Auto) => ProgressMode::Plain,
        (false, m) => m,
    };
    // File-level problems surface before anything is created.
    let infos = bench::inspect(&opts, mode != ProgressMode::None)?;
    let (out, outputs) = output_dir(args, &infos)?;
    // Written by its absolute name; shown as it was given.
    let shown = std::env::current_dir()
        .ok()
        .and_then(|cwd| out.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| out.clone());
    let stop = interrupted();
    let pool = bench::pool(opts.threads)?;
    let (timer_overhead_ns, timer_resolution_ns) = sysinfo::timer_overhead();

    let mut meta = Meta {
        tool: "bench-sudoku".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        git_commit: sysinfo::git_commit(),
        revision: args.revision.clone(),
        command_line: crate::bench::sysinfo::command_line(),
        cpu_model: sysinfo::cpu_model(),
        logical_cores: sysinfo::logical_cores(),
        threads: opts.threads,
        os: sysinfo::os_description(),
        arch: std::env::consts::ARCH.into(),
        rustc: env!("BENCH_SUDOKU_RUSTC_VERSION").into(),
        target: env!("BENCH_SUDOKU_TARGET").into(),
        target_features: sysinfo::target_features(),
        cpu_features: sysinfo::cpu_features(),
        started: sysinfo::now_rfc3339(),
        run_id: Some(sysinfo::new_run_id()),
        finished: None,
        timer_overhead_ns,
        timer_resolution_ns,
        options: RunOptionsMeta {
            strategies: opts
                .strategies
                .iter()
                .map(|s| s.name().to_string())
                .collect(),
            repeat: opts.repeat,
            warmup: opts.warmup,
            solution_limit: opts.limits.solutions,
            max_guesses: opts.limits.max_guesses,
            limit: opts.limit,
            shuffle: opts.shuffle,
            seed: opts.seed,
            batch_size: opts.batch_size,
            puzzle_csv: !args.no_puzzle_csv,
            skip_invalid: opts.skip_invalid,
            time_kept: time_kept(&opts).into(),
            timing: if opts.practised { "practised" } else { "cold" }.into(),
            shard: opts.shard.map(|s| s.to_string()),
            strategy_details: opts.strategies.iter().map(StrategyMeta::of).collect(),
            timeout: external
                .then(|| humantime::format_duration(args.engine.solvers.timeout).to_string()),
            schedule: several.then(|| {
                if opts.sequential {
                    "sequential"
                } else {
                    "interleaved"
                }
                .to_string()
            }),
            baseline: (several && !opts.sequential).then(|| baseline_label.clone()),
            transform: opts.transform,
        },
        datasets: Vec::new(),
        processed: 0,
        complete: false,
        stopped: None,
        merged_from: Vec::new(),
        harness: None,
        debug_build: cfg!(debug_assertions),
        load_average: sysinfo::load_average(),
    };

    // A meta.json from the start: a run killed before it writes its
    // results leaves a directory that says it is incomplete, and a
    // supervisor rebuilds the results from it and the rows.
    meta.datasets = infos
        .iter()
        .map(|i| DatasetMeta {
            name: i.name.clone(),
            path: i.path.display().to_string(),
            format: i.format.as_str().to_string(),
            gzip: i.gzip,
            has_solutions: i.has_solutions,
            puzzles: 0,
            skipped: 0,
            content_hash: None,
        })
        .collect();
    meta.stopped = Some(
        "the run did not finish writing its results (it was running, or its process was killed)"
            .into(),
    );
    report::json::write_meta(&meta, &out)
        .with_context(|| format!("writing the results in {}: meta.json", out.display()))?;
    meta.stopped = None;
    #[cfg(unix)]
    if let Some(b) = board {
        b.results_dir(&out);
        b.phase(crate::board::Phase::Measuring);
    }

    // Said now, before the work, and again in every report.
    let start_warnings = meta.warnings().len();
    for w in meta.warnings() {
        super::print_err(&format!("bench-sudoku: warning: {w}"));
    }

    let partial = out.join("puzzles.csv.partial");
    // A supervised run writes the rows also without --no-puzzle-csv
    // (removed at the end): they are what is kept if the process dies.
    #[cfg(unix)]
    let rows_anyway = board.is_some();
    #[cfg(not(unix))]
    let rows_anyway = false;
    let mut csv_sink = if args.no_puzzle_csv && !rows_anyway {
        None
    } else {
        Some(
            PuzzleCsv::create(&partial)
                .with_context(|| format!("{}: cannot create", partial.display()))?,
        )
    };
    let bar = Bar::new(mode == ProgressMode::Bar);
    let plain = PlainProgress::new(args.progress_interval);
    let progress: &dyn Progress = if mode == ProgressMode::Plain {
        &plain
    } else {
        &bar
    };
    let mut results = {
        let mut none = NoRows;
        let rows: &mut dyn RowSink = match csv_sink.as_mut() {
            Some(c) => c,
            None => &mut none,
        };
        bench::run_all(&opts, &infos, &pool, rows, progress, &stop)
    };
    // With a budget, more rounds until the gate is decided (their rows are
    // not written: the results describe the first round).
    let budgeted = match (&gate, args.budget) {
        (Some(g), Some(budget)) if results.stopped.is_none() => {
            let bench = crate::compare::gate::budget::Bench {
                opts: &opts,
                infos: &infos,
                pool: &pool,
                progress,
                stop: &stop,
            };
            Some(crate::compare::gate::budget::measure(
                g,
                &bench,
                started,
                budget,
                &mut results,
            ))
        }
        _ => None,
    };
    #[cfg(unix)]
    if let Some(b) = board {
        b.phase(crate::board::Phase::Writing);
    }
    if let Some(c) = csv_sink {
        // puzzles.csv is renamed into place only when every row reached it;
        // rows cut short by a failed write are removed, and the run is then
        // incomplete and says why.
        let written = match results.stopped {
            Some(Stop::Output(_)) => Err(None),
            _ if args.no_puzzle_csv => Err(None),
            _ => c
                .finish()
                .and_then(|()| std::fs::rename(&partial, out.join("puzzles.csv")))
                .map_err(Some),
        };
        if let Err(e) = written {
            let _ = std::fs::remove_file(&partial);
            meta.options.puzzle_csv = false;
            if let Some(e) = e {
                results.stopped.get_or_insert(Stop::Output(e));
            }
        }
    }

    meta.finished = Some(sysinfo::now_rfc3339());
    meta.processed = results.processed;
    meta.harness = Some(harness_meta(&results, pool.current_num_threads()));
    meta.complete = results.stopped.is_none();
    meta.stopped = results.stopped.as_ref().map(|s| s.to_string());
    meta.datasets = infos
        .iter()
        .zip(
            results
                .puzzles_per_dataset
                .iter()
                .zip(&results.skipped_per_dataset),
        )
        .zip(&results.content_per_dataset)
        .map(|((i, (&puzzles, &skipped)), content)| DatasetMeta {
            name: i.name.clone(),
            path: i.path.display().to_string(),
            format: i.format.as_str().to_string(),
            gzip: i.gzip,
            has_solutions: i.has_solutions,
            puzzles,
            skipped,
            content_hash: content.map(sysinfo::content_hash),
        })
        .collect();
    let units: Vec<UnitStats> = results.units;
    let report = Report::new(&meta, &units).with_unit_scatter(meta.options.puzzle_csv);
    // The tables of slowest puzzles are read back from the puzzles.csv
    // just written, as `report DIR` reads them.
    let mut report = if meta.options.puzzle_csv {
        report.with_worst(&out)?
    } else {
        report
    };
    let verdict = gate.as_ref().map(|g| {
        Verdict::of(
            g,
            &report.results,
            results.stopped.is_none(),
            budgeted.as_ref(),
        )
    });
    report.gate = verdict.as_ref().map(|v| v.record(budgeted.as_ref()));
    // meta.json last; a failure leaves the directory marked incomplete.
    report::finish::write(&report, &out)?;
    for (exporter, dest) in trackers.iter().zip(&outputs.exports) {
        super::export::write_tracker(exporter.as_ref(), &report, dest)?;
    }

    if !args.scan_round {
        super::print_text(&terminal::table(&report.results))?;
        let passes = opts.repeat + opts.warmup;
        if passes > 1 {
            super::print_text(&format!(
                "puzzles/s: puzzles × {passes} passes ({} measured, {} warm-up) / wall time\n",
                opts.repeat, opts.warmup
            ))?;
        }
        if opts.practised {
            super::print_text(&format!("times: {}\n", meta.options.time_kept))?;
        }
        if let Some(line) = terminal::spread_line(&report.results) {
            super::print_text(&format!("{line}\n"))?;
        }
        super::print_text(&terminal::paired_table(&report.results))?;
        if external {
            super::print_text(&format!("revisions: {}\n", meta.revisions().join("; ")))?;
        }
    }
    for w in terminal::warnings(&meta, &report.results)
        .into_iter()
        .skip(start_warnings)
    {
        super::print_err(&format!("bench-sudoku: warning: {w}"));
    }
    if let Some(v) = &verdict {
        let md = v.markdown();
        report::write_atomic(&out.join("gate.md"), md.as_bytes())
            .with_context(|| format!("{}: cannot write gate.md", out.display()))?;
        if let Some(dest) = &outputs.gate_summary {
            dest.append(md.as_bytes()).with_context(|| {
                format!("--gate-summary {}: cannot append", dest.path().display())
            })?;
        }
        super::print_text(&v.terminal())?;
    }
    let bad: u64 = report.results.iter().map(|r| r.wrong()).sum();
    let faults: u64 = report.results.iter().map(|r| r.faults()).sum();
    let skipped: u64 = report.results.iter().map(|r| r.skipped).sum();
    if skipped > 0 {
        super::print_err(&format!(
            "{skipped} invalid rows skipped (listed in summary.json)"
        ));
    }
    match &results.stopped {
        None if args.scan_round => {}
        None => super::print_text(&format!("results in {}\n", shown.display()))?,
        Some(Stop::Dataset(e)) => super::print_err(&format!("bench-sudoku: error: {e}")),
        Some(Stop::Output(e)) => {
            super::print_err(&format!("bench-sudoku: error: writing puzzles.csv: {e}"))
        }
        Some(Stop::Panic(what)) => super::print_err(&format!("bench-sudoku: error: {what}")),
        Some(Stop::Interrupted) => {}
    }
    if results.stopped.is_some() {
        super::print_err(&format!(
            "run incomplete: what was measured before it stopped is in {} (meta.json has \"complete\": false)",
            shown.display()
        ));
    }
    if bad > 0 {
        super::print_err(&format!(
            "{bad} answers rejected: they break the rules, disagree with the dataset's solution or bench-sudoku's count of solutions, or changed between passes; they count as neither solved nor timed (see mismatch_list in {}/summary.json)",
            shown.display()
        ));
    }
    if faults > 0 {
        super::print_err(&format!(
            "{faults} puzzles failed in external solvers (crashed, timeout, protocol_error, error; see fault_list in {}/summary.json)",
            shown.display()
        ));
    }
    let code = match results.stopped {
        Some(Stop::Interrupted) => EXIT_INTERRUPTED,
        Some(Stop::Panic(_)) => EXIT_PANIC,
        Some(Stop::Dataset(_) | Stop::Output(_)) => 2,
        None if bad + faults > 0 => 1,
        None => verdict.map_or(0, |v| v.exit_code()),
    };
    // The solvers are unloaded here, after the results: a supervisor then
    // tells a library's destructor that hangs or crashes from the run.
    #[cfg(unix)]
    if let Some(b) = board {
        b.phase(crate::board::Phase::Unloading);
    }
    drop(opts);
    Ok(code)
}

/// The run's stop flag, raised by the first SIGINT, SIGTERM or SIGHUP.
fn interrupted() -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    super::interrupt::flag("finishing the batches in flight and writing partial results")
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

/// The results directory of a run, held for the whole run, and the other
/// files it writes, each checked against the run's inputs and results.
struct Outputs {
    /// Released (its lock file removed) when the run ends.
    _claim: Claim,
    /// One per `--export FORMAT FILE`, in order.
    exports: Vec<Dest>,
    gate_summary: Option<Dest>,
}

/// Creates and claims the results directory (`--out`, or a new
/// `results/<dataset-stem>-<UTC timestamp>[-N]/`) and checks every other
/// output the run was asked to write, before any work.
fn output_dir(args: &RunArgs, infos: &[bench::DatasetInfo]) -> anyhow::Result<(PathBuf, Outputs)> {
    let mut guard = Guard::new();
    for d in &args.datasets {
        guard.reads_file("the dataset", d);
    }
    for f in &args.engine.solvers.files {
        guard.reads_file("the --solvers file", f);
    }
    let Some(d) = &args.out else {
        let stem = match infos {
            [one] => one.name.clone(),
            [first, rest @ ..] => format!("{}+{}", first.name, rest.len()),
            [] => "run".into(),
        };
        let claim = Claim::fresh(&Path::new("results").join(format!(
            "{}-{}",
            report::file_safe(&stem),
            sysinfo::now_stamp()
        )))?;
        let dir = claim.dir().to_path_buf();
        guard.writes_results(&dir);
        return match other_outputs(args, &mut guard) {
            Ok((exports, gate_summary)) => Ok((
                dir,
                Outputs {
                    _claim: claim,
                    exports,
                    gate_summary,
                },
            )),
            Err(e) => {
                // The directory was made for this run: not left behind.
                drop(claim);
                let _ = std::fs::remove_dir(&dir);
                Err(e)
            }
        };
    };
    let mut writes: Vec<&str> = results::FILES.to_vec();
    writes.push(results::claim::LOCK);
    guard.dir("--out", d, &writes)?;
    guard.writes_results(d);
    let (exports, gate_summary) = other_outputs(args, &mut guard)?;
    let claim = Claim::create("--out", d)?;
    // Under the claim: no other run removes or writes results here between
    // this check and the end of the run.
    if results::holds_results(d) {
        if !args.force {
            anyhow::bail!(
                "--out {}: already holds results; choose another directory or pass --force to replace them",
                d.display()
            );
        }
        results::remove(d)?;
    }
    Ok((
        claim.dir().to_path_buf(),
        Outputs {
            _claim: claim,
            exports,
            gate_summary,
        },
    ))
}

/// `--export` files and `--gate-summary`, checked.
fn other_outputs(args: &RunArgs, guard: &mut Guard) -> anyhow::Result<(Vec<Dest>, Option<Dest>)> {
    let exports = args
        .export
        .chunks(2)
        .filter_map(|c| c.get(1))
        .map(|file| guard.file("--export", Path::new(file)))
        .collect::<anyhow::Result<_>>()?;
    let gate_summary = args
        .gate_summary
        .as_deref()
        .map(|f| guard.file("--gate-summary", f))
        .transpose()?;
    Ok((exports, gate_summary))
}

/// The indicatif progress bar on stderr (hidden when not a terminal).
struct Bar {
    enabled: bool,
    bar: Mutex<Option<ProgressBar>>,
}

impl Bar {
    fn new(enabled: bool) -> Self {
        Bar {
            enabled,
            bar: Mutex::new(None),
        }
    }
}

impl Progress for Bar {
    fn unit_start(&self, dataset: &str, strategy: &str, estimate: Option<u64>) {
        if !self.enabled {
            return;
        }
        let bar = ProgressBar::with_draw_target(estimate, ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{prefix:.bold} [{bar:30}] {human_pos}/{human_len} puzzles  {rate}  ETA {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .with_key(
            "rate",
            |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.0}/s", state.per_sec());
            },
        )
        .progress_chars("=> ");
        bar.set_style(style);
        bar.set_prefix(report::printable(&format!("{dataset} · {strategy}")).into_owned());
        if let Ok(mut b) = self.bar.lock() {
            *b = Some(bar);
        }
    }
    fn advance(&self, n: u64) {
        if let Ok(b) = self.bar.lock() {
            if let Some(bar) = b.as_ref() {
                bar.inc(n);
            }
        }
    }
    fn unit_end(&self) {
        if let Ok(mut b) = self.bar.lock() {
            if let Some(bar) = b.take() {
                bar.finish_and_clear();
            }
        }
    }
}

/// How `run` shows its progress (`--progress`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ProgressMode {
    /// A bar on a terminal, plain lines otherwise.
    Auto,
    /// The indicatif bar.
    Bar,
    /// One line every `--progress-interval`.
    Plain,
    /// Nothing.
    None,
}

/// Progress as plain lines on standard error at a steady interval: what a
/// CI log can show (no cursor movement). A line says the elapsed time, the
/// dataset and strategies, puzzles done (of the estimate) and the rate.
struct PlainProgress {
    interval: std::time::Duration,
    state: Mutex<PlainState>,
}

struct PlainState {
    unit: String,
    estimate: Option<u64>,
    done: u64,
    started: std::time::Instant,
    unit_started: std::time::Instant,
    last: std::time::Instant,
}

impl PlainProgress {
    fn new(interval: std::time::Duration) -> Self {
        let now = std::time::Instant::now();
        PlainProgress {
            interval,
            state: Mutex::new(PlainState {
                unit: String::new(),
                estimate: None,
                done: 0,
                started: now,
                unit_started: now,
                last: now,
            }),
        }
    }
}

impl PlainState {
    fn line(&self) -> String {
        let secs = self.unit_started.elapsed().as_secs_f64().max(1e-9);
        let of = match self.estimate {
            Some(e) if e > 0 => {
                format!("/{e} puzzles ({:.1}%)", self.done as f64 * 100.0 / e as f64)
            }
            _ => " puzzles".to_string(),
        };
        format!(
            "[{:>6.0}s] {}: {}{of}, {:.0}/s",
            self.started.elapsed().as_secs_f64(),
            self.unit,
            self.done,
            self.done as f64 / secs
        )
    }
}

impl Progress for PlainProgress {
    fn unit_start(&self, dataset: &str, strategy: &str, estimate: Option<u64>) {
        if let Ok(mut s) = self.state.lock() {
            s.unit = format!("{dataset} {strategy}");
            s.estimate = estimate;
            s.done = 0;
            s.unit_started = std::time::Instant::now();
            s.last = s.unit_started;
        }
    }
    fn advance(&self, n: u64) {
        if let Ok(mut s) = self.state.lock() {
            s.done += n;
            if s.last.elapsed() >= self.interval {
                s.last = std::time::Instant::now();
                super::print_err(&s.line());
            }
        }
    }
    fn unit_end(&self) {
        if let Ok(s) = self.state.lock() {
            // The last line of a unit that took longer than one interval.
            if s.unit_started.elapsed() >= self.interval {
                super::print_err(&format!("{} done", s.line()));
            }
        }
    }
}

/// What the harness cost in a run (see [`HarnessMeta`]).
fn harness_meta(results: &bench::RunResults, threads: usize) -> HarnessMeta {
    let per = |ns: u64| {
        if results.processed == 0 {
            0.0
        } else {
            round2(ns as f64 / results.processed as f64)
        }
    };
    let s = &results.serial;
    let solve = results
        .units
        .iter()
        .fold(0u64, |a, u| a.saturating_add(u.solve_ns_total));
    let one_pass = results.units.iter().all(|u| u.passes == 1);
    HarnessMeta {
        layout: results.layout.to_string(),
        solver_threads: threads,
        helper_threads: results.helper_threads,
        read_ns_per_puzzle: per(s.read_ns),
        write_ns_per_puzzle: per(s.write_ns),
        serial_ns_per_puzzle: per(s.read_ns + s.write_ns),
        cpu_ns: results.cpu_ns,
        // Both defined with one pass over each puzzle: with warm-up or
        // repeated passes only the fastest solve of each is kept, and the
        // other passes' solves would count as harness.
        harness_cpu_pct: results
            .cpu_ns
            .filter(|_| solve > 0 && one_pass)
            .map(|cpu| round2((cpu as f64 - solve as f64) * 100.0 / solve as f64)),
        solve_loop_ns_per_puzzle: one_pass.then(|| per(results.solving_ns.saturating_sub(solve))),
        stages: results.stages.map(|t| StagesMeta {
            prepare_ns_per_puzzle: per(t.prepare_ns),
            finish_ns_per_puzzle: per(t.finish_ns),
        }),
    }
}

/// Rounds to two decimals (the precision these figures carry).
fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// How the kept time of a puzzle was measured, in words (meta.json
/// `time_kept`, shown by the reports).
fn time_kept(opts: &RunOptions) -> &'static str {
    match (opts.practised, opts.repeat + opts.warmup > 1) {
        (false, true) => {
            "minimum over the measured passes; cold: each pass over a whole batch before the \
             next; outliers re-measured"
        }
        (false, false) => "one cold solve per puzzle; outliers re-measured",
        (true, true) => {
            "minimum over the measured passes; practised: each chunk's passes back to back; \
             outliers re-measured"
        }
        (true, false) => "one solve per puzzle; outliers re-measured",
    }
}
