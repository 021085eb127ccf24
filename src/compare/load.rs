//! Reading a results directory back: `summary.json` (meta, results, lists),
//! the per-puzzle times of `puzzles.csv`, and the V2 `.hdr` histograms.
//! Every error names the file it is about.

use crate::bench::metrics::{Fault, ResultRecord, Skipped};
use crate::bench::sysinfo::Meta;
use crate::results::puzzles::PuzzleRows;
use crate::results::Summary;
use anyhow::Context;
use hdrhistogram::Histogram;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use crate::results::summary::{MismatchRow, UnitRows};

/// A results directory as `compare`, `merge` and `export` see it.
#[derive(Clone, Debug)]
pub struct ResultsDir {
    pub path: PathBuf,
    pub meta: Meta,
    pub results: Vec<ResultRecord>,
    pub mismatch_list: Vec<UnitRows<MismatchRow>>,
    pub skipped_rows: Vec<UnitRows<Skipped>>,
    pub fault_list: Vec<UnitRows<Fault>>,
}

/// Per-puzzle solve times of one unit, in index order: (index, time_ns).
pub type Samples = Vec<(u64, u64)>;

/// What `puzzles.csv` holds per (dataset, strategy).
#[derive(Clone, Debug, Default)]
pub struct PuzzleData {
    pub samples: HashMap<(String, String), Samples>,
    /// Rows, faults included.
    pub rows: HashMap<(String, String), u64>,
}

impl ResultsDir {
    /// Reads `DIR/summary.json` and `DIR/meta.json` ([`Summary::read`]).
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        let s = Summary::read(path)?;
        Ok(ResultsDir {
            path: path.to_path_buf(),
            meta: s.meta,
            results: s.results,
            mismatch_list: s.mismatch_list,
            skipped_rows: s.skipped_rows,
            fault_list: s.fault_list,
        })
    }

    /// An error unless the run is complete (its `meta.json` says so and
    /// every unit finished): "DIR: an incomplete run (why); `opt_in`".
    pub fn require_complete(&self, opt_in: &str) -> anyhow::Result<()> {
        if self.meta.complete && self.results.iter().all(|r| r.complete) {
            return Ok(());
        }
        anyhow::bail!(
            "{}: an incomplete run ({}); {opt_in}",
            self.path.display(),
            self.meta
                .stopped
                .as_deref()
                .unwrap_or("a unit did not finish")
        )
    }

    pub fn puzzles_csv(&self) -> PathBuf {
        self.path.join("puzzles.csv")
    }

    pub fn has_puzzles_csv(&self) -> bool {
        self.puzzles_csv().is_file()
    }

    /// The per-puzzle times of every unit from `puzzles.csv`, each sorted by
    /// index (puzzles without a time, the faults of external solvers, left
    /// out); `None` when the directory has no puzzles.csv.
    pub fn samples(&self) -> anyhow::Result<Option<HashMap<(String, String), Samples>>> {
        Ok(self.puzzle_data()?.map(|d| d.samples))
    }

    /// [`samples`](Self::samples) and the number of rows of every unit
    /// (faults included), from one pass over `puzzles.csv`.
    pub fn puzzle_data(&self) -> anyhow::Result<Option<PuzzleData>> {
        let file = self.puzzles_csv();
        if !file.is_file() {
            return Ok(None);
        }
        let mut rows = PuzzleRows::open(&file)?;
        let mut data = PuzzleData::default();
        while let Some(row) = rows.next_row()? {
            let key = (row.dataset.to_string(), row.strategy.to_string());
            // A fault of an external solver has no time: no sample.
            if let Some(time) = row.time_ns {
                data.samples
                    .entry(key.clone())
                    .or_default()
                    .push((row.index, time));
            }
            *data.rows.entry(key).or_default() += 1;
        }
        for v in data.samples.values_mut() {
            v.sort_unstable();
        }
        Ok(Some(data))
    }

    /// Reads `histograms/<dataset>-<strategy><suffix>.hdr` (suffix "",
    /// ".guesses" or ".depth").
    pub fn histogram(
        &self,
        dataset: &str,
        strategy: &str,
        suffix: &str,
    ) -> anyhow::Result<Histogram<u64>> {
        let dir = self.path.join("histograms");
        let base = crate::support::names::unit_file_base_in(&dir, dataset, strategy);
        let file = dir.join(format!("{base}{suffix}.hdr"));
        let bytes =
            std::fs::read(&file).with_context(|| format!("{}: cannot read", file.display()))?;
        hdrhistogram::serialization::Deserializer::new()
            .deserialize(&mut &bytes[..])
            .map_err(|e| anyhow::anyhow!("{}: not a V2 histogram: {e:?}", file.display()))
    }
}
