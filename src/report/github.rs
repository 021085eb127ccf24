//! github-action-benchmark's `customSmallerIsBetter` JSON: an array of
//! `{name, unit, value, range?, extra?}` (every value smaller-is-better).
//!
//! Per (dataset, strategy) two entries: `<dataset>/<strategy> latency`
//! (unit `ns`, value = mean solve time, `extra` = p50/p90/p99/max and the
//! puzzle count) and `<dataset>/<strategy> guesses` (unit `guesses/puzzle`,
//! exact mean; only for strategies that report guesses). Throughput is
//! bigger-is-better, so it is left out.

use super::terminal::fmt_ns;
use super::{Exporter, Output, Report};
use crate::results::ResultRecord;
use serde::Serialize;
use std::path::PathBuf;

/// One entry of the `customSmallerIsBetter` array.
#[derive(Clone, Debug, Serialize, serde::Deserialize, PartialEq)]
pub struct Entry {
    pub name: String,
    pub unit: String,
    pub value: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<String>,
}

/// A unit's name in the tracker formats: `<dataset>/<strategy>`, with
/// ` [incomplete]` when the unit did not finish (the run stopped early), or
/// ` [untrusted]` when the judge fails it or cannot judge it (rejected
/// answers, faults, unverifiable answers, a clock or a cache it does not
/// believe: [`untrusted_rules`]), so that such a result never looks like,
/// nor joins the series of, a clean one.
pub fn benchmark_name(r: &ResultRecord) -> String {
    if !r.complete {
        format!("{}/{} [incomplete]", r.dataset, r.strategy)
    } else if !untrusted_rules(r).is_empty() {
        format!("{}/{} [untrusted]", r.dataset, r.strategy)
    } else {
        format!("{}/{}", r.dataset, r.strategy)
    }
}

/// The names of the judge's rules that keep a unit's numbers from being a
/// clean measurement ([`crate::judge::believable`]); empty when none do.
pub fn untrusted_rules(r: &ResultRecord) -> Vec<&'static str> {
    crate::judge::trackable(&r.side(&r.strategy))
        .iter()
        .filter(|f| f.weight != crate::judge::Weight::Note)
        .map(|f| f.rule.name())
        .collect()
}

/// The entries of a set of results; `meta` gives each strategy's revision,
/// which starts its entries' `extra` (`revision a1b2c3d; …`).
pub fn render(results: &[ResultRecord], meta: &crate::results::meta::Meta) -> Vec<Entry> {
    let mut out = Vec::new();
    for r in results {
        let base = benchmark_name(r);
        let untrusted = untrusted_rules(r);
        let incomplete = if !r.complete {
            "INCOMPLETE RUN (stopped early): ".to_string()
        } else if !untrusted.is_empty() {
            format!("UNTRUSTED ({}): ", untrusted.join(", "))
        } else {
            String::new()
        };
        let revision = meta
            .options
            .strategy_details
            .iter()
            .find(|d| d.name == r.strategy)
            .and_then(|d| d.revision.as_deref())
            .map_or(String::new(), |rev| format!("revision {rev}; "));
        let note = format!("{incomplete}{revision}");
        out.push(Entry {
            name: format!("{base} latency"),
            unit: "ns".into(),
            value: r.mean_ns,
            range: None,
            extra: Some(format!(
                "{note}mean solve time per puzzle over {} puzzles; p50 {}, p90 {}, p99 {}, max {}",
                r.puzzles,
                fmt_ns(r.p50_ns as f64),
                fmt_ns(r.p90_ns as f64),
                fmt_ns(r.p99_ns as f64),
                fmt_ns(r.max_ns as f64)
            )),
        });
        let (Some(mean), Some(total), Some(max)) = (r.guesses_mean, r.guesses_total, r.guesses_max)
        else {
            continue;
        };
        let show = |v: Option<u64>| v.map_or("—".to_string(), |v| v.to_string());
        out.push(Entry {
            name: format!("{base} guesses"),
            unit: "guesses/puzzle".into(),
            value: mean,
            range: None,
            extra: Some(format!(
                "{note}exact; total {total}, max {max}, backtracks {}, max depth {}",
                show(r.backtracks_total),
                show(r.max_depth_max)
            )),
        });
    }
    out
}

/// Writes the github-action-benchmark JSON of a report to a chosen file.
pub struct GithubBenchmark {
    pub path: PathBuf,
}

impl Exporter for GithubBenchmark {
    fn name(&self) -> &'static str {
        "github-benchmark"
    }
    fn render(&self, report: &Report) -> anyhow::Result<Vec<Output>> {
        let mut bytes = serde_json::to_vec_pretty(&render(&report.results, report.meta))?;
        bytes.push(b'\n');
        Ok(vec![Output::new(&self.path, bytes)])
    }
}
