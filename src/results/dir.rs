//! The one reader of a results directory: `summary.json` and `meta.json`
//! ([`Summary::read`]), the per-puzzle rows of `puzzles.csv`, the V2 `.hdr`
//! histograms, and each unit's aggregates rebuilt from them
//! ([`ResultsDir::units`]). `report`, `compare`, `merge`, `export`,
//! `history`, `trend` and scans all read a directory through it. Every
//! error names the file it is about.

use super::meta::Meta;
use super::puzzles::PuzzleRows;
use super::{ResultRecord, Summary};
use crate::bench::metrics::{Fault, Skipped, UnitStats, LIST_CAP};
use crate::bench::paired::Paired;
use crate::solver::{Clock, Counter, Status};
use anyhow::Context;
use hdrhistogram::Histogram;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use super::summary::{MismatchRow, UnitRows};

/// A results directory read back.
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
    /// The times of the puzzles answered for certain (solved, several
    /// solutions, no solution, invalid): a puzzle given up or stalled on
    /// has the time it took to stop, not to solve, and is left out.
    pub samples: HashMap<(String, String), Samples>,
    /// The puzzles given up or stalled on, by index.
    pub unsolved: HashMap<(String, String), Vec<u64>>,
    /// What the rows add up to, to hold against `summary.json`.
    pub tally: HashMap<(String, String), Tally>,
}

/// What one unit's rows of `puzzles.csv` add up to: the figures
/// `summary.json` records from the same outcomes, so that the two files can
/// be held against each other ([`Tally::disagreements`]).
#[derive(Clone, Debug, Default)]
pub struct Tally {
    pub rows: u64,
    /// Rows whose answer the harness rejected.
    pub rejected: u64,
    /// The accepted rows by outcome, in [`Status::ALL`]'s order.
    pub status: [u64; Status::ALL.len()],
    /// Accepted rows whose outcome this build cannot read (no status
    /// column, or a word it does not know): a disagreement.
    pub unknown_status: u64,
    /// Sum and largest of the kept times of accepted rows.
    pub time_sum_ns: u64,
    pub time_max_ns: u64,
    /// Those kept times in a histogram like the unit's own, for its
    /// percentiles (`None` until a row has a time).
    pub times: Option<Histogram<u64>>,
    /// The wrapping sum of each accepted row's
    /// [`crate::bench::metrics::row_fingerprint`] (puzzle, kept time,
    /// outcome), as the summary's `rows_fingerprint`.
    pub fingerprint: u64,
    /// The search counters of accepted rows: guesses and backtracks
    /// summed, the deepest search.
    pub guesses: u64,
    pub backtracks: u64,
    pub max_depth: u64,
    /// A fingerprint of the rows' puzzle indexes (their sum and the sum of
    /// their squares, wrapping), every row counted: two runs of one
    /// experiment hold the same puzzles.
    pub indexes: (u64, u64),
}

impl Tally {
    /// Counts one row.
    pub fn add(&mut self, row: &super::puzzles::Row<'_>) {
        self.rows += 1;
        self.indexes.0 = self.indexes.0.wrapping_add(row.index);
        self.indexes.1 = self
            .indexes
            .1
            .wrapping_add(row.index.wrapping_mul(row.index));
        if row.rejected {
            self.rejected += 1;
            return;
        }
        match row.status {
            Some(s) => self.status[s as usize] += 1,
            None => self.unknown_status += 1,
        }
        if let Some(t) = row.time_ns {
            self.time_sum_ns = self.time_sum_ns.saturating_add(t);
            self.time_max_ns = self.time_max_ns.max(t);
            let h = self
                .times
                .get_or_insert_with(crate::bench::metrics::empty_histogram);
            crate::bench::metrics::record_time(h, t);
            if let Some(s) = row.status {
                let f = crate::bench::metrics::row_fingerprint(row.index, t, s);
                self.fingerprint = self.fingerprint.wrapping_add(f);
            }
        }
        self.guesses = self.guesses.saturating_add(row.guesses.unwrap_or(0));
        self.backtracks = self.backtracks.saturating_add(row.backtracks.unwrap_or(0));
        self.max_depth = self.max_depth.max(row.max_depth.unwrap_or(0));
    }

