//! Every comparison by difficulty. A puzzle's difficulty class comes from
//! two places:
//!
//! - its **effort**: the exact number of guesses the built-in `fast`
//!   engine makes on it (its row in `puzzles.csv` when the run measured
//!   `fast`; otherwise `fast` solves the dataset again after the run,
//!   untimed), bucketed by powers of four ([`EFFORT_CLASSES`]);
//! - its **rating** class (`rate`'s scale), when the dataset carries a
//!   rating column.
//!
//! Per class and strategy: puzzles, mean, p50 and p99 of the kept times,
//! and the paired ratio to the run's reference (geometric mean of the
//! per-puzzle ratios) with a block-bootstrap interval. The gate asks
//! [`ByClass::worst_regression`] whether a regression confined to one class
//! is there, with the interval of each class widened for the number of
//! classes (Bonferroni), so that the chance of a false regression in any
//! class stays within the gate's.

use super::meta::Meta;
use super::puzzles::{PuzzleRows, Row, RowSink};
use crate::solver::{Limits, Status, Strategy};
use rustc_hash::{FxHashMap as HashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The effort classes: `fast`'s guesses, bucketed by powers of four.
pub const EFFORT_CLASSES: [&str; 6] = ["0", "1-3", "4-15", "16-63", "64-255", "256+"];

/// The effort class of `guesses` (an index into [`EFFORT_CLASSES`]).
pub fn effort_class(guesses: u64) -> usize {
    match guesses {
        0 => 0,
        1..=3 => 1,
        4..=15 => 2,
        16..=63 => 3,
        64..=255 => 4,
        _ => 5,
    }
}

/// Fewer pairs than this in a class: its ratio has no interval (as
/// `compare` needs 10 timed puzzles).
pub const MIN_PAIRS: usize = 10;
/// Pairs per block of the interval, in input order.
const BLOCK: usize = 8;
/// The table's confidence level.
pub const LEVEL: f64 = 0.95;

/// The paired ratio of one class: a strategy to its reference.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ClassRatio {
    pub reference: String,
    pub pairs: u64,
    pub geomean: f64,
    /// The interval at `level` (absent under [`MIN_PAIRS`] pairs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub low: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub high: Option<f64>,
    pub level: f64,
}

/// One class × strategy row.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ClassRow {
    pub dataset: String,
    /// `effort` or `rating`.
    pub scheme: String,
    pub class: String,
    pub strategy: String,
    /// Puzzles of the class (this strategy's rows).
    pub puzzles: u64,
    /// Those with a kept time (answered, accepted, not given up).
    pub timed: u64,
    pub mean_ns: f64,
    pub p50_ns: u64,
    pub p99_ns: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio: Option<ClassRatio>,
}

/// Every class row of a run, and where the effort came from.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct ByClass {
    /// How each dataset's effort was found (`fast's rows`, `fast after
    /// the run`) or why it has none.
    pub effort_source: Vec<(String, String)>,
    pub rows: Vec<ClassRow>,
    /// Per dataset and strategy: each timed puzzle's (index, time). Not
    /// written: what the gate pairs.
    #[serde(skip)]
    samples: HashMap<(String, String), Vec<(u64, u64)>>,
    /// Per dataset: each puzzle's classes.
    #[serde(skip)]
    classes: HashMap<String, HashMap<u64, Classes>>,
}

/// A class: its scheme (`effort`, `rating`) and label.
type Key = (&'static str, &'static str);

/// How many classes there are, both schemes together: a class's number
/// (its *slot*) is its place in [`schemes`]' order, effort's first.
const SLOTS: usize = EFFORT_CLASSES.len() + crate::rating::scale::Class::ALL.len();

/// The slot of rating class `c`.
fn rating_slot(c: crate::rating::scale::Class) -> u8 {
    (EFFORT_CLASSES.len() + c as usize) as u8
}

/// One puzzle's class in each scheme, as slots.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Classes {
    effort: Option<u8>,
    rating: Option<u8>,
}

