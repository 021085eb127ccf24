//! Parameter scans (`run --threads 1,2,4`, `run --scan KEY=V1,V2,…`): the
//! same run once per value of one option, each in its own results
//! subdirectory (`KEY=VALUE`), and what changes across the values in one
//! table, one CSV, one JSON and one chart per dataset.

use super::RunArgs;
use crate::commands::CmdResult;
use crate::report;
use crate::results::ResultsDir;
use crate::results::{claim::Claim, dest::Guard};
use anyhow::Context;
use serde::Serialize;
use std::path::Path;

/// What a scan varies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The option (`threads`, `batch-size`, … or a spec key).
    pub key: String,
    pub values: Vec<String>,
}

/// The run options a scan can vary, and the strategy spec keys.
const RUN_KEYS: [&str; 6] = [
    "threads",
    "batch-size",
    "repeat",
    "warmup",
    "max-guesses",
    "count",
];
const SPEC_KEYS: [&str; 5] = ["prop", "branch", "order", "root", "guess"];
/// Keys of a `lib=` spec a scan may set (a library's own parameter,
/// `config=`, among them).
const LIB_SCAN_KEYS: [&str; 5] = ["symbol", "solver", "config", "reentrant", "isolate"];

/// The scan `args` ask for, if any: `-j` with several values, or `--scan`.
pub fn plan(args: &RunArgs) -> anyhow::Result<Option<Plan>> {
    let threads = args.threads.len() > 1;
    let Some(spec) = &args.scan else {
        if threads {
            let list: Vec<String> = args.threads.iter().map(usize::to_string).collect();
            refuse_repeats("-j", &list.join(","), "threads", &list)?;
        }
        return Ok(threads.then(|| Plan {
            key: "threads".into(),
            values: args.threads.iter().map(usize::to_string).collect(),
        }));
    };
    if threads {
        anyhow::bail!("--scan {spec}: a run scans one option; -j takes one value with --scan");
    }
    let (key, values) = spec
        .split_once('=')
        .with_context(|| format!("--scan {spec}: expected KEY=V1,V2,… (e.g. threads=1,2,4)"))?;
    let key = match key.trim() {
        "j" => "threads",
        k => k,
    };
    if !RUN_KEYS.contains(&key) && !SPEC_KEYS.contains(&key) && !LIB_SCAN_KEYS.contains(&key) {
        let known: Vec<&str> = RUN_KEYS
            .iter()
            .chain(&SPEC_KEYS)
            .chain(&LIB_SCAN_KEYS)
            .copied()
            .collect();
        anyhow::bail!(
            "--scan {spec}: unknown key {key:?}{} (keys: {})",
            crate::solver::strategy::did_you_mean(key, &known),
            known.join(", ")
        );
    }
    let values: Vec<String> = values
        .split(',')
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
        .collect();
    if values.len() < 2 {
        anyhow::bail!("--scan {spec}: give two or more values");
    }
    refuse_repeats("--scan", spec, key, &values)?;
    Ok(Some(Plan {
        key: key.to_string(),
        values,
    }))
}

/// Refuses a list that names one value twice: each value's results go to
/// one subdirectory (`KEY=VALUE`), and a scan over equal values measures
/// nothing. The values of a numeric option are compared as numbers (`1`
/// and `01` are one value), and for `threads` 0 is every logical core.
fn refuse_repeats(option: &str, given: &str, key: &str, values: &[String]) -> anyhow::Result<()> {
    let same = |v: &str| -> String {
        if !RUN_KEYS.contains(&key) {
            return v.to_string();
        }
        match v.parse::<u64>() {
            Ok(0) if key == "threads" => crate::bench::sysinfo::logical_cores().to_string(),
            Ok(n) => n.to_string(),
            Err(_) => v.to_string(),
        }
    };
    for (i, v) in values.iter().enumerate() {
        if let Some(w) = values[..i].iter().find(|w| same(w) == same(v)) {
            let what = if w == v {
                format!("{v} is given twice")
            } else if key == "threads" && (v == "0" || w == "0") {
                format!(
                    "{w} and {v} are the same thread count (0 is every logical core: {} here)",
                    same("0")
                )
            } else {
                format!("{w} and {v} are the same value")
            };
            anyhow::bail!("{option} {given}: {what}; each value is run once, give each once",);
        }
    }
    Ok(())
}