    /// Where these rows and the unit's record `r` in `summary.json` say
    /// different things (empty: they agree). Both are written from the same
    /// outcomes, so any difference means one of the files was edited, cut
    /// or mixed with another run's, and neither can be believed.
    pub fn disagreements(&self, r: &ResultRecord) -> Vec<String> {
        let mut out = Vec::new();
        let mut differ = |what: &str, rows: u64, summary: u64| {
            if rows != summary {
                out.push(format!(
                    "{what}: {rows} in puzzles.csv, {summary} in summary.json"
                ));
            }
        };
        differ("rows (puzzles)", self.rows, r.puzzles);
        differ("rejected answers", self.rejected, r.wrong());
        // A row whose outcome cannot be read could be a puzzle given up on
        // that the comparison would then time as solved.
        differ(
            "rows with an outcome this build cannot read",
            self.unknown_status,
            0,
        );
        for s in Status::ALL {
            differ(s.as_str(), self.status[s as usize], r.count(s));
        }
        differ(
            "sum of the times kept (ns)",
            self.time_sum_ns,
            r.solve_ns_total,
        );
        differ("largest time kept (ns)", self.time_max_ns, r.max_ns);
        // Counters the strategy does not report are absent from both.
        let counters = [
            ("guesses", self.guesses, r.guesses_total),
            ("backtracks", self.backtracks, r.backtracks_total),
            ("max_depth", self.max_depth, r.max_depth_max),
        ];
        for (what, rows, summary) in counters {
            if let Some(summary) = summary {
                differ(what, rows, summary);
            }
        }
        out.extend(self.percentile_disagreements(r));
        out.extend(self.fingerprint_disagreement(r));
        // A measured pass cannot take no time while puzzles were timed.
        if self.time_sum_ns > 0 && r.pass_solve_ns.contains(&0) {
            out.push("a measured pass of 0 ns in summary.json's pass_solve_ns".to_string());
        }
        out
    }

    /// Where the rows do not give the summary's fingerprint of which
    /// puzzle had which kept time and outcome: a time moved to another
    /// puzzle, or changed, keeping every total above. A summary without one
    /// (written before it was kept) has nothing to hold the rows against.
    fn fingerprint_disagreement(&self, r: &ResultRecord) -> Option<String> {
        let said = r.rows_fingerprint.as_deref()?;
        let rows = format!("{:016x}", self.fingerprint);
        (said != rows).then(|| {
            format!(
                "which puzzle had which time and outcome (rows_fingerprint): {rows} in \
                 puzzles.csv, {said} in summary.json"
            )
        })
    }

    /// The summary's percentiles that the rows' times do not give. Each is
    /// the top of a histogram bucket (or the largest time), so one outside
    /// the bucket the rows give was not computed from these times; within
    /// it, the two are the same figure to the histogram's precision.
    fn percentile_disagreements(&self, r: &ResultRecord) -> Vec<String> {
        let empty = crate::bench::metrics::empty_histogram();
        let h = self.times.as_ref().unwrap_or(&empty);
        let summary = [
            ("p50", r.p50_ns, 0.5),
            ("p90", r.p90_ns, 0.9),
            ("p99", r.p99_ns, 0.99),
            ("p99.9", r.p999_ns, 0.999),
        ];
        let mut out = Vec::new();
        for (what, said, q) in summary {
            let rows = crate::bench::metrics::time_percentile(h, self.time_max_ns, q);
            let same = said == rows || (rows > 0 && said > 0 && h.equivalent(said, rows));
            if !same {
                out.push(format!(
                    "{what} of the times kept (ns): {rows} in puzzles.csv, {said} in summary.json"
                ));
            }
        }
        out
    }