impl Classes {
    /// The slots of the classes the puzzle is in.
    fn slots(self) -> impl Iterator<Item = usize> {
        self.effort.into_iter().chain(self.rating).map(usize::from)
    }
}

/// One strategy's puzzles of one class: how many have rows, and the timed
/// ones' (index, time).
#[derive(Default)]
struct Bucket {
    puzzles: u64,
    timed: Vec<(u64, u64)>,
}

/// A unit's rows (`indexes`, and its `timed` (index, time)) sorted into
/// the classes `of` gives their puzzles, in one pass over them: a bucket
/// per slot.
fn buckets(indexes: &[u64], timed: &[(u64, u64)], of: &HashMap<u64, Classes>) -> Vec<Bucket> {
    let mut out: Vec<Bucket> = (0..SLOTS).map(|_| Bucket::default()).collect();
    for i in indexes {
        for k in of.get(i).into_iter().flat_map(|c| c.slots()) {
            out[k].puzzles += 1;
        }
    }
    for &(i, t) in timed {
        for k in of.get(&i).into_iter().flat_map(|c| c.slots()) {
            out[k].timed.push((i, t));
        }
    }
    out
}

/// What one strategy's rows of one dataset hold.
#[derive(Default)]
struct Unit {
    /// Every row's index (the puzzles it has rows for).
    indexes: Vec<u64>,
    /// Timed rows: (index, time).
    timed: Vec<(u64, u64)>,
}

impl ByClass {
    /// The classes of the results directory `dir` (its `puzzles.csv`);
    /// `None` without one. `reference` is the strategy ratios are to.
    pub fn of_dir(dir: &Path, meta: &Meta) -> anyhow::Result<Option<ByClass>> {
        let csv = dir.join("puzzles.csv");
        if !csv.is_file() {
            return Ok(None);
        }
        let mut rows = ClassRows::new(meta);
        PuzzleRows::feed(&csv, &mut [&mut rows])?;
        Ok(Some(ByClass::of_rows(rows, meta)))
    }

    /// The classes of the rows `rows` took (of the run `meta` describes).
    pub fn of_rows(rows: ClassRows, meta: &Meta) -> ByClass {
        let ClassRows {
            units,
            mut guesses,
            ratings,
            ..
        } = rows;
        let units: HashMap<(String, String), Unit> = units.into_iter().collect();
        let mut out = ByClass::default();
        for ds in &meta.datasets {
            let (effort, source) = match guesses.remove(&ds.name) {
                Some(g) => (Some(g), "fast's rows in puzzles.csv".to_string()),
                None => effort_after_run(meta, &ds.name, &indexes_of(&units, &ds.name)),
            };
            out.effort_source.push((ds.name.clone(), source));
            let mut of: HashMap<u64, Classes> = HashMap::default();
            of.reserve(effort.as_ref().map_or(0, HashMap::len));
            for (&i, &g) in effort.iter().flatten() {
                of.entry(i).or_default().effort = Some(effort_class(g) as u8);
            }
            for (&i, &c) in ratings.get(&ds.name).into_iter().flatten() {
                of.entry(i).or_default().rating = Some(rating_slot(c));
            }
            out.classes.insert(ds.name.clone(), of);
        }
        out.rows = out.table(meta, &units);
        // What the gate pairs, kept without a copy once the table is made.
        out.samples = units.into_iter().map(|(k, u)| (k, u.timed)).collect();
        out
    }

    /// The rows of every dataset × scheme × class × strategy that has
    /// puzzles, in the run's order of datasets and strategies.
    fn table(&self, meta: &Meta, units: &HashMap<(String, String), Unit>) -> Vec<ClassRow> {
        let reference = meta.options.baseline.clone();
        let mut rows = Vec::new();
        for ds in &meta.datasets {
            let Some(of) = self.classes.get(&ds.name) else {
                continue;
            };
            let sorted: HashMap<&str, Vec<Bucket>> = meta
                .options
                .strategies
                .iter()
                .filter_map(|st| {
                    let u = units.get(&(ds.name.clone(), st.clone()))?;
                    Some((st.as_str(), buckets(&u.indexes, &u.timed, of)))
                })
                .collect();
            for (slot, key) in keys().enumerate() {
                let of_class = |st: &str| sorted.get(st)?.get(slot);
                for st in &meta.options.strategies {
                    let Some(b) = of_class(st).filter(|b| b.puzzles > 0) else {
                        continue;
                    };
                    let ratio = reference
                        .as_ref()
                        .filter(|r| *r != st)
                        .and_then(|r| ratio(&b.timed, &of_class(r)?.timed, r, LEVEL));
                    rows.push(row(&ds.name, key, st, b.puzzles, &b.timed, ratio));
                }
            }
        }
        rows
    }

