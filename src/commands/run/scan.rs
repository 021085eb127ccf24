//! Parameter scans (`run --threads 1,2,4`, `run --scan KEY=V1,V2,…`): the
//! command line turned into a [`Plan`] (`results::scan`), each of its runs
//! made by `run` itself, the scan's files written by `report::scan`, its
//! table printed and its exit status decided.

use super::RunArgs;
use crate::commands::args::{MAX_BATCH, MAX_PASSES, MAX_THREADS};
use crate::commands::{print_err, CmdResult};
use crate::results::claim::Claim;
use crate::results::scan::{self, Axis, Limits, Plan, Point, Scan, Setting};
use anyhow::Context;
use std::path::{Path, PathBuf};

/// The ranges the command line gives the options a scan may set.
const LIMITS: Limits = Limits {
    threads: MAX_THREADS,
    batch: MAX_BATCH,
    passes: MAX_PASSES,
};

/// The scan `args` ask for, if any: `-j` with several values, or `--scan`;
/// every value is checked before any work.
pub fn plan(args: &RunArgs) -> anyhow::Result<Option<Plan>> {
    let threads = args.threads.len() > 1;
    let Some(spec) = &args.scan else {
        if !threads {
            return Ok(None);
        }
        let values: Vec<String> = args.threads.iter().map(usize::to_string).collect();
        refuse_repeats("-j", &values.join(","), Axis::Threads, &values)?;
        return points(args, Axis::Threads, &values).map(Some);
    };
    if threads {
        anyhow::bail!("--scan {spec}: a run scans one option; -j takes one value with --scan");
    }
    let (key, values) = spec
        .split_once('=')
        .with_context(|| format!("--scan {spec}: expected KEY=V1,V2,… (e.g. threads=1,2,4)"))?;
    let key = key.trim();
    let Some(axis) = Axis::parse(key) else {
        let known = Axis::known();
        anyhow::bail!(
            "--scan {spec}: unknown key {key:?}{} (keys: {})",
            crate::solver::strategy::did_you_mean(key, &known),
            known.join(", ")
        );
    };
    let values: Vec<String> = values
        .split(',')
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
        .collect();
    if values.len() < 2 {
        anyhow::bail!("--scan {spec}: give two or more values");
    }
    refuse_repeats("--scan", spec, axis, &values)?;
    points(args, axis, &values).map(Some)
}

/// Refuses a list (`option given`) that names one value twice.
fn refuse_repeats(option: &str, given: &str, axis: Axis, values: &[String]) -> anyhow::Result<()> {
    let cores = crate::bench::sysinfo::logical_cores();
    match axis.repeat(values, cores) {
        Some(what) => {
            anyhow::bail!("{option} {given}: {what}; each value is run once, give each once")
        }
        None => Ok(()),
    }
}

/// The plan of `axis` over `values`, each checked as its option would be.
fn points(args: &RunArgs, axis: Axis, values: &[String]) -> anyhow::Result<Plan> {
    let strategies = super::specs(args);
    let points = values
        .iter()
        .map(|value| {
            let setting = axis
                .setting(value, &LIMITS, &strategies)
                .map_err(|why| anyhow::anyhow!("--scan {}={value}: {why}", axis.name()))?;
            Ok(Point {
                value: value.clone(),
                setting,
            })
        })
        .collect::<anyhow::Result<_>>()?;
    Ok(Plan { axis, points })
}

/// `args` with what `setting` sets, for one run of the scan.
fn with_setting(args: &RunArgs, setting: &Setting) -> RunArgs {
    let mut a = args.clone();
    a.scan = None;
    match setting {
        Setting::Threads(n) => a.threads = vec![*n],
        Setting::BatchSize(n) => a.batch_size = Some(*n),
        Setting::Repeat(n) => a.repeat = Some(*n),
        Setting::Warmup(n) => a.warmup = Some(*n),
        Setting::Count(n) => a.count = *n,
        Setting::MaxGuesses(n) => a.engine.max_guesses = *n,
        Setting::Strategies(s) => a.strategies.clone_from(s),
    }
    a
}

/// A value's round that stopped the scan: its exit code.
struct Stopped(i32);