/// `args` with `key` set to `value` (checked as the option would be).
fn with_value(args: &RunArgs, key: &str, value: &str) -> anyhow::Result<RunArgs> {
    let mut a = args.clone();
    a.scan = None;
    let num = |what: &str| -> anyhow::Result<u64> {
        value
            .parse::<u64>()
            .with_context(|| format!("--scan {key}={value}: {what} must be a whole number"))
    };
    match key {
        "threads" => {
            let n = num("a thread count")?;
            if n > crate::commands::args::MAX_THREADS {
                anyhow::bail!(
                    "--scan threads={value}: at most {}",
                    crate::commands::args::MAX_THREADS
                );
            }
            a.threads = vec![n as usize];
        }
        "batch-size" => {
            let n = num("a batch size")?;
            if !(1..=crate::commands::args::MAX_BATCH).contains(&n) {
                anyhow::bail!(
                    "--scan batch-size={value}: 1 to {}",
                    crate::commands::args::MAX_BATCH
                );
            }
            a.batch_size = Some(n as usize);
        }
        "repeat" | "warmup" | "count" => {
            let n = num("a count")?;
            let lo = if key == "warmup" { 0 } else { 1 };
            if n < lo || n > crate::commands::args::MAX_PASSES {
                anyhow::bail!(
                    "--scan {key}={value}: {lo} to {}",
                    crate::commands::args::MAX_PASSES
                );
            }
            match key {
                "repeat" => a.repeat = Some(n as u32),
                "warmup" => a.warmup = Some(n as u32),
                _ => a.count = n as u32,
            }
        }
        "max-guesses" => a.engine.max_guesses = num("a guess budget")?,
        spec_key => {
            // Each strategy with the key set, under its own label so that
            // the values line up in the table.
            let base = if a.strategies.is_empty() {
                super::DEFAULT_STRATEGIES
                    .iter()
                    .map(|s| s.to_string())
                    .collect()
            } else {
                a.strategies.clone()
            };
            let set: Vec<Option<String>> = base
                .iter()
                .map(|s| with_spec_key(s, spec_key, value))
                .collect::<anyhow::Result<_>>()?;
            if set.iter().all(Option::is_none) {
                anyhow::bail!(
                    "--scan {spec_key}={value}: no strategy takes {spec_key:?} ({}: a built-in \
                     strategy with axes takes {}; a lib= solver {})",
                    base.join(", "),
                    SPEC_KEYS.join(", "),
                    LIB_SCAN_KEYS.join(", ")
                );
            }
            // The strategies that do not take the key run unchanged at
            // every value (a yardstick such as `fast`).
            a.strategies = base
                .iter()
                .zip(set)
                .map(|(s, t)| t.unwrap_or_else(|| s.clone()))
                .collect();
        }
    }
    Ok(a)
}

/// Strategy `spec` with `key` set to `value`, under a label that stays the
/// same from value to value; `None` when the strategy has no such key (a
/// built-in without axes, a `cmd=` solver, a `--solvers` label).
fn with_spec_key(spec: &str, key: &str, value: &str) -> anyhow::Result<Option<String>> {
    let mut typed = crate::solver::spec::Spec::parse(spec)?;
    let lib = typed.library().and_then(|l| l.path.to_str());
    let label = typed.label.clone().unwrap_or_else(|| scan_label(spec, lib));
    if !typed.set(key, value)? {
        return Ok(None);
    }
    typed.label = Some(label);
    Ok(Some(typed.to_string()))
}