    /// The gate's look at each class: for every class of `dataset` with
    /// enough pairs, the ratio of `candidate` to `base` with its interval
    /// at `1 − alpha / k` (k: the classes judged, both schemes together);
    /// the class whose whole interval lies furthest above `1 + threshold`,
    /// if any (`None`: no class regressed).
    pub fn worst_regression(
        &self,
        dataset: &str,
        (base, candidate): (&str, &str),
        threshold_pct: f64,
        alpha: f64,
    ) -> Option<(String, ClassRatio)> {
        let of = self.classes.get(dataset)?;
        let mut sizes = [0usize; SLOTS];
        for k in of.values().flat_map(|c| c.slots()) {
            sizes[k] += 1;
        }
        let judged: Vec<(usize, Key)> = keys()
            .enumerate()
            .filter(|&(k, _)| sizes[k] >= MIN_PAIRS)
            .collect();
        let k = judged.len().max(1) as f64;
        let level = 1.0 - alpha / k;
        let sorted = |st: &str| {
            let samples = self.samples.get(&(dataset.to_string(), st.to_string()))?;
            Some(buckets(&[], samples, of))
        };
        let (mine, theirs) = (sorted(candidate)?, sorted(base)?);
        let mut worst: Option<(String, ClassRatio)> = None;
        for (k, key) in judged {
            let (m, b) = (&mine[k], &theirs[k]);
            let Some(r) = ratio(&m.timed, &b.timed, base, level) else {
                continue;
            };
            let bar = 1.0 + threshold_pct / 100.0;
            if r.low.is_some_and(|lo| lo > bar) && worst.as_ref().is_none_or(|(_, w)| r.low > w.low)
            {
                worst = Some((format!("{} {}", key.0, key.1), r));
            }
        }
        worst
    }
}

/// Every class, in slot order.
fn keys() -> impl Iterator<Item = Key> {
    schemes()
        .into_iter()
        .flat_map(|(s, labels)| labels.into_iter().map(move |l| (s, l)))
}

/// The schemes and their classes, in order.
fn schemes() -> Vec<(&'static str, Vec<&'static str>)> {
    vec![
        ("effort", EFFORT_CLASSES.to_vec()),
        (
            "rating",
            crate::rating::scale::Class::ALL
                .iter()
                .map(|c| c.label())
                .collect(),
        ),
    ]
}

/// The paired ratio of the timed puzzles `mine` to `base` (each a class's
/// (index, time); the reference is named `reference`), with an interval
/// at `level`; `None` without a pair.
fn ratio(
    mine: &[(u64, u64)],
    base: &[(u64, u64)],
    reference: &str,
    level: f64,
) -> Option<ClassRatio> {
    let base: HashMap<u64, u64> = base.iter().copied().collect();
    let logs: Vec<f64> = mine
        .iter()
        .filter_map(|(i, t)| {
            let b = *base.get(i)?;
            Some(((*t).max(1) as f64 / b.max(1) as f64).ln())
        })
        .collect();
    if logs.is_empty() {
        return None;
    }
    let mean = logs.iter().sum::<f64>() / logs.len() as f64;
    let interval = (logs.len() >= MIN_PAIRS).then(|| block_interval(&logs, level));
    Some(ClassRatio {
        reference: reference.to_string(),
        pairs: logs.len() as u64,
        geomean: mean.exp(),
        low: interval.map(|(lo, _)| lo.exp()),
        high: interval.map(|(_, hi)| hi.exp()),
        level,
    })
}

