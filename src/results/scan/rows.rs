//! What a scan keeps: per value, the round with the median wall time (its
//! directory becomes the value's `KEY=VALUE`), and one [`ScanRow`] per
//! (value, dataset, strategy) of it, with each row's speedup over the first
//! value's.

use super::{Axis, Plan};
use crate::results::meta::StrategyMeta;
use crate::results::{ResultRecord, ResultsDir};
use anyhow::Context;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// One row of the scan: a (value, dataset, strategy) result, from the
/// round kept for the value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScanRow {
    pub key: String,
    pub value: String,
    pub dataset: String,
    /// The strategy's label, the same for every value (rows of one
    /// strategy line up across the values).
    pub strategy: String,
    /// What this value's run of the strategy was: a built-in's axes
    /// (`prop=none,branch=mrv,order=asc`), an external solver's spec.
    pub spec: String,
    pub puzzles: u64,
    pub solved: u64,
    pub mean_ns: f64,
    pub p50_ns: u64,
    pub p99_ns: u64,
    pub puzzles_per_sec: u64,
    pub wall_ns: u64,
    pub guesses_mean: Option<f64>,
    /// Throughput over the first value's (same dataset and strategy).
    pub speedup: Option<f64>,
    /// The speedup is above what the thread counts allow (the value's
    /// threads over the first value's, each at most the logical cores):
    /// noise, not scaling.
    pub speedup_noise: bool,
    /// Too short to time (under 10 ms of wall time): puzzles/s, wall time
    /// and speedup are mostly start-up and scheduler noise.
    pub too_short: bool,
    /// The round kept (1-based: the one with the median wall time).
    pub round: u32,
    /// This row's puzzles/s in every round, in order, `;`-joined.
    pub rounds_puzzles_per_sec: String,
    /// The subdirectory with this value's full results.
    pub dir: String,
}

/// Which round is kept per value, and why, as every scan file says it.
pub const KEPT: &str = "per value, the round with the median wall time: one outlier round, slow \
(a burst of load) or fast (a quiet moment), is not kept either way, while the best round would \
reward whichever value happened to meet a quiet moment";

/// A finished scan: its plan, its rounds per value (after the warm-up
/// round) and its rows, speedups set. What the scan's files render.
#[derive(Clone, Debug)]
pub struct Scan<'a> {
    pub plan: &'a Plan,
    pub rounds: u32,
    pub rows: Vec<ScanRow>,
}

impl<'a> Scan<'a> {
    /// The scan of `plan` with `rows`, each row's speedup set
    /// ([`speedups`], bounded by the logical cores of the process that
    /// ran the scan).
    pub fn new(plan: &'a Plan, rounds: u32, mut rows: Vec<ScanRow>) -> Self {
        speedups(plan, &mut rows, crate::bench::sysinfo::logical_cores());
        Scan { plan, rounds, rows }
    }
}

/// Keeps `value`'s median round of `rounds` (results directories): moves
/// it to `dir/KEY=VALUE` (replacing a previous scan's results for the value
/// there) and returns its rows.
pub fn keep(
    dir: &Path,
    plan: &Plan,
    value: &str,
    rounds: &[PathBuf],
) -> anyhow::Result<Vec<ScanRow>> {
    let loaded: Vec<ResultsDir> = rounds
        .iter()
        .map(|d| ResultsDir::load(d))
        .collect::<anyhow::Result<_>>()?;
    let walls: Vec<u64> = loaded
        .iter()
        .map(|l| l.results.iter().map(|r| r.wall_ns).sum())
        .collect();
    let kept = median_round(&walls);
    let target = dir.join(plan.dir_name(value));
    if target.exists() {
        // A scan replaced with --force: its previous results for the value.
        crate::results::remove(&target)?;
        std::fs::remove_dir(&target).with_context(|| {
            format!(
                "{}: holds files that are not results; cannot replace it",
                target.display()
            )
        })?;
    }
    std::fs::rename(&rounds[kept], &target).with_context(|| {
        format!(
            "{}: cannot move to {}",
            rounds[kept].display(),
            target.display()
        )
    })?;
    let results: Vec<&[ResultRecord]> = loaded.iter().map(|l| &l.results[..]).collect();
    let details = &loaded[kept].meta.options.strategy_details;
    Ok(rows_of(plan, value, &results, kept, details))
}

