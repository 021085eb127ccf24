//! `summary.json`: the one type that writes it and reads it back.
//!
//! `{"meta": …, "results": […], "mismatch_list": […], "skipped_rows": […],
//! "fault_list": […]}`: the run's facts, one record per (dataset,
//! strategy), and the listed rows of each unit. What `run` and `merge`
//! write, [`Summary::read`] reads, and writing it again gives the same
//! bytes.

use super::ResultRecord;
use crate::bench::metrics::{Fault, Mismatch, MismatchKind, Skipped, UnitStats};
use crate::results::meta::Meta;
use crate::solver::Status;
use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The layout version of `summary.json` this build writes. Files without
/// the field (version 1) were written before it existed and load the same
/// way; a file of a later version is refused with a message naming it.
pub const SCHEMA: u32 = 2;

fn unversioned() -> u32 {
    1
}

/// The contents of `summary.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Summary {
    /// The layout version ([`SCHEMA`] when written by this build).
    #[serde(default = "unversioned")]
    pub schema: u32,
    pub meta: Meta,
    pub results: Vec<ResultRecord>,
    #[serde(default)]
    pub mismatch_list: Vec<UnitRows<MismatchRow>>,
    #[serde(default)]
    pub skipped_rows: Vec<UnitRows<Skipped>>,
    #[serde(default)]
    pub fault_list: Vec<UnitRows<Fault>>,
    /// The verdict of `run --gate` (absent without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<super::gate::GateRecord>,
    /// Every comparison by difficulty class (absent without puzzles.csv).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by_class: Option<super::classes::ByClass>,
}

/// The rows listed for one unit.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct UnitRows<T> {
    pub dataset: String,
    pub strategy: String,
    pub rows: Vec<T>,
}

/// A `mismatch_list` row as written (status as text).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MismatchRow {
    pub index: u64,
    pub line: u64,
    pub status: String,
    /// Absent in results written before mismatches had kinds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<MismatchKind>,
    pub detail: String,
}

impl MismatchRow {
    fn of(m: &Mismatch) -> Self {
        MismatchRow {
            index: m.index,
            line: m.line,
            status: m.status.as_str().to_string(),
            kind: Some(m.kind),
            detail: m.detail.clone(),
        }
    }

    /// The row as the aggregates hold it; `None` for an unknown status.
    pub fn to_mismatch(&self) -> Option<Mismatch> {
        let kind = self
            .kind
            .unwrap_or(if self.detail.starts_with("invalid answer") {
                MismatchKind::WrongGrid
            } else {
                MismatchKind::Differs
            });
        Some(Mismatch {
            index: self.index,
            line: self.line,
            status: Status::parse(&self.status)?,
            kind,
            detail: self.detail.clone(),
        })
    }
}

impl Summary {
    /// The summary of a run: its meta and records, each unit's listed rows
    /// (units without any are left out) and the gate's verdict.
    pub fn of(
        meta: &Meta,
        results: &[ResultRecord],
        units: &[UnitStats],
        gate: Option<&super::gate::GateRecord>,
    ) -> Self {
        fn rows<T: Clone, U>(
            units: &[UnitStats],
            list: impl Fn(&UnitStats) -> &[T],
            map: impl Fn(&T) -> U,
        ) -> Vec<UnitRows<U>> {
            units
                .iter()
                .filter(|u| !list(u).is_empty())
                .map(|u| UnitRows {
                    dataset: u.dataset.clone(),
                    strategy: u.strategy.clone(),
                    rows: list(u).iter().map(&map).collect(),
                })
                .collect()
        }
        Summary {
            schema: SCHEMA,
            meta: meta.clone(),
            results: results
                .iter()
                .map(|r| ResultRecord {
                    too_short: r.short_timing(),
                    ..r.clone()
                })
                .collect(),
            mismatch_list: rows(units, |u| &u.mismatch_list, MismatchRow::of),
            skipped_rows: rows(units, |u| &u.skipped_list, Skipped::clone),
            fault_list: rows(units, |u| &u.fault_list, Fault::clone),
            gate: gate.cloned(),
            by_class: None,
        }
    }