/// Runs the scan: its rounds ([`Plan::steps`]), each value's kept round
/// into `DIR/KEY=VALUE`, then the scan's files and its table.
pub fn run(args: &RunArgs, plan: &Plan) -> CmdResult {
    // Held until the scan's own files are written.
    let claim = scan_dir(args, plan)?;
    let dir = claim.dir().to_path_buf();
    let work = dir.join(scan::ROUNDS_DIR);
    if work.exists() {
        std::fs::remove_dir_all(&work)
            .with_context(|| format!("{}: cannot remove", work.display()))?;
    }
    let rounds = args.scan_rounds.max(1);
    let (status, done) = match run_rounds(args, plan, &work, rounds) {
        Ok(done) => done,
        Err(Stopped(code)) => {
            let _ = std::fs::remove_dir_all(&work);
            return Ok(code);
        }
    };
    let mut rows = Vec::new();
    for (point, per_round) in plan.points.iter().zip(&done) {
        rows.extend(scan::rows::keep(&dir, plan, &point.value, per_round)?);
    }
    let _ = std::fs::remove_dir_all(&work);
    let scan = Scan::new(plan, rounds, rows);
    crate::report::scan::write(&scan, &dir)?;
    // Measured under a supervisor, the board names the last results
    // directory written, a round's, which is moved or removed by now: it
    // names a kept value's instead, complete like every kept one.
    #[cfg(unix)]
    if let (Some(board), Some(last)) = (crate::board::this(), scan.rows.last()) {
        board.results_dir(&dir.join(&last.dir));
    }
    crate::commands::print_text(&format!(
        "\n{}\nscan results in {}\n",
        crate::report::scan::table(&scan),
        dir.display()
    ))?;
    Ok(status)
}

/// Runs every step of the plan (`rounds` rounds after the warm-up round);
/// per value, the directories of its measured rounds. The highest exit
/// code is returned with them; an interrupt or an error (2 or more) stops
/// the scan.
fn run_rounds(
    args: &RunArgs,
    plan: &Plan,
    work: &Path,
    rounds: u32,
) -> Result<(i32, Vec<Vec<PathBuf>>), Stopped> {
    let mut status = 0;
    let mut done: Vec<Vec<PathBuf>> = vec![Vec::new(); plan.points.len()];
    for step in plan.steps(work, rounds) {
        let point = &plan.points[step.point];
        let mut sub = with_setting(args, &point.setting);
        sub.force = true;
        sub.scan_round = true;
        sub.limit = step.limit(sub.limit);
        sub.out = Some(step.out.clone());
        let value = &point.value;
        if step.warmup() {
            print_err(&format!("== {}={value} (warm-up round)", plan.key()));
        } else {
            let round = step.round;
            print_err(&format!(
                "== {}={value} (round {round} of {rounds})",
                plan.key()
            ));
        }
        let code = super::run(&sub).map_err(|e| {
            print_err(&format!("bench-sudoku: error: {e:#}"));
            Stopped(2)
        })?;
        if code == crate::commands::interrupt::EXIT_INTERRUPTED || code >= 2 {
            print_err(&format!(
                "bench-sudoku: the scan stopped at {}={value}",
                plan.key()
            ));
            return Err(Stopped(code));
        }
        if !step.warmup() {
            status = status.max(code);
            done[step.point].push(step.out);
        }
    }
    Ok((status, done))
}

/// Creates and claims the scan's directory: `--out`, or a new
/// `results/<stem>-scan-<key>-<stamp>[-N]`.
fn scan_dir(args: &RunArgs, plan: &Plan) -> anyhow::Result<Claim> {
    let Some(d) = &args.out else {
        let stem = args
            .datasets
            .first()
            .map(|p| crate::dataset::stem(p))
            .unwrap_or_else(|| "run".into());
        return Claim::fresh(&Path::new("results").join(format!(
            "{}-scan-{}-{}",
            crate::support::names::file_safe(&stem),
            plan.key(),
            crate::bench::sysinfo::now_stamp()
        )));
    };
    let mut guard = super::outputs::inputs_guard(args)?;
    let mut writes = crate::report::scan::FILES.to_vec();
    writes.push(crate::results::claim::LOCK);
    guard.dir("--out", d, &writes)?;
    let claim = Claim::create("--out", d)?;
    if d.join("scan.json").exists() && !args.force {
        anyhow::bail!(
            "--out {}: already holds a scan; choose another directory or pass --force to replace it",
            d.display()
        );
    }
    Ok(claim)
}