/// The index of the round kept among rounds of wall times `walls` (at
/// least one): the median's, the lower of the two middle ones for an even
/// count, the earlier round among equal times. One outlier round, slow or
/// fast, is not kept either way.
pub fn median_round(walls: &[u64]) -> usize {
    let mut order: Vec<usize> = (0..walls.len()).collect();
    order.sort_by_key(|&i| walls[i]);
    order[(order.len() - 1) / 2]
}

/// The rows of `value`: one per result of its kept round `rounds[kept]`,
/// whose strategies ran as `details` (`meta.json`'s) say, with every
/// round's puzzles/s. Their speedups are not set yet ([`speedups`]).
pub fn rows_of(
    plan: &Plan,
    value: &str,
    rounds: &[&[ResultRecord]],
    kept: usize,
    details: &[StrategyMeta],
) -> Vec<ScanRow> {
    let dir = plan.dir_name(value);
    rounds[kept]
        .iter()
        .map(|r| {
            let per_round: Vec<String> = rounds
                .iter()
                .map(|l| {
                    l.iter()
                        .find(|o| o.dataset == r.dataset && o.strategy == r.strategy)
                        .map_or("-".into(), |o| format!("{:.0}", o.puzzles_per_sec))
                })
                .collect();
            ScanRow {
                key: plan.key().to_string(),
                value: value.to_string(),
                dataset: r.dataset.clone(),
                strategy: r.strategy.clone(),
                spec: spec_of(details, &r.strategy),
                puzzles: r.puzzles,
                solved: r.solved,
                mean_ns: (r.mean_ns * 10.0).round() / 10.0,
                p50_ns: r.p50_ns,
                p99_ns: r.p99_ns,
                puzzles_per_sec: r.puzzles_per_sec.round() as u64,
                wall_ns: r.wall_ns,
                guesses_mean: r.guesses_mean,
                speedup: None,
                speedup_noise: false,
                too_short: r.short_timing(),
                round: kept as u32 + 1,
                rounds_puzzles_per_sec: per_round.join(";"),
                dir: dir.clone(),
            }
        })
        .collect()
}

/// The spec a run recorded for its strategy `name`, or the name when the
/// run recorded none.
fn spec_of(details: &[StrategyMeta], name: &str) -> String {
    details
        .iter()
        .find(|d| d.name == name)
        .map_or_else(|| name.to_string(), |d| d.spec.clone())
}

/// Sets each row's speedup: its throughput over the first value's, per
/// dataset and strategy, rounded to three decimals (none when the first
/// value has no such row or solved nothing per second). In a thread scan,
/// a speedup above what the thread counts allow on `cores` logical cores
/// is flagged as noise.
pub fn speedups(plan: &Plan, rows: &mut [ScanRow], cores: usize) {
    let Some(first) = plan.points.first().map(|p| p.value.as_str()) else {
        return;
    };
    let firsts: Vec<(String, String, u64)> = rows
        .iter()
        .filter(|r| r.value == first)
        .map(|r| (r.dataset.clone(), r.strategy.clone(), r.puzzles_per_sec))
        .collect();
    for r in rows.iter_mut() {
        let Some((_, _, base)) = firsts
            .iter()
            .find(|(d, s, _)| *d == r.dataset && *s == r.strategy)
        else {
            continue;
        };
        if *base == 0 {
            continue;
        }
        let speedup = (r.puzzles_per_sec as f64 / *base as f64 * 1000.0).round() / 1000.0;
        r.speedup = Some(speedup);
        if plan.axis == Axis::Threads {
            let bound = max_speedup(first, &r.value, cores);
            r.speedup_noise = bound.is_some_and(|b| speedup > b);
        }
    }
}