    /// The file's bytes: pretty JSON and a final newline.
    pub fn to_bytes(&self) -> serde_json::Result<Vec<u8>> {
        let mut bytes = serde_json::to_vec_pretty(self)?;
        bytes.push(b'\n');
        Ok(bytes)
    }

    /// Reads `DIR/summary.json` and `DIR/meta.json`; every error names the
    /// directory or the file.
    ///
    /// `meta.json` is written last and is the one file whose `complete`
    /// counts (the report writer writes it last): a directory without it is refused
    /// (the run did not finish writing its results), and the summary's
    /// `complete` and `stopped` are taken from it.
    pub fn read(dir: &Path) -> anyhow::Result<Self> {
        if !dir.exists() {
            bail!("{}: no such directory", dir.display());
        }
        if !dir.is_dir() {
            bail!("{}: not a directory", dir.display());
        }
        let file = dir.join("summary.json");
        let meta_file = dir.join("meta.json");
        if !file.is_file() {
            if let Ok(meta) = read_meta(&meta_file) {
                bail!(
                    "{}: the run did not finish writing its results (no summary.json; meta.json says {})",
                    dir.display(),
                    stopped(&meta)
                );
            }
            if super::holds_results(dir) {
                bail!(
                    "{}: the run did not finish writing its results (no summary.json, no meta.json)",
                    dir.display()
                );
            }
            bail!(
                "{}: not a results directory (no summary.json; `bench-sudoku run --out DIR` writes one)",
                dir.display()
            );
        }
        let bytes = crate::support::files::read_regular(&file)
            .with_context(|| format!("{}: cannot read", file.display()))?;
        // The version first: a later layout may not parse as this one.
        #[derive(Deserialize)]
        struct Version {
            #[serde(default = "unversioned")]
            schema: u32,
        }
        if let Ok(Version { schema }) = serde_json::from_slice::<Version>(&bytes) {
            if schema > SCHEMA {
                bail!(
                    "{}: written by a later bench-sudoku (summary schema {schema}; this build reads schemas 1 to {SCHEMA})",
                    file.display()
                );
            }
        }
        let mut summary: Summary = serde_json::from_slice(&bytes).with_context(|| {
            format!(
                "{}: malformed summary (not a bench-sudoku summary.json)",
                file.display()
            )
        })?;
        if !meta_file.exists() {
            bail!(
                "{}: the run did not finish writing its results (no meta.json, the file written last)",
                dir.display()
            );
        }
        let meta = read_meta(&meta_file)?;
        if meta.started != summary.meta.started
            || meta.command_line != summary.meta.command_line
            || meta.run_id != summary.meta.run_id
        {
            let id = |m: &Meta| m.run_id.clone().unwrap_or_else(|| "none".into());
            bail!(
                "{}: summary.json and meta.json are not of the same run (started {} and {}, \
                 run_id {} and {})",
                dir.display(),
                summary.meta.started,
                meta.started,
                id(&summary.meta),
                id(&meta)
            );
        }
        summary.meta.complete = meta.complete;
        summary.meta.stopped = meta.stopped;
        Ok(summary)
    }
}

/// What an incomplete `meta.json` says of its run.
fn stopped(meta: &Meta) -> String {
    match (&meta.stopped, meta.complete) {
        (_, true) => "\"complete\": true".to_string(),
        (Some(s), false) => format!("\"complete\": false, stopped: {s}"),
        (None, false) => "\"complete\": false".to_string(),
    }
}

/// Reads `meta.json`.
fn read_meta(file: &Path) -> anyhow::Result<Meta> {
    let bytes = crate::support::files::read_regular(file)
        .with_context(|| format!("{}: cannot read", file.display()))?;
    serde_json::from_slice(&bytes).with_context(|| {
        format!(
            "{}: malformed meta (not a bench-sudoku meta.json)",
            file.display()
        )
    })
}