    /// Where the unit's time histogram as its `.hdr` file holds it, `h`,
    /// does not count what these rows' times do (the same buckets with the
    /// same counts): `None` when they agree.
    pub fn histogram_disagreement(&self, h: &Histogram<u64>) -> Option<String> {
        let empty = crate::bench::metrics::empty_histogram();
        let rows = self.times.as_ref().unwrap_or(&empty);
        let counts = |h: &Histogram<u64>| {
            h.iter_recorded()
                .map(|v| (v.value_iterated_to(), v.count_at_value()))
                .collect::<Vec<_>>()
        };
        (counts(rows) != counts(h)).then(|| {
            format!(
                "the time histogram (.hdr): {} times in puzzles.csv, {} in the histogram, or \
                 the same number in other buckets",
                rows.len(),
                h.len()
            )
        })
    }

    /// The judge's refusal of the unit `r` of the results directory at
    /// `dir` whose rows add up to `tally` (`None`: no row), or `None` when
    /// its two files agree.
    pub fn refusal(tally: Option<&Tally>, dir: &Path, r: &ResultRecord) -> Option<String> {
        let none = Tally::default();
        let found = tally.unwrap_or(&none).disagreements(r);
        files_disagree(dir, r, "puzzles.csv and summary.json", &found)
    }
}

/// The judge's refusal of unit `r` of the results directory at `dir` on
/// what `files` say differently (`found`; `None` when nothing was): one of
/// them was edited, cut or mixed with another run's.
pub fn files_disagree(
    dir: &Path,
    r: &ResultRecord,
    files: &str,
    found: &[String],
) -> Option<String> {
    (!found.is_empty()).then(|| {
        format!(
            "[{}] {}: {files} disagree on {}/{} ({}): one of the files was edited, cut or \
             mixed with another run's, and neither can be believed",
            crate::judge::Rule::FilesDisagree.name(),
            dir.display(),
            r.dataset,
            r.strategy,
            found.join("; ")
        )
    })
}

impl PuzzleData {
    /// The judge's refusal of every unit of `d` (whose `puzzles.csv` these
    /// are) whose rows disagree with its `summary.json` ([`Tally::refusal`]).
    pub fn refusals(&self, d: &ResultsDir) -> Vec<String> {
        d.results
            .iter()
            .filter_map(|r| {
                let key = (r.dataset.clone(), r.strategy.clone());
                Tally::refusal(self.tally.get(&key), &d.path, r)
                    .or_else(|| self.paired_refusal(d, r))
            })
            .collect()
    }

    /// The judge's refusal of unit `r` whose pairings in `summary.json`
    /// (with the baseline, and with the gate's BASE) the rows do not give:
    /// the number of pairs, or their geometric mean ratio. The pairs are
    /// the puzzles both sides answered, as the run pairs them.
    fn paired_refusal(&self, d: &ResultsDir, r: &ResultRecord) -> Option<String> {
        // A side timed by its own clock is paired by its chunks' pass
        // totals, which the rows do not keep: only the number of pairs can
        // be held against them.
        let self_timed = |s: &str| {
            d.results
                .iter()
                .any(|x| x.dataset == r.dataset && x.strategy == s && x.clock == Clock::Solver)
        };
        let found: Vec<String> = [r.paired.as_ref(), r.paired_gate.as_ref()]
            .into_iter()
            .flatten()
            .filter_map(|p| {
                let by_totals = self_timed(&r.strategy) || self_timed(&p.baseline);
                self.paired_disagreement(&r.dataset, &r.strategy, p, by_totals)
            })
            .collect();
        files_disagree(&d.path, r, "puzzles.csv and summary.json", &found)
    }

