//! `summary.json` (its type is [`crate::results::Summary`]) and `meta.json`.

use super::{Exporter, Output, Report};
use crate::results::meta::Meta;
use crate::support::files::write_atomic;
use std::path::{Path, PathBuf};

pub struct SummaryJson;

impl Exporter for SummaryJson {
    fn name(&self) -> &'static str {
        "summary.json"
    }
    fn render(&self, report: &Report) -> anyhow::Result<Vec<Output>> {
        let mut summary = crate::results::Summary::of(
            report.meta,
            &report.results,
            report.units,
            report.gate.as_ref(),
        );
        summary.by_class.clone_from(&report.by_class);
        let bytes = summary.to_bytes()?;
        Ok(vec![Output::new("summary.json", bytes)])
    }
}

/// The bytes of `meta.json`: pretty JSON and a final newline.
pub fn meta_bytes(meta: &Meta) -> serde_json::Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(meta)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// Writes `meta.json` alone (atomically). A results directory's report is
/// written by [`super::finish::write`], which puts `meta.json` last.
pub fn write_meta(meta: &Meta, dir: &Path) -> anyhow::Result<PathBuf> {
    let path = dir.join("meta.json");
    write_atomic(&path, &meta_bytes(meta)?)?;
    Ok(path)
}
