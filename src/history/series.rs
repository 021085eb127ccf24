//! History lines grouped for `trend`: per (dataset, series) one point per
//! revision, the revisions in commit order, and where the ratio to the
//! yardstick stepped.

use super::steps::{self, Step, Value};
use super::Line;
use crate::judge::{self, Finding, Weight};
use std::collections::HashMap;
use std::path::Path;

/// The revision of a line without one.
pub const UNKNOWN: &str = "unknown";

/// Everything measured of one revision of a series.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub revision: String,
    /// Its position on the shared axis of its dataset's charts.
    pub x: usize,
    pub runs: usize,
    /// Runs whose times cannot be judged (incomplete, rejected answers,
    /// faults): drawn and listed, left out of the ratio and the steps.
    pub untrusted: usize,
    /// The mean of the runs' means, and their smallest and largest.
    pub mean_ns: f64,
    pub min_ns: f64,
    pub max_ns: f64,
    /// The median of the runs' p99.
    pub p99_ns: f64,
    /// The ratio to the yardstick over the trusted runs that have one.
    pub ratio: Option<Ratio>,
    /// The exact guesses of the last run, when reported.
    pub guesses_total: Option<u64>,
    /// The distinct machines (CPU models) of its runs.
    pub machines: Vec<String>,
}

/// The paired ratio of a point: the geometric mean of its runs' ratios,
/// and the intervals revisions are compared with, each spanning every
/// run's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ratio {
    pub ratio: f64,
    /// The interval of timing noise with the puzzles held fixed (as they
    /// are in every run of one dataset), which steps are judged on: per
    /// run the narrower of its rerun interval (two or more measured passes)
    /// and its bootstrap interval, which holds that noise too; absent when
    /// a run has neither.
    pub low: Option<f64>,
    pub high: Option<f64>,
    /// The bootstrap interval over chunks of puzzles.
    pub ci: Option<(f64, f64)>,
    pub runs: usize,
}

/// One series of a dataset: its points in commit order and its steps.
#[derive(Clone, Debug)]
pub struct Series {
    pub dataset: String,
    pub name: String,
    /// The yardstick its ratios are to (the most common among its lines).
    pub yardstick: Option<String>,
    pub points: Vec<Point>,
    /// Steps of the ratio; `Step::at` indexes `points`.
    pub steps: Vec<Step>,
    /// Points left out of step detection (no ratio, no interval, or
    /// untrusted), by index.
    pub unjudged: Vec<usize>,
    /// Its lines measured different puzzles (their dataset hashes differ).
    pub mixed_datasets: bool,
    /// What the judge found at each point (by index): a point with a
    /// failure or a reason not to judge it is left out of the steps.
    pub findings: Vec<(usize, Finding)>,
    /// The newest judged point against the level before it, with that
    /// point's index (`None`: nothing to hold it against, or a step).
    pub newest: Option<(usize, steps::Newest)>,
}

/// How the revisions are ordered.
#[derive(Clone, Debug, Default)]
pub enum Order {
    /// By the first run of each revision (a history appended commit by
    /// commit is in commit order).
    #[default]
    FirstRun,
    /// By position in a git repository's history (oldest first); revisions
    /// it does not hold come after, by first run.
    Git(HashMap<String, usize>),
}

/// The revision axis: every revision of `lines` in order.
pub fn axis(lines: &[Line], order: &Order) -> Vec<String> {
    let mut first: Vec<(String, String)> = Vec::new();
    for l in lines {
        let rev = revision(l);
        match first.iter_mut().find(|(r, _)| *r == rev) {
            Some((_, t)) if l.started < *t => *t = l.started.clone(),
            Some(_) => {}
            None => first.push((rev, l.started.clone())),
        }
    }
    let key = |(rev, t): &(String, String)| {
        let pos = match order {
            Order::FirstRun => None,
            Order::Git(map) => map.get(rev.trim_end_matches("-dirty")).copied(),
        };
        // A dirty tree comes after its commit.
        (
            pos.unwrap_or(usize::MAX),
            pos.is_some() && rev.ends_with("-dirty"),
            t.clone(),
        )
    };
    first.sort_by_key(key);
    first.into_iter().map(|(r, _)| r).collect()
}

