//! The history of a solver's revisions: a compact file of one JSON line per
//! run, dataset and strategy (`history add` appends to it; `trend` reads it
//! and results directories alike), and the model `trend` draws from it.
//!
//! A line keeps what a CI job needs to follow a solver across commits and
//! across changing runners: the solver's revision, when and on what machine
//! it ran, its absolute times and counters, and above all **the paired
//! ratio to the yardstick** (the run's baseline, `fast` by default in the
//! CI action) measured in the same process, puzzle by puzzle, with its
//! interval: a slower runner slows both sides alike, so the ratio follows
//! the solver, not the machine.
//!
//! - [`series`]: lines grouped by (dataset, series), one point per revision,
//!   revisions in commit order;
//! - [`steps`]: where a series' ratio stepped (change points).

pub mod series;
pub mod steps;

use crate::judge::{self, Experiment, Finding, Rule, Side};
use crate::results::meta::Meta;
use crate::results::ResultRecord;
use crate::solver::Clock;
use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The version of a line's layout; a reader refuses a newer one. Version 2
/// added what the judge needs (the experiment, unsolved and unverifiable
/// answers, the clock's claims); version 1 lines read with those unknown.
pub const SCHEMA: u32 = 2;

/// One run's result for one dataset and strategy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Line {
    pub schema: u32,
    /// The name the history follows (the strategy's label unless `history
    /// add --series` renames it).
    pub series: String,
    /// The strategy's label in the run.
    pub strategy: String,
    /// The solver's revision (`rev=`, `--revision`, `git describe`, or
    /// bench-sudoku's build for a built-in strategy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision_from: Option<String>,
    pub dataset: String,
    /// The dataset's content hash (`meta.json`), when the run recorded one:
    /// two lines with different hashes measured different puzzles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset_hash: Option<String>,
    /// When the run started (RFC 3339, UTC).
    pub started: String,
    /// The run's identifier (`meta.json` `run_id`), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    pub machine: Machine,
    /// bench-sudoku's version and build commit.
    pub tool: String,
    /// `cold` or `practised`.
    pub timing: String,
    pub repeat: u32,
    pub puzzles: u64,
    /// Verified answers.
    pub solved: u64,
    /// Rejected answers and faults: a line with any is kept out of step
    /// detection (its times left out puzzles).
    pub rejected: u64,
    pub faults: u64,
    pub mean_ns: f64,
    pub p50_ns: u64,
    pub p99_ns: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guesses_total: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backtracks_total: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_depth_max: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes_total: Option<u64>,
    /// The paired comparison with the run's baseline, when the strategy
    /// was paired with one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub yardstick: Option<Yardstick>,
    /// The run and the unit finished.
    pub complete: bool,
    /// What made the measurement the experiment it was (the judge compares
    /// a history's lines by it); absent in lines of schema 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experiment: Option<Experiment>,
    /// Puzzles given up or stalled on, and answers with no solution
    /// written (every round of a budgeted gate included).
    #[serde(default)]
    pub unsolved: u64,
    #[serde(default)]
    pub unverified: u64,
    /// Repeated solves, and those far faster than the first (a cache).
    #[serde(default)]
    pub repeated: u64,
    #[serde(default)]
    pub repeat_far_faster: u64,
    /// A later round of a budgeted gate was far faster than the first.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cache_across_rounds: bool,
    /// A self-timed solver's kept times over its passes' mean total.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_share: Option<f64>,
    /// `harness`, `solver` or `round_trip`.
    #[serde(default = "harness_clock")]
    pub clock: String,
    /// A self-timed solver's claims over the harness's time, its mean claim
    /// per solve and the time per call it leaves unclaimed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claimed_share: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claimed_mean_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unclaimed_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unclaimed_se_ns: Option<f64>,
}

fn harness_clock() -> String {
    Clock::Harness.as_str().to_string()
}

/// The machine a line was measured on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Machine {
    pub cpu: String,
    pub logical_cores: usize,
    pub threads: usize,
    pub os: String,
    pub arch: String,
}

/// A strategy's paired ratio to the yardstick (the run's baseline),
/// measured in the same process.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Yardstick {
    /// The yardstick's label and revision.
    pub strategy: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
    /// The yardstick's own mean solve time in the same run (how fast the
    /// machine was).
    pub mean_ns: f64,
    /// Geometric mean of the per-puzzle time ratios (strategy /
    /// yardstick).
    pub ratio: f64,
    /// Its 95 % bootstrap interval over chunks of puzzles (what the ratio
    /// would be on other puzzles like these); absent when the pairs filled
    /// too few chunks for one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub low: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub high: Option<f64>,
    /// Its 95 % interval from timing noise alone, the puzzles held fixed
    /// (what another run on the same puzzles would be within; two or more
    /// measured passes): what `trend` compares revisions with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise_low: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise_high: Option<f64>,
    pub pairs: u64,
}

