//! The judge's rules on hand-made sides and experiments.

use super::*;
use crate::solver::Clock;

fn side(name: &str) -> Side {
    Side {
        name: name.to_string(),
        puzzles: 1000,
        solved: 1000,
        unsolved: 0,
        rejected: 0,
        faults: 0,
        unverified: 0,
        repeated: 0,
        repeat_far_faster: 0,
        cache_across_rounds: false,
        kept_share: None,
        clock: Clock::Harness,
        claimed_share: None,
        claimed_mean_ns: None,
        unclaimed_ns: None,
        unclaimed_se_ns: None,
        unclaimed_chunks: Vec::new(),
        measured_passes: None,
    }
}

/// Sides whose kept times are the least of other numbers of passes are
/// not held against each other: the side with more draws is favoured.
#[test]
fn sides_with_other_measured_passes_are_not_judged_against_each_other() {
    let with = |n: Option<u32>| Side {
        measured_passes: n,
        ..side("x")
    };
    let unjudged = |b: Option<u32>, c: Option<u32>| {
        against(&with(b), &with(c), 5.0)
            .iter()
            .any(|f| f.rule == Rule::OtherTiming && f.weight == Weight::Unjudged)
    };
    assert!(unjudged(Some(3), Some(1)));
    assert!(unjudged(Some(1), Some(2)));
    assert!(!unjudged(Some(3), Some(3)));
    assert!(!unjudged(None, Some(3)));
}

/// A side timed by its own clock: `claimed` ns per solve, the harness
/// measuring `round_trip` ns around each call.
fn self_timed(name: &str, claimed: f64, round_trip: f64) -> Side {
    Side {
        clock: Clock::Solver,
        claimed_share: Some(claimed / round_trip),
        claimed_mean_ns: Some(claimed),
        unclaimed_ns: Some(round_trip - claimed),
        ..side(name)
    }
}

fn rules(f: &[Finding]) -> Vec<(Rule, Weight)> {
    f.iter().map(|f| (f.rule, f.weight)).collect()
}

#[test]
fn an_honest_side_is_believed() {
    assert!(believable(&side("a")).is_empty());
    assert!(against(&side("a"), &side("b"), 3.0).is_empty());
    assert!(believable(&self_timed("a", 900.0, 1000.0)).is_empty());
}

#[test]
fn rejected_faulted_and_unverifiable_answers_fail() {
    let s = Side {
        rejected: 2,
        faults: 1,
        unverified: 3,
        ..side("a")
    };
    assert_eq!(
        rules(&believable(&s)),
        [
            (Rule::Rejected, Weight::Fail),
            (Rule::Faulted, Weight::Fail),
            (Rule::Unverified, Weight::Fail)
        ]
    );
}

#[test]
fn a_clock_claiming_more_than_the_call_fails_and_one_claiming_almost_nothing_is_not_judged() {
    let more = self_timed("a", 1100.0, 1000.0);
    assert_eq!(
        rules(&believable(&more)),
        [(Rule::ClockClaimsMore, Weight::Fail)]
    );
    // Within the slack: a tick of disagreement between two clocks.
    assert!(believable(&self_timed("a", 1004.0, 1000.0)).is_empty());
    let little = self_timed("a", 1.0, 1000.0);
    assert_eq!(
        rules(&believable(&little)),
        [(Rule::ClockClaimsTooLittle, Weight::Unjudged)]
    );
    // Time moved between chunks: the total holds, but half the chunks
    // claim 300 ns a solve more than the harness measured around them.
    let moved = Side {
        unclaimed_chunks: (0..20)
            .map(|i| if i % 2 == 0 { -300.0 } else { 500.0 })
            .collect(),
        ..self_timed("a", 900.0, 1000.0)
    };
    assert_eq!(
        rules(&believable(&moved)),
        [(Rule::ClockClaimsMore, Weight::Fail)]
    );
    // One chunk over (a hiccup a warm-up pass did not have) is not a sign.
    let hiccup = Side {
        unclaimed_chunks: (0..20)
            .map(|i| if i == 7 { -300.0 } else { 100.0 })
            .collect(),
        ..self_timed("a", 900.0, 1000.0)
    };
    assert!(believable(&hiccup).is_empty());
}

