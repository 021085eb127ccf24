//! The time verdict of `compare` from an interval and the passes' totals.

use super::*;

fn interval(lo: f64, hi: f64) -> TimeEvidence {
    TimeEvidence::Bootstrap(Interval {
        base: 1000.0,
        current: 1000.0 * (lo + hi) / 2.0,
        ratio: (lo + hi) / 2.0,
        lo,
        hi,
        resamples: 2000,
        paired: true,
    })
}

/// The verdict at a 5 % threshold, and the rules of the findings it added.
fn decide(lo: f64, hi: f64, repeats: Option<(f64, f64)>) -> (Verdict, Vec<Rule>) {
    let mut f = Findings::default();
    let v = verdict_of(&mut f, Some(&interval(lo, hi)), repeats, 5.0);
    (v, f.0.iter().map(|x| x.rule).collect())
}

#[test]
fn the_interval_decides_as_the_gate_does() {
    assert_eq!(decide(1.06, 1.10, None).0, Verdict::Regressed);
    assert_eq!(decide(0.90, 0.94, None).0, Verdict::Improved);
    assert_eq!(decide(0.97, 1.04, None).0, Verdict::Unchanged);
    // Straddling a threshold is not equivalence shown: undecided.
    assert_eq!(decide(1.03, 1.08, None).0, Verdict::Undecided);
    assert_eq!(decide(0.90, 1.10, None).0, Verdict::Undecided);
    assert_eq!(decide(0.93, 0.99, None).0, Verdict::Undecided);
}

#[test]
fn an_interval_the_passes_contradict_is_undecided_and_says_why() {
    // The per-puzzle interval says +200 % but every pass total agrees
    // within 2 %: a doctored file or a run-level change, never unchanged.
    let (v, rules) = decide(2.85, 3.24, Some((0.99, 1.02)));
    assert_eq!(
        (v, rules),
        (Verdict::Undecided, vec![Rule::RepeatsDisagree])
    );
    let (v, rules) = decide(0.50, 0.60, Some((0.97, 1.01)));
    assert_eq!(
        (v, rules),
        (Verdict::Undecided, vec![Rule::RepeatsDisagree])
    );
    // An interval within ±5 % while every pair of passes is 10 % apart.
    let (v, rules) = decide(0.98, 1.03, Some((1.08, 1.12)));
    assert_eq!(
        (v, rules),
        (Verdict::Undecided, vec![Rule::RepeatsDisagree])
    );
    // Passes that agree confirm the interval, each way.
    assert_eq!(decide(1.06, 1.10, Some((1.07, 1.09))).0, Verdict::Regressed);
    assert_eq!(decide(0.90, 0.94, Some((0.91, 0.93))).0, Verdict::Improved);
    assert_eq!(decide(0.98, 1.03, Some((0.96, 1.08))).0, Verdict::Unchanged);
}

#[test]
fn what_failed_or_went_unjudged_is_never_decided_by_time() {
    for (finding, want) in [
        (Finding::fail(Rule::Rejected, "x"), Verdict::Failed),
        (Finding::unjudged(Rule::NoInterval, "x"), Verdict::NotJudged),
    ] {
        let mut f = Findings(vec![finding]);
        let v = verdict_of(&mut f, Some(&interval(1.06, 1.10)), Some((1.0, 1.0)), 5.0);
        assert_eq!(v, want);
    }
}

#[test]
fn an_undecided_unit_exits_3_unless_it_may_pass() {
    let row = |verdict| Row {
        dataset: "d".into(),
        strategy: "s".into(),
        verdict,
        time: None,
        repeats: None,
        counters: Vec::new(),
        findings: Findings::default(),
    };
    let mut c = Comparison {
        settings: Settings {
            threshold: 5.0,
            metric: Metric::P50,
            seed: 0,
            paired: false,
            allow_incomplete: false,
            allow_missing: false,
            undecided_passes: false,
        },
        rows: vec![row(Verdict::Unchanged), row(Verdict::Undecided)],
        notes: Vec::new(),
    };
    assert_eq!(c.exit_code(false), gate::EXIT_UNDECIDED);
    assert!(c.verdict_line(false).starts_with("UNDECIDED:"));
    c.settings.undecided_passes = true;
    assert_eq!(c.exit_code(false), 0);
    c.rows.push(row(Verdict::NotJudged));
    assert_eq!(c.exit_code(false), 2);
    c.rows.push(row(Verdict::Regressed));
    assert_eq!(c.exit_code(false), 1);
}
