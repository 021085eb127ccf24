//! Merging the results directories of the shards of one run (`run --shard
//! K/N`) into the directory the unsharded run would have written: the
//! shards checked to be parts of one experiment, counters and histograms
//! added losslessly, `puzzles.csv` merged row by row in index order.

use super::dir::{files_disagree, Tally};
use super::meta::Meta;
use super::puzzles::PuzzleRows;
use super::{ResultRecord, ResultsDir};
use crate::bench::metrics::UnitStats;
use crate::bench::{Shard, PUZZLE_CSV_HEADER};
use crate::judge;
use anyhow::{bail, Context};
use std::collections::HashMap;
use std::path::Path;

/// The shards given to a merge.
#[derive(Debug)]
pub struct Shards {
    /// The N of `--shard K/N`.
    pub n: u64,
    /// The K present, in order.
    pub present: Vec<u64>,
    /// What the reader should know (inputs of different builds or CPUs).
    pub warnings: Vec<String>,
}

/// Checks that the inputs are distinct shards of one run.
pub fn check_consistent(inputs: &[ResultsDir]) -> anyhow::Result<Shards> {
    let first = &inputs[0];
    let mut warnings = Vec::new();
    let mut n_all = None;
    let mut seen: HashMap<u64, &Path> = HashMap::new();
    for d in inputs {
        let shard = shard_of(d)?;
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
        warnings.extend(same_run(first, d)?);
    }
    let mut present: Vec<u64> = seen.into_keys().collect();
    present.sort_unstable();
    Ok(Shards {
        n: n_all.unwrap_or(1),
        present,
        warnings,
    })
}

/// The shard a results directory is (refused when it is none).
fn shard_of(d: &ResultsDir) -> anyhow::Result<Shard> {
    match &d.meta.options.shard {
        Some(s) => s
            .parse()
            .map_err(|e| anyhow::anyhow!("{}: {e}", d.path.display())),
        None => bail!(
            "{}: not a shard (run with --shard K/N); merging unsharded runs would count puzzles twice",
            d.path.display()
        ),
    }
}

/// Refuses `d` unless it is a shard of the run `first` is one of: the same
/// bench-sudoku version, the same options but `--shard`, one experiment by
/// the judge's rules (the same dataset file above all), the same datasets.
/// What a merge of the two should warn about.
fn same_run(first: &ResultsDir, d: &ResultsDir) -> anyhow::Result<Vec<String>> {
    let both = || format!("{} and {}", first.path.display(), d.path.display());
    if d.meta.version != first.meta.version {
        bail!(
            "{}: written by different bench-sudoku versions ({} vs {})",
            both(),
            first.meta.version,
            d.meta.version
        );
    }
    let mut a = d.meta.options.clone();
    let mut b = first.meta.options.clone();
    a.shard = None;
    b.shard = None;
    if a != b {
        bail!(
            "{}: different run options ({}); shards of one run share every option but --shard",
            both(),
            option_difference(&serde_json::to_value(&b)?, &serde_json::to_value(&a)?)
        );
    }
    // One experiment, each shard its own puzzles of the same file.
    let names = [
        first.path.display().to_string(),
        d.path.display().to_string(),
    ];
    for ds in &first.meta.datasets {
        let exp = |d: &ResultsDir| d.meta.experiment(&ds.name).without_puzzles();
        let found = judge::comparable(&exp(first), &exp(d), [&names[0], &names[1]]);
        if let Some(f) = found.first() {
            bail!("{}: not shards of one run: {}", ds.name, f.line());
        }
    }
    let sig = |m: &Meta| -> Vec<(String, String, bool)> {
        m.datasets
            .iter()
            .map(|x| (x.name.clone(), x.format.clone(), x.has_solutions))
            .collect()
    };
    if sig(&d.meta) != sig(&first.meta) {
        bail!("{}: different datasets", both());
    }
    let other_build =
        d.meta.git_commit != first.meta.git_commit || d.meta.cpu_model != first.meta.cpu_model;
    Ok(other_build
        .then(|| {
            format!(
                "{} come from different builds or CPUs; merged times mix them",
                both()
            )
        })
        .into_iter()
        .collect())
}

