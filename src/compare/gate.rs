//! The verdict of `run --gate BASE:CANDIDATE`: a CI gate on the paired
//! statistics of an interleaved run (see [`crate::bench::paired`]).
//!
//! A dataset fails when
//! - the candidate is slower than BASE beyond the threshold **with the
//!   whole confidence interval** of the geometric-mean ratio beyond it (a
//!   point estimate above the threshold is not enough: noise alone puts it
//!   there now and then);
//! - either side has an answer the harness rejects (a mismatch with the
//!   dataset, a broken rule, a wrong solution count) or a fault;
//! - the two sides' answers differ on some puzzle (status or solution count);
//! - with `fail_on_counters`, a search counter differs on some puzzle.
//!
//! Its time is **not judged** when there is nothing sound to judge it on:
//! - the interval rests on fewer than [`MIN_BLOCKS`] chunks (the units the
//!   bootstrap resamples; below that it holds the true ratio far less often
//!   than it claims, docs/MEASUREMENT.md §4), or no puzzle was timed on
//!   both sides;
//! - either side solved no puzzle with an accepted answer (its times are
//!   the times of giving up or of failing);
//! - the two sides are timed by different clocks (the harness's, the
//!   solver's own, a round trip), whose times are not comparable.
//!
//! Exit status: 1 when any dataset failed, else 2 when any was not judged
//! (or the run did not complete), else 0.

use crate::bench::metrics::ResultRecord;
use crate::bench::paired::{Paired, MIN_BLOCKS};
use std::fmt::Write as _;

/// The default threshold of `--gate`, in percent.
pub const DEFAULT_THRESHOLD: f64 = 3.0;

/// What the gate compares.
#[derive(Clone, Debug, PartialEq)]
pub struct Gate {
    pub base: String,
    pub candidate: String,
    /// Percent.
    pub threshold: f64,
    pub fail_on_counters: bool,
}

impl Gate {
    /// Parses `BASE:CANDIDATE` (labels may not contain ':' here; the split
    /// is at the first ':' whose both sides are labels of the run).
    pub fn parse(spec: &str, labels: &[&str]) -> Result<(String, String), String> {
        let splits: Vec<(String, String)> = spec
            .match_indices(':')
            .map(|(i, _)| (spec[..i].to_string(), spec[i + 1..].to_string()))
            .collect();
        if splits.is_empty() {
            return Err(format!(
                "--gate {spec:?}: expected BASE:CANDIDATE, two strategy labels of the run"
            ));
        }
        if let Some(found) = splits
            .iter()
            .find(|(b, c)| labels.contains(&b.as_str()) && labels.contains(&c.as_str()))
        {
            if found.0 == found.1 {
                return Err(format!(
                    "--gate {spec:?}: BASE and CANDIDATE are the same strategy"
                ));
            }
            return Ok(found.clone());
        }
        Err(format!(
            "--gate {spec:?}: BASE and CANDIDATE must be labels of the run's strategies ({}); \
             give a strategy a label with name=LABEL, e.g. -s 'fast,name=base'",
            labels.join(", ")
        ))
    }
}

/// Why a dataset failed or passed.
#[derive(Clone, Debug, PartialEq)]
pub struct GateRow {
    pub dataset: String,
    pub paired: Option<Paired>,
    /// `slower`, `faster`, `unchanged` or `not judged`.
    pub time: &'static str,
    /// Reasons to fail (empty: passed, or not judged).
    pub failures: Vec<String>,
    /// Why the time could not be judged (empty: it was).
    pub unjudged: Vec<String>,
    /// Facts that do not fail the gate.
    pub notes: Vec<String>,
}

/// The gate over every dataset of a run.
#[derive(Clone, Debug)]
pub struct Verdict {
    pub gate: Gate,
    pub rows: Vec<GateRow>,
    /// The run was interrupted or failed.
    pub incomplete: bool,
}