#[test]
fn a_cache_or_nothing_solved_is_not_judged() {
    let cache = Side {
        repeated: 100,
        repeat_far_faster: 26,
        ..side("a")
    };
    assert_eq!(
        rules(&believable(&cache)),
        [(Rule::Cache, Weight::Unjudged)]
    );
    let honest = Side {
        repeated: 100,
        repeat_far_faster: 25,
        ..side("a")
    };
    assert!(believable(&honest).is_empty());
    // A handful of puzzles: two cold first solves of five are noise.
    let tiny = Side {
        repeated: 5,
        repeat_far_faster: 2,
        ..side("a")
    };
    assert!(believable(&tiny).is_empty());
    let tiny_cache = Side {
        repeat_far_faster: 5,
        ..tiny.clone()
    };
    assert_eq!(
        rules(&believable(&tiny_cache)),
        [(Rule::Cache, Weight::Unjudged)]
    );
    // A partial cache under the share, against a baseline on the same
    // puzzles with few far faster repeats: not judged.
    let base = Side {
        repeated: 100,
        repeat_far_faster: 3,
        ..side("base")
    };
    let partial = Side {
        repeated: 100,
        repeat_far_faster: 20,
        ..side("a")
    };
    assert!(believable(&partial).is_empty());
    assert_eq!(
        rules(&against(&base, &partial, 3.0)),
        [(Rule::Cache, Weight::Unjudged)]
    );
    let near = Side {
        repeat_far_faster: 12,
        ..partial
    };
    assert!(against(&base, &near, 3.0).is_empty());
    let none = Side {
        solved: 0,
        unsolved: 1000,
        ..side("a")
    };
    assert_eq!(
        rules(&believable(&none)),
        [(Rule::SolvedNothing, Weight::Unjudged)]
    );
}

#[test]
fn giving_up_or_solving_fewer_fails_the_candidate_never_the_base() {
    let quitter = Side {
        solved: 200,
        unsolved: 800,
        ..side("cand")
    };
    assert_eq!(
        rules(&against(&side("base"), &quitter, 3.0)),
        [(Rule::GaveUp, Weight::Fail)]
    );
    // The base giving up where the candidate solves is no failure.
    assert!(against(&quitter, &side("cand"), 3.0).is_empty());
    let fewer = Side {
        solved: 990,
        ..side("cand")
    };
    assert_eq!(
        rules(&against(&side("base"), &fewer, 3.0)),
        [(Rule::FewerSolved, Weight::Fail)]
    );
}

/// Per-chunk unclaimed times around `mean` with a deterministic spread.
fn chunks(mean: f32, spread: f32, n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| mean + spread * (((i * 7) % 11) as f32 - 5.0) / 5.0)
        .collect()
}

#[test]
fn in_one_run_a_self_timed_side_hiding_time_is_not_judged_an_honest_regression_is() {
    // Both sides spend about 20 µs per call in pipes, ± 2 µs from chunk to
    // chunk; the base solves in 5 µs.
    let with = |s: Side, c: Vec<f32>| Side {
        unclaimed_chunks: c,
        ..s
    };
    let base = with(
        self_timed("base", 5_000.0, 25_000.0),
        chunks(20_000.0, 2_000.0, 40),
    );
    // An honest 10 % regression: the claims grow, the unclaimed time not.
    let slower = with(
        self_timed("cand", 5_500.0, 25_500.0),
        chunks(20_000.0, 2_000.0, 40),
    );
    assert!(against(&base, &slower, 3.0).is_empty());
    // A liar that solves as slowly as the base and claims half of it.
    let liar = with(
        self_timed("cand", 2_500.0, 25_000.0),
        chunks(22_500.0, 2_000.0, 40),
    );
    assert_eq!(
        rules(&against(&base, &liar, 3.0)),
        [(Rule::ClockSharesDiffer, Weight::Unjudged)]
    );
    // Hiding 1 % of its time: within half of a 3 % threshold.
    let shaved = with(
        self_timed("cand", 4_950.0, 25_000.0),
        chunks(20_050.0, 2_000.0, 40),
    );
    assert!(against(&base, &shaved, 3.0).is_empty());
    // Different clocks are not compared at all.
    assert_eq!(
        rules(&against(&side("base"), &liar, 3.0)),
        [(Rule::OtherClock, Weight::Unjudged)]
    );
}

