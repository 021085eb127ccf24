//! The puzzles worth a look, read from `puzzles.csv`: per (dataset,
//! strategy) the slowest ones, and per paired candidate the ones where it
//! lost most to its baseline (largest time ratio candidate / baseline).
//!
//! Both come from the per-puzzle rows, so a run and `bench-sudoku report
//! DIR` list the same puzzles; a run without `puzzles.csv` has no such
//! tables, and the report says so.

use crate::results::puzzles::{PuzzleRows, Row, RowSink};
use rustc_hash::FxHashMap as HashMap;
use std::path::Path;

/// Puzzles listed per table.
pub const TOP: usize = 10;

/// One puzzle of one strategy: where it is and what it cost.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The puzzle's index in the dataset (0-based, as in `puzzles.csv`).
    pub index: u64,
    /// Its line in the dataset file, when known ([`Worst::locate`]).
    pub line: Option<u64>,
    pub time_ns: u64,
    /// `None` for a strategy that does not report guesses.
    pub guesses: Option<u64>,
}

/// The slowest puzzles of one (dataset, strategy), slowest first.
#[derive(Clone, Debug, PartialEq)]
pub struct Slowest {
    pub dataset: String,
    pub strategy: String,
    pub rows: Vec<Entry>,
}

/// One puzzle a candidate lost on: its entry and the baseline's.
#[derive(Clone, Debug, PartialEq)]
pub struct Loss {
    pub candidate: Entry,
    pub baseline: Entry,
}

impl Loss {
    /// Candidate time / baseline time (times of 0 count as 1 ns).
    pub fn ratio(&self) -> f64 {
        self.candidate.time_ns.max(1) as f64 / self.baseline.time_ns.max(1) as f64
    }
}

/// The puzzles where one candidate lost most to its baseline, largest
/// ratio first; only puzzles the candidate was slower on.
#[derive(Clone, Debug, PartialEq)]
pub struct Losses {
    pub dataset: String,
    pub strategy: String,
    pub baseline: String,
    pub rows: Vec<Loss>,
}

/// Every table of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Worst {
    /// In the order the units first appear in `puzzles.csv`.
    pub slowest: Vec<Slowest>,
    /// In the order of the `pairs` asked for.
    pub losses: Vec<Losses>,
}

/// Keeps the `TOP` largest items by `key` (ties: smaller index first), in
/// order, largest first.
fn offer<T>(top: &mut Vec<T>, item: T, key: impl Fn(&T) -> (f64, u64)) {
    let better = |a: &T, b: &T| {
        let (ka, ia) = key(a);
        let (kb, ib) = key(b);
        ka > kb || (ka == kb && ia < ib)
    };
    if top.len() == TOP && !top.last().is_some_and(|last| better(&item, last)) {
        return;
    }
    let at = top
        .iter()
        .position(|t| better(&item, t))
        .unwrap_or(top.len());
    top.insert(at, item);
    top.truncate(TOP);
}

/// A (dataset, strategy) pair's position in `list`, added when new.
fn slot<T>(list: &mut Vec<(String, String, T)>, dataset: &str, strategy: &str, new: T) -> usize {
    match list
        .iter()
        .position(|(d, s, _)| d == dataset && s == strategy)
    {
        Some(i) => i,
        None => {
            list.push((dataset.to_string(), strategy.to_string(), new));
            list.len() - 1
        }
    }
}

impl Worst {
    /// The tables of `path` (a `puzzles.csv`); `None` when there is no such
    /// file. `pairs` are the (dataset, candidate, baseline) comparisons to
    /// list losses for. Rows without a kept time (a fault, a rejected
    /// answer) are in no table. Reads the file twice: first the slowest
    /// puzzles and each baseline's times, then the candidates' ratios, so
    /// that only the baselines' times are held.
    pub fn read(path: &Path, pairs: &[(String, String, String)]) -> anyhow::Result<Option<Worst>> {
        if !path.is_file() {
            return Ok(None);
        }
        let mut first = FirstPass::new(pairs);
        PuzzleRows::feed(path, &mut [&mut first])?;
        Worst::after(path, first).map(Some)
    }

    /// The tables from a first pass over `path` (which may have been
    /// shared with other readers) and, where `pairs` has a pair to look
    /// at, a second pass for the losses.
    pub fn after(path: &Path, first: FirstPass<'_>) -> anyhow::Result<Worst> {
        let FirstPass {
            pairs,
            slowest,
            base,
        } = first;
        let found = if pairs.is_empty() {
            Vec::new()
        } else {
            losses(path, pairs, &base)?
        };
        let losses = pairs
            .iter()
            .map(|(d, s, b)| Losses {
                dataset: d.clone(),
                strategy: s.clone(),
                baseline: b.clone(),
                rows: found
                    .iter()
                    .find(|l| l.0 == *d && l.1 == *s)
                    .map(|l| l.2.clone())
                    .unwrap_or_default(),
            })
            .collect();
        let slowest = slowest
            .into_iter()
            .map(|(dataset, strategy, rows)| Slowest {
                dataset,
                strategy,
                rows,
            })
            .collect();
        Ok(Worst { slowest, losses })
    }
}

