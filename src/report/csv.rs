//! `summary.csv`: one row per (dataset, strategy), the fields of
//! `summary.json`'s results (pass times joined with `;`).

use super::{write_atomic, Exporter, Report};
use std::path::{Path, PathBuf};

pub struct SummaryCsv;

impl Exporter for SummaryCsv {
    fn name(&self) -> &'static str {
        "summary.csv"
    }
    fn export(&self, report: &Report, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
        let mut w = csv::Writer::from_writer(Vec::new());
        let mut header: Vec<String> = Vec::new();
        for r in &report.results {
            let value = serde_json::to_value(r)?;
            let obj = value.as_object().expect("a result serializes to an object");
            if header.is_empty() {
                header = obj.keys().cloned().collect();
                w.write_record(&header)?;
            }
            let row: Vec<String> = header
                .iter()
                .map(|k| match &obj[k] {
                    serde_json::Value::String(s) => s.clone(),
                    serde_json::Value::Array(a) => a
                        .iter()
                        .map(|v| v.to_string())
                        .collect::<Vec<_>>()
                        .join(";"),
                    v => v.to_string(),
                })
                .collect();
            w.write_record(&row)?;
        }
        let bytes = w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?;
        let path = dir.join("summary.csv");
        write_atomic(&path, &bytes)?;
        Ok(vec![path])
    }
}