#[test]
fn across_runs_the_unclaimed_time_may_drift_with_the_load_but_not_hide_half_a_solve() {
    // A 1 ms solve with 30 µs of pipes; the next run on a busier machine
    // spends 45 µs there: honest.
    let base = self_timed("base", 1_000_000.0, 1_030_000.0);
    let busier = self_timed("cand", 1_000_000.0, 1_045_000.0);
    assert!(against(&base, &busier, 5.0).is_empty());
    // Claiming half of the same solve.
    let liar = self_timed("cand", 500_000.0, 1_030_000.0);
    assert_eq!(
        rules(&against(&base, &liar, 5.0)),
        [(Rule::ClockSharesDiffer, Weight::Unjudged)]
    );
}

#[test]
fn experiments_differing_in_a_recorded_field_are_not_comparable() {
    let a = Experiment {
        puzzles: Some("xxh3-sum:1".into()),
        source: None,
        transform: Some("none".into()),
        solution_limit: Some(1),
        search_budget: Some("--max-guesses 1000".into()),
        timing: Some("cold".into()),
        yardstick: Some("fast".into()),
        yardstick_spec: Some("builtin fast".into()),
    };
    assert!(comparable(&a, &a.clone(), ["a", "b"]).is_empty());
    type Change = fn(&mut Experiment);
    let cases: [(Rule, Change); 7] = [
        (Rule::OtherPuzzles, |e| {
            e.puzzles = Some("xxh3-sum:2".into())
        }),
        (Rule::OtherTransform, |e| e.transform = Some("7".into())),
        (Rule::OtherSolutionLimit, |e| e.solution_limit = Some(2)),
        (Rule::OtherSearchBudget, |e| {
            e.search_budget = Some("--max-guesses 10".into())
        }),
        (Rule::OtherTiming, |e| e.timing = Some("practised".into())),
        (Rule::OtherYardstick, |e| e.yardstick = Some("mrv".into())),
        // Another solver under the yardstick's label.
        (Rule::OtherYardstick, |e| {
            e.yardstick_spec = Some("cmd".into())
        }),
    ];
    for (rule, change) in cases {
        let mut b = a.clone();
        change(&mut b);
        let f = comparable(&a, &b, ["the baseline", "the current run"]);
        assert_eq!(rules(&f), [(rule, Weight::Unjudged)], "{f:?}");
        assert!(f[0]
            .line()
            .starts_with(&format!("[{}] not the same experiment", rule.name())));
    }
    // A field one side did not record is not compared.
    let older = Experiment {
        solution_limit: None,
        yardstick: None,
        ..a.clone()
    };
    let mut b = a.clone();
    b.solution_limit = Some(2);
    b.yardstick = Some("mrv".into());
    assert!(comparable(&older, &b, ["a", "b"]).is_empty());
}

#[test]
fn the_heaviest_finding_decides_the_exit_status() {
    let mut f = Findings::default();
    assert_eq!(f.exit_code(), 0);
    f.push(Finding::note(Rule::Other, "n"));
    assert_eq!(f.exit_code(), 0);
    f.push(Finding::unjudged(Rule::NoInterval, "u"));
    assert_eq!(f.exit_code(), 2);
    f.push(Finding::fail(Rule::Rejected, "x"));
    assert_eq!(f.exit_code(), 1);
    assert_eq!(f.lines(Weight::Fail), ["[rejected] x"]);
}