impl Verdict {
    /// Judges the results of a run.
    pub fn of(gate: &Gate, results: &[ResultRecord], complete: bool) -> Verdict {
        let mut datasets: Vec<&str> = Vec::new();
        for r in results {
            if !datasets.contains(&r.dataset.as_str()) {
                datasets.push(&r.dataset);
            }
        }
        let rows = datasets
            .into_iter()
            .map(|d| {
                let find = |label: &str| {
                    results
                        .iter()
                        .find(|r| r.dataset == d && r.strategy == label)
                };
                judge(gate, d, find(&gate.base), find(&gate.candidate))
            })
            .collect();
        Verdict {
            gate: gate.clone(),
            rows,
            incomplete: !complete,
        }
    }

    /// Datasets that failed.
    pub fn failed(&self) -> usize {
        self.rows.iter().filter(|r| !r.failures.is_empty()).count()
    }

    /// Datasets whose time was not judged and that did not fail.
    pub fn not_judged(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| r.failures.is_empty() && !r.unjudged.is_empty())
            .count()
    }

    pub fn passed(&self) -> bool {
        self.exit_code() == 0
    }

    /// 1 when any dataset failed; else 2 when any was not judged, the run
    /// did not complete or it has no dataset; else 0.
    pub fn exit_code(&self) -> i32 {
        if self.failed() > 0 {
            1
        } else if self.incomplete || self.rows.is_empty() || self.not_judged() > 0 {
            2
        } else {
            0
        }
    }

    fn headline(&self) -> String {
        let g = &self.gate;
        let mut s = format!(
            "{}: {} vs {} on {} datasets, {} failed, {} not judged (threshold +{}%{})",
            match self.exit_code() {
                0 => "PASS",
                1 => "FAIL",
                _ => "NOT JUDGED",
            },
            g.candidate,
            g.base,
            self.rows.len(),
            self.failed(),
            self.not_judged(),
            g.threshold,
            if g.fail_on_counters {
                ", counter changes fail"
            } else {
                ""
            }
        );
        if self.incomplete {
            s.push_str("; the run did not complete, so it is not judged");
        }
        s
    }

    fn cells(&self) -> Vec<[String; 7]> {
        let mut out = vec![[
            "dataset".to_string(),
            "pairs".to_string(),
            "geomean ratio [95% CI]".to_string(),
            "median ratio".to_string(),
            "wins/ties/losses".to_string(),
            "guesses ratio".to_string(),
            "verdict".to_string(),
        ]];
        for r in &self.rows {
            let (pairs, ratio, median, wtl, guesses) = match &r.paired {
                Some(p) => (
                    p.pairs.to_string(),
                    p.ratio_text(),
                    p.median_text(),
                    format!("{}/{}/{}", p.wins, p.ties, p.losses),
                    p.guesses_text(),
                ),
                None => ("-".into(), "-".into(), "-".into(), "-".into(), "-".into()),
            };
            let verdict = if !r.failures.is_empty() {
                format!("FAIL ({})", r.time)
            } else if !r.unjudged.is_empty() {
                "not judged".to_string()
            } else {
                format!("pass ({})", r.time)
            };
            out.push([
                r.dataset.clone(),
                pairs,
                ratio,
                median,
                wtl,
                guesses,
                verdict,
            ]);
        }
        out
    }

    /// How the verdict is reached, in one paragraph.
    pub fn method(&self) -> String {
        format!(
            "Paired, in one process: {}. Ratio = {} time / {} time per puzzle; geometric mean with a \
             seeded 95% bootstrap interval (whole chunks resampled); wins/ties/losses are the candidate's (a tie is \
             within ±1%). A dataset fails when the whole interval lies above +{}%, when either side \
             has a rejected answer or a fault, when the two sides' answers differ{}. Its time is not judged \
             (exit 2 unless something failed) when the interval rests on fewer than {} chunks, when either \
             side solved no puzzle, or when the sides are timed by different clocks.",
            crate::bench::paired::METHOD,
            self.gate.candidate,
            self.gate.base,
            self.gate.threshold,
            if self.gate.fail_on_counters {
                ", or when a search counter differs"
            } else {
                " (counter changes are reported, not failed; --fail-on counters fails them)"
            },
            MIN_BLOCKS
        )
    }

    /// Aligned text for the terminal (every cell and line
    /// [`printable`](crate::report::printable)).
    pub fn terminal(&self) -> String {
        let cells = self.cells();
        let header: Vec<&str> = cells[0].iter().map(String::as_str).collect();
        let rows: Vec<Vec<String>> = cells[1..].iter().map(|r| r.to_vec()).collect();
        let all_left: Vec<usize> = (0..header.len()).collect();
        let mut out = String::from("gate:\n");
        out.push_str(&crate::report::terminal::text_table(
            &header, &rows, &all_left,
        ));
        self.reasons(&mut out, "");
        let _ = writeln!(out, "{}", self.method());
        let _ = writeln!(out, "{}", self.headline());
        crate::report::printable_lines(&out).into_owned()
    }

    fn reasons(&self, out: &mut String, bullet: &str) {
        for r in &self.rows {
            for f in &r.failures {
                let _ = writeln!(out, "{bullet}{}: FAIL: {f}", r.dataset);
            }
            for u in &r.unjudged {
                let _ = writeln!(out, "{bullet}{}: not judged: {u}", r.dataset);
            }
            for n in &r.notes {
                let _ = writeln!(out, "{bullet}{}: note: {n}", r.dataset);
            }
        }
    }

    /// GitHub-flavoured Markdown (for a CI job summary).
    pub fn markdown(&self) -> String {
        let esc = crate::report::md_cell;
        let mut out = format!(
            "### bench-sudoku gate: {} vs {}\n\n",
            esc(&self.gate.candidate),
            esc(&self.gate.base)
        );
        for (i, row) in self.cells().iter().enumerate() {
            let cells: Vec<String> = row.iter().map(|c| esc(c)).collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
            if i == 0 {
                let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---|");
            }
        }
        out.push('\n');
        let mut reasons = String::new();
        self.reasons(&mut reasons, "- ");
        if !reasons.is_empty() {
            out.push_str(&esc_lines(&reasons));
            out.push('\n');
        }
        let _ = writeln!(out, "{}\n", self.method());
        let _ = writeln!(out, "**{}**", self.headline());
        out
    }
}

