//! `bench-sudoku merge DIR… --out DIR`: combines the results directories of
//! the shards of one run (`run --shard K/N`) into the directory the unsharded
//! run would have written. Counters and histograms are merged losslessly;
//! the summary is recomputed from the merged data with the run's exporters.

use super::CmdResult;
use crate::bench::metrics::{UnitStats, LIST_CAP};
use crate::bench::sysinfo::Meta;
use crate::bench::{Shard, PUZZLE_CSV_HEADER};
use crate::compare::load::ResultsDir;
use crate::report::{self, terminal, Report};
use crate::results::claim::Claim;
use crate::results::dest::Guard;
use crate::results::puzzles::PuzzleRows;
use crate::solver::Counter;
use anyhow::{bail, Context};
use clap::Args;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Results directories of the shards (`run --shard K/N`).
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Directory of the merged results.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Replace the results already in --out DIR.
    #[arg(long)]
    pub force: bool,
    /// Merge although shards are missing or incomplete (refused otherwise:
    /// exit 2); the merged results are then marked incomplete.
    #[arg(long)]
    pub allow_partial: bool,
}

pub const MERGE_HELP: &str =
    "The inputs must be shards of one run: the same datasets, strategies and
options, each with a different --shard K/N of the same N. Histograms (V2 .hdr) are added,
counts and totals summed, maxima maxed; percentiles come from the merged histograms and the
mean from the summed totals; puzzles.csv rows are merged in index order per (dataset,
strategy). Every shard 1..N must be given, each complete: a missing or incomplete shard is
refused unless --allow-partial, and the merged meta.json is then marked incomplete. It lists
the inputs in \"merged_from\". Wall time and throughput are the sums over the shards (as if
they had run one after another).

Examples:
  bench-sudoku run datasets/hard.csv --shard 1/3 --out r1   (and 2/3, 3/3, e.g. in a CI matrix)
  bench-sudoku merge r1 r2 r3 --out results/hard

Exit status: 0 merged; 2 bad input (unreadable or inconsistent inputs, overlapping shards,
missing or incomplete shards without --allow-partial, an --out that is an input or in use by
another command).";

/// Checks that the inputs are distinct shards of one run; returns N and the
/// shard numbers present.
fn check_consistent(inputs: &[ResultsDir]) -> anyhow::Result<(u64, Vec<u64>)> {
    let first = &inputs[0];
    let mut n_all = None;
    let mut seen: HashMap<u64, &Path> = HashMap::new();
    for d in inputs {
        let shard: Shard = match &d.meta.options.shard {
            Some(s) => s
                .parse()
                .map_err(|e| anyhow::anyhow!("{}: {e}", d.path.display()))?,
            None => bail!(
                "{}: not a shard (run with --shard K/N); merging unsharded runs would count puzzles twice",
                d.path.display()
            ),
        };
        match n_all {
            None => n_all = Some(shard.n),
            Some(n) if n != shard.n => bail!(
                "{}: shard {shard} does not split like {} (N = {n})",
                d.path.display(),
                first.path.display()
            ),
            _ => {}
        }
        if let Some(other) = seen.insert(shard.k, &d.path) {
            bail!(
                "{} and {}: both are shard {shard} (overlapping shards)",
                other.display(),
                d.path.display()
            );
        }
        if d.meta.version != first.meta.version {
            bail!(
                "{} and {}: written by different bench-sudoku versions ({} vs {})",
                first.path.display(),
                d.path.display(),
                first.meta.version,
                d.meta.version
            );
        }
        if d.meta.git_commit != first.meta.git_commit || d.meta.cpu_model != first.meta.cpu_model {
            super::print_err(&format!(
                "bench-sudoku: warning: {} and {} come from different builds or CPUs; merged times mix them",
                first.path.display(),
                d.path.display()
            ));
        }
        let mut a = d.meta.options.clone();
        let mut b = first.meta.options.clone();
        a.shard = None;
        b.shard = None;
        if a != b {
            bail!(
                "{} and {}: different run options ({}); shards of one run share every option but --shard",
                first.path.display(),
                d.path.display(),
                option_difference(&serde_json::to_value(&b)?, &serde_json::to_value(&a)?)
            );
        }
        let sig = |m: &Meta| -> Vec<(String, String, bool)> {
            m.datasets
                .iter()
                .map(|x| (x.name.clone(), x.format.clone(), x.has_solutions))
                .collect()
        };
        if sig(&d.meta) != sig(&first.meta) {
            bail!(
                "{} and {}: different datasets",
                first.path.display(),
                d.path.display()
            );
        }
    }
    let mut ks: Vec<u64> = seen.into_keys().collect();
    ks.sort_unstable();
    Ok((n_all.unwrap_or(1), ks))
}