fn revision(l: &Line) -> String {
    l.revision.clone().unwrap_or_else(|| UNKNOWN.to_string())
}

/// The series of `lines` (datasets and series in order of first
/// appearance), their points on `axis`, and their steps beyond
/// `threshold_pct`. A series follows one yardstick: the lines of one name
/// paired with different yardsticks make separate series, named
/// `NAME (vs YARDSTICK)`, that are never mixed. `yardstick` keeps only the
/// lines with that one.
pub fn build(
    lines: &[Line],
    axis: &[String],
    yardstick: Option<&str>,
    threshold_pct: f64,
) -> Vec<Series> {
    let yard = |l: &Line| l.experiment().yardstick;
    let lines: Vec<&Line> = lines
        .iter()
        .filter(|l| yardstick.is_none_or(|y| yard(l).as_deref() == Some(y)))
        .collect();
    let mut keys: Vec<(String, String, Option<String>)> = Vec::new();
    for l in &lines {
        let k = (l.dataset.clone(), l.series.clone(), yard(l));
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let apart = |d: &str, n: &str| keys.iter().filter(|(kd, kn, _)| kd == d && kn == n).count() > 1;
    keys.iter()
        .map(|(dataset, name, y)| {
            let mine: Vec<&Line> = lines
                .iter()
                .copied()
                .filter(|l| l.dataset == *dataset && l.series == *name && yard(l) == *y)
                .collect();
            let shown = match y {
                Some(y) if apart(dataset, name) => format!("{name} (vs {y})"),
                _ => name.clone(),
            };
            let mut s = one(dataset.clone(), shown, &mine, axis, threshold_pct);
            s.yardstick = y.clone().or_else(|| common_yardstick(&mine));
            s
        })
        .collect()
}

fn one(
    dataset: String,
    name: String,
    lines: &[&Line],
    axis: &[String],
    threshold_pct: f64,
) -> Series {
    let yardstick = common_yardstick(lines);
    let points: Vec<Point> = axis
        .iter()
        .enumerate()
        .filter_map(|(x, rev)| {
            let at: Vec<&Line> = lines
                .iter()
                .copied()
                .filter(|l| revision(l) == *rev)
                .collect();
            (!at.is_empty()).then(|| point(rev, x, &at, yardstick.as_deref()))
        })
        .collect();
    let findings = judged_points(lines, &points, threshold_pct);
    let mut unjudged = Vec::new();
    let mut judged: Vec<(usize, Value)> = Vec::new();
    for (i, p) in points.iter().enumerate() {
        let refused = findings
            .iter()
            .any(|(at, f)| *at == i && f.weight != Weight::Note);
        match p.ratio {
            Some(Ratio {
                ratio,
                low: Some(lo),
                high: Some(hi),
                ..
            }) if ratio > 0.0 && lo > 0.0 && !refused => judged.push((
                i,
                Value {
                    log: ratio.ln(),
                    half: (ratio.ln() - lo.ln()).max(hi.ln() - ratio.ln()),
                },
            )),
            _ => unjudged.push(i),
        }
    }
    let values: Vec<Value> = judged.iter().map(|(_, v)| *v).collect();
    let (_, mut found) = steps::detect(&values, threshold_pct);
    let newest = steps::newest(&values, threshold_pct).and_then(|n| Some((judged.last()?.0, n)));
    // Steps index the judged values; the series' points are the index
    // readers want.
    for s in &mut found {
        s.at = judged[s.at].0;
        s.before.start = judged[s.before.start].0;
        s.after.start = judged[s.after.start].0;
    }
    let mut hashes: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.dataset_hash.as_deref())
        .collect();
    hashes.sort_unstable();
    hashes.dedup();
    Series {
        dataset,
        name,
        yardstick,
        points,
        steps: found,
        unjudged,
        mixed_datasets: hashes.len() > 1,
        findings,
        newest,
    }
}