/// The most `value` threads can speed up over `first` threads on `cores`
/// logical cores: the ratio of the threads that can run at once (0 is one
/// per core).
pub fn max_speedup(first: &str, value: &str, cores: usize) -> Option<f64> {
    let running = |v: &str| -> Option<f64> {
        let n: usize = v.parse().ok()?;
        let n = if n == 0 { cores } else { n };
        Some(n.min(cores).max(1) as f64)
    };
    Some(running(value)? / running(first)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::scan::test_plan as plan;

    fn record(strategy: &str, puzzles_per_sec: f64, wall_ns: u64) -> ResultRecord {
        ResultRecord {
            dataset: "d".into(),
            strategy: strategy.into(),
            puzzles: 10,
            solved: 10,
            mean_ns: 1234.56,
            puzzles_per_sec,
            wall_ns,
            ..Default::default()
        }
    }

    #[test]
    fn a_speedup_is_bounded_by_the_threads_that_can_run() {
        assert_eq!(max_speedup("1", "2", 2), Some(2.0));
        assert_eq!(max_speedup("1", "4", 2), Some(2.0));
        assert_eq!(max_speedup("1", "0", 8), Some(8.0));
        assert_eq!(max_speedup("2", "1", 4), Some(0.5));
        assert_eq!(max_speedup("x", "1", 4), None);
    }

    #[test]
    fn the_median_round_is_kept() {
        assert_eq!(median_round(&[5]), 0);
        assert_eq!(median_round(&[30, 10, 20]), 2);
        // An even count keeps the lower middle; equal times the earlier.
        assert_eq!(median_round(&[40, 10, 30, 20]), 3);
        assert_eq!(median_round(&[7, 7, 7]), 1);
    }

    #[test]
    fn a_row_comes_from_the_kept_round_with_every_rounds_throughput() {
        let p = plan(Axis::Threads, &["1", "2"]);
        let r1 = [
            record("a", 100.4, 20_000_000),
            record("b", 50.0, 20_000_000),
        ];
        let r2 = [record("a", 120.6, 5_000_000)];
        let details = [StrategyMeta::of(
            &crate::solver::Strategy::parse("hidden").unwrap(),
        )];
        let rows = rows_of(&p, "2", &[&r1, &r2], 1, &details);
        assert_eq!(rows.len(), 1);
        let r = &rows[0];
        assert_eq!((r.key.as_str(), r.value.as_str()), ("threads", "2"));
        assert_eq!((r.strategy.as_str(), r.spec.as_str()), ("a", "a"));
        assert_eq!(r.mean_ns, 1234.6);
        assert_eq!(r.puzzles_per_sec, 121);
        assert_eq!(r.rounds_puzzles_per_sec, "100;121");
        assert_eq!((r.round, r.too_short), (2, true));
        assert_eq!(r.dir, "threads=2");
        // A strategy missing from a round reads `-` there; the spec comes
        // from the run's details.
        let mut hidden = record("hidden", 10.0, 20_000_000);
        hidden.strategy = details[0].name.clone();
        let rows = rows_of(&p, "1", &[&r2, &[hidden]], 1, &details);
        assert_eq!(rows[0].rounds_puzzles_per_sec, "-;10");
        assert_eq!(rows[0].spec, details[0].spec);
        assert!(!rows[0].too_short);
    }

    #[test]
    fn speedups_are_over_the_first_value_and_flag_noise_in_a_thread_scan() {
        let row = |value: &str, strategy: &str, puzzles_per_sec: u64| {
            let mut r = rows_of(
                &plan(Axis::Threads, &[value]),
                value,
                &[&[record(strategy, puzzles_per_sec as f64, 1)]],
                0,
                &[],
            );
            r.remove(0)
        };
        let rows = || {
            vec![
                row("1", "a", 100),
                row("1", "z", 0),
                row("2", "a", 190),
                row("2", "z", 5),
                row("4", "a", 450),
            ]
        };
        let p = plan(Axis::Threads, &["1", "2", "4"]);
        let mut r = rows();
        speedups(&p, &mut r, 4);
        let got: Vec<(Option<f64>, bool)> =
            r.iter().map(|r| (r.speedup, r.speedup_noise)).collect();
        assert_eq!(
            got,
            [
                (Some(1.0), false),
                (None, false),
                (Some(1.9), false),
                (None, false),
                (Some(4.5), true),
            ]
        );
        // On two cores four threads are at most twice one.
        let mut r = rows();
        speedups(&p, &mut r, 2);
        assert_eq!((r[4].speedup, r[4].speedup_noise), (Some(4.5), true));
        assert!(!r[2].speedup_noise);
        // Another key has speedups but no bound.
        let mut r = rows();
        speedups(&plan(Axis::BatchSize, &["1", "2", "4"]), &mut r, 1);
        assert_eq!((r[4].speedup, r[4].speedup_noise), (Some(4.5), false));
    }
}
