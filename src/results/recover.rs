//! The results of a run whose measuring process died: rebuilt from the rows
//! it had written, so that what was measured before is kept.
//!
//! A measuring process writes `meta.json` (marked incomplete) as soon as
//! its results directory exists, and every batch's rows to
//! `puzzles.csv.partial` (the first strategy of an interleaved group) and
//! `puzzles.csv.partial.<k>` (the others, until the group ends) as it
//! goes. When it dies (a crash, an `exit()` or a hang inside a solver
//! loaded into it), its supervisor reads those files back: each up to its
//! last whole row (a batch being written may have left a hole or half a
//! row), and for the group that was running, only the puzzles every one of
//! its strategies has a row for, so that the strategies stay comparable.
//! The rows become `puzzles.csv`, their statistics the summaries, charts
//! and histograms, and `meta.json` says why the run stopped, with
//! `"complete": false`. What the rows do not hold is left out and said:
//! the wall times (so no puzzles/s), the paired statistics, the dataset
//! lines of listed mismatches and faults, and their details.

use crate::bench::metrics::{PuzzleOutcome, Repeats, UnitStats};
use crate::bench::spill_path;
use crate::bench::sysinfo;
use crate::results::Meta;
use crate::solver::{CounterSet, Counters, Status};
use anyhow::Context;
use std::path::Path;

/// What was rebuilt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recovered {
    /// Rows kept, over every strategy.
    pub rows: u64,
    /// (dataset, strategy) units with at least one row.
    pub units: usize,
}

/// What a detail that `puzzles.csv` does not keep is replaced with.
const NOT_KEPT: &str =
    "recovered from puzzles.csv after the measuring process died; the detail was not kept";

/// The results of a directory rebuilt from its rows, to be written
/// (`report::finish::recover` writes them) while `claim` holds it.
pub struct Rebuilt {
    pub meta: Meta,
    pub units: Vec<UnitStats>,
    /// The run was asked for `puzzles.csv` (its rows are kept).
    pub wanted_rows: bool,
    pub recovered: Recovered,
    pub claim: crate::results::claim::Claim,
}

/// Rebuilds the results in `dir` from the rows its measuring process wrote,
/// marking them incomplete with `stopped` as the reason: `puzzles.csv`
/// written back in order, the units and the meta rebuilt (the report files
/// are for the caller to write). Needs the `meta.json` the process wrote
/// when it started.
pub fn rebuild(dir: &Path, stopped: &str) -> anyhow::Result<Rebuilt> {
    // The directory's claim died with the process that held it: held
    // again while the results are rebuilt, and released (its lock file
    // removed) at the end.
    let claim = crate::results::claim::Claim::take(dir)
        .map_err(|r| r.into_error("the results directory", dir))?;
    let meta_path = dir.join("meta.json");
    let mut meta: Meta = serde_json::from_slice(
        &crate::support::files::read_regular(&meta_path)
            .with_context(|| format!("{}", meta_path.display()))?,
    )
    .with_context(|| format!("{}: not a bench-sudoku meta.json", meta_path.display()))?;
    let partial = dir.join("puzzles.csv.partial");
    let rows = read_rows(&partial)?;
    let keep = kept(&rows);
    let mut units = build_units(&meta, &rows, &keep);
    for u in &mut units {
        u.complete = false;
        for m in &mut u.mismatch_list {
            m.detail = format!("{}: {NOT_KEPT}", m.kind.as_str());
        }
        for f in &mut u.fault_list {
            f.detail = NOT_KEPT.to_string();
        }
    }
    let kept: u64 = units.iter().map(|u| u.puzzles).sum();
    let wanted_rows = meta.options.puzzle_csv;
    write_rows(dir, &rows, &keep)?;
    for (_, spill) in spills(&partial) {
        let _ = std::fs::remove_file(spill);
    }
    let _ = std::fs::remove_file(&partial);

    meta.complete = false;
    meta.stopped = Some(stopped.to_string());
    meta.finished = Some(sysinfo::now_rfc3339());
    meta.processed = kept;
    meta.harness = None;
    for d in &mut meta.datasets {
        d.puzzles = units
            .iter()
            .filter(|u| u.dataset == d.name)
            .map(|u| u.puzzles)
            .max()
            .unwrap_or(0);
        d.content_hash = None;
    }
    let recovered = Recovered {
        rows: kept,
        units: units.len(),
    };
    Ok(Rebuilt {
        meta,
        units,
        wanted_rows,
        recovered,
        claim,
    })
}