    /// Where the rows of `strategy` and of `p`'s baseline on `dataset` do
    /// not give `p`'s pairs and geometric mean ratio (to a millionth: the
    /// run adds the same logs in another order; the pairs alone when the
    /// run paired them `by_totals` of chunks).
    fn paired_disagreement(
        &self,
        dataset: &str,
        strategy: &str,
        p: &Paired,
        by_totals: bool,
    ) -> Option<String> {
        let none = Samples::new();
        let rows = |s: &str| {
            self.samples
                .get(&(dataset.to_string(), s.to_string()))
                .unwrap_or(&none)
        };
        let (mine, base) = (rows(strategy), rows(&p.baseline));
        let (mut n, mut sum) = (0u64, 0f64);
        // Both sorted by index: one merge pass.
        let mut b = base.iter().peekable();
        for &(i, t) in mine {
            while b.next_if(|x| x.0 < i).is_some() {}
            if let Some(&&(_, tb)) = b.peek().filter(|x| x.0 == i) {
                n += 1;
                sum += crate::bench::paired::log_ratio_of_times(tb, t);
            }
        }
        let ratio = if n == 0 { 1.0 } else { (sum / n as f64).exp() };
        let close = by_totals || (ratio - p.geomean_ratio).abs() <= 1e-6 * p.geomean_ratio.abs();
        (n != p.pairs || !close).then(|| {
            format!(
                "the pairing with {}: {n} pairs, geometric mean ratio {ratio:.6} in puzzles.csv; \
                 {} pairs, {:.6} in summary.json",
                p.baseline, p.pairs, p.geomean_ratio
            )
        })
    }
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

    /// [`samples`](Self::samples), the puzzles given up on and what every
    /// unit's rows add up to ([`Tally`]), from one pass over `puzzles.csv`.
    pub fn puzzle_data(&self) -> anyhow::Result<Option<PuzzleData>> {
        let file = self.puzzles_csv();
        if !file.is_file() {
            return Ok(None);
        }
        let mut rows = PuzzleRows::open(&file)?;
        let mut data = PuzzleData::default();
        while let Some(row) = rows.next_row()? {
            let key = (row.dataset.to_string(), row.strategy.to_string());
            let unsolved = matches!(row.status, Some(Status::GaveUp | Status::Stalled));
            if unsolved {
                data.unsolved
                    .entry(key.clone())
                    .or_default()
                    .push(row.index);
            } else if let Some(time) = row.time_ns {
                // A fault or a rejected answer has no time: no sample.
                data.samples
                    .entry(key.clone())
                    .or_default()
                    .push((row.index, time));
            }
            data.tally.entry(key).or_default().add(&row);
        }
        for v in data.samples.values_mut() {
            v.sort_unstable();
        }
        Ok(Some(data))
    }

    /// An error unless every unit's rows in `puzzles.csv` agree with its
    /// record in `summary.json` ([`Tally::refusal`]); a directory without
    /// `puzzles.csv` has nothing to hold the summary against.
    pub fn require_rows_agree(&self) -> anyhow::Result<()> {
        let Some(data) = self.puzzle_data()? else {
            return Ok(());
        };
        let refused = data.refusals(self);
        if refused.is_empty() {
            return Ok(());
        }
        anyhow::bail!("{}", refused.join("\n  - "))
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
        let bytes = crate::support::files::read_regular(&file)
            .with_context(|| format!("{}: cannot read", file.display()))?;
        hdrhistogram::serialization::Deserializer::new()
            .deserialize(&mut &bytes[..])
            .map_err(|e| anyhow::anyhow!("{}: not a V2 histogram: {e:?}", file.display()))
    }

    /// Every unit's aggregates, in the order of `results`
    /// ([`ResultsDir::unit`]).
    pub fn units(&self) -> anyhow::Result<Vec<UnitStats>> {
        (0..self.results.len()).map(|i| self.unit(i)).collect()
    }

