//! The gate's verdicts on hand-made records (no timing).

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
    let mut r = crate::results::ResultRecord::of(&u, 1);
    // Every puzzle solved (the baseline's count is the candidate's).
    let n = logs.map_or(100, |l| l.len() as u64);
    (r.puzzles, r.solved) = (n, n);
    r
}

/// The base's record with `n` puzzles, all solved.
fn base_of(n: usize) -> ResultRecord {
    let mut r = record("base", None);
    (r.puzzles, r.solved) = (n as u64, n as u64);
    r
}

fn gate(threshold: f64) -> Gate {
    Gate {
        base: "base".into(),
        candidate: "cand".into(),
        threshold,
        fail_on_counters: false,
        undecided_passes: false,
    }
}

fn logs(ratio: f64, spread: f64, n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| ratio.ln() + spread * ((i % 21) as f64 - 10.0) / 10.0)
        .collect()
}

#[test]
fn each_verdict_is_a_claim_about_the_whole_interval_with_its_own_exit_status() {
    let base = record("base", None);
    // 5% slower, tight: regressed at 2% (exit 1); within ±10%: unchanged.
    let slow = logs(1.05, 0.05, 2000);
    let results = [base.clone(), record("cand", Some(&slow))];
    let v = Verdict::of(&gate(2.0), &results, true, None);
    assert_eq!(
        (v.exit_code(), v.rows[0].time),
        (1, "regressed"),
        "{}",
        v.terminal()
    );
    assert!(
        v.terminal().contains("FAIL (regressed)"),
        "{}",
        v.terminal()
    );
    let v = Verdict::of(&gate(10.0), &results, true, None);
    assert_eq!((v.exit_code(), v.rows[0].time), (0, "unchanged"));
    assert!(
        v.terminal().contains("pass (unchanged)"),
        "{}",
        v.terminal()
    );
    // 3% slower at a 2% threshold but so noisy that the interval reaches
    // below +2% (and above −2%): undecided, exit 3, or 0 when undecided
    // datasets pass.
    let noisy = logs(1.03, 0.3, 210);
    let results = [base.clone(), record("cand", Some(&noisy))];
    let v = Verdict::of(&gate(2.0), &results, true, None);
    let p = v.rows[0].paired.as_ref().unwrap();
    assert!(p.geomean_ratio > 1.02 && p.ci_low < 1.02, "{p:?}");
    assert_eq!((v.exit_code(), v.word()), (EXIT_UNDECIDED, "UNDECIDED"));
    let text = v.terminal();
    assert!(
        text.contains("| UNDECIDED") || text.contains(" UNDECIDED\n"),
        "{text}"
    );
    assert!(
        text.contains("UNDECIDED: cand vs base on 1 datasets, 0 failed, 0 not judged, 1 undecided"),
        "{text}"
    );
    let mut lenient = gate(2.0);
    lenient.undecided_passes = true;
    let v = Verdict::of(&lenient, &results, true, None);
    assert_eq!((v.exit_code(), v.rows[0].time), (0, "undecided"));
    assert!(v
        .terminal()
        .contains("1 undecided (passing: --undecided pass)"));
    // Faster beyond the threshold: improved, passes.
    let fast = logs(0.8, 0.05, 500);
    let results = [base.clone(), record("cand", Some(&fast))];
    let v = Verdict::of(&gate(2.0), &results, true, None);
    assert_eq!((v.exit_code(), v.rows[0].time), (0, "improved"));
    // An incomplete run is not judged.
    assert_eq!(
        Verdict::of(&gate(10.0), &results, false, None).exit_code(),
        2
    );
}

#[test]
fn every_verdict_states_the_smallest_change_it_could_detect() {
    let base = record("base", None);
    let same = logs(1.0, 0.02, 640);
    let v = Verdict::of(&gate(3.0), &[base, record("cand", Some(&same))], true, None);
    let e = v.rows[0].estimate.unwrap();
    let half = (e.high - e.low) / 2.0 * 100.0;
    assert!(half > 0.0 && (e.resolution_pct() - half).abs() < 1e-12);
    let shown = format!("±{half:.2}%");
    assert!(v.terminal().contains(&shown), "{}", v.terminal());
    assert!(v.markdown().contains(&shown), "{}", v.markdown());
    let rec = v.record(None);
    assert_eq!(rec.datasets[0].half_width_pct, Some(e.resolution_pct()));
    assert_eq!((rec.verdict.as_str(), rec.exit_code), ("PASS", 0));
    assert_eq!(rec.interval, "bootstrap");
    assert_eq!(rec.datasets[0].time, "unchanged");
}

#[test]
fn wrong_answers_differences_and_missing_pairs_fail() {
    let base = record("base", None);
    let same = logs(1.0, 0.01, 100);
    let mut cand = record("cand", Some(&same));
    cand.mismatches = 1;
    let v = Verdict::of(&gate(5.0), &[base.clone(), cand], true, None);
    assert_eq!(v.exit_code(), 1);
    assert!(
        v.rows[0].lines(Weight::Fail)[0]
            .starts_with("[rejected] 1 answers of CANDIDATE cand rejected"),
        "{:?}",
        v.rows
    );

    let mut cand = record("cand", Some(&same));
    cand.paired.as_mut().unwrap().answers_differ = 2;
    assert_eq!(
        Verdict::of(&gate(5.0), &[base.clone(), cand], true, None).exit_code(),
        1
    );

    let mut cand = record("cand", Some(&same));
    cand.paired.as_mut().unwrap().counters_differ = 3;
    let mut g = gate(5.0);
    let v = Verdict::of(&g, &[base.clone(), cand.clone()], true, None);
    assert_eq!(v.exit_code(), 0);
    assert!(v.rows[0].lines(Weight::Note)[0].contains("differ on 3"));
    g.fail_on_counters = true;
    assert_eq!(
        Verdict::of(&g, &[base.clone(), cand], true, None).exit_code(),
        1
    );

    // A candidate that solved nothing of what the base solved fails;
    // no paired statistics at all: not judged.
    let cand = record("cand", Some(&[]));
    let v = Verdict::of(&gate(5.0), &[base.clone(), cand], true, None);
    assert_eq!(v.exit_code(), 1, "{}", v.terminal());
    assert!(v.terminal().contains("CANDIDATE cand solved no puzzle"));
    assert!(v
        .terminal()
        .contains("[fewer-solved] CANDIDATE cand solved 0 puzzles"));
    let cand = record("cand", None);
    let v = Verdict::of(&gate(5.0), &[base.clone(), cand], true, None);
    assert_eq!(v.exit_code(), 2);
    // A missing side.
    assert_eq!(Verdict::of(&gate(5.0), &[base], true, None).exit_code(), 2);
}

