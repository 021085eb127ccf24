//! `summary.json` (`{"meta": …, "results": […]}`) and `meta.json`.

use super::{write_atomic, Exporter, Report};
use crate::bench::sysinfo::Meta;
use std::path::{Path, PathBuf};

pub struct SummaryJson;

impl Exporter for SummaryJson {
    fn name(&self) -> &'static str {
        "summary.json"
    }
    fn export(&self, report: &Report, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
        let value = serde_json::json!({
            "meta": report.meta,
            "results": report.results,
            "mismatch_list": report.units.iter().filter(|u| !u.mismatch_list.is_empty()).map(|u| serde_json::json!({
                "dataset": u.dataset, "strategy": u.strategy, "rows": u.mismatch_list,
            })).collect::<Vec<_>>(),
            "skipped_rows": report.units.iter().filter(|u| !u.skipped_list.is_empty()).map(|u| serde_json::json!({
                "dataset": u.dataset, "strategy": u.strategy, "rows": u.skipped_list,
            })).collect::<Vec<_>>(),
            "fault_list": report.units.iter().filter(|u| !u.fault_list.is_empty()).map(|u| serde_json::json!({
                "dataset": u.dataset, "strategy": u.strategy, "rows": u.fault_list,
            })).collect::<Vec<_>>(),
        });
        let path = dir.join("summary.json");
        let mut bytes = serde_json::to_vec_pretty(&value)?;
        bytes.push(b'\n');
        write_atomic(&path, &bytes)?;
        Ok(vec![path])
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