/// Per (dataset, strategy), what is kept of its rows.
type PerUnit<T> = Vec<(String, String, Vec<T>)>;

/// The times of one baseline, by puzzle index.
type Baselines = HashMap<(String, String), HashMap<u64, Entry>>;

/// The first pass over `puzzles.csv`: the slowest puzzles of every unit,
/// and the entries of every baseline named in `pairs` (a [`RowSink`], so
/// that other readers can share the pass).
pub struct FirstPass<'p> {
    pairs: &'p [(String, String, String)],
    slowest: PerUnit<Entry>,
    base: Baselines,
}

impl<'p> FirstPass<'p> {
    /// Ready to take rows; `pairs` as in [`Worst::read`].
    pub fn new(pairs: &'p [(String, String, String)]) -> FirstPass<'p> {
        FirstPass {
            pairs,
            slowest: Vec::new(),
            base: Baselines::default(),
        }
    }
}

impl RowSink for FirstPass<'_> {
    fn row(&mut self, row: &Row<'_>) {
        let Some(time_ns) = row.time_ns else { return };
        let entry = Entry {
            index: row.index,
            line: None,
            time_ns,
            guesses: row.guesses,
        };
        let i = slot(&mut self.slowest, row.dataset, row.strategy, Vec::new());
        offer(&mut self.slowest[i].2, entry.clone(), |e| {
            (e.time_ns as f64, e.index)
        });
        let (d, s) = (row.dataset, row.strategy);
        if self.pairs.iter().any(|p| p.0 == d && p.2 == s) {
            self.base
                .entry((d.to_string(), s.to_string()))
                .or_default()
                .insert(row.index, entry);
        }
    }
}

/// The second pass: each candidate's puzzles with the largest ratio to
/// its baseline's time on the same puzzle (slower ones only).
fn losses(
    path: &Path,
    pairs: &[(String, String, String)],
    base: &Baselines,
) -> anyhow::Result<PerUnit<Loss>> {
    let mut found: PerUnit<Loss> = Vec::new();
    let mut rows = PuzzleRows::open(path)?;
    while let Some(row) = rows.next_row()? {
        let Some(time_ns) = row.time_ns else { continue };
        let Some(pair) = pairs
            .iter()
            .find(|p| p.0 == row.dataset && p.1 == row.strategy)
        else {
            continue;
        };
        let key = (pair.0.clone(), pair.2.clone());
        let Some(b) = base.get(&key).and_then(|m| m.get(&row.index)) else {
            continue;
        };
        let loss = Loss {
            candidate: Entry {
                index: row.index,
                line: None,
                time_ns,
                guesses: row.guesses,
            },
            baseline: b.clone(),
        };
        if loss.ratio() > 1.0 {
            let i = slot(&mut found, row.dataset, row.strategy, Vec::new());
            offer(&mut found[i].2, loss, |l| (l.ratio(), l.candidate.index));
        }
    }
    Ok(found)
}

impl Worst {
    /// Fills in each listed puzzle's line in its dataset file, read again
    /// at the path the run recorded (as far as the largest index listed).
    /// A dataset missing at that path, read from a stream, or unreadable
    /// leaves its lines unknown: the tables then give the index
    /// alone.
    pub fn locate(&mut self, datasets: &[crate::results::meta::DatasetMeta]) {
        for d in datasets {
            let mut wanted: Vec<u64> = self.entries(&d.name).map(|e| e.index).collect();
            wanted.sort_unstable();
            wanted.dedup();
            if wanted.is_empty() {
                continue;
            }
            let lines = dataset_lines(d, &wanted);
            let lines: HashMap<u64, u64> = lines.into_iter().collect();
            for e in self.entries_mut(&d.name) {
                e.line = lines.get(&e.index).copied();
            }
        }
    }