impl Line {
    /// The line of one result of a run; `series` names it in the history.
    pub fn of(meta: &Meta, results: &[ResultRecord], r: &ResultRecord, series: &str) -> Line {
        let side = r.side(series);
        let details = &meta.options.strategy_details;
        let detail = |name: &str| details.iter().find(|d| d.name == name);
        let revision = detail(&r.strategy)
            .and_then(|d| d.revision.clone())
            .or_else(|| legacy_revision(meta, detail(&r.strategy).map(|d| d.kind.as_str())));
        let yardstick = r.paired.as_ref().and_then(|p| {
            let base = results
                .iter()
                .find(|b| b.dataset == r.dataset && b.strategy == p.baseline)?;
            let interval = p.pairs > 0 && !p.too_few_chunks() && p.ci_low > 0.0;
            Some(Yardstick {
                strategy: p.baseline.clone(),
                revision: detail(&p.baseline).and_then(|d| d.revision.clone()),
                mean_ns: base.mean_ns,
                ratio: p.geomean_ratio,
                low: interval.then_some(p.ci_low),
                high: interval.then_some(p.ci_high),
                noise_low: p.noise_half.map(|h| p.geomean_ratio * (-h).exp()),
                noise_high: p.noise_half.map(|h| p.geomean_ratio * h.exp()),
                pairs: p.pairs,
            })
        });
        Line {
            schema: SCHEMA,
            series: series.to_string(),
            strategy: r.strategy.clone(),
            revision,
            revision_from: detail(&r.strategy).and_then(|d| d.revision_from.clone()),
            dataset: r.dataset.clone(),
            dataset_hash: meta
                .datasets
                .iter()
                .find(|d| d.name == r.dataset)
                .and_then(|d| d.content_hash.clone()),
            started: meta.started.clone(),
            run: meta.run_id.clone(),
            machine: Machine {
                cpu: meta.cpu_model.clone(),
                logical_cores: meta.logical_cores,
                threads: meta.threads,
                os: meta.os.clone(),
                arch: meta.arch.clone(),
            },
            tool: match &meta.git_commit {
                Some(c) => format!("{} {} ({c})", meta.tool, meta.version),
                None => format!("{} {}", meta.tool, meta.version),
            },
            timing: meta.options.timing.clone(),
            repeat: meta.options.passes_of(&r.strategy).repeat,
            puzzles: r.puzzles,
            solved: r.solved,
            rejected: side.rejected,
            faults: side.faults,
            mean_ns: r.mean_ns,
            p50_ns: r.p50_ns,
            p99_ns: r.p99_ns,
            guesses_total: r.guesses_total,
            backtracks_total: r.backtracks_total,
            max_depth_max: r.max_depth_max,
            nodes_total: r.nodes_total,
            yardstick,
            complete: meta.complete && r.complete,
            experiment: Some(meta.experiment_of(&r.dataset, &r.strategy)),
            unsolved: side.unsolved,
            unverified: side.unverified,
            repeated: side.repeated,
            repeat_far_faster: side.repeat_far_faster,
            cache_across_rounds: side.cache_across_rounds,
            kept_share: side.kept_share,
            clock: side.clock.as_str().to_string(),
            claimed_share: side.claimed_share,
            claimed_mean_ns: side.claimed_mean_ns,
            unclaimed_ns: side.unclaimed_ns,
            unclaimed_se_ns: side.unclaimed_se_ns,
        }
    }

    /// The line as a side of a verdict, named `name`.
    pub fn side(&self, name: &str) -> Side {
        Side {
            name: name.to_string(),
            puzzles: self.puzzles,
            solved: self.solved,
            unsolved: self.unsolved,
            rejected: self.rejected,
            faults: self.faults,
            unverified: self.unverified,
            repeated: self.repeated,
            repeat_far_faster: self.repeat_far_faster,
            cache_across_rounds: self.cache_across_rounds,
            kept_share: self.kept_share,
            clock: Clock::parse(&self.clock).unwrap_or_default(),
            claimed_share: self.claimed_share,
            claimed_mean_ns: self.claimed_mean_ns,
            unclaimed_ns: self.unclaimed_ns,
            unclaimed_se_ns: self.unclaimed_se_ns,
            unclaimed_chunks: Vec::new(),
            measured_passes: None,
        }
    }