/// The judge's findings on each point (by index): every run of its
/// revision alone ([`Line::findings`]) and against the series' newest run
/// (one experiment?), and its newest run against the newest run of the
/// point before it (gave up on more puzzles, solved fewer).
fn judged_points(lines: &[&Line], points: &[Point], threshold_pct: f64) -> Vec<(usize, Finding)> {
    let newest_of = |rev: &str| lines.iter().rev().find(|l| revision(l) == rev).copied();
    let Some(last) = points.last().and_then(|p| newest_of(&p.revision)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut before: Option<&Line> = None;
    for (i, p) in points.iter().enumerate() {
        let Some(l) = newest_of(&p.revision) else {
            continue;
        };
        let name = format!("{} at {}", l.series, p.revision);
        let newest = format!("{} at {}", last.series, revision(last));
        // Every run of the revision, not only its newest: each is judged
        // on its own and must be the experiment of the series' newest.
        let mut f: Vec<Finding> = Vec::new();
        for run in lines.iter().filter(|r| revision(r) == p.revision) {
            let found = run.findings().into_iter().chain(judge::comparable(
                &last.experiment(),
                &run.experiment(),
                [&newest, &name],
            ));
            for x in found {
                if !f.iter().any(|y| y.rule == x.rule && y.text == x.text) {
                    f.push(x);
                }
            }
        }
        // Held against the revision before it when they are one
        // experiment; when they are not, nothing before it can judge it.
        if let Some(b) = before {
            let prior = format!("{} at {}", b.series, revision(b));
            let other = judge::comparable(&b.experiment(), &l.experiment(), [&prior, &name]);
            if other.is_empty() {
                f.extend(judge::against(
                    &b.side(&prior),
                    &l.side(&name),
                    threshold_pct,
                ));
            } else {
                f.extend(other);
            }
        }
        out.extend(f.into_iter().map(|f| (i, f)));
        before = Some(l);
    }
    out
}

/// The yardstick most of `lines` were paired with.
fn common_yardstick(lines: &[&Line]) -> Option<String> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for y in lines.iter().filter_map(|l| l.yardstick.as_ref()) {
        match counts.iter_mut().find(|(s, _)| *s == y.strategy) {
            Some((_, n)) => *n += 1,
            None => counts.push((&y.strategy, 1)),
        }
    }
    counts
        .into_iter()
        .max_by_key(|&(_, n)| n)
        .map(|(s, _)| s.to_string())
}

fn point(rev: &str, x: usize, at: &[&Line], yardstick: Option<&str>) -> Point {
    let means: Vec<f64> = at.iter().map(|l| l.mean_ns).collect();
    let mut p99: Vec<u64> = at.iter().map(|l| l.p99_ns).collect();
    p99.sort_unstable();
    let trusted: Vec<&&Line> = at.iter().filter(|l| l.trusted()).collect();
    let ratios: Vec<&super::Yardstick> = trusted
        .iter()
        .filter_map(|l| l.yardstick.as_ref())
        .filter(|y| Some(y.strategy.as_str()) == yardstick && y.ratio > 0.0)
        .collect();
    let ratio = (!ratios.is_empty()).then(|| {
        let spans = |f: &dyn Fn(&super::Yardstick) -> Option<(f64, f64)>| {
            let all: Option<Vec<(f64, f64)>> = ratios.iter().map(|y| f(y)).collect();
            all.map(|v| {
                v.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &(l, h)| {
                    (lo.min(l), hi.max(h))
                })
            })
        };
        let judged = spans(&|y| {
            let ci = y.low.zip(y.high);
            let rerun = y.noise_low.zip(y.noise_high);
            match (ci, rerun) {
                (Some(c), Some(r)) => Some(if r.1 / r.0 < c.1 / c.0 { r } else { c }),
                (c, r) => c.or(r),
            }
        });
        Ratio {
            ratio: (ratios.iter().map(|y| y.ratio.ln()).sum::<f64>() / ratios.len() as f64).exp(),
            low: judged.map(|u| u.0),
            high: judged.map(|u| u.1),
            ci: spans(&|y| y.low.zip(y.high)),
            runs: ratios.len(),
        }
    });
    let mut machines: Vec<String> = Vec::new();
    for l in at {
        if !machines.contains(&l.machine.cpu) {
            machines.push(l.machine.cpu.clone());
        }
    }
    Point {
        revision: rev.to_string(),
        x,
        runs: at.len(),
        untrusted: at.len() - trusted.len(),
        mean_ns: means.iter().sum::<f64>() / means.len() as f64,
        min_ns: means.iter().copied().fold(f64::INFINITY, f64::min),
        max_ns: means.iter().copied().fold(0.0, f64::max),
        p99_ns: p99[p99.len() / 2] as f64,
        ratio,
        guesses_total: at.last().and_then(|l| l.guesses_total),
        machines,
    }
}