    fn entries<'a>(&'a self, dataset: &'a str) -> impl Iterator<Item = &'a Entry> + 'a {
        let slow = self.slowest.iter().filter(move |s| s.dataset == dataset);
        let lost = self.losses.iter().filter(move |l| l.dataset == dataset);
        slow.flat_map(|s| s.rows.iter()).chain(
            lost.flat_map(|l| l.rows.iter())
                .flat_map(|r| [&r.candidate, &r.baseline]),
        )
    }

    fn entries_mut<'a>(&'a mut self, dataset: &'a str) -> impl Iterator<Item = &'a mut Entry> + 'a {
        let slow = self
            .slowest
            .iter_mut()
            .filter(move |s| s.dataset == dataset);
        let lost = self.losses.iter_mut().filter(move |l| l.dataset == dataset);
        slow.flat_map(|s| s.rows.iter_mut()).chain(
            lost.flat_map(|l| l.rows.iter_mut())
                .flat_map(|r| [&mut r.candidate, &mut r.baseline]),
        )
    }
}

/// The lines of the puzzles `wanted` (sorted indexes) in dataset `d`'s
/// file; empty when the file cannot be read again.
fn dataset_lines(d: &crate::results::meta::DatasetMeta, wanted: &[u64]) -> Vec<(u64, u64)> {
    use clap::ValueEnum;
    let path = Path::new(&d.path);
    let format = crate::dataset::Format::from_str(&d.format, true).unwrap_or_default();
    if crate::dataset::is_stream(path) || !path.is_file() {
        return Vec::new();
    }
    let Ok(reader) = crate::dataset::open(path, format) else {
        return Vec::new();
    };
    let last = wanted.last().copied().unwrap_or(0);
    let mut out = Vec::with_capacity(wanted.len());
    for rec in reader {
        // A row error has no record; the rows after it still count.
        let Ok(rec) = rec else { continue };
        if rec.index > last {
            break;
        }
        if wanted.binary_search(&rec.index).is_ok() {
            out.push((rec.index, rec.line));
        }
    }
    out
}

/// The columns of a slowest-puzzles table.
pub const SLOWEST_COLUMNS: [&str; 5] = ["#", "index", "file:line", "time", "guesses"];

/// The columns of a largest-losses table.
pub const LOSS_COLUMNS: [&str; 8] = [
    "#",
    "index",
    "file:line",
    "ratio",
    "time",
    "baseline time",
    "guesses",
    "baseline guesses",
];

/// Where a puzzle is: `file:line`, or the file alone when its line is
/// unknown.
pub fn place(file: &str, e: &Entry) -> String {
    match e.line {
        Some(l) => format!("{file}:{l}"),
        None => file.to_string(),
    }
}

fn guesses(g: Option<u64>) -> String {
    g.map_or_else(|| super::terminal::ABSENT.to_string(), |g| g.to_string())
}

/// The cells of a slowest-puzzles table, slowest first; `file` is the
/// dataset's path.
pub fn slowest_rows(s: &Slowest, file: &str) -> Vec<[String; 5]> {
    s.rows
        .iter()
        .enumerate()
        .map(|(i, e)| {
            [
                (i + 1).to_string(),
                e.index.to_string(),
                place(file, e),
                super::terminal::fmt_ns(e.time_ns as f64),
                guesses(e.guesses),
            ]
        })
        .collect()
}

/// The cells of a largest-losses table, largest ratio first.
pub fn loss_rows(l: &Losses, file: &str) -> Vec<[String; 8]> {
    l.rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            [
                (i + 1).to_string(),
                r.candidate.index.to_string(),
                place(file, &r.candidate),
                format!("{}×", crate::bench::paired::ratio(r.ratio())),
                super::terminal::fmt_ns(r.candidate.time_ns as f64),
                super::terminal::fmt_ns(r.baseline.time_ns as f64),
                guesses(r.candidate.guesses),
                guesses(r.baseline.guesses),
            ]
        })
        .collect()
}

/// What the slowest-puzzles tables show, for the note under them.
pub const SLOWEST_NOTE: &str = "Ranked by the per-puzzle time kept (puzzles.csv's time_ns); index is the puzzle's 0-based position in the dataset, file:line where it is in the dataset file (the file alone when the file could not be read again at its recorded path). Faults and rejected answers have no kept time and are listed in their own sections.";

/// What the largest-losses tables show.
pub const LOSS_NOTE: &str = "For each strategy paired with the baseline, the puzzles where its time was the largest multiple of the baseline's time on the same puzzle (puzzles.csv's kept times; only puzzles it was slower on).";

/// Said instead of the tables when the run wrote no puzzles.csv.
pub const NEEDS_CSV: &str =
    "These tables need puzzles.csv, which this run did not write (--no-puzzle-csv).";

/// The path of the dataset `name` as the run recorded it (the name when
/// the run recorded none).
pub fn dataset_file<'a>(meta: &'a crate::results::meta::Meta, name: &'a str) -> &'a str {
    meta.datasets
        .iter()
        .find(|d| d.name == name)
        .map_or(name, |d| d.path.as_str())
}