/// Claims `--out` (created when missing) after checking it against the
/// inputs, and empties it of earlier results with `--force`.
fn prepare_out(args: &MergeArgs) -> anyhow::Result<Claim> {
    let out = &args.out;
    let mut guard = Guard::new();
    for d in &args.dirs {
        guard.reads_results(d);
    }
    let mut writes: Vec<&str> = crate::results::FILES.to_vec();
    writes.push(crate::results::claim::LOCK);
    guard.dir("--out", out, &writes)?;
    let claim = Claim::create("--out", out)?;
    if crate::results::holds_results(out) {
        if !args.force {
            bail!(
                "--out {}: already holds results; choose another directory or pass --force to replace them",
                out.display()
            );
        }
        crate::results::remove(out)?;
    }
    Ok(claim)
}

/// Refuses, unless `--allow-partial`, a set of shards that does not make
/// the whole run: a shard missing, or one that is incomplete.
fn check_whole(args: &MergeArgs, inputs: &[ResultsDir], n: u64, ks: &[u64]) -> anyhow::Result<()> {
    if args.allow_partial {
        return Ok(());
    }
    let missing: Vec<String> = (1..=n)
        .filter(|k| !ks.contains(k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        bail!(
            "shard{} {} missing: the merge would not be the whole run (--allow-partial to merge the {} given, marked incomplete)",
            if missing.len() > 1 { "s" } else { "" },
            missing.join(", "),
            ks.len()
        );
    }
    for d in inputs {
        d.require_complete("--allow-partial to merge it anyway, marked incomplete")?;
    }
    Ok(())
}

/// The aggregates of one input's unit, rebuilt from its files.
fn unit_of(d: &ResultsDir, i: usize) -> anyhow::Result<UnitStats> {
    let r = &d.results[i];
    let h = |suffix: &str| d.histogram(&r.dataset, &r.strategy, suffix);
    // A counter the strategy does not report has no histogram file.
    let h_if = |suffix: &str, c: Counter| {
        if r.counters.has(c) {
            h(suffix)
        } else {
            Ok(crate::bench::metrics::empty_histogram())
        }
    };
    let passes = d.meta.options.warmup + d.meta.options.repeat.max(1);
    let mut u = UnitStats::from_parts(
        r,
        h("")?,
        h_if(".guesses", Counter::Guesses)?,
        h_if(".depth", Counter::MaxDepth)?,
        passes,
    );
    let same = |ds: &str, st: &str| ds == r.dataset && st == r.strategy;
    for l in d
        .mismatch_list
        .iter()
        .filter(|l| same(&l.dataset, &l.strategy))
    {
        for row in &l.rows {
            let m = row.to_mismatch().with_context(|| {
                format!(
                    "{}: unknown status '{}'",
                    d.path.join("summary.json").display(),
                    row.status
                )
            })?;
            u.mismatch_list.push(m);
        }
    }
    for l in d
        .skipped_rows
        .iter()
        .filter(|l| same(&l.dataset, &l.strategy))
    {
        u.skipped_list.extend(l.rows.iter().cloned());
    }
    for l in d
        .fault_list
        .iter()
        .filter(|l| same(&l.dataset, &l.strategy))
    {
        u.fault_list.extend(l.rows.iter().cloned());
    }
    u.mismatch_list.truncate(LIST_CAP);
    u.skipped_list.truncate(LIST_CAP);
    u.fault_list.truncate(LIST_CAP);
    Ok(u)
}

/// The merged meta: the first input's machine facts, the run's options
/// without the shard (or the shards present when some are missing), summed
/// counts, the earliest start and the latest finish.
fn merged_meta(inputs: &[ResultsDir], n: u64, ks: &[u64]) -> Meta {
    let mut m = inputs[0].meta.clone();
    let all_shards = ks.len() as u64 == n;
    m.command_line = crate::bench::sysinfo::command_line();
    m.merged_from = inputs
        .iter()
        .map(|d| d.path.display().to_string())
        .collect();
    m.options.shard = if all_shards {
        None
    } else {
        let ks: Vec<String> = ks.iter().map(u64::to_string).collect();
        Some(format!("{}/{n}", ks.join("+")))
    };
    m.started = inputs
        .iter()
        .map(|d| d.meta.started.clone())
        .min()
        .unwrap_or_default();
    m.run_id = Some(crate::bench::sysinfo::new_run_id());
    m.finished = inputs.iter().filter_map(|d| d.meta.finished.clone()).max();
    m.processed = inputs.iter().map(|d| d.meta.processed).sum();
    m.threads = inputs.iter().map(|d| d.meta.threads).max().unwrap_or(1);
    // Each shard's harness cost is its own machine's; they do not add up.
    m.harness = None;
    for (i, ds) in m.datasets.iter_mut().enumerate() {
        ds.puzzles = inputs.iter().map(|d| d.meta.datasets[i].puzzles).sum();
        ds.skipped = inputs.iter().map(|d| d.meta.datasets[i].skipped).sum();
        // The content sums of disjoint shards add up to the whole's.
        ds.content_hash = inputs
            .iter()
            .try_fold(0u64, |acc, d| {
                let h = d.meta.datasets[i].content_hash.as_deref()?;
                Some(acc.wrapping_add(crate::bench::sysinfo::content_sum(h)?))
            })
            .map(crate::bench::sysinfo::content_hash);
    }
    let mut stopped: Vec<String> = inputs
        .iter()
        .filter_map(|d| {
            d.meta
                .stopped
                .as_ref()
                .map(|s| format!("{}: {s}", d.path.display()))
        })
        .collect();
    if !all_shards {
        stopped.push(format!("only {} of {n} shards merged", ks.len()));
    }
    m.complete = all_shards && inputs.iter().all(|d| d.meta.complete);
    m.stopped = (!stopped.is_empty()).then(|| stopped.join("; "));
    m
}

/// Where two runs' options differ, in words: the first differing field
/// (by its path, e.g. `strategy_details[1].revision`) and its two values.
fn option_difference(a: &serde_json::Value, b: &serde_json::Value) -> String {
    fn walk(path: &str, a: &serde_json::Value, b: &serde_json::Value) -> Option<String> {
        use serde_json::Value::{Array, Object};
        match (a, b) {
            (Object(x), Object(y)) => {
                let keys = x.keys().chain(y.keys().filter(|k| !x.contains_key(*k)));
                keys.filter_map(|k| {
                    let null = serde_json::Value::Null;
                    let at = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    walk(&at, x.get(k).unwrap_or(&null), y.get(k).unwrap_or(&null))
                })
                .next()
            }
            (Array(x), Array(y)) if x.len() == y.len() => x
                .iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (u, v))| walk(&format!("{path}[{i}]"), u, v)),
            _ if a == b => None,
            _ => Some(format!("{path}: {a} and {b}")),
        }
    }
    walk("", a, b).unwrap_or_else(|| "they differ".into())
}