#[test]
fn a_fault_is_counted_once() {
    let base = record("base", None);
    let same = logs(1.0, 0.01, 100);
    let mut cand = record("cand", Some(&same));
    cand.crashed = 2;
    cand.mismatches = 1;
    let v = Verdict::of(&gate(5.0), &[base, cand], true, None);
    assert_eq!(v.exit_code(), 1);
    let fails = v.rows[0].lines(Weight::Fail);
    assert_eq!(fails.len(), 2, "{fails:?}");
    assert!(fails[0].starts_with("[rejected] 1 answers of CANDIDATE cand rejected"));
    assert!(fails[1].starts_with("[faulted] 2 puzzles failed in CANDIDATE cand"));
}

#[test]
fn too_few_chunks_different_clocks_or_nothing_solved_are_not_judged() {
    // A far slower candidate, but in 9 chunks: not judged, whatever the
    // ratio.
    let slow = logs(2.0, 0.01, (MIN_BLOCKS - 1) as usize);
    let base = base_of(slow.len());
    let v = Verdict::of(
        &gate(3.0),
        &[base.clone(), record("cand", Some(&slow))],
        true,
        None,
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
    let base = base_of(slow.len());
    let v = Verdict::of(
        &gate(3.0),
        &[base.clone(), record("cand", Some(&slow))],
        true,
        None,
    );
    assert_eq!((v.exit_code(), v.rows[0].time), (1, "regressed"));
    // A failure outranks what is not judged.
    let mut cand = record("cand", Some(&[0.0; 3]));
    cand.wrong_answers = 1;
    assert_eq!(
        Verdict::of(&gate(3.0), &[base.clone(), cand], true, None).exit_code(),
        1
    );

    // Different clocks.
    let same = logs(1.0, 0.01, 100);
    let mut cand = record("cand", Some(&same));
    cand.clock = crate::solver::Clock::Solver;
    let v = Verdict::of(&gate(3.0), &[base.clone(), cand], true, None);
    assert_eq!(v.exit_code(), 2);
    assert!(
        v.terminal().contains("timed by different clocks"),
        "{}",
        v.terminal()
    );

    // A side that solved nothing (gave up everywhere): not judged, and
    // giving up where the base solved fails.
    let mut cand = record("cand", Some(&same));
    (cand.solved, cand.gave_up) = (0, 100);
    let v = Verdict::of(&gate(3.0), &[base, cand], true, None);
    assert_eq!(v.exit_code(), 1);
    let text = v.terminal();
    assert!(
        text.contains("[solved-nothing] CANDIDATE cand solved no puzzle with an accepted answer (100 puzzles)"),
        "{text}"
    );
    assert!(
        text.contains("[gave-up] CANDIDATE cand gave up or stalled on 100 puzzles"),
        "{text}"
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
    let v = Verdict::of(&gate(5.0), &[base, record("cand", Some(&same))], true, None);
    let md = v.markdown();
    assert!(md.contains("**PASS"), "{md}");
    assert!(
        md.lines().filter(|l| l.starts_with('|')).count() == 3,
        "{md}"
    );
}

#[test]
fn later_rounds_of_slow_solvers_make_two_passes_and_no_warm_up_unless_passes_were_given() {
    use super::budget::{later_passes, SLOW_NS, SLOW_PASSES};
    use crate::bench::Passes;
    let unit = |strategy: &str, mean_ns: f64| {
        let mut u = UnitStats::new("set", strategy, 3);
        u.puzzles = 10;
        u.solve_ns_total = (mean_ns * 10.0) as u64;
        u
    };
    let first = Passes {
        warmup: 1,
        repeat: 3,
    };
    let g = gate(0.5);
    let slow = [unit("base", SLOW_NS), unit("cand", 2.0 * SLOW_NS)];
    let one_fast = [unit("base", SLOW_NS - 1_000.0), unit("cand", 1e6)];
    // Both sides slow: two passes, no warm-up.
    assert_eq!(later_passes(&g, first, false, &slow), Some(SLOW_PASSES));
    // A fast side keeps the first round's passes, and a strategy outside
    // the gate counts for nothing however slow.
    assert_eq!(later_passes(&g, first, false, &one_fast), None);
    let other = [one_fast[0].clone(), one_fast[1].clone(), unit("other", 1e9)];
    assert_eq!(later_passes(&g, first, false, &other), None);
    assert_eq!(later_passes(&g, first, false, &[]), None);
    // Passes the user gave are kept; so are passes already the slow ones.
    assert_eq!(later_passes(&g, first, true, &slow), None);
    assert_eq!(later_passes(&g, SLOW_PASSES, false, &slow), None);
}
