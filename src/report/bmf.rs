//! Bencher Metric Format (BMF) JSON: benchmark name → measure → metric.
//!
//! One benchmark per (dataset, strategy), named `<dataset>/<strategy>`, with
//! three measures:
//! - `latency` (ns per puzzle): `value` = mean solve time, `lower_value` =
//!   p50, `upper_value` = p99 (the band clamped to contain the mean);
//! - `throughput` (puzzles per second of wall time): `value` only;
//! - `guesses` (guesses per puzzle, exact): `value` = mean, `lower_value` =
//!   0 … `upper_value` = the largest per-puzzle count; left out for a
//!   strategy that does not report guesses.
//!
//! A unit that did not finish (the run stopped early) is named
//! `<dataset>/<strategy> [incomplete]`, and one the judge does not believe
//! `<dataset>/<strategy> [untrusted]`, so that their numbers never join the
//! series of clean runs.

use super::{Exporter, Output, Report};
use crate::results::ResultRecord;
use serde_json::{json, Map, Value};
use std::path::PathBuf;

/// The BMF document of a set of results.
pub fn render(results: &[ResultRecord]) -> Value {
    let mut doc = Map::new();
    for r in results {
        let mean = r.mean_ns;
        let mut measures = json!({
            "latency": {
                "value": mean,
                "lower_value": (r.p50_ns as f64).min(mean),
                "upper_value": (r.p99_ns as f64).max(mean),
            },
            "throughput": { "value": r.puzzles_per_sec },
        });
        if let (Some(g), Some(max)) = (r.guesses_mean, r.guesses_max) {
            measures["guesses"] = json!({
                "value": g,
                "lower_value": 0.0,
                "upper_value": max as f64,
            });
        }
        doc.insert(super::github::benchmark_name(r), measures);
    }
    Value::Object(doc)
}

/// Writes the BMF JSON of a report to a chosen file.
pub struct Bmf {
    pub path: PathBuf,
}

impl Exporter for Bmf {
    fn name(&self) -> &'static str {
        "bmf"
    }
    fn render(&self, report: &Report) -> anyhow::Result<Vec<Output>> {
        let mut bytes = serde_json::to_vec_pretty(&render(&report.results))?;
        bytes.push(b'\n');
        Ok(vec![Output::new(&self.path, bytes)])
    }
}