/// A class row from its kept times.
fn row(
    dataset: &str,
    (scheme, class): (&str, &str),
    strategy: &str,
    puzzles: u64,
    times: &[(u64, u64)],
    ratio: Option<ClassRatio>,
) -> ClassRow {
    let mut t: Vec<u64> = times.iter().map(|x| x.1).collect();
    t.sort_unstable();
    let q = |p: f64| {
        if t.is_empty() {
            0
        } else {
            t[((p * t.len() as f64).ceil() as usize).clamp(1, t.len()) - 1]
        }
    };
    ClassRow {
        dataset: dataset.to_string(),
        scheme: scheme.to_string(),
        class: class.to_string(),
        strategy: strategy.to_string(),
        puzzles,
        timed: t.len() as u64,
        mean_ns: t.iter().map(|&x| x as f64).sum::<f64>() / t.len().max(1) as f64,
        p50_ns: q(0.5),
        p99_ns: q(0.99),
        ratio,
    }
}

/// What the classes need of `puzzles.csv`'s rows, taken in one pass
/// ([`PuzzleRows::feed`], which other readers may share).
pub struct ClassRows {
    /// The label of the run's built-in `fast`, whose guesses give effort.
    fast: Option<String>,
    rating_col: Option<usize>,
    units: Vec<((String, String), Unit)>,
    /// The unit of the last row: rows of one unit come in long runs.
    last: Option<usize>,
    guesses: HashMap<String, HashMap<u64, u64>>,
    ratings: HashMap<String, HashMap<u64, crate::rating::scale::Class>>,
}

impl ClassRows {
    /// Ready to take the rows of the run `meta` describes.
    pub fn new(meta: &Meta) -> ClassRows {
        ClassRows {
            fast: fast_label(meta),
            rating_col: None,
            units: Vec::new(),
            last: None,
            guesses: HashMap::default(),
            ratings: HashMap::default(),
        }
    }

    /// The place of `row`'s unit in `units`, added when new (a key is made
    /// only for a unit not seen yet).
    fn unit_of(&mut self, row: &Row<'_>) -> usize {
        let units = &mut self.units;
        let same = |k: usize| units[k].0 .0 == row.dataset && units[k].0 .1 == row.strategy;
        if let Some(k) = self.last.filter(|&k| same(k)) {
            return k;
        }
        let k = match units
            .iter()
            .position(|((d, s), _)| d == row.dataset && s == row.strategy)
        {
            Some(k) => k,
            None => {
                let key = (row.dataset.to_string(), row.strategy.to_string());
                units.push((key, Unit::default()));
                units.len() - 1
            }
        };
        self.last = Some(k);
        k
    }
}

impl RowSink for ClassRows {
    fn header(&mut self, header: &csv::StringRecord) {
        self.rating_col = header.iter().position(|h| h == "rating");
    }

    fn row(&mut self, r: &Row<'_>) {
        let at = self.unit_of(r);
        let u = &mut self.units[at].1;
        u.indexes.push(r.index);
        let answered = matches!(
            r.status,
            Some(Status::Solved | Status::Multiple | Status::NoSolution | Status::Invalid)
        );
        if let (true, Some(t)) = (answered, r.time_ns) {
            u.timed.push((r.index, t));
        }
        if self.fast.as_deref() == Some(r.strategy) {
            if let Some(g) = r.guesses {
                of_dataset(&mut self.guesses, r.dataset).insert(r.index, g);
            }
        }
        let rating = self
            .rating_col
            .and_then(|c| r.record.get(c))
            .filter(|s| !s.is_empty());
        if let Some(v) = rating.and_then(|s| s.parse::<crate::rating::scale::Value>().ok()) {
            let class = crate::rating::scale::Class::of(v);
            of_dataset(&mut self.ratings, r.dataset).insert(r.index, class);
        }
    }
}

/// The map of dataset `name` in `by`, made on first use (a key allocated
/// once per dataset, not once per row).
fn of_dataset<'a, V>(
    by: &'a mut HashMap<String, HashMap<u64, V>>,
    name: &str,
) -> &'a mut HashMap<u64, V> {
    if !by.contains_key(name) {
        by.insert(name.to_string(), HashMap::default());
    }
    by.get_mut(name).expect("inserted above")
}