/// The rows read back: the header, and each row with the file it came from
/// (0: `puzzles.csv.partial`, k: its k-th spill file).
struct Rows {
    header: csv::StringRecord,
    rows: Vec<(usize, csv::StringRecord)>,
}

/// The spill files beside `partial` that exist, in order.
fn spills(partial: &Path) -> Vec<(usize, std::path::PathBuf)> {
    (1..)
        .map(|k| (k, spill_path(partial, k)))
        .take_while(|(_, p)| p.is_file())
        .collect()
}

/// The bytes of a file up to its last whole row: up to the first NUL byte
/// (a hole left by a batch whose rows were never written), then up to the
/// last newline (a row cut in half).
fn whole_rows(path: &Path) -> anyhow::Result<Vec<u8>> {
    let mut bytes =
        crate::support::files::read_regular(path).with_context(|| format!("{}", path.display()))?;
    if let Some(hole) = memchr::memchr(0, &bytes) {
        bytes.truncate(hole);
    }
    let end = memchr::memrchr(b'\n', &bytes).map_or(0, |i| i + 1);
    bytes.truncate(end);
    Ok(bytes)
}

fn read_rows(partial: &Path) -> anyhow::Result<Rows> {
    let main = whole_rows(partial)?;
    let mut rdr = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(main.as_slice());
    let header = rdr
        .headers()
        .with_context(|| format!("{}: no header", partial.display()))?
        .clone();
    let mut rows = Vec::new();
    for r in rdr.records() {
        rows.push((0, r.with_context(|| format!("{}", partial.display()))?));
    }
    for (k, path) in spills(partial) {
        let bytes = whole_rows(&path)?;
        let mut rdr = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(bytes.as_slice());
        for r in rdr.records() {
            rows.push((k, r.with_context(|| format!("{}", path.display()))?));
        }
    }
    Ok(Rows { header, rows })
}

/// Column positions, by name.
struct Cols {
    at: Vec<Option<usize>>,
}

impl Cols {
    const NAMES: [&'static str; 22] = crate::results::puzzles::HEADER;

    fn of(header: &csv::StringRecord) -> Cols {
        Cols {
            at: Self::NAMES
                .iter()
                .map(|n| header.iter().position(|h| h == *n))
                .collect(),
        }
    }

    /// A cell as the run meant it (without the mark that keeps a
    /// spreadsheet from running a text cell as a formula).
    fn get<'r>(&self, row: &'r csv::StringRecord, name: &str) -> &'r str {
        let cell = Self::NAMES
            .iter()
            .position(|n| *n == name)
            .and_then(|i| self.at[i])
            .and_then(|i| row.get(i))
            .unwrap_or("");
        crate::support::cells::unneutral(cell)
    }

    fn num(&self, row: &csv::StringRecord, name: &str) -> u64 {
        self.get(row, name).parse().unwrap_or(0)
    }
}

/// The rows to keep: every row of the groups that ended; of the group
/// that was running (the rows of the spill files, and the first strategy's
/// rows of the same dataset after the groups before), only the puzzles
/// every strategy of the group has a row for. A row seen twice (a group
/// that died while its spill files were being appended) is kept once.
fn kept(rows: &Rows) -> Vec<bool> {
    let cols = Cols::of(&rows.header);
    let key = |r: &csv::StringRecord| (cols.get(r, "dataset").to_string(), cols.num(r, "index"));
    let mut keep = vec![true; rows.rows.len()];
    let mut once = std::collections::HashSet::new();
    for (i, (_, r)) in rows.rows.iter().enumerate() {
        let unit_key = (key(r), cols.get(r, "strategy").to_string());
        keep[i] = once.insert(unit_key);
    }
    let spilled: Vec<usize> = (0..rows.rows.len())
        .filter(|&i| rows.rows[i].0 > 0)
        .collect();
    let Some(&first_spill) = spilled.first() else {
        return keep;
    };
    let dataset = cols.get(&rows.rows[first_spill].1, "dataset").to_string();
    // The running group's first strategy: the last unit of the main file.
    let main_last = rows.rows.iter().rposition(|(k, _)| *k == 0);
    let first_unit = main_last.map(|i| cols.get(&rows.rows[i].1, "strategy").to_string());
    let in_group = |(k, r): &(usize, csv::StringRecord)| {
        cols.get(r, "dataset") == dataset
            && (*k > 0 || Some(cols.get(r, "strategy")) == first_unit.as_deref())
    };
    let units = 1 + spills_in(rows);
    let mut seen: std::collections::HashMap<(String, u64), usize> = Default::default();
    for (row, _) in rows
        .rows
        .iter()
        .zip(&keep)
        .filter(|(r, &k)| k && in_group(r))
    {
        *seen.entry(key(&row.1)).or_default() += 1;
    }
    for (i, row) in rows.rows.iter().enumerate() {
        if keep[i] && in_group(row) && seen.get(&key(&row.1)).copied().unwrap_or(0) < units {
            keep[i] = false;
        }
    }
    keep
}