    /// What the judge finds in the line alone ([`judge::believable`]),
    /// and an unfinished run.
    pub fn findings(&self) -> Vec<Finding> {
        let name = format!("{} at {}", self.series, self.revision_text());
        let mut f = judge::believable(&self.side(&name));
        if !self.complete {
            f.push(Finding::unjudged(
                Rule::Incomplete,
                format!("{name}: the run did not finish"),
            ));
        }
        f
    }

    /// The line of one difficulty class of the unit it was made from:
    /// the class's times and ratio to the yardstick (`row`; `yardstick`,
    /// the yardstick's own row of the class), its puzzles, a series of
    /// its own (`SERIES [effort 256+]`) and an experiment that no
    /// whole-dataset line or other class shares.
    pub fn of_class(
        mut self,
        row: &crate::results::classes::ClassRow,
        yardstick: Option<&crate::results::classes::ClassRow>,
    ) -> Line {
        let class = format!("{} {}", row.scheme, row.class);
        self.series = format!("{} [{class}]", self.series);
        self.puzzles = row.puzzles;
        (self.mean_ns, self.p50_ns, self.p99_ns) = (row.mean_ns, row.p50_ns, row.p99_ns);
        self.yardstick = self.yardstick.take().and_then(|mut y| {
            let r = row.ratio.as_ref()?;
            y.mean_ns = yardstick.map_or(f64::NAN, |b| b.mean_ns);
            (y.ratio, y.low, y.high, y.pairs) = (r.geomean, r.low, r.high, r.pairs);
            (y.noise_low, y.noise_high) = (None, None);
            Some(y)
        });
        let mut e = self.experiment();
        e.puzzles = Some(format!(
            "{} class {class}",
            e.puzzles.as_deref().unwrap_or("unrecorded")
        ));
        self.dataset_hash.clone_from(&e.puzzles);
        self.experiment = Some(e);
        self
    }

    /// The revision, or `unknown`.
    pub fn revision_text(&self) -> &str {
        self.revision.as_deref().unwrap_or(series::UNKNOWN)
    }

    /// The experiment, the line's yardstick standing for the run's
    /// baseline in lines that recorded none.
    pub fn experiment(&self) -> Experiment {
        let mut e = self.experiment.clone().unwrap_or_default();
        if e.yardstick.is_none() {
            e.yardstick = self.yardstick.as_ref().map(|y| y.strategy.clone());
        }
        if e.puzzles.is_none() {
            e.puzzles = self.dataset_hash.clone();
        }
        e
    }

    /// Whether the line's times can be judged: the judge finds nothing
    /// that fails it or keeps it from being judged.
    pub fn trusted(&self) -> bool {
        self.findings()
            .iter()
            .all(|f| f.weight == crate::judge::Weight::Note)
    }

    /// What makes two lines the same measurement (`history add` skips a
    /// line already in the file; `trend` refuses one given twice).
    pub fn key(&self) -> (&str, &str, &str, &str) {
        let run = self.run.as_deref().unwrap_or(&self.started);
        (run, &self.dataset, &self.strategy, &self.series)
    }
}

/// The revision of a result written before revisions were recorded: a
/// built-in strategy's is the build's commit; an external solver's is
/// unknown.
fn legacy_revision(meta: &Meta, kind: Option<&str>) -> Option<String> {
    match kind {
        Some("builtin") | None => meta.git_commit.as_ref().map(|c| {
            let dirty = c.ends_with("-dirty");
            let hash: String = c.trim_end_matches("-dirty").chars().take(12).collect();
            if dirty {
                format!("{hash}-dirty")
            } else {
                hash
            }
        }),
        Some(_) => None,
    }
}

/// Why `new` does not belong to the series of `existing` it would join
/// (the same dataset and series name): the judge's [`judge::comparable`]
/// between it and the series' newest line. Empty: it fits, or it starts a
/// series.
pub fn fits(existing: &[Line], new: &Line) -> Vec<Finding> {
    let Some(last) = existing
        .iter()
        .rev()
        .find(|l| l.dataset == new.dataset && l.series == new.series)
    else {
        return Vec::new();
    };
    let names = [
        format!(
            "the history's {} {} (run {})",
            new.series,
            last.revision_text(),
            last.started
        ),
        format!(
            "{} {} (run {})",
            new.series,
            new.revision_text(),
            new.started
        ),
    ];
    judge::comparable(
        &last.experiment(),
        &new.experiment(),
        [&names[0], &names[1]],
    )
}

