//! `summary.csv`: one row per (dataset, strategy), the fields of
//! `summary.json`'s results. Lists are joined with `;`; the paired
//! comparison's fields are columns prefixed `paired_` (empty for the
//! baseline), without its chart histogram.

use super::{Exporter, Output, Report};
use serde_json::Value;

pub struct SummaryCsv;

/// A cell's text.
fn cell(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Array(a) => a
            .iter()
            .map(|v| match v {
                Value::String(s) => s.clone(),
                v => v.to_string(),
            })
            .collect::<Vec<_>>()
            .join(";"),
        v => v.to_string(),
    }
}

/// A result's (column, cell) pairs in field order.
fn flatten(v: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(obj) = v.as_object() {
        for (k, v) in obj {
            match v {
                Value::Object(inner) => {
                    for (ik, iv) in inner {
                        if ik != "log2_histogram" {
                            out.push((format!("{k}_{ik}"), cell(iv)));
                        }
                    }
                }
                v => out.push((k.clone(), cell(v))),
            }
        }
    }
    out
}

impl Exporter for SummaryCsv {
    fn name(&self) -> &'static str {
        "summary.csv"
    }
    fn render(&self, report: &Report) -> anyhow::Result<Vec<Output>> {
        let rows: Vec<Vec<(String, String)>> = report
            .results
            .iter()
            .map(|r| serde_json::to_value(r).map(|v| flatten(&v)))
            .collect::<Result<_, _>>()?;
        // Every column any row has, in the order they first appear.
        let mut header: Vec<String> = Vec::new();
        for row in &rows {
            for (k, _) in row {
                if !header.contains(k) {
                    header.push(k.clone());
                }
            }
        }
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(&header)?;
        for row in &rows {
            let cells: Vec<&str> = header
                .iter()
                .map(|h| {
                    row.iter()
                        .find(|(k, _)| k == h)
                        .map_or("", |(_, v)| v.as_str())
                })
                .collect();
            w.write_record(&cells)?;
        }
        let bytes = w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?;
        Ok(vec![Output::new("summary.csv", bytes)])
    }
}