/// How many spill files the rows came from.
fn spills_in(rows: &Rows) -> usize {
    rows.rows.iter().map(|(k, _)| *k).max().unwrap_or(0)
}

/// Writes the kept rows as `puzzles.csv`: the main file's, then each spill
/// file's (a group's units one after another, as a finished run has them).
fn write_rows(dir: &Path, rows: &Rows, keep: &[bool]) -> anyhow::Result<()> {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    w.write_record(&rows.header)?;
    for ((_, r), _) in rows.rows.iter().zip(keep).filter(|(_, &k)| k) {
        w.write_record(r)?;
    }
    let bytes = w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?;
    crate::support::files::write_atomic(&dir.join("puzzles.csv"), &bytes)?;
    Ok(())
}

/// One unit per (dataset, strategy) in the order their rows come, each
/// with the kept rows' outcomes.
fn build_units(meta: &Meta, rows: &Rows, keep: &[bool]) -> Vec<UnitStats> {
    let cols = Cols::of(&rows.header);
    let mut units: Vec<UnitStats> = Vec::new();
    for ((_, r), _) in rows.rows.iter().zip(keep).filter(|(_, &k)| k) {
        let (dataset, strategy) = (cols.get(r, "dataset"), cols.get(r, "strategy"));
        let at = match units
            .iter()
            .position(|u| u.dataset == dataset && u.strategy == strategy)
        {
            Some(i) => i,
            None => {
                let details = meta
                    .options
                    .strategy_details
                    .iter()
                    .find(|s| s.name == strategy);
                let (counters, clock) = details
                    .map_or((CounterSet::ALL, crate::solver::Clock::Harness), |d| {
                        (d.counters, d.clock)
                    });
                units.push(
                    UnitStats::new(dataset, strategy, meta.options.passes_of(strategy).repeat)
                        .reporting(counters, clock),
                );
                units.len() - 1
            }
        };
        units[at].record(&outcome(&cols, r));
    }
    for u in &mut units {
        u.passes = meta.options.passes_of(&u.strategy).total();
        // The rows keep each puzzle's kept time, not what each pass took
        // in all: the pass totals are unknown (an empty list), not 0 ns,
        // which a reader would take for a summary at odds with its rows.
        u.pass_ns.clear();
        u.settle();
    }
    units
}

/// A row's outcome, as far as the row tells it.
fn outcome(cols: &Cols, r: &csv::StringRecord) -> PuzzleOutcome {
    let status = Status::ALL
        .into_iter()
        .find(|s| s.as_str() == cols.get(r, "status"))
        .unwrap_or(Status::Error);
    let answer = cols.get(r, "answer");
    let num = |n: &str| cols.num(r, n);
    PuzzleOutcome {
        index: num("index"),
        line: 0,
        status,
        solutions: num("solutions").min(u32::MAX as u64) as u32,
        time_ns: num("time_ns"),
        counters: Counters {
            guesses: num("guesses"),
            backtracks: num("backtracks"),
            max_depth: num("max_depth").min(u32::MAX as u64) as u32,
            nodes: num("nodes"),
            naked_singles: num("naked_singles"),
            hidden_singles: num("hidden_singles"),
            locked_eliminations: num("locked_eliminations"),
            subset_eliminations: num("subset_eliminations"),
            fish_eliminations: num("fish_eliminations"),
            wing_eliminations: num("wing_eliminations"),
            chain_eliminations: num("chain_eliminations"),
        },
        givens: num("givens").min(81) as u8,
        matches_solution: match (cols.get(r, "matches_solution"), answer) {
            ("true", _) => Some(true),
            ("false", _) | (_, "differs") => Some(false),
            _ => None,
        },
        wrong: (answer == "wrong_grid").then(|| NOT_KEPT.to_string()),
        wrong_count: (answer == "wrong_count").then_some(0),
        fault: status.is_fault().then(|| NOT_KEPT.into()),
        repeats: Repeats {
            answer_changed: u32::from(answer == "unstable"),
            ..Repeats::default()
        },
        // The rows do not say whether an answer carried a grid.
        unverified: false,
    }
}