/// Reads a history file: one JSON line each; blank lines and lines
/// starting with `#` are skipped. A line that is not one of ours, or of a
/// newer layout, is an error naming the file and the line.
pub fn read(path: &Path) -> anyhow::Result<Vec<Line>> {
    let text = regular_text(path)?;
    parse(&text, path)
}

/// The text of the history file at `path`, which must be a regular file
/// (a FIFO would block the command) of UTF-8.
fn regular_text(path: &Path) -> anyhow::Result<String> {
    let bytes = crate::support::files::read_regular(path)
        .with_context(|| format!("{}: cannot read the history file", path.display()))?;
    String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("{}: the history file is not UTF-8 text", path.display()))
}

/// Parses the text of a history file read from `path`.
pub fn parse(text: &str, path: &Path) -> anyhow::Result<Vec<Line>> {
    let mut out = Vec::new();
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        let at = || format!("{}:{}", path.display(), i + 1);
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if !raw.ends_with('\n') {
            bail!(
                "{}: the last line is cut short (no line break): the file was not completely written",
                at()
            );
        }
        let v: serde_json::Value = serde_json::from_str(line)
            .with_context(|| format!("{}: not a JSON line of a bench-sudoku history", at()))?;
        match v.get("schema").and_then(|s| s.as_u64()) {
            Some(s) if s > u64::from(SCHEMA) => bail!(
                "{}: written by a newer bench-sudoku (history schema {s}; this one reads {SCHEMA})",
                at()
            ),
            Some(_) => {}
            None => bail!("{}: not a line of a bench-sudoku history (no schema)", at()),
        }
        let parsed: Line = serde_json::from_value(v)
            .with_context(|| format!("{}: a malformed history line", at()))?;
        out.push(parsed);
    }
    Ok(out)
}

/// What [`append`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Appended {
    pub added: usize,
    /// Lines already in the file (the same run added again).
    pub already: usize,
}

/// Appends `lines` to the history file at `path` (created when missing),
/// leaving out those it already holds. The file is replaced whole
/// (a temporary file renamed over it), so a reader never sees half a line,
/// and concurrent writers on one machine take turns (an advisory lock).
pub fn append(path: &Path, lines: &[Line]) -> anyhow::Result<Appended> {
    let _lock = lock::Held::take(path)
        .with_context(|| format!("{}: cannot open the history file", path.display()))?;
    let old = if path.exists() {
        regular_text(path)?
    } else {
        String::new()
    };
    let existing = parse(&old, path)?;
    let mut text = old;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    let misfits: Vec<String> = lines
        .iter()
        .flat_map(|l| fits(&existing, l))
        .map(|f| f.line())
        .collect();
    if !misfits.is_empty() {
        bail!(
            "{}: the run is not the experiment the history follows, and a history that mixed \
             them would compare what cannot be compared; record it under another --series \
             NAME (trend keeps it apart):\n  - {}",
            path.display(),
            misfits.join("\n  - ")
        );
    }
    let mut done = Appended::default();
    let mut keys: Vec<_> = existing.iter().map(Line::key).collect();
    for l in lines {
        if keys.contains(&l.key()) {
            done.already += 1;
            continue;
        }
        keys.push(l.key());
        text.push_str(&serde_json::to_string(l)?);
        text.push('\n');
        done.added += 1;
    }
    if done.added > 0 {
        crate::support::files::write_atomic(path, text.as_bytes())
            .with_context(|| format!("{}: cannot write the history file", path.display()))?;
    }
    Ok(done)
}

mod lock {
    //! An advisory lock on a file that is replaced by renames: the lock is
    //! taken on the file the path names, then checked to still be the one
    //! the path names (else taken again on the new one), so that every
    //! writer works on the newest file.
    use std::fs::File;
    use std::path::Path;

    /// The lock, released when dropped (the file is closed).
    pub struct Held {
        _file: File,
    }

    impl Held {
        pub fn take(path: &Path) -> std::io::Result<Held> {
            loop {
                let file = File::options()
                    .read(true)
                    .append(true)
                    .create(true)
                    .open(path)?;
                file.lock()?;
                if same_file(&file, path)? {
                    return Ok(Held { _file: file });
                }
                // Renamed over while we waited: lock the new file.
            }
        }
    }