/// A label for a strategy given without one: a named strategy's name, a
/// library's file stem, or the spec with every character a label may not
/// hold replaced by `-`.
fn scan_label(spec: &str, lib: Option<&str>) -> String {
    let text = match lib {
        Some(path) => std::path::Path::new(path)
            .file_stem()
            .map_or(path.to_string(), |s| s.to_string_lossy().into_owned()),
        None => spec.to_string(),
    };
    let label: String = text
        .chars()
        .map(|c| {
            if crate::solver::external::label_char(c) {
                c
            } else {
                '-'
            }
        })
        .take(64)
        .collect();
    if label.is_empty() {
        "solver".into()
    } else {
        label
    }
}

/// One row of the scan: a (value, dataset, strategy) result, from the
/// round kept for the value.
#[derive(Clone, Debug, Serialize)]
pub struct ScanRow {
    pub key: String,
    pub value: String,
    pub dataset: String,
    /// The strategy's label, the same for every value (rows of one
    /// strategy line up across the values).
    pub strategy: String,
    /// What this value's run of the strategy was: a built-in's axes
    /// (`prop=none,branch=mrv,order=asc`), an external solver's spec.
    pub spec: String,
    pub puzzles: u64,
    pub solved: u64,
    pub mean_ns: f64,
    pub p50_ns: u64,
    pub p99_ns: u64,
    pub puzzles_per_sec: u64,
    pub wall_ns: u64,
    pub guesses_mean: Option<f64>,
    /// Throughput over the first value's (same dataset and strategy).
    pub speedup: Option<f64>,
    /// The speedup is above what the thread counts allow (the value's
    /// threads over the first value's, each at most the logical cores):
    /// noise, not scaling.
    pub speedup_noise: bool,
    /// Too short to time (under 10 ms of wall time): puzzles/s, wall time
    /// and speedup are mostly start-up and scheduler noise.
    pub too_short: bool,
    /// The round kept (1-based: the one with the median wall time).
    pub round: u32,
    /// This row's puzzles/s in every round, in order, `;`-joined.
    pub rounds_puzzles_per_sec: String,
    /// The subdirectory with this value's full results.
    pub dir: String,
}

/// The whole scan, as written to `scan.json`.
#[derive(Debug, Serialize)]
struct ScanFile<'a> {
    key: &'a str,
    values: &'a [String],
    /// Rounds per value after the warm-up round, and which was kept.
    rounds: u32,
    kept: &'a str,
    rows: &'a [ScanRow],
}

/// Which round is kept per value, and why, as every scan file says it.
const KEPT: &str = "per value, the round with the median wall time: one outlier round, slow \
(a burst of load) or fast (a quiet moment), is not kept either way, while the best round would \
reward whichever value happened to meet a quiet moment";

/// A value's round that stopped the scan: its exit code.
struct Stopped(i32);

/// Runs the scan: a warm-up round, then the rounds with the values
/// alternating, each value's kept round into `DIR/KEY=VALUE`, then the
/// scan files.
pub fn run(args: &RunArgs, plan: &Plan) -> CmdResult {
    // Every value is checked before any work.
    let runs: Vec<RunArgs> = plan
        .values
        .iter()
        .map(|v| with_value(args, &plan.key, v))
        .collect::<anyhow::Result<_>>()?;
    // Held until the scan's own files are written.
    let claim = scan_dir(args, plan)?;
    let dir = claim.dir().to_path_buf();
    let work = dir.join(ROUNDS_DIR);
    if work.exists() {
        std::fs::remove_dir_all(&work)
            .with_context(|| format!("{}: cannot remove", work.display()))?;
    }
    let rounds = args.scan_rounds.max(1);
    let outcome = run_rounds(plan, &runs, &work, rounds);
    let (status, done) = match outcome {
        Ok(done) => done,
        Err(Stopped(code)) => {
            let _ = std::fs::remove_dir_all(&work);
            return Ok(code);
        }
    };
    let mut rows: Vec<ScanRow> = Vec::new();
    for (value, per_round) in plan.values.iter().zip(&done) {
        rows.extend(keep_median(&dir, plan, value, per_round)?);
    }
    let _ = std::fs::remove_dir_all(&work);
    speedups(plan, &mut rows);
    write_scan(&dir, plan, rounds, &rows)?;
    // Measured under a supervisor, the board names the last results
    // directory written, a round's, which is moved or removed by now: it
    // names a kept value's instead, complete like every kept one.
    #[cfg(unix)]
    if let (Some(board), Some(last)) = (crate::board::this(), rows.last()) {
        board.results_dir(&dir.join(&last.dir));
    }
    crate::commands::print_text(&format!(
        "\n{}\nscan results in {}\n",
        table(plan, rounds, &rows),
        dir.display()
    ))?;
    Ok(status)
}