/// The label of the run's built-in `fast` strategy, if it ran one.
fn fast_label(meta: &Meta) -> Option<String> {
    let fast = Strategy::named("fast")?.axes();
    meta.options
        .strategy_details
        .iter()
        .find(|d| d.kind == "builtin" && d.spec == fast)
        .map(|d| d.name.clone())
}

/// The indexes of dataset `name` that have rows.
fn indexes_of(units: &HashMap<(String, String), Unit>, name: &str) -> FxHashSet<u64> {
    units
        .iter()
        .filter(|((d, _), _)| d == name)
        .flat_map(|(_, u)| u.indexes.iter().copied())
        .collect()
}

/// `fast`'s guesses on the puzzles `wanted` of dataset `name`, solving
/// them again from its file (untimed) under the run's solution limit and
/// guess budget; `None` with the reason when the file cannot be read
/// again (a stream), or the run did not finish (it was stopped: no more
/// work is added to its end).
fn effort_after_run(
    meta: &Meta,
    name: &str,
    wanted: &FxHashSet<u64>,
) -> (Option<HashMap<u64, u64>>, String) {
    let Some(ds) = meta.datasets.iter().find(|d| d.name == name) else {
        return (None, "not in meta.json".into());
    };
    if !meta.complete {
        return (
            None,
            "none: the run did not finish (measure -s fast)".into(),
        );
    }
    let path = Path::new(&ds.path);
    if crate::dataset::is_stream(path) || !path.is_file() {
        return (
            None,
            format!("none: {} cannot be read again (measure -s fast)", ds.path),
        );
    }
    let Ok(reader) = crate::dataset::open(path, crate::dataset::Format::Auto) else {
        return (None, format!("none: {} cannot be read again", ds.path));
    };
    let Some(fast) = Strategy::named("fast") else {
        return (None, "none".into());
    };
    let limits = Limits {
        solutions: meta.options.solution_limit.max(1),
        max_guesses: meta.options.max_guesses,
    };
    let records: Vec<_> = reader
        .filter_map(Result::ok)
        .filter(|r| wanted.contains(&r.index))
        .collect();
    use rayon::prelude::*;
    let guesses: HashMap<u64, u64> = records
        .par_iter()
        .map_init(crate::solver::Solver::new, |solver, rec| {
            let a = solver.answer_with(&rec.puzzle, rec.candidates(), &fast, &limits);
            (rec.index, a.result.counters.guesses)
        })
        .collect();
    (Some(guesses), "fast after the run (untimed)".into())
}

/// An interval at `level` for the mean of `logs`: Student's t over the
/// means of blocks of [`BLOCK`] neighbours (in input order: neighbours
/// share the machine's state, so a block, not a puzzle, is what varies
/// independently). A t interval holds its level far out in the tails,
/// where the gate's widened levels are, better than a bootstrap's
/// percentiles of a few hundred pairs.
fn block_interval(logs: &[f64], level: f64) -> (f64, f64) {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    let mean = logs.iter().sum::<f64>() / logs.len().max(1) as f64;
    let blocks: Vec<f64> = logs
        .chunks(BLOCK)
        .map(|c| c.iter().sum::<f64>() / c.len() as f64)
        .collect();
    let b = blocks.len() as f64;
    if blocks.len() < 2 {
        return (f64::NEG_INFINITY, f64::INFINITY);
    }
    let bm = blocks.iter().sum::<f64>() / b;
    let var = blocks.iter().map(|x| (x - bm).powi(2)).sum::<f64>() / (b - 1.0);
    let se = (var / b).sqrt();
    let t = StudentsT::new(0.0, 1.0, b - 1.0)
        .map(|d| d.inverse_cdf(1.0 - (1.0 - level) / 2.0))
        .unwrap_or(f64::INFINITY);
    (mean - t * se, mean + t * se)
}

#[cfg(test)]
mod tests;