/// The position of each commit of the repository at `repo` in its history
/// (oldest first, every branch), keyed by every prefix of 7 or more hex
/// digits of its hash that a revision may use, and by tag names; what
/// `git describe` prints (`v1.2-3-gabc1234`) is found by its hash.
pub fn git_order(repo: &Path, revisions: &[String]) -> anyhow::Result<HashMap<String, usize>> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .args([
            "log",
            "--all",
            "--topo-order",
            "--reverse",
            "--format=%H %D",
        ])
        .env("GIT_OPTIONAL_LOCKS", "0")
        .output()
        .map_err(|e| anyhow::anyhow!("--repo {}: cannot run git: {e}", repo.display()))?;
    if !out.status.success() {
        anyhow::bail!(
            "--repo {}: not a git repository ({})",
            repo.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut by_hash: Vec<(String, usize)> = Vec::new();
    let mut by_tag: HashMap<String, usize> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let (hash, refs) = line.split_once(' ').unwrap_or((line, ""));
        by_hash.push((hash.to_string(), i));
        for r in refs.split(", ") {
            if let Some(tag) = r.strip_prefix("tag: ") {
                by_tag.insert(tag.to_string(), i);
            }
        }
    }
    let mut map = HashMap::new();
    for rev in revisions {
        let clean = rev.trim_end_matches("-dirty");
        // `git describe`: TAG-N-gHASH.
        let hash = clean
            .rsplit_once("-g")
            .map(|(_, h)| h)
            .filter(|h| h.len() >= 4 && h.chars().all(|c| c.is_ascii_hexdigit()))
            .unwrap_or(clean);
        let found = by_tag.get(clean).copied().or_else(|| {
            (hash.len() >= 4 && hash.chars().all(|c| c.is_ascii_hexdigit()))
                .then(|| {
                    by_hash
                        .iter()
                        .find(|(h, _)| h.starts_with(&hash.to_ascii_lowercase()))
                        .map(|(_, i)| *i)
                })
                .flatten()
        });
        if let Some(i) = found {
            map.insert(clean.to_string(), i);
        }
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::tests::line;

    #[test]
    fn points_follow_the_revisions_and_steps_name_them() {
        let lines = vec![
            line("mine", "r1", "2026-01-01T00:00:00Z", 2.0, 0.01),
            line("mine", "r2", "2026-01-02T00:00:00Z", 2.2, 0.01),
            line("mine", "r3", "2026-01-03T00:00:00Z", 2.2, 0.01),
            // r1 measured again later, on another day: still the first
            // revision.
            line("mine", "r1", "2026-01-04T00:00:00Z", 2.01, 0.01),
        ];
        let axis = axis(&lines, &Order::FirstRun);
        assert_eq!(axis, ["r1", "r2", "r3"]);
        let s = build(&lines, &axis, None, 5.0);
        assert_eq!(s.len(), 1);
        let s = &s[0];
        assert_eq!(s.yardstick.as_deref(), Some("fast"));
        assert_eq!(s.points[0].runs, 2);
        let r = s.points[0].ratio.unwrap();
        assert!((r.ratio - (2.0f64 * 2.01).sqrt()).abs() < 1e-9);
        // The narrower (rerun) intervals of the two runs, spanned.
        assert!((r.low.unwrap() - 1.98).abs() < 1e-9 && (r.high.unwrap() - 2.0301).abs() < 1e-9);
        let (lo, hi) = r.ci.unwrap();
        assert!((lo - 1.94).abs() < 1e-9 && (hi - 2.0703).abs() < 1e-9);
        assert_eq!(s.steps.len(), 1);
        assert_eq!(s.points[s.steps[0].at].revision, "r2");
    }

    #[test]
    fn untrusted_runs_and_missing_intervals_are_not_judged() {
        let mut bad = line("mine", "r2", "2026-01-02T00:00:00Z", 3.0, 0.01);
        bad.rejected = 4;
        let mut no_interval = line("mine", "r3", "2026-01-03T00:00:00Z", 3.0, 0.01);
        let y = no_interval.yardstick.as_mut().unwrap();
        (y.low, y.noise_low) = (None, None);
        let lines = vec![
            line("mine", "r1", "2026-01-01T00:00:00Z", 2.0, 0.01),
            bad,
            no_interval,
        ];
        let axis = axis(&lines, &Order::FirstRun);
        let s = &build(&lines, &axis, None, 5.0)[0];
        assert_eq!(s.unjudged, [1, 2]);
        assert!(s.steps.is_empty());
        assert_eq!(s.points[1].untrusted, 1);
        assert!(s.points[1].ratio.is_none());
    }

    #[test]
    fn every_run_of_a_revision_is_judged_not_only_its_newest() {
        // r2 measured twice: the first run's answers were rejected, the
        // newest is clean; the point still carries the failure, and a run
        // of other puzzles among its runs keeps it from being judged.
        let hashed = |rev: &str, started: &str, ratio: f64| Line {
            dataset_hash: Some("xxh3-sum:same".into()),
            ..line("mine", rev, started, ratio, 0.01)
        };
        let mut liar = hashed("r2", "2026-01-02T00:00:00Z", 1.0);
        liar.rejected = 3;
        let mut other = hashed("r2", "2026-01-02T12:00:00Z", 2.0);
        other.dataset_hash = Some("xxh3-sum:other".into());
        let lines = vec![
            hashed("r1", "2026-01-01T00:00:00Z", 2.0),
            liar,
            other,
            hashed("r2", "2026-01-03T00:00:00Z", 2.0),
        ];
        let axis = axis(&lines, &Order::FirstRun);
        let s = &build(&lines, &axis, None, 5.0)[0];
        let at_r2: Vec<(judge::Rule, Weight)> = s
            .findings
            .iter()
            .filter(|(i, _)| *i == 1)
            .map(|(_, f)| (f.rule, f.weight))
            .collect();
        assert!(
            at_r2.contains(&(judge::Rule::Rejected, Weight::Fail)),
            "{at_r2:?}"
        );
        assert!(
            at_r2.contains(&(judge::Rule::OtherPuzzles, Weight::Unjudged)),
            "{at_r2:?}"
        );
    }

    #[test]
    fn git_order_puts_revisions_in_commit_order() {
        let order = Order::Git(HashMap::from([("b".to_string(), 0), ("a".to_string(), 1)]));
        let lines = vec![
            line("m", "a", "2026-01-01T00:00:00Z", 1.0, 0.01),
            line("m", "b", "2026-01-02T00:00:00Z", 1.0, 0.01),
            line("m", "b-dirty", "2026-01-00T00:00:00Z", 1.0, 0.01),
            line("m", "zz", "2026-01-00T00:00:00Z", 1.0, 0.01),
        ];
        assert_eq!(axis(&lines, &order), ["b", "b-dirty", "a", "zz"]);
    }
}