/// Where the rounds run, inside the scan's directory (removed at the end).
const ROUNDS_DIR: &str = ".scan-rounds";

/// The warm-up round, then `rounds` rounds of every value in turn; per
/// value, the directories of its rounds. The highest exit code is
/// returned with them; an interrupt or an error (2 or more) stops the scan.
fn run_rounds(
    plan: &Plan,
    runs: &[RunArgs],
    work: &Path,
    rounds: u32,
) -> Result<(i32, Vec<Vec<std::path::PathBuf>>), Stopped> {
    let mut status = 0;
    let mut done: Vec<Vec<std::path::PathBuf>> = vec![Vec::new(); runs.len()];
    for round in 0..=rounds {
        for (i, (value, args)) in plan.values.iter().zip(runs).enumerate() {
            let name = format!("{}={}", plan.key, crate::support::names::file_part(value));
            let mut sub = args.clone();
            sub.force = true;
            sub.scan_round = true;
            if round == 0 {
                // Warm-up: brings the binary, the dataset's pages, the
                // allocator and the clock frequency to where the measured
                // rounds find them; discarded.
                sub.limit = Some(sub.limit.unwrap_or(WARMUP_PUZZLES).min(WARMUP_PUZZLES));
                sub.out = Some(work.join(format!("warmup-{name}")));
                crate::commands::print_err(&format!("== {}={value} (warm-up round)", plan.key));
            } else {
                sub.out = Some(work.join(format!("{name}-round{round}")));
                crate::commands::print_err(&format!(
                    "== {}={value} (round {round} of {rounds})",
                    plan.key
                ));
            }
            let code = super::run(&sub).map_err(|e| {
                crate::commands::print_err(&format!("bench-sudoku: error: {e:#}"));
                Stopped(2)
            })?;
            if code == crate::commands::interrupt::EXIT_INTERRUPTED || code >= 2 {
                crate::commands::print_err(&format!(
                    "bench-sudoku: the scan stopped at {}={value}",
                    plan.key
                ));
                return Err(Stopped(code));
            }
            if round > 0 {
                status = status.max(code);
                done[i].extend(sub.out);
            }
        }
    }
    Ok((status, done))
}

/// Puzzles of the warm-up round, at most.
const WARMUP_PUZZLES: u64 = 1000;

