//! End-to-end tests of interleaved runs, paired statistics and `run --gate`:
//! interleaving changes no answer, counter or row; the gate's exit status
//! follows answers and counters exactly (no timing is asserted).

mod common;
use common::*;
use std::path::{Path, PathBuf};

/// The first 300 puzzles of the shipped hard dataset.
fn dataset(dir: &Path) -> PathBuf {
    let hard =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/hard.csv"))
            .unwrap();
    let path = dir.join("hard300.csv");
    let body: Vec<&str> = hard.lines().take(301).collect();
    std::fs::write(&path, body.join("\n") + "\n").unwrap();
    path
}

/// `puzzles.csv` without its time column.
fn rows_without_time(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("puzzles.csv"))
        .unwrap()
        .lines()
        .map(|l| {
            let mut f: Vec<&str> = l.split(',').collect();
            f[7] = "";
            f.join(",")
        })
        .collect()
}

/// The exact fields of summary.json's results (no times).
fn exact(dir: &Path) -> Vec<Vec<serde_json::Value>> {
    let s = json(&dir.join("summary.json"));
    s["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            [
                "strategy",
                "puzzles",
                "solved",
                "no_solution",
                "multiple",
                "stalled",
                "gave_up",
                "mismatches",
                "guesses_total",
                "guesses_max",
                "backtracks_total",
                "backtracks_max",
                "max_depth_max",
                "nodes_total",
                "naked_singles_total",
                "hidden_singles_total",
                "no_guess_pct",
            ]
            .iter()
            .map(|k| r[*k].clone())
            .collect()
        })
        .collect()
}

fn run(args: &[&str]) -> std::process::Output {
    let mut all = vec!["run", "-q", "--force"];
    all.extend_from_slice(args);
    bin(&all)
}

