//! `bench-sudoku run`: the parallel batch benchmark and its reports.

use super::CmdResult;
use crate::bench::metrics::UnitStats;
use crate::bench::sysinfo::{self, DatasetMeta, Meta, RunOptionsMeta, StrategyMeta};
use crate::bench::{self, NoRows, Progress, PuzzleCsv, RowSink, RunOptions, Stop};
use crate::cli::RunArgs;
use crate::commands::compare::FailOn;
use crate::compare::gate::{Gate, Verdict};
use crate::report::{self, terminal, Report};
use crate::results;
use crate::solver::{external, Engine, Limits, Strategy};
use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Strategies run when no `-s` is given: the classic propagating ones plus
/// the fastest engine.
pub const DEFAULT_STRATEGIES: &[&str] = &["mrv", "hidden", "locked", "fast"];

/// Exit status of an interrupted run (128 + SIGINT).
pub const EXIT_INTERRUPTED: i32 = 130;

pub fn run(args: &RunArgs) -> CmdResult {
    // External solvers are loaded or started here: one that cannot be stops
    // the run before anything is created.
    let ctx = args.engine.solvers.context(args.engine.max_guesses)?;
    let strategies = strategies(&args.strategies, &ctx)?;
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
            })
        }
    };
    let baseline_label = match (&args.baseline, &gate) {
        (Some(b), Some(g)) if *b != g.base => anyhow::bail!(
            "--baseline {b} and --gate {}:{}: the gate pairs with its BASE; give the same label or drop --baseline",
            g.base,
            g.candidate
        ),
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
    let opts = RunOptions {
        datasets: args.datasets.clone(),
        strategies,
        threads: if args.threads == 0 {
            sysinfo::logical_cores()
        } else {
            args.threads
        },
        repeat: args
            .repeat
            .unwrap_or(if gate.is_some() { 3 } else { 1 })
            .max(1),
        warmup: args
            .warmup
            .unwrap_or(if several && !args.sequential { 1 } else { 0 }),
        limit: args.limit,
        shuffle: args.shuffle,
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
    };
    // File-level problems surface before anything is created.
    let infos = bench::inspect(&opts)?;
    let out = output_dir(args, &infos)?;
    let stop = interrupt_flag();
    let pool = bench::pool(opts.threads)?;
    let (timer_overhead_ns, timer_resolution_ns) = sysinfo::timer_overhead();

    let mut meta = Meta {
        tool: "bench-sudoku".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        git_commit: sysinfo::git_commit(),
        command_line: std::env::args().collect(),
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
            time_kept: "minimum over the measured repeats".into(),
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
        },
        datasets: Vec::new(),
        processed: 0,
        complete: false,
        stopped: None,
        merged_from: Vec::new(),
    };

    let partial = out.join("puzzles.csv.partial");
    let mut csv_sink = if args.no_puzzle_csv {
        None
    } else {
        Some(
            PuzzleCsv::create(&partial)
                .with_context(|| format!("{}: cannot create", partial.display()))?,
        )
    };
    let progress = Bar::new(!args.quiet && std::io::stderr().is_terminal());
    let results = {
        let mut none = NoRows;
        let rows: &mut dyn RowSink = match csv_sink.as_mut() {
            Some(c) => c,
            None => &mut none,
        };
        bench::run_all(&opts, &infos, &pool, rows, &progress, &stop)
    };
    if let Some(c) = csv_sink {
        c.finish()
            .with_context(|| format!("{}: cannot write", partial.display()))?;
        std::fs::rename(&partial, out.join("puzzles.csv"))
            .with_context(|| format!("{}: cannot rename", partial.display()))?;
    }

    meta.finished = Some(sysinfo::now_rfc3339());
    meta.processed = results.processed;
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
        .map(|(i, (&puzzles, &skipped))| DatasetMeta {
            name: i.name.clone(),
            path: i.path.display().to_string(),
            format: i.format.as_str().to_string(),
            gzip: i.gzip,
            has_solutions: i.has_solutions,
            puzzles,
            skipped,
        })
        .collect();
    let units: Vec<UnitStats> = results.units;
    let report = Report::new(&meta, &units);
    for exporter in report::exporters() {
        exporter
            .export(&report, &out)
            .with_context(|| format!("writing {} in {}", exporter.name(), out.display()))?;
    }
    for exporter in trackers {
        exporter
            .export(&report, &out)
            .with_context(|| format!("writing the {} export", exporter.name()))?;
    }
    report::json::write_meta(&meta, &out)?;

    super::print_out(&terminal::table(&report.results))?;
    super::print_out(&terminal::paired_table(&report.results))?;
    let verdict = gate
        .as_ref()
        .map(|g| Verdict::of(g, &report.results, results.stopped.is_none()));
    if let Some(v) = &verdict {
        let md = v.markdown();
        report::write_atomic(&out.join("gate.md"), md.as_bytes())
            .with_context(|| format!("{}: cannot write gate.md", out.display()))?;
        if let Some(path) = &args.gate_summary {
            use std::io::Write as _;
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .and_then(|mut f| f.write_all(md.as_bytes()))
                .with_context(|| format!("--gate-summary {}: cannot append", path.display()))?;
        }
        super::print_out(&v.terminal())?;
    }
    let bad: u64 = report
        .results
        .iter()
        .map(|r| r.mismatches + r.wrong_answers + r.wrong_counts)
        .sum();
    let faults: u64 = report.results.iter().map(|r| r.faults()).sum();
    let skipped: u64 = report.results.iter().map(|r| r.skipped).sum();
    if skipped > 0 {
        eprintln!("{skipped} invalid rows skipped (listed in summary.json)");
    }
    match &results.stopped {
        None => super::print_out(&format!("results in {}\n", out.display()))?,
        Some(Stop::Dataset(e)) => eprintln!("bench-sudoku: error: {e}"),
        Some(Stop::Output(e)) => eprintln!("bench-sudoku: error: writing puzzles.csv: {e}"),
        Some(Stop::Interrupted) => {}
    }
    if results.stopped.is_some() {
        eprintln!(
            "run incomplete: what was measured before it stopped is in {} (meta.json has \"complete\": false)",
            out.display()
        );
    }
    if bad > 0 {
        eprintln!(
            "{bad} answers disagree with the dataset's solutions, the rules or bench-sudoku's count of solutions (see mismatch_list in {}/summary.json)",
            out.display()
        );
    }
    if faults > 0 {
        eprintln!(
            "{faults} puzzles failed in external solvers (crashed, timeout, protocol_error, error; see fault_list in {}/summary.json)",
            out.display()
        );
    }
    Ok(match results.stopped {
        Some(Stop::Interrupted) => EXIT_INTERRUPTED,
        Some(Stop::Dataset(_) | Stop::Output(_)) => 2,
        None if bad + faults > 0 => 1,
        None => verdict.map_or(0, |v| v.exit_code()),
    })
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
    for spec in &specs {
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
    Ok(out)
}