/// The value's rows from its kept round (the median wall time over its
/// rounds), whose directory becomes `DIR/KEY=VALUE`.
fn keep_median(
    dir: &Path,
    plan: &Plan,
    value: &str,
    rounds: &[std::path::PathBuf],
) -> anyhow::Result<Vec<ScanRow>> {
    let loaded: Vec<ResultsDir> = rounds
        .iter()
        .map(|d| ResultsDir::load(d))
        .collect::<anyhow::Result<_>>()?;
    let wall = |l: &ResultsDir| l.results.iter().map(|r| r.wall_ns).sum::<u64>();
    let mut order: Vec<usize> = (0..loaded.len()).collect();
    order.sort_by_key(|&i| wall(&loaded[i]));
    let kept = order[(order.len() - 1) / 2];
    let name = format!("{}={}", plan.key, crate::support::names::file_part(value));
    let target = dir.join(&name);
    if target.exists() {
        // A scan replaced with --force: its previous results for the value.
        crate::results::remove(&target)?;
        std::fs::remove_dir(&target).with_context(|| {
            format!(
                "{}: holds files that are not results; cannot replace it",
                target.display()
            )
        })?;
    }
    std::fs::rename(&rounds[kept], &target).with_context(|| {
        format!(
            "{}: cannot move to {}",
            rounds[kept].display(),
            target.display()
        )
    })?;
    let mut rows = Vec::new();
    for r in &loaded[kept].results {
        let per_round: Vec<String> = loaded
            .iter()
            .map(|l| {
                l.results
                    .iter()
                    .find(|o| o.dataset == r.dataset && o.strategy == r.strategy)
                    .map_or("-".into(), |o| format!("{:.0}", o.puzzles_per_sec))
            })
            .collect();
        rows.push(ScanRow {
            key: plan.key.clone(),
            value: value.to_string(),
            dataset: r.dataset.clone(),
            strategy: r.strategy.clone(),
            spec: spec_of(&loaded[kept].meta, &r.strategy),
            puzzles: r.puzzles,
            solved: r.solved,
            mean_ns: (r.mean_ns * 10.0).round() / 10.0,
            p50_ns: r.p50_ns,
            p99_ns: r.p99_ns,
            puzzles_per_sec: r.puzzles_per_sec.round() as u64,
            wall_ns: r.wall_ns,
            guesses_mean: r.guesses_mean,
            speedup: None,
            speedup_noise: false,
            too_short: r.short_timing(),
            round: kept as u32 + 1,
            rounds_puzzles_per_sec: per_round.join(";"),
            dir: name.clone(),
        });
    }
    Ok(rows)
}

/// Speedup: throughput over the first value's, per dataset and strategy;
/// in a thread scan, flagged as noise when above what the thread counts
/// allow.
fn speedups(plan: &Plan, rows: &mut [ScanRow]) {
    let firsts: Vec<(String, String, u64)> = rows
        .iter()
        .filter(|r| r.value == plan.values[0])
        .map(|r| (r.dataset.clone(), r.strategy.clone(), r.puzzles_per_sec))
        .collect();
    let cores = crate::bench::sysinfo::logical_cores();
    for r in rows.iter_mut() {
        let Some((_, _, base)) = firsts
            .iter()
            .find(|(d, s, _)| *d == r.dataset && *s == r.strategy)
        else {
            continue;
        };
        if *base == 0 {
            continue;
        }
        let speedup = (r.puzzles_per_sec as f64 / *base as f64 * 1000.0).round() / 1000.0;
        r.speedup = Some(speedup);
        if plan.key == "threads" {
            let bound = max_speedup(&plan.values[0], &r.value, cores);
            r.speedup_noise = bound.is_some_and(|b| speedup > b);
        }
    }
}

/// The most `value` threads can speed up over `first` threads on `cores`
/// logical cores: the ratio of the threads that can run at once (0 is one
/// per core).
pub fn max_speedup(first: &str, value: &str, cores: usize) -> Option<f64> {
    let running = |v: &str| -> Option<f64> {
        let n: usize = v.parse().ok()?;
        let n = if n == 0 { cores } else { n };
        Some(n.min(cores).max(1) as f64)
    };
    Some(running(value)? / running(first)?)
}

/// The spec a run recorded for its strategy `name` (`meta.json`'s
/// `strategy_details`), or the name when the run recorded none.
fn spec_of(meta: &crate::results::meta::Meta, name: &str) -> String {
    meta.options
        .strategy_details
        .iter()
        .find(|d| d.name == name)
        .map_or_else(|| name.to_string(), |d| d.spec.clone())
}