    /// The aggregates of unit `i` rebuilt from its summary record, its
    /// histograms (a counter the strategy does not report has none) and
    /// its listed mismatches, faults and skipped rows.
    pub fn unit(&self, i: usize) -> anyhow::Result<UnitStats> {
        let r = &self.results[i];
        let h = |suffix: &str, c: Option<Counter>| {
            if c.is_some_and(|c| !r.counters.has(c)) {
                Ok(crate::bench::metrics::empty_histogram())
            } else {
                self.histogram(&r.dataset, &r.strategy, suffix)
            }
        };
        let passes = self.meta.options.passes_of(&r.strategy).total();
        let mut u = r.to_unit(
            h("", None)?,
            h(".guesses", Some(Counter::Guesses))?,
            h(".depth", Some(Counter::MaxDepth))?,
            passes,
        );
        let ours = |d: &str, s: &str| d == r.dataset && s == r.strategy;
        for l in self
            .mismatch_list
            .iter()
            .filter(|l| ours(&l.dataset, &l.strategy))
        {
            for row in &l.rows {
                u.mismatch_list.push(row.to_mismatch().with_context(|| {
                    format!(
                        "{}: unknown status '{}'",
                        self.path.join("summary.json").display(),
                        row.status
                    )
                })?);
            }
        }
        for l in self
            .skipped_rows
            .iter()
            .filter(|l| ours(&l.dataset, &l.strategy))
        {
            u.skipped_list.extend(l.rows.iter().cloned());
        }
        for l in self
            .fault_list
            .iter()
            .filter(|l| ours(&l.dataset, &l.strategy))
        {
            u.fault_list.extend(l.rows.iter().cloned());
        }
        u.mismatch_list.truncate(LIST_CAP);
        u.skipped_list.truncate(LIST_CAP);
        u.fault_list.truncate(LIST_CAP);
        Ok(u)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::metrics::{test_outcome, SmallCounts, HIST_MAX};
    use crate::results::puzzles::Row;

    /// Times from 1 ns to beyond the histograms' range, about evenly spread
    /// on a log scale (a fixed sequence: the test is deterministic).
    fn times(n: u64) -> Vec<u64> {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        (0..n)
            .map(|_| {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let bits = (x >> 58) + 1; // 1..=64 bits
                (x >> 7) >> (64 - bits).min(63)
            })
            .chain([0, 1, HIST_MAX, HIST_MAX * 3])
            .collect()
    }

    fn tally_of(times: &[u64]) -> Tally {
        let record = csv::StringRecord::new();
        let mut t = Tally::default();
        for (i, &ns) in times.iter().enumerate() {
            t.add(&Row {
                line: i as u64 + 2,
                dataset: "d",
                strategy: "s",
                index: i as u64,
                time_ns: Some(ns),
                guesses: Some(1),
                backtracks: Some(1),
                max_depth: Some(1),
                status: Some(Status::Solved),
                rejected: false,
                record: &record,
            });
        }
        t
    }

    #[test]
    fn percentiles_rebuilt_from_the_rows_agree_with_the_summarys_and_a_changed_one_is_named() {
        for n in [1, 7, 100, 5_000] {
            let ts = times(n);
            // The pipeline's way (small times counted per class, then
            // flushed) and the plain one.
            let mut counted = UnitStats::new("d", "s", 1);
            let mut small = SmallCounts::default();
            let mut direct = UnitStats::new("d", "s", 1);
            for &ns in &ts {
                counted.record_counting(&test_outcome(ns, 1, Status::Solved), &mut small);
                direct.record(&test_outcome(ns, 1, Status::Solved));
            }
            small.flush(&mut counted);
            let tally = tally_of(&ts);
            for u in [&counted, &direct] {
                let r = ResultRecord::of(u, 1);
                assert_eq!(tally.percentile_disagreements(&r), Vec::<String>::new());
                let mut changed = r.clone();
                changed.p90_ns = r.p90_ns / 2 + 1;
                let found = tally.percentile_disagreements(&changed);
                assert_eq!(found.len(), 1, "{found:?}");
                assert!(found[0].starts_with("p90 of the times kept"), "{found:?}");
            }
        }
        // No timed row: every percentile of the summary is 0.
        let r = ResultRecord::of(&UnitStats::new("d", "s", 1), 1);
        assert!(Tally::default().percentile_disagreements(&r).is_empty());
    }
}
