//! `summary.json` (its type is [`crate::results::Summary`]) and `meta.json`.

use super::{write_atomic, Exporter, Output, Report};
use crate::bench::sysinfo::Meta;
use std::path::{Path, PathBuf};

pub struct SummaryJson;

impl Exporter for SummaryJson {
    fn name(&self) -> &'static str {
        "summary.json"
    }
    fn render(&self, report: &Report) -> anyhow::Result<Vec<Output>> {
        let bytes = crate::results::Summary::of(report).to_bytes()?;
        Ok(vec![Output::new("summary.json", bytes)])
    }
}

/// Writes `meta.json` (last, so that a complete run is one whose meta says so).
pub fn write_meta(meta: &Meta, dir: &Path) -> anyhow::Result<PathBuf> {
    let path = dir.join("meta.json");
    let mut bytes = serde_json::to_vec_pretty(meta)?;
    bytes.push(b'\n');
    write_atomic(&path, &bytes)?;
    Ok(path)
}