/// The files of a scan's directory (besides one subdirectory per value).
const SCAN_FILES: &[&str] = &["scan.csv", "scan.json", "scan.md", "charts"];

/// Creates and claims the scan's directory: `--out`, or a new
/// `results/<stem>-scan-<key>-<stamp>[-N]`.
fn scan_dir(args: &RunArgs, plan: &Plan) -> anyhow::Result<Claim> {
    let claim = match &args.out {
        Some(d) => {
            let mut guard = Guard::new();
            for f in &args.datasets {
                guard.reads_file("the dataset", f);
            }
            let specs = super::specs(args);
            args.engine.solvers.guard(
                specs.iter().map(String::as_str),
                args.engine.max_guesses,
                &mut guard,
            )?;
            let mut writes = SCAN_FILES.to_vec();
            writes.push(crate::results::claim::LOCK);
            guard.dir("--out", d, &writes)?;
            let claim = Claim::create("--out", d)?;
            if d.join("scan.json").exists() && !args.force {
                anyhow::bail!(
                    "--out {}: already holds a scan; choose another directory or pass --force to replace it",
                    d.display()
                );
            }
            claim
        }
        None => {
            let stem = args
                .datasets
                .first()
                .map(|p| crate::dataset::stem(p))
                .unwrap_or_else(|| "run".into());
            Claim::fresh(&Path::new("results").join(format!(
                "{}-scan-{}-{}",
                crate::support::names::file_safe(&stem),
                plan.key,
                crate::bench::sysinfo::now_stamp()
            )))?
        }
    };
    Ok(claim)
}

/// scan.csv, scan.json, scan.md and charts/scan-<dataset>.svg.
fn write_scan(dir: &Path, plan: &Plan, rounds: u32, rows: &[ScanRow]) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        // Text cells a spreadsheet would run as formulas are neutralised.
        let text = |s: &str| crate::support::cells::neutral(s).into_owned();
        w.serialize(ScanRow {
            key: text(&r.key),
            value: text(&r.value),
            dataset: text(&r.dataset),
            strategy: text(&r.strategy),
            spec: text(&r.spec),
            dir: text(&r.dir),
            rounds_puzzles_per_sec: r.rounds_puzzles_per_sec.clone(),
            ..r.clone()
        })?;
    }
    let csv = w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?;
    crate::support::files::write_atomic(&dir.join("scan.csv"), &csv)?;
    let json = serde_json::to_vec_pretty(&ScanFile {
        key: &plan.key,
        values: &plan.values,
        rounds,
        kept: KEPT,
        rows,
    })?;
    crate::support::files::write_atomic(&dir.join("scan.json"), &json)?;
    let md = format!(
        "# Scan of `{}`\n\n```\n{}```\n\nEach value's full results (of its kept round) are in its subdirectory (`{}=VALUE/`).\n",
        plan.key,
        table(plan, rounds, rows),
        plan.key
    );
    crate::support::files::write_atomic(&dir.join("scan.md"), md.as_bytes())?;
    let charts = dir.join("charts");
    std::fs::create_dir_all(&charts)
        .with_context(|| format!("{}: cannot create", charts.display()))?;
    let ticks = x_ticks(plan);
    let mut datasets: Vec<&str> = Vec::new();
    for r in rows {
        if !datasets.contains(&r.dataset.as_str()) {
            datasets.push(&r.dataset);
        }
    }
    for ds in datasets {
        let mut series: Vec<report::charts::ScanSeries> = Vec::new();
        for r in rows.iter().filter(|r| r.dataset == ds) {
            let x = ticks
                .iter()
                .zip(&plan.values)
                .find(|(_, v)| **v == r.value)
                .map_or(0.0, |((x, _), _)| *x);
            let y = if plan.key == "threads" {
                r.speedup.unwrap_or(0.0)
            } else {
                r.mean_ns / 1000.0
            };
            match series.iter_mut().find(|(n, _)| *n == r.strategy) {
                Some((_, pts)) => pts.push((x, y)),
                None => series.push((r.strategy.clone(), vec![(x, y)])),
            }
        }
        let svg = report::charts::scan_svg(ds, &plan.key, &series, &ticks, plan.key == "threads")?;
        crate::support::files::write_atomic(
            &charts.join(format!("scan-{}.svg", crate::support::names::file_part(ds))),
            svg.as_bytes(),
        )?;
    }
    Ok(())
}