/// The verdict on one dataset: BASE's and CANDIDATE's results on it.
fn judge(
    gate: &Gate,
    dataset: &str,
    base: Option<&ResultRecord>,
    cand: Option<&ResultRecord>,
) -> GateRow {
    let mut failures = Vec::new();
    let mut unjudged = Vec::new();
    let mut notes = Vec::new();
    for (side, label, r) in [
        ("BASE", &gate.base, base),
        ("CANDIDATE", &gate.candidate, cand),
    ] {
        let Some(r) = r else {
            unjudged.push(format!("{side} {label} has no results on this dataset"));
            continue;
        };
        // Each bad answer is counted once: a rejected answer is a puzzle
        // the solver answered wrongly, a fault one it did not answer.
        let wrong = r.wrong();
        if wrong > 0 {
            failures.push(format!(
                "{wrong} answers of {label} rejected (mismatch, broken rule, wrong count or changed between passes)"
            ));
        }
        let faults = r.faults();
        if faults > 0 {
            failures.push(format!(
                "{faults} puzzles failed in {label} (crashed, timeout, protocol error or error)"
            ));
        }
        if r.cache_suspect() {
            unjudged.push(format!(
                "{side} {label} may be caching answers: on {} of {} puzzles a repeated pass was at \
                 least {}× faster than its first, so its kept times may not be solves; judge it on \
                 first calls (--repeat 1 --warmup 0)",
                r.repeat_far_faster,
                r.repeated,
                crate::bench::metrics::CACHE_FACTOR
            ));
        }
        if r.unverified > 0 {
            unjudged.push(format!(
                "{side} {label} wrote no solution for {} answers (tdoku's signature with --count \
                 above 1): only their counts could be checked",
                r.unverified
            ));
        }
        if let Some(share) = r
            .claimed_share()
            .filter(|&s| s < crate::bench::metrics::CLAIMED_SHARE_MIN)
        {
            unjudged.push(format!(
                "{side} {label} is timed by its own clock, which claims {:.2}% of the time the \
                 harness measured around its calls: not believable",
                share * 100.0
            ));
        }
        if solved_nothing(r) {
            unjudged.push(format!(
                "{side} {label} solved no puzzle with an accepted answer ({} puzzles: {} solved, {}), \
                 so its times are not times of solving",
                r.puzzles,
                r.solved + r.multiple,
                crate::report::terminal::outcomes(r)
            ));
        }
    }
    if let (Some(b), Some(c)) = (base, cand) {
        if b.clock != c.clock {
            unjudged.push(format!(
                "the sides are timed by different clocks ({}: {}; {}: {}), so their times are not comparable",
                b.strategy,
                b.clock.describe(),
                c.strategy,
                c.clock.describe()
            ));
        }
    }
    let paired = cand.and_then(|c| c.paired.clone());
    match &paired {
        Some(p) if p.baseline != gate.base => unjudged.push(format!(
            "paired with {} rather than {}",
            p.baseline, gate.base
        )),
        Some(p) => {
            if p.answers_differ > 0 {
                failures.push(format!(
                    "answers differ on {} puzzles (status or solution count; e.g. index {})",
                    p.answers_differ,
                    examples(&p.answer_examples)
                ));
            }
            if p.counters_differ > 0 {
                let what = format!(
                    "search counters ({}) differ on {} puzzles (e.g. index {})",
                    p.counters_compared.names().join(", "),
                    p.counters_differ,
                    examples(&p.counter_examples)
                );
                if gate.fail_on_counters {
                    failures.push(format!("{what}; failing: --fail-on counters"));
                } else {
                    notes.push(format!("{what}: a behaviour change, not noise"));
                }
            }
            if p.unpaired > 0 {
                notes.push(format!(
                    "{} puzzles left out (a fault on one side)",
                    p.unpaired
                ));
            }
            if p.pairs == 0 {
                unjudged.push("no puzzle timed on both sides".into());
            } else if p.blocks.0 < MIN_BLOCKS {
                unjudged.push(too_few_chunks(p));
            }
        }
        None => {
            if base.is_some() && cand.is_some() {
                unjudged.push("no paired statistics (not an interleaved run)".into());
            }
        }
    }
    let t = gate.threshold / 100.0;
    let time = match &paired {
        Some(p) if unjudged.is_empty() => {
            if p.ci_low > 1.0 + t {
                failures.push(format!(
                    "slower: {} with the whole {:.0}% interval above +{}%",
                    p.ratio_text(),
                    p.level * 100.0,
                    gate.threshold
                ));
                "slower"
            } else if p.ci_high < 1.0 - t {
                "faster"
            } else {
                "unchanged"
            }
        }
        _ => "not judged",
    };
    GateRow {
        dataset: dataset.to_string(),
        paired,
        time,
        failures,
        unjudged,
        notes,
    }
}

