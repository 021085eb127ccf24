//! Solvers that cannot be trusted: answers checked on every pass, not only
//! the first; a rejected answer is not a solve; a solver whose repeated
//! passes are far faster than its first is suspected of caching answers.
//! The C fixtures are compiled at test time (tests/fixtures/solvers).
#![cfg(unix)]

mod common;

use common::solvers::*;
use common::*;

/// A solver honest on a puzzle's first call and wrong (instantly) on every
/// later one is caught in every configuration that solves a puzzle twice:
/// the default interleaved run (a warm-up and one measured pass), repeats,
/// and the gate, which never passes it.
#[test]
fn an_answer_is_checked_on_every_pass_not_only_the_first() {
    let Some(lib) = fixtures() else { return };
    let liar = format!("lib={},symbol=solve_honest_first,name=liar", lib.display());
    let data = dataset("hard.csv");
    for (name, extra) in [
        ("every-pass-default", vec![]),
        ("every-pass-repeat", vec!["--repeat", "3", "--warmup", "0"]),
        ("every-pass-gate", vec!["--gate", "fast:liar"]),
    ] {
        let mut args = vec![data.as_str(), "--limit", "100", "-s", "fast", "-s", &liar];
        args.extend(extra.iter().copied());
        let r = run(name, &args, &[]);
        assert_eq!(r.code(), 1, "{name}: {}", r.stderr());
        let res = r.result("liar");
        assert_eq!(res["rejected"], 100, "{name}");
        assert_eq!(res["unstable_answers"], 100, "{name}");
        assert_eq!(res["solved"], 0, "{name}: a rejected answer is not a solve");
        // Kept out of every time statistic and of the pairs.
        assert_eq!(res["mean_ns"].as_f64(), Some(0.0), "{name}");
        assert_eq!(res["paired"]["pairs"], 0, "{name}");
        let listed = r.listed("mismatch_list", "liar");
        assert!(listed.iter().all(|m| m["kind"] == "unstable"), "{name}");
        assert!(
            listed[0]["detail"]
                .as_str()
                .unwrap()
                .contains("answered otherwise than pass 1"),
            "{name}: {listed:?}"
        );
        assert!(r.column("liar", "answer").iter().all(|a| a == "unstable"));
        assert!(r.column("fast", "answer").iter().all(|a| a == "ok"));
        assert!(
            r.stderr()
                .contains("100 answers changed from one pass to another"),
            "{name}: {}",
            r.stderr()
        );
        assert!(!text(&r.out.stdout).contains("PASS"), "{name}");
    }
}

/// A solver that remembers answers is correct on every pass, so only its
/// times give it away: the run warns, says what "far" is, and never makes
/// it the reference of "relative".
#[test]
fn a_solver_far_faster_on_repeats_is_suspected_of_caching() {
    let Some(lib) = fixtures() else { return };
    let cache = format!("lib={},symbol=solve_cache,name=cache", lib.display());
    let honest = format!("lib={},symbol=solve,name=honest", lib.display());
    let r = run(
        "caching",
        &[
            &dataset("hard.csv"),
            "--limit",
            "200",
            "-s",
            &honest,
            "-s",
            &cache,
            "--repeat",
            "3",
        ],
        &[],
    );
    assert_eq!(r.code(), 0, "{}", r.stderr());
    let res = r.result("cache");
    assert_eq!(res["repeated"], 200);
    let far = res["repeat_far_faster"].as_u64().unwrap();
    assert!(far > 100, "{far} of 200 far faster");
    // Its answers are right: nothing is rejected.
    assert_eq!(
        (res["rejected"].as_u64(), res["solved"].as_u64()),
        (Some(0), Some(200))
    );
    let stderr = r.stderr();
    assert!(
        stderr.contains("hard/cache: on") && stderr.contains("at least 4× faster than the first"),
        "{stderr}"
    );
    assert!(stderr.contains("--transform") && stderr.contains("--repeat 1 --warmup 0"));
    // The honest solver, also compiled C, is not suspected.
    let honest = r.result("honest");
    assert!(
        2 * honest["repeat_far_faster"].as_u64().unwrap() < honest["repeated"].as_u64().unwrap()
    );
    assert!(!stderr.contains("hard/honest: on"), "{stderr}");
    // The cache is never "fastest": the honest solver is the reference.
    let table = text(&r.out.stdout);
    let line = |label: &str| {
        table
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(label))
            .unwrap_or_else(|| panic!("no row of {label}: {table}"))
            .to_string()
    };
    assert!(line("honest").contains("1.00 (fastest)"), "{table}");
    assert!(line("cache").contains("may cache answers"), "{table}");
}

/// A strategy whose answers were rejected is never the reference of
/// "relative", however fast, and is marked where it is ranked.
#[test]
fn a_strategy_with_rejected_answers_is_never_the_fastest() {
    let Some(lib) = fixtures() else { return };
    let wrong = format!("lib={},symbol=solve_wrong_grid,name=wrong", lib.display());
    let r = run(
        "rejected-never-fastest",
        &[
            &dataset("easy.csv"),
            "--limit",
            "50",
            "-s",
            "mrv",
            "-s",
            &wrong,
        ],
        &[],
    );
    assert_eq!(r.code(), 1, "{}", r.stderr());
    let csv = std::fs::read_to_string(r.dir.join("summary.csv")).unwrap();
    let mut rdr = csv::Reader::from_reader(csv.as_bytes());
    let h = rdr.headers().unwrap().clone();
    let col = |name: &str| h.iter().position(|x| x == name).unwrap();
    for row in rdr.records().map(Result::unwrap) {
        match &row[col("strategy")] {
            "mrv" => assert_eq!(&row[col("relative")], "1.0"),
            "wrong" => {
                assert_eq!(&row[col("rejected")], "50");
                assert_eq!(&row[col("solved")], "0");
                assert_eq!(&row[col("unfinished")], "true");
            }
            other => panic!("{other}"),
        }
    }
    let table = text(&r.out.stdout);
    assert!(table.contains("(50 rejected)"), "{table}");
}