    #[cfg(unix)]
    fn same_file(file: &File, path: &Path) -> std::io::Result<bool> {
        use std::os::unix::fs::MetadataExt;
        let held = file.metadata()?;
        Ok(std::fs::metadata(path)
            .is_ok_and(|now| now.dev() == held.dev() && now.ino() == held.ino()))
    }

    #[cfg(not(unix))]
    fn same_file(_file: &File, path: &Path) -> std::io::Result<bool> {
        Ok(path.exists())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn line(series: &str, rev: &str, started: &str, ratio: f64, half: f64) -> Line {
        Line {
            schema: SCHEMA,
            series: series.into(),
            strategy: series.into(),
            revision: Some(rev.into()),
            revision_from: Some("rev=".into()),
            dataset: "hard".into(),
            dataset_hash: None,
            started: started.into(),
            run: None,
            machine: Machine {
                cpu: "cpu".into(),
                logical_cores: 2,
                threads: 1,
                os: "linux".into(),
                arch: "x86_64".into(),
            },
            tool: "bench-sudoku 0.1.0".into(),
            timing: "cold".into(),
            repeat: 3,
            puzzles: 1000,
            solved: 1000,
            rejected: 0,
            faults: 0,
            mean_ns: 10_000.0 * ratio,
            p50_ns: 9_000,
            p99_ns: 40_000,
            guesses_total: Some(5000),
            backtracks_total: None,
            max_depth_max: None,
            nodes_total: None,
            yardstick: Some(Yardstick {
                strategy: "fast".into(),
                revision: Some("tool".into()),
                mean_ns: 10_000.0,
                ratio,
                low: Some(ratio * (1.0 - 3.0 * half)),
                high: Some(ratio * (1.0 + 3.0 * half)),
                noise_low: Some(ratio * (1.0 - half)),
                noise_high: Some(ratio * (1.0 + half)),
                pairs: 1000,
            }),
            complete: true,
            experiment: None,
            unsolved: 0,
            unverified: 0,
            repeated: 0,
            repeat_far_faster: 0,
            cache_across_rounds: false,
            kept_share: None,
            clock: harness_clock(),
            claimed_share: None,
            claimed_mean_ns: None,
            unclaimed_ns: None,
            unclaimed_se_ns: None,
        }
    }

    #[test]
    fn lines_round_trip_and_duplicates_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history.jsonl");
        let a = line("mine", "r1", "2026-01-01T00:00:00Z", 2.0, 0.01);
        let b = line("mine", "r2", "2026-01-02T00:00:00Z", 2.2, 0.01);
        assert_eq!(append(&path, std::slice::from_ref(&a)).unwrap().added, 1);
        let done = append(&path, &[a.clone(), b.clone()]).unwrap();
        assert_eq!((done.added, done.already), (1, 1));
        assert_eq!(read(&path).unwrap(), vec![a, b]);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 2);
        assert!(text
            .lines()
            .all(|l| !l.contains('\n') && l.starts_with('{')));
    }

    #[test]
    fn bad_files_name_the_line() {
        let p = Path::new("h.jsonl");
        let good = serde_json::to_string(&line("m", "r", "t", 1.0, 0.1)).unwrap();
        let err = |text: &str| format!("{:#}", parse(text, p).unwrap_err());
        assert!(err(&format!("{good}\nnot json\n")).contains("h.jsonl:2: not a JSON line"));
        assert!(err(&format!("# c\n\n{good}")).contains("h.jsonl:3: the last line is cut short"));
        assert!(err("{\"a\":1}\n").contains("h.jsonl:1: not a line of a bench-sudoku history"));
        let newer = good.replace("\"schema\":2", "\"schema\":99");
        assert!(err(&format!("{newer}\n")).contains("newer bench-sudoku"));
        let broken = good.replace("\"series\":\"m\",", "");
        assert!(err(&format!("{broken}\n")).contains("h.jsonl:1: a malformed history line"));
        assert_eq!(
            parse(&format!("# comment\n\n{good}\n"), p).unwrap().len(),
            1
        );
    }

    #[test]
    fn concurrent_appends_keep_every_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history.jsonl");
        std::thread::scope(|s| {
            for t in 0..4 {
                let path = &path;
                s.spawn(move || {
                    for k in 0..10 {
                        let l = line("m", "r", &format!("t{t}-{k}"), 1.0, 0.1);
                        append(path, &[l]).unwrap();
                    }
                });
            }
        });
        assert_eq!(read(&path).unwrap().len(), 40);
    }
}