/// True when `r` has no puzzle solved with an accepted answer: every
/// puzzle gave up, stalled, had no solution, failed or was rejected
/// (`solved` and `multiple` count accepted answers only).
pub(crate) fn solved_nothing(r: &ResultRecord) -> bool {
    r.solved + r.multiple == 0
}

/// Why an interval over `p`'s chunks is not judged, and how to get one
/// that is: chunks hold at most 64 puzzles, and never more than a batch.
fn too_few_chunks(p: &Paired) -> String {
    let chunks = p.blocks.0;
    let how = match p.pairs / MIN_BLOCKS {
        0 => format!(
            "at least {MIN_BLOCKS} puzzles with --batch-size 1, or {} at the default batch size",
            MIN_BLOCKS * 64
        ),
        b => format!(
            "at least {} puzzles, or --batch-size {b} or less (a batch holds one chunk or more)",
            MIN_BLOCKS * 64
        ),
    };
    format!(
        "{} pairs in {chunks} chunk{}: too few to judge. The interval resamples whole chunks \
         and needs at least {MIN_BLOCKS} of them to hold the true ratio about 90% of the time \
         (docs/MEASUREMENT.md §4); give {how}",
        p.pairs,
        if chunks == 1 { "" } else { "s" }
    )
}

fn esc_lines(s: &str) -> String {
    s.lines()
        .map(crate::report::md_cell)
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

fn examples(v: &[u64]) -> String {
    v.iter()
        .take(3)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::metrics::UnitStats;
    use crate::bench::paired::PairAcc;
    use crate::solver::CounterSet;

    /// A result record of `strategy` paired with "base" at the per-puzzle
    /// log ratios `logs`.
    fn record(strategy: &str, logs: Option<&[f64]>) -> ResultRecord {
        let mut u = UnitStats::new("set", strategy, 1);
        u.complete = true;
        u.paired = logs.map(|logs| {
            let mut acc = PairAcc::new("base", CounterSet::ALL, CounterSet::ALL);
            for &l in logs {
                acc.add_log(l);
            }
            acc.result(0)
        });
        let mut r = u.summary(1);
        // Every puzzle solved (the baseline's count is the candidate's).
        let n = logs.map_or(100, |l| l.len() as u64);
        (r.puzzles, r.solved) = (n, n);
        r
    }

    fn gate(threshold: f64) -> Gate {
        Gate {
            base: "base".into(),
            candidate: "cand".into(),
            threshold,
            fail_on_counters: false,
        }
    }

    fn logs(ratio: f64, spread: f64, n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| ratio.ln() + spread * ((i % 21) as f64 - 10.0) / 10.0)
            .collect()
    }

    #[test]
    fn the_gate_fails_only_when_the_whole_interval_is_beyond_the_threshold() {
        let base = record("base", None);
        // 5% slower, tight: fails at 2%, passes at 10%.
        let slow = logs(1.05, 0.05, 2000);
        let results = [base.clone(), record("cand", Some(&slow))];
        let v = Verdict::of(&gate(2.0), &results, true);
        assert_eq!(v.exit_code(), 1, "{}", v.terminal());
        assert_eq!(v.rows[0].time, "slower");
        assert_eq!(Verdict::of(&gate(10.0), &results, true).exit_code(), 0);
        // 3% slower at a 2% threshold but so noisy that the interval
        // reaches below +2%: not a regression.
        let noisy = logs(1.03, 0.3, 210);
        let results = [base.clone(), record("cand", Some(&noisy))];
        let v = Verdict::of(&gate(2.0), &results, true);
        let p = v.rows[0].paired.as_ref().unwrap();
        assert!(p.geomean_ratio > 1.02 && p.ci_low < 1.02, "{p:?}");
        assert_eq!(v.exit_code(), 0, "{}", v.terminal());
        // Faster: passes.
        let fast = logs(0.8, 0.05, 500);
        let results = [base.clone(), record("cand", Some(&fast))];
        let v = Verdict::of(&gate(2.0), &results, true);
        assert_eq!((v.exit_code(), v.rows[0].time), (0, "faster"));
        // An incomplete run is not judged.
        assert_eq!(Verdict::of(&gate(10.0), &results, false).exit_code(), 2);
    }

    #[test]
    fn wrong_answers_differences_and_missing_pairs_fail() {
        let base = record("base", None);
        let same = logs(1.0, 0.01, 100);
        let mut cand = record("cand", Some(&same));
        cand.mismatches = 1;
        let v = Verdict::of(&gate(5.0), &[base.clone(), cand], true);
        assert_eq!(v.exit_code(), 1);
        assert!(v.rows[0].failures[0].contains("rejected"), "{:?}", v.rows);

        let mut cand = record("cand", Some(&same));
        cand.paired.as_mut().unwrap().answers_differ = 2;
        assert_eq!(
            Verdict::of(&gate(5.0), &[base.clone(), cand], true).exit_code(),
            1
        );

        let mut cand = record("cand", Some(&same));
        cand.paired.as_mut().unwrap().counters_differ = 3;
        let mut g = gate(5.0);
        let v = Verdict::of(&g, &[base.clone(), cand.clone()], true);
        assert_eq!(v.exit_code(), 0);
        assert!(v.rows[0].notes[0].contains("differ on 3"));
        g.fail_on_counters = true;
        assert_eq!(Verdict::of(&g, &[base.clone(), cand], true).exit_code(), 1);

        // Nothing paired, or no paired statistics at all: not judged.
        let cand = record("cand", Some(&[]));
        let v = Verdict::of(&gate(5.0), &[base.clone(), cand], true);
        assert_eq!(v.exit_code(), 2, "{}", v.terminal());
        assert!(v.terminal().contains("CANDIDATE cand solved no puzzle"));
        let cand = record("cand", None);
        let v = Verdict::of(&gate(5.0), &[base.clone(), cand], true);
        assert_eq!(v.exit_code(), 2);
        // A missing side.
        assert_eq!(Verdict::of(&gate(5.0), &[base], true).exit_code(), 2);
    }

    #[test]
    fn a_fault_is_counted_once() {
        let base = record("base", None);
        let same = logs(1.0, 0.01, 100);
        let mut cand = record("cand", Some(&same));
        cand.crashed = 2;
        cand.mismatches = 1;
        let v = Verdict::of(&gate(5.0), &[base, cand], true);
        assert_eq!(v.exit_code(), 1);
        assert_eq!(
            v.rows[0].failures,
            [
                "1 answers of cand rejected (mismatch, broken rule, wrong count or changed between passes)",
                "2 puzzles failed in cand (crashed, timeout, protocol error or error)"
            ]
        );
    }

    #[test]
    fn too_few_chunks_different_clocks_or_nothing_solved_are_not_judged() {
        let base = record("base", None);
        // A far slower candidate, but in 9 chunks: not judged, whatever the
        // ratio.
        let slow = logs(2.0, 0.01, (MIN_BLOCKS - 1) as usize);
        let v = Verdict::of(
            &gate(3.0),
            &[base.clone(), record("cand", Some(&slow))],
            true,
        );
        assert_eq!(v.exit_code(), 2, "{}", v.terminal());
        assert_eq!(v.rows[0].time, "not judged");
        let text = v.terminal();
        assert!(
            text.contains("9 pairs in 9 chunks: too few to judge"),
            "{text}"
        );
        assert!(
            text.contains("NOT JUDGED: cand vs base on 1 datasets, 0 failed, 1 not judged"),
            "{text}"
        );
        // From the minimum on, it is judged.
        let slow = logs(2.0, 0.01, MIN_BLOCKS as usize);
        let v = Verdict::of(
            &gate(3.0),
            &[base.clone(), record("cand", Some(&slow))],
            true,
        );
        assert_eq!((v.exit_code(), v.rows[0].time), (1, "slower"));
        // A failure outranks what is not judged.
        let mut cand = record("cand", Some(&[0.0; 3]));
        cand.wrong_answers = 1;
        assert_eq!(
            Verdict::of(&gate(3.0), &[base.clone(), cand], true).exit_code(),
            1
        );

        // Different clocks.
        let same = logs(1.0, 0.01, 100);
        let mut cand = record("cand", Some(&same));
        cand.clock = crate::solver::Clock::Solver;
        let v = Verdict::of(&gate(3.0), &[base.clone(), cand], true);
        assert_eq!(v.exit_code(), 2);
        assert!(
            v.terminal().contains("timed by different clocks"),
            "{}",
            v.terminal()
        );

        // A side that solved nothing (gave up everywhere).
        let mut cand = record("cand", Some(&same));
        (cand.solved, cand.gave_up) = (0, 100);
        let v = Verdict::of(&gate(3.0), &[base, cand], true);
        assert_eq!(v.exit_code(), 2);
        assert!(
            v.terminal().contains("CANDIDATE cand solved no puzzle with an accepted answer (100 puzzles: 0 solved, 100 gave_up)"),
            "{}",
            v.terminal()
        );
    }

    #[test]
    fn labels_are_split_at_the_colon_that_names_two_strategies() {
        let labels = ["a:1", "b", "c"];
        assert_eq!(
            Gate::parse("a:1:b", &labels),
            Ok(("a:1".to_string(), "b".to_string()))
        );
        assert_eq!(Gate::parse("b:c", &labels), Ok(("b".into(), "c".into())));
        assert!(Gate::parse("b:x", &labels)
            .unwrap_err()
            .contains("labels of the run"));
        assert!(Gate::parse("bc", &labels).is_err());
        assert!(Gate::parse("b:b", &labels).unwrap_err().contains("same"));
    }

    #[test]
    fn the_markdown_verdict_escapes_labels() {
        let base = record("base", None);
        let same = logs(1.0, 0.01, 100);
        let v = Verdict::of(&gate(5.0), &[base, record("cand", Some(&same))], true);
        let md = v.markdown();
        assert!(md.contains("**PASS"), "{md}");
        assert!(
            md.lines().filter(|l| l.starts_with('|')).count() == 3,
            "{md}"
        );
    }
}