#[test]
fn interleaved_and_sequential_runs_give_the_same_answers_counters_and_rows() {
    let dir = scratch("gate-interleave");
    let data = dataset(&dir);
    let d = data.to_str().unwrap();
    let strategies = [
        "-s",
        "mrv",
        "-s",
        "fast",
        "-s",
        "locked,name=l2",
        "-s",
        "logic",
    ];
    for threads in ["1", "2", "3"] {
        let (a, b) = (
            dir.join(format!("i{threads}")),
            dir.join(format!("s{threads}")),
        );
        let mut args = vec![
            d,
            "-j",
            threads,
            "--warmup",
            "0",
            "--out",
            a.to_str().unwrap(),
        ];
        args.extend_from_slice(&strategies);
        let o = run(&args);
        assert_eq!(o.status.code(), Some(0), "{}", err(&o));
        let mut args = vec![
            d,
            "-j",
            threads,
            "--sequential",
            "--out",
            b.to_str().unwrap(),
        ];
        args.extend_from_slice(&strategies);
        let o = run(&args);
        assert_eq!(o.status.code(), Some(0), "{}", err(&o));
        assert_eq!(rows_without_time(&a), rows_without_time(&b), "-j {threads}");
        assert_eq!(exact(&a), exact(&b), "-j {threads}");
        let meta = json(&a.join("meta.json"));
        assert_eq!(meta["options"]["schedule"], "interleaved");
        assert_eq!(meta["options"]["baseline"], "fast");
        let seq = json(&b.join("meta.json"));
        assert_eq!(seq["options"]["schedule"], "sequential");
        // Paired with fast (the reference whenever a run has it): every
        // strategy but fast, on every puzzle.
        let s = json(&a.join("summary.json"));
        for r in s["results"].as_array().unwrap() {
            let p = &r["paired"];
            if r["strategy"] == "fast" {
                assert!(p.is_null());
                continue;
            }
            assert_eq!(p["baseline"], "fast");
            // A puzzle a strategy stalled on (logic) is no pair: the time
            // it took to stop is not a time of solving.
            let stalled = r["stalled"].as_u64().unwrap();
            assert_eq!(p["pairs"].as_u64().unwrap(), 300 - stalled);
            assert_eq!(p["unpaired"].as_u64().unwrap(), stalled);
            let (lo, mid, hi) = (
                p["ci_low"].as_f64().unwrap(),
                p["geomean_ratio"].as_f64().unwrap(),
                p["ci_high"].as_f64().unwrap(),
            );
            assert!(lo <= mid && mid <= hi, "{p}");
            let wtl = ["wins", "ties", "losses"]
                .iter()
                .map(|k| p[*k].as_u64().unwrap())
                .sum::<u64>();
            assert_eq!(wtl, 300 - stalled);
        }
        // Sequential runs are not paired.
        let s = json(&b.join("summary.json"));
        assert!(s["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["paired"].is_null()));
        // The paired table and chart are there.
        assert!(a.join("charts/hard300-paired.svg").is_file());
        assert!(!b.join("charts/hard300-paired.svg").exists());
        let md = std::fs::read_to_string(a.join("summary.md")).unwrap();
        assert!(md.contains("## Paired with the baseline"), "{md}");
        let csv = std::fs::read_to_string(a.join("summary.csv")).unwrap();
        assert!(csv.lines().next().unwrap().contains("paired_geomean_ratio"));
    }
}

#[test]
fn the_gate_passes_an_a_a_run_and_writes_its_verdict() {
    let dir = scratch("gate-aa");
    let data = dataset(&dir);
    let out = dir.join("out");
    let summary = dir.join("step-summary.md");
    std::fs::write(&summary, "earlier content\n").unwrap();
    let o = run(&[
        data.to_str().unwrap(),
        "-s",
        "fast,name=a",
        "-s",
        "fast,name=b",
        "--gate",
        "a:b",
        // 300 puzzles in batches of 16: 19 chunks, enough for a verdict.
        "--batch-size",
        "16",
        "--fail-on",
        "counters",
        "--gate-summary",
        summary.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    // No timing assertion: an A/A run can only fail on time if the
    // machine is wildly unfair between two interleaved labels of one
    // engine, and its counters and answers are identical by construction.
    let stdout = text(&o.stdout);
    assert!(stdout.contains("gate:"), "{stdout}");
    let md = std::fs::read_to_string(out.join("gate.md")).unwrap();
    assert!(md.starts_with("### bench-sudoku gate: b vs a"), "{md}");
    let appended = std::fs::read_to_string(&summary).unwrap();
    assert!(appended.starts_with("earlier content\n### bench-sudoku gate"));
    let s = json(&out.join("summary.json"));
    let p = &s["results"][1]["paired"];
    assert_eq!(
        (p["answers_differ"].as_u64(), p["counters_differ"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!(p["guesses_ratio"].as_f64(), Some(1.0));
    // The gate's default: three measured passes after one warm-up.
    let meta = json(&out.join("meta.json"));
    assert_eq!(
        (
            meta["options"]["repeat"].as_u64(),
            meta["options"]["warmup"].as_u64()
        ),
        (Some(3), Some(1))
    );
    // Unchanged (0) unless the machine is wildly unfair, or undecided (3)
    // when it is too noisy to tell; every verdict states what it could
    // have detected.
    assert!(
        matches!(o.status.code(), Some(0 | 3)) || md.contains("FAIL (regressed)"),
        "{}\n{md}",
        err(&o)
    );
    assert!(md.contains("| detectable |"), "{md}");
    let g = &s["gate"];
    assert_eq!(g["exit_code"].as_i64(), o.status.code().map(i64::from));
    assert_eq!(g["interval"], "bootstrap");
    assert!(
        g["datasets"][0]["half_width_pct"].as_f64().unwrap() > 0.0,
        "{g}"
    );
    assert_eq!(g["datasets"][0]["rounds"], 1);
}

#[test]
fn the_gate_fails_on_answers_that_differ_and_on_counters_when_asked() {
    let dir = scratch("gate-fail");
    let data = dataset(&dir);
    let d = data.to_str().unwrap();
    let out = dir.join("out");
    let o = run(&[
        d,
        "-s",
        "fast",
        "-s",
        "logic",
        "--gate",
        "fast:logic",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    let md = std::fs::read_to_string(out.join("gate.md")).unwrap();
    assert!(md.contains("answers differ on"), "{md}");
    assert!(md.contains("**FAIL"), "{md}");

    // mrv → fast: far faster, same answers, different search: passes unless
    // counter changes fail.
    let o = run(&[
        d,
        "-s",
        "mrv",
        "-s",
        "fast",
        "--gate",
        "mrv:fast",
        "--batch-size",
        "16",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}\n{}", err(&o), text(&o.stdout));
    let md = std::fs::read_to_string(out.join("gate.md")).unwrap();
    assert!(
        md.contains("differ on 300 puzzles") && md.contains("pass (improved)"),
        "{md}"
    );
    let o = run(&[
        d,
        "-s",
        "mrv",
        "-s",
        "fast",
        "--gate",
        "mrv:fast",
        "--batch-size",
        "16",
        "--fail-on",
        "counters",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
}

#[test]
fn gate_and_baseline_mistakes_are_refused_before_any_work() {
    let dir = scratch("gate-bad");
    let data = dataset(&dir);
    let d = data.to_str().unwrap();
    let out = dir.join("out");
    let o_ = out.to_str().unwrap();
    for (args, needle) in [
        (
            vec![
                d,
                "-s",
                "fast",
                "-s",
                "mrv",
                "--gate",
                "fast:nope",
                "--out",
                o_,
            ],
            "labels of the run",
        ),
        (
            vec![
                d, "-s", "fast", "-s", "mrv", "--gate", "fastmrv", "--out", o_,
            ],
            "BASE:CANDIDATE",
        ),
        (
            vec![
                d,
                "-s",
                "fast",
                "-s",
                "mrv",
                "--gate",
                "fast:mrv",
                "--sequential",
                "--out",
                o_,
            ],
            "--sequential",
        ),
        (
            vec![d, "-s", "fast", "-s", "mrv", "--baseline", "x", "--out", o_],
            "not a strategy of the run",
        ),
        (vec![d, "-s", "fast,name=a,name=b", "--out", o_], "twice"),
        (vec![d, "-s", "name=a", "--out", o_], "labels a strategy"),
        (
            vec![d, "-s", "fast", "--threshold", "2", "--out", o_],
            "--gate",
        ),
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", err(&o));
        assert!(err(&o).contains(needle), "{args:?}: {}", err(&o));
        assert!(!out.join("summary.json").exists(), "{args:?}");
    }
}

#[test]
fn a_gate_on_two_chunks_is_not_judged_whatever_the_noise() {
    // Five puzzles are two chunks (a thread's first block of a job holds
    // two puzzles): a bootstrap over two chunks has almost nothing to
    // resample (its interval holds the truth about half the time,
    // docs/MEASUREMENT.md §4) and would fail an A/A run whenever noise put
    // the point above the threshold.
    let dir = scratch("gate-one-chunk");
    let data = hard_csv(&dir, "five", 5);
    let out = dir.join("out");
    for seed in 0..8 {
        let seed = seed.to_string();
        let o = run(&[
            data.to_str().unwrap(),
            "-s",
            "fast,name=a",
            "-s",
            "fast,name=b",
            "--gate",
            "a:b",
            "--seed",
            &seed,
            "--out",
            out.to_str().unwrap(),
        ]);
        let stdout = text(&o.stdout);
        assert_eq!(o.status.code(), Some(2), "seed {seed}: {stdout}{}", err(&o));
        assert!(
            stdout
                .contains("five: not judged: [no-interval] 5 pairs in 2 chunks: too few to judge")
                && stdout.contains("at least 10 puzzles with --batch-size 1")
                && stdout.contains("NOT JUDGED: b vs a on 1 datasets, 0 failed, 1 not judged"),
            "{stdout}"
        );
        let md = std::fs::read_to_string(out.join("gate.md")).unwrap();
        assert!(md.contains("**NOT JUDGED"), "{md}");
    }
    // Smaller batches make more chunks: 12 puzzles in batches of one are 12
    // chunks, enough to judge (an A/A run of one engine then passes unless
    // the machine is wildly unfair, which this test does not assert).
    let data = hard_csv(&dir, "twelve", 12);
    let o = run(&[
        data.to_str().unwrap(),
        "-s",
        "fast,name=a",
        "-s",
        "fast,name=b",
        "--gate",
        "a:b",
        "--batch-size",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    let s = json(&out.join("summary.json"));
    assert_eq!(s["results"][1]["paired"]["blocks"][0], 12, "{}", err(&o));
    assert_ne!(o.status.code(), Some(2), "{}", text(&o.stdout));
}

#[test]
fn a_gate_where_a_side_solves_nothing_is_not_judged() {
    let dir = scratch("gate-nothing");
    let data = dataset(&dir);
    let d = data.to_str().unwrap();
    let out = dir.join("out");
    // Without guesses `naive` gives up on every hard puzzle: both sides'
    // times are times of giving up. Nothing failed (giving up is an
    // answer the harness accepts), so the gate cannot pass either: exit 2.
    let o = run(&[
        d,
        "-s",
        "naive,name=a",
        "-s",
        "naive,name=b",
        "--max-guesses",
        "0",
        "--gate",
        "a:b",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = text(&o.stdout);
    assert_eq!(o.status.code(), Some(2), "{stdout}{}", err(&o));
    assert!(
        stdout.contains(
            "hard300: not judged: [solved-nothing] BASE a solved no puzzle with an accepted answer (300 puzzles)"
        ),
        "{stdout}"
    );
    // One side solving nothing while the other solves is also a difference
    // of answers: that fails (exit 1), and the time is still not judged.
    let o = run(&[
        d,
        "-s",
        "naive,name=a",
        "-s",
        "fast,name=b",
        "--max-guesses",
        "0",
        "--gate",
        "a:b",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{stdout}{}", err(&o));
    assert!(
        stdout.contains("FAIL: [answers-differ] answers differ")
            && stdout.contains("BASE a solved no puzzle"),
        "{stdout}"
    );
}

#[test]
fn a_gate_across_different_clocks_is_not_judged() {
    // `serve` reports its own time (clock `solver`); `fast` in this process
    // is timed by the harness: the two are not comparable.
    let dir = scratch("gate-clocks");
    let data = dataset(&dir);
    let out = dir.join("out");
    let served = format!("cmd={BIN} serve -s fast,name=served");
    let o = run(&[
        data.to_str().unwrap(),
        "-s",
        "fast",
        "-s",
        &served,
        "--gate",
        "fast:served",
        "-j",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = text(&o.stdout);
    assert_eq!(o.status.code(), Some(2), "{stdout}{}", err(&o));
    assert!(
        stdout.contains("hard300: not judged: [other-clock] the sides are timed by different clocks (BASE fast: the harness's monotonic clock around the solve call; CANDIDATE served: the solver's own measurement)"),
        "{stdout}"
    );
    let s = json(&out.join("summary.json"));
    assert_eq!(s["results"][1]["clock"], "solver");
    assert_eq!(s["results"][1]["paired"]["answers_differ"], 0);
}

/// A gate beside a yardstick: `--baseline fast --gate base:head` pairs
/// every strategy with fast (the tables, a history's ratio) and the
/// candidate with BASE too (the verdict).
#[test]
fn a_gate_pairs_its_sides_whatever_the_baseline() {
    let dir = scratch("gate-yardstick");
    let data = dataset(&dir);
    let lib = capi();
    let spec = |config: u32, name: &str| {
        format!(
            "lib={},symbol=bench_sudoku_fast,config={config},name={name}",
            lib.display()
        )
    };
    let out = dir.join("out");
    let o = run(&[
        data.to_str().unwrap(),
        "-s",
        "fast",
        "-s",
        &spec(1000, "base"),
        "-s",
        &spec(1300, "head"),
        "--baseline",
        "fast",
        "--gate",
        "base:head",
        "--batch-size",
        "30",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "30 % slower regressed: {}",
        err(&o)
    );
    let s = json(&out.join("summary.json"));
    let result = |name: &str| {
        s["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["strategy"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(result("base")["paired"]["baseline"], "fast");
    assert!(result("base")["paired_gate"].is_null());
    let head = result("head");
    assert_eq!(head["paired"]["baseline"], "fast");
    assert_eq!(head["paired_gate"]["baseline"], "base");
    let ratio = head["paired_gate"]["geomean_ratio"].as_f64().unwrap();
    assert!(ratio > 1.1, "head / base {ratio}");
    // The verdict is on head / base: the same pairs as paired_gate.
    assert_eq!(s["gate"]["base"], "base");
    let md = std::fs::read_to_string(out.join("gate.md")).unwrap();
    assert!(md.contains("regressed"), "{md}");
    // And the tables pair with fast.
    assert_eq!(json(&out.join("meta.json"))["options"]["baseline"], "fast");
}