/// One input's rows of puzzles.csv with their merge key.
struct RowStream {
    rows: PuzzleRows,
    head: Option<((usize, u64), csv::StringRecord)>,
}

impl RowStream {
    fn advance(&mut self, order: &dyn Fn(&str, &str) -> Option<usize>) -> anyhow::Result<()> {
        let prev = self.head.as_ref().map(|h| h.0);
        let file = self.rows.file().to_path_buf();
        self.head = match self.rows.next_row()? {
            None => None,
            Some(row) => {
                let bad = |what: &str| anyhow::anyhow!("{}:{}: {what}", file.display(), row.line);
                let unit = order(row.dataset, row.strategy)
                    .ok_or_else(|| bad("dataset/strategy not in the run's meta"))?;
                if prev.is_some_and(|p| p >= (unit, row.index)) {
                    return Err(bad("rows out of order"));
                }
                Some(((unit, row.index), row.record.clone()))
            }
        };
        Ok(())
    }
}

/// k-way merge of the inputs' puzzles.csv by (unit, index), streaming.
fn merge_puzzle_csv(inputs: &[ResultsDir], out: &Path) -> anyhow::Result<()> {
    let meta = &inputs[0].meta;
    let ds: HashMap<&str, usize> = meta
        .datasets
        .iter()
        .enumerate()
        .map(|(i, d)| (d.name.as_str(), i))
        .collect();
    let st: HashMap<&str, usize> = meta
        .options
        .strategies
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_str(), i))
        .collect();
    let ns = st.len().max(1);
    let order = |d: &str, s: &str| -> Option<usize> { Some(ds.get(d)? * ns + st.get(s)?) };
    let mut streams = Vec::new();
    for d in inputs {
        let file = d.puzzles_csv();
        let rows = PuzzleRows::open(&file)?;
        if rows.header().iter().ne(PUZZLE_CSV_HEADER.iter().copied()) {
            bail!("{}: unexpected columns", file.display());
        }
        let mut s = RowStream { rows, head: None };
        s.advance(&order)?;
        streams.push(s);
    }
    let partial = out.join("puzzles.csv.partial");
    let mut w = csv::Writer::from_writer(std::io::BufWriter::new(
        std::fs::File::create(&partial)
            .with_context(|| format!("{}: cannot create", partial.display()))?,
    ));
    w.write_record(PUZZLE_CSV_HEADER)?;
    loop {
        let next = streams
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.head.as_ref().map(|h| (h.0, i)))
            .min();
        let Some((key, i)) = next else { break };
        if streams
            .iter()
            .enumerate()
            .any(|(j, s)| j != i && s.head.as_ref().is_some_and(|h| h.0 == key))
        {
            bail!(
                "puzzle {} appears in two inputs (overlapping shards)",
                key.1
            );
        }
        if let Some((_, rec)) = &streams[i].head {
            w.write_record(rec)?;
        }
        streams[i].advance(&order)?;
    }
    let file = w
        .into_inner()
        .map_err(|e| anyhow::anyhow!("{}: {e}", partial.display()))?
        .into_inner()
        .map_err(|e| anyhow::anyhow!("{}: {}", partial.display(), e.error()))?;
    file.sync_all()?;
    std::fs::rename(&partial, out.join("puzzles.csv"))
        .with_context(|| format!("{}: cannot rename", partial.display()))?;
    Ok(())
}