/// Creates the results directory: `--out`, or
/// `results/<dataset-stem>-<UTC timestamp>/`.
fn output_dir(args: &RunArgs, infos: &[bench::DatasetInfo]) -> anyhow::Result<PathBuf> {
    let dir = match &args.out {
        Some(d) => {
            if d.exists() {
                if !d.is_dir() {
                    anyhow::bail!("--out {}: exists and is not a directory", d.display());
                }
                let has_results = results::holds_results(d);
                if has_results && !args.force {
                    anyhow::bail!(
                        "--out {}: already holds results; choose another directory or pass --force to replace them",
                        d.display()
                    );
                }
                if has_results {
                    results::remove(d)?;
                }
            }
            d.clone()
        }
        None => {
            let stem = match infos {
                [one] => one.name.clone(),
                [first, rest @ ..] => format!("{}+{}", first.name, rest.len()),
                [] => "run".into(),
            };
            let base = Path::new("results").join(format!(
                "{}-{}",
                report::file_safe(&stem),
                sysinfo::now_stamp()
            ));
            let mut dir = base.clone();
            let mut k = 2;
            while dir.exists() {
                dir = PathBuf::from(format!("{}-{k}", base.display()));
                k += 1;
            }
            dir
        }
    };
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("{}: cannot create the results directory", dir.display()))?;
    // Probe writability now rather than after the benchmark.
    let probe = dir.join(".write-test");
    std::fs::write(&probe, b"")
        .with_context(|| format!("{}: results directory is not writable", dir.display()))?;
    let _ = std::fs::remove_file(probe);
    Ok(dir)
}

/// The stop flag raised by SIGINT/SIGTERM. The first signal asks the run to
/// stop after the batch in flight and write what it measured; a second one
/// exits at once.
fn interrupt_flag() -> Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    static SIGNALS: AtomicU32 = AtomicU32::new(0);
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let f = Arc::clone(&flag);
        let installed = ctrlc::set_handler(move || {
            if SIGNALS.fetch_add(1, Ordering::SeqCst) > 0 {
                eprintln!("\nbench-sudoku: second interrupt, exiting now");
                std::process::exit(EXIT_INTERRUPTED);
            }
            eprintln!("\nbench-sudoku: interrupt: finishing the batch in flight and writing partial results (Ctrl-C again to quit now)");
            f.store(true, Ordering::SeqCst);
        });
        if let Err(e) = installed {
            eprintln!("bench-sudoku: warning: cannot install the interrupt handler: {e}");
        }
        flag
    })
    .clone()
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
        bar.set_prefix(format!("{dataset} · {strategy}"));
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