/// Refuses a set of shards that does not make
/// the whole run: a shard missing, or one that is incomplete.
pub fn check_whole(inputs: &[ResultsDir], shards: &Shards) -> anyhow::Result<()> {
    let (n, ks) = (shards.n, &shards.present);
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

/// The merged meta: the first input's machine facts, the run's options
/// without the shard (or the shards present when some are missing), summed
/// counts, the earliest start and the latest finish.
/// The run id of a merge: made from its inputs' run ids (in any order),
/// so that the same shards merged twice are one run to `compare`, `trend`
/// and `history add` (which would otherwise see two runs that agree
/// exactly); random when an input has none.
fn merged_run_id(inputs: &[ResultsDir]) -> String {
    let mut ids: Vec<&str> = Vec::new();
    for d in inputs {
        match d.meta.run_id.as_deref() {
            Some(id) => ids.push(id),
            None => return crate::bench::sysinfo::new_run_id(),
        }
    }
    ids.sort_unstable();
    ids.dedup();
    format!(
        "{:016x}",
        xxhash_rust::xxh3::xxh3_64(ids.join(",").as_bytes())
    )
}

pub fn merged_meta(inputs: &[ResultsDir], shards: &Shards) -> Meta {
    let (n, ks) = (shards.n, &shards.present);
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
    m.run_id = Some(merged_run_id(inputs));
    m.finished = inputs.iter().filter_map(|d| d.meta.finished.clone()).max();
    m.processed = inputs.iter().map(|d| d.meta.processed).sum();
    m.threads = inputs.iter().map(|d| d.meta.threads).max().unwrap_or(1);
    // Each shard's harness cost is its own machine's; they do not add up.
    m.harness = None;
    for (i, ds) in m.datasets.iter_mut().enumerate() {
        ds.puzzles = inputs.iter().map(|d| d.meta.datasets[i].puzzles).sum();
        ds.skipped = inputs.iter().map(|d| d.meta.datasets[i].skipped).sum();
        // Repeats within each shard; a grid repeated across shards is not
        // seen by either.
        ds.repeated_puzzles = inputs
            .iter()
            .map(|d| d.meta.datasets[i].repeated_puzzles)
            .sum();
        // The content sums of disjoint shards add up to the whole's.
        ds.content_hash = inputs
            .iter()
            .try_fold(0u64, |acc, d| {
                let h = d.meta.datasets[i].content_hash.as_deref()?;
                Some(acc.wrapping_add(crate::results::meta::content_sum(h)?))
            })
            .map(crate::results::meta::content_hash);
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
    /// What the rows read so far add up to, by unit.
    tally: HashMap<usize, Tally>,
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
                self.tally.entry(unit).or_default().add(&row);
                Some(((unit, row.index), row.record.clone()))
            }
        };
        Ok(())
    }
}

/// k-way merge of the inputs' puzzles.csv by (unit, index), streaming.
pub fn merge_puzzle_csv(inputs: &[ResultsDir], out: &Path) -> anyhow::Result<()> {
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
        let mut s = RowStream {
            rows,
            head: None,
            tally: HashMap::new(),
        };
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
    let refused = rows_disagree(inputs, &streams, &order);
    if !refused.is_empty() {
        let _ = std::fs::remove_file(&partial);
        bail!("cannot merge:\n  - {}", refused.join("\n  - "));
    }
    std::fs::rename(&partial, out.join("puzzles.csv"))
        .with_context(|| format!("{}: cannot rename", partial.display()))?;
    Ok(())
}

/// Each input's units whose rows, as `streams` read them, disagree with its
/// `summary.json` or with its time histogram (the `.hdr` file the merged
/// percentiles are added up from): such a shard would make a merged
/// directory that disagrees with itself.
fn rows_disagree(
    inputs: &[ResultsDir],
    streams: &[RowStream],
    order: &dyn Fn(&str, &str) -> Option<usize>,
) -> Vec<String> {
    inputs
        .iter()
        .zip(streams)
        .flat_map(|(d, s)| {
            d.results.iter().filter_map(|r| {
                let unit = order(&r.dataset, &r.strategy)?;
                let tally = s.tally.get(&unit);
                Tally::refusal(tally, &d.path, r).or_else(|| histogram_refusal(d, r, tally))
            })
        })
        .collect()
}

/// The refusal of unit `r` of input `d` whose time histogram does not count
/// what its rows `tally` hold. A histogram that cannot be read is left to
/// [`merged_units`], which reads it again and names the file.
fn histogram_refusal(d: &ResultsDir, r: &ResultRecord, tally: Option<&Tally>) -> Option<String> {
    let h = d.histogram(&r.dataset, &r.strategy, "").ok()?;
    let none = Tally::default();
    let found = tally.unwrap_or(&none).histogram_disagreement(&h)?;
    files_disagree(&d.path, r, "puzzles.csv and the histograms", &[found])
}

/// Every (dataset, strategy) any input has, in run order, its inputs'
/// statistics added up; results outside the run's datasets × strategies
/// are refused.
pub fn merged_units(inputs: &[ResultsDir]) -> anyhow::Result<Vec<UnitStats>> {
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

/// The later gate rounds of strategy `st` on dataset `ds`, summed over the
/// inputs that ran any (`None`: none did).
pub fn merged_later_rounds(
    inputs: &[ResultsDir],
    ds: &str,
    st: &str,
) -> Option<super::record::LaterRounds> {
    let mut out: Option<super::record::LaterRounds> = None;
    for r in inputs.iter().flat_map(|d| d.results.iter()) {
        if r.dataset != ds || r.strategy != st {
            continue;
        }
        if let Some(l) = &r.later_rounds {
            match out.as_mut() {
                Some(o) => o.merge(l),
                None => out = Some(l.clone()),
            }
        }
    }
    out
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
        let u = d.unit(i)?;
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