pub fn run(args: &MergeArgs) -> CmdResult {
    let inputs: Vec<ResultsDir> = args
        .dirs
        .iter()
        .map(|d| ResultsDir::load(d))
        .collect::<anyhow::Result<_>>()?;
    let (n, ks) = check_consistent(&inputs)?;
    check_whole(args, &inputs, n, &ks)?;
    let units = merged_units(&inputs)?;
    let _claim = prepare_out(args)?;
    let meta = merged_meta(&inputs, n, &ks);
    let with_csv = inputs.iter().filter(|d| d.has_puzzles_csv()).count();
    if with_csv == inputs.len() {
        merge_puzzle_csv(&inputs, &args.out)?;
    } else if with_csv > 0 {
        super::print_err(
            "bench-sudoku: warning: some inputs have no puzzles.csv; the merged directory has none",
        );
    }
    let report = Report::new(&meta, &units).with_scatter(&args.out)?;
    report::finish::write(&report, &args.out)?;
    print_merged(&report, &inputs)?;
    super::print_text(&format!(
        "merged {} shards of {n} into {}\n",
        inputs.len(),
        args.out.display()
    ))?;
    Ok(0)
}

/// Every (dataset, strategy) any input has, in run order, its inputs'
/// statistics added up; results outside the run's datasets × strategies
/// are refused.
fn merged_units(inputs: &[ResultsDir]) -> anyhow::Result<Vec<UnitStats>> {
    let meta0 = &inputs[0].meta;
    let mut units: Vec<UnitStats> = Vec::new();
    for ds in &meta0.datasets {
        for st in &meta0.options.strategies {
            units.extend(merged_unit(inputs, &ds.name, st)?);
        }
    }
    let extra: Vec<String> = inputs
        .iter()
        .flat_map(|d| d.results.iter().map(move |r| (d, r)))
        .filter(|(_, r)| {
            !units
                .iter()
                .any(|u| u.dataset == r.dataset && u.strategy == r.strategy)
        })
        .map(|(d, r)| format!("{}: {}/{}", d.path.display(), r.dataset, r.strategy))
        .collect();
    if !extra.is_empty() {
        bail!(
            "results not in the run's datasets × strategies: {}",
            extra.join(", ")
        );
    }
    Ok(units)
}

/// The statistics of strategy `st` on dataset `ds` over every input that
/// has them (none: no input does).
fn merged_unit(inputs: &[ResultsDir], ds: &str, st: &str) -> anyhow::Result<Option<UnitStats>> {
    let mut merged: Option<UnitStats> = None;
    for d in inputs {
        let Some(i) = d
            .results
            .iter()
            .position(|r| r.dataset == ds && r.strategy == st)
        else {
            continue;
        };
        let u = unit_of(d, i)?;
        match merged.as_mut() {
            None => merged = Some(u),
            Some(m) => m.merge(&u).map_err(|e| {
                anyhow::anyhow!(
                    "{}: histograms of {}/{} cannot be added: {e:?}",
                    d.path.display(),
                    ds,
                    st
                )
            })?,
        }
    }
    Ok(merged)
}

/// The merged table, its warnings, and what the merge could not keep: the
/// shards' paired statistics, a complete run.
fn print_merged(report: &Report, inputs: &[ResultsDir]) -> anyhow::Result<()> {
    super::print_text(&terminal::table(&report.results))?;
    for w in terminal::saturation_warnings(&report.results) {
        super::print_err(&format!("bench-sudoku: warning: {w}"));
    }
    let paired = inputs
        .iter()
        .any(|d| d.results.iter().any(|r| r.paired.is_some()));
    if paired && inputs.len() > 1 {
        super::print_err(
            "note: the shards' paired statistics (per-puzzle ratios to the baseline) are not merged; each shard's are in its own summary.json",
        );
    }
    let meta = report.meta;
    if !meta.complete {
        super::print_err(&format!(
            "merged results are incomplete ({})",
            meta.stopped.as_deref().unwrap_or("an input is incomplete")
        ));
    }
    Ok(())
}