/// Where each of the plan's values stands on the chart's x axis, and its
/// tick label: numbers at their value (0 threads at the number of logical
/// cores it means), other values (`prop=naked,hidden`) at 1, 2, 3, …
/// under their own names. The axis has a tick at each value and nowhere
/// else, so a thread count is never labelled 1.5.
pub fn x_ticks(plan: &Plan) -> Vec<(f64, String)> {
    let numeric = plan.values.iter().all(|v| v.parse::<f64>().is_ok());
    plan.values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            if plan.key == "threads" && v.parse::<u64>() == Ok(0) {
                let cores = crate::bench::sysinfo::logical_cores();
                (cores as f64, format!("{cores} (0 = all cores)"))
            } else if numeric {
                (v.parse::<f64>().unwrap_or(0.0), v.clone())
            } else {
                (i as f64 + 1.0, v.clone())
            }
        })
        .collect()
}

/// The scan as an aligned text table, with what its marks mean below it.
fn table(plan: &Plan, rounds: u32, rows: &[ScanRow]) -> String {
    let header = [
        plan.key.as_str(),
        "dataset",
        "strategy",
        "spec",
        "solved",
        "mean",
        "p99",
        "puzzles/s",
        "speedup",
        "guesses/puzzle",
        "puzzles/s by round",
    ];
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let short = if r.too_short { " (too short)" } else { "" };
            let speedup = r.speedup.map_or("-".into(), |s| {
                let noise = if r.speedup_noise { " (noise)" } else { "" };
                format!("{s:.2}×{noise}{short}")
            });
            vec![
                r.value.clone(),
                r.dataset.clone(),
                r.strategy.clone(),
                r.spec.clone(),
                format!("{}/{}", r.solved, r.puzzles),
                report::terminal::fmt_ns(r.mean_ns),
                report::terminal::fmt_ns(r.p99_ns as f64),
                format!("{}{short}", r.puzzles_per_sec),
                speedup,
                r.guesses_mean.map_or("-".into(), |g| format!("{g:.2}")),
                format!(
                    "{} (kept {})",
                    r.rounds_puzzles_per_sec.replace(';', " "),
                    r.round
                ),
            ]
        })
        .collect();
    let mut out = crate::report::terminal::text_table(&header, &cells, &[0, 1, 2, 3, 10]);
    out.push_str(&format!(
        "{rounds} round(s) after a warm-up round, the values alternating; kept: {KEPT}.\n"
    ));
    if rows.iter().any(|r| r.speedup_noise) {
        out.push_str(
            "(noise): a speedup above the thread count over the first value's (each at most the \
             logical cores) is not scaling: the first value's kept round was slowed by the machine\n",
        );
    }
    if rows.iter().any(|r| r.too_short) {
        out.push_str(&format!(
            "(too short): under {} of wall time, puzzles/s and speedups are mostly thread start-up \
             and scheduler noise (docs/MEASUREMENT.md §2): give each value more work (more puzzles, \
             --repeat N)\n",
            report::terminal::fmt_ns(crate::results::record::SHORT_WALL_NS as f64)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_speedup_is_bounded_by_the_threads_that_can_run() {
        assert_eq!(max_speedup("1", "2", 2), Some(2.0));
        assert_eq!(max_speedup("1", "4", 2), Some(2.0));
        assert_eq!(max_speedup("1", "0", 8), Some(8.0));
        assert_eq!(max_speedup("2", "1", 4), Some(0.5));
        assert_eq!(max_speedup("x", "1", 4), None);
    }
}
