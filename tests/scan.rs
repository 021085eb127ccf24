//! Parameter scans: `run --threads 1,2` and `run --scan KEY=V1,V2,…` run
//! the same work per value into one directory with a scan axis.

mod common;

use common::{bin, err, json, scratch, text};

fn easy() -> String {
    format!("{}/datasets/easy.csv", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_thread_scan_writes_one_directory_with_a_speedup_curve() {
    let dir = scratch("scan-threads");
    let out = dir.join("s");
    let o = bin(&[
        "run",
        &easy(),
        "-s",
        "fast",
        "-s",
        "hidden",
        "--threads",
        "1,2",
        "--limit",
        "200",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", err(&o));
    let stdout = text(&o.stdout);
    assert!(stdout.contains("threads  dataset  strategy"), "{stdout}");
    for v in ["threads=1", "threads=2"] {
        let meta = json(&out.join(v).join("meta.json"));
        assert_eq!(meta["threads"], if v.ends_with('1') { 1 } else { 2 }, "{v}");
    }
    let scan = json(&out.join("scan.json"));
    assert_eq!(scan["key"], "threads");
    let rows = scan["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    for r in rows {
        assert_eq!(r["solved"], 200, "{r}");
        if r["value"] == "1" {
            assert_eq!(r["speedup"], 1.0, "{r}");
        } else {
            assert!(r["speedup"].as_f64().unwrap() > 0.0, "{r}");
        }
    }
    let csv = std::fs::read_to_string(out.join("scan.csv")).unwrap();
    assert!(
        csv.starts_with("key,value,dataset,strategy,spec,puzzles,solved,mean_ns"),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 5);
    let svg = std::fs::read_to_string(out.join("charts/scan-easy.svg")).unwrap();
    assert!(
        svg.contains("ideal (linear)") && svg.contains("speedup"),
        "chart"
    );
    assert!(std::fs::read_to_string(out.join("scan.md"))
        .unwrap()
        .contains("# Scan of `threads`"));

    // The same directory again needs --force.
    let again = bin(&[
        "run",
        &easy(),
        "-s",
        "fast",
        "-j",
        "1,2",
        "--limit",
        "10",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        err(&again).contains("already holds a scan"),
        "{}",
        err(&again)
    );
}

#[test]
fn any_run_option_or_spec_key_can_be_scanned() {
    let dir = scratch("scan-keys");
    let out = dir.join("b");
    let o = bin(&[
        "run",
        &easy(),
        "-s",
        "hidden",
        "--scan",
        "batch-size=16,256",
        "--limit",
        "100",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(out.join("batch-size=16/summary.json").is_file());
    assert!(out.join("batch-size=256/summary.json").is_file());
    let out = dir.join("p");
    let o = bin(&[
        "run",
        &easy(),
        "-s",
        "hidden",
        "--scan",
        "prop=naked,locked",
        "--limit",
        "50",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", err(&o));
    let scan = json(&out.join("scan.json"));
    // The strategy keeps its label across the values.
    for r in scan["rows"].as_array().unwrap() {
        assert_eq!(r["strategy"], "hidden", "{r}");
    }
    let meta = json(&out.join("prop=naked/meta.json"));
    assert!(
        meta["options"]["strategy_details"]
            .to_string()
            .contains("prop=naked"),
        "{meta}"
    );

    for (args, message) in [
        (vec!["--scan", "thread=1,2"], "did you mean \"threads\"?"),
        (vec!["--scan", "threads=1"], "two or more values"),
        (vec!["--scan", "threads=1,1"], "given twice"),
        (vec!["--scan", "threads"], "expected KEY=V1,V2"),
        (vec!["--scan", "batch-size=0,4"], "batch-size=0"),
        (vec!["-j", "1,2", "--scan", "repeat=1,2"], "one option"),
    ] {
        let data = easy();
        let mut full = vec!["run", data.as_str(), "--limit", "5", "-q", "--out"];
        let o_dir = dir.join("bad");
        full.push(o_dir.to_str().unwrap());
        full.extend(args.iter().copied());
        let o = bin(&full);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(err(&o).contains(message), "{args:?}: {}", err(&o));
        assert!(
            !o_dir.exists(),
            "{args:?}: nothing is created for a bad scan"
        );
    }
}

/// A scan runs a warm-up round and then alternating rounds, keeps one round
/// per value (saying which, with every round's puzzles/s), leaves no round
/// directory behind, and marks a value too short to time.
#[test]
fn a_scan_runs_rounds_keeps_the_median_and_marks_short_values() {
    let dir = scratch("scan-rounds");
    let out = dir.join("s");
    let o = bin(&[
        "run",
        &easy(),
        "-s",
        "fast",
        "-j",
        "1,2",
        "--limit",
        "20",
        "--scan-rounds",
        "3",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", err(&o));
    let stderr = err(&o);
    let warm = stderr.find("threads=1 (warm-up round)").expect(&stderr);
    let r1 = stderr.find("threads=1 (round 1 of 3)").unwrap();
    let r1b = stderr.find("threads=2 (round 1 of 3)").unwrap();
    let r2 = stderr.find("threads=1 (round 2 of 3)").unwrap();
    assert!(warm < r1 && r1 < r1b && r1b < r2, "{stderr}");
    let scan = json(&out.join("scan.json"));
    assert_eq!(scan["rounds"], 3);
    assert!(scan["kept"].as_str().unwrap().contains("median"));
    for r in scan["rows"].as_array().unwrap() {
        assert_eq!(
            r["rounds_puzzles_per_sec"]
                .as_str()
                .unwrap()
                .split(';')
                .count(),
            3,
            "{r}"
        );
        assert!((1..=3).contains(&r["round"].as_u64().unwrap()), "{r}");
        // 20 puzzles of easy.csv are usually far under 10 ms of work (not
        // always in a debug build on a busy machine): the flag follows the
        // wall time kept.
        let short = r["wall_ns"].as_u64().unwrap() < 10_000_000;
        assert_eq!(r["too_short"], short, "{r}");
        let sub = json(&out.join(r["dir"].as_str().unwrap()).join("summary.json"));
        assert_eq!(sub["results"][0]["too_short"], short);
        if short {
            assert!(
                text(&o.stdout).contains("(too short)"),
                "{}",
                text(&o.stdout)
            );
        }
    }
    assert!(!out.join(".scan-rounds").exists());
    let md = std::fs::read_to_string(out.join("scan.md")).unwrap();
    assert!(md.contains("round(s) after a warm-up round"), "{md}");
}

/// A library's own parameter can be scanned (`config=` of tdoku's
/// signature): the strategies that take the key get each value under one
/// label, the others (`fast`, a yardstick) run unchanged, and a key that no
/// strategy takes is refused.
#[test]
fn a_scan_sets_a_library_key_and_leaves_the_yardstick_alone() {
    let lib = common::capi();
    let spec = format!("lib={},symbol=bench_sudoku_fast", lib.display());
    let dir = scratch("scan-config");
    let out = dir.join("s");
    let o = bin(&[
        "run",
        &easy(),
        "-s",
        "fast",
        "-s",
        &spec,
        "-s",
        "prop=naked,branch=max",
        "--scan",
        "config=1000,1200",
        "--scan-rounds",
        "1",
        "--limit",
        "64",
        "-j",
        "1",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let scan = json(&out.join("scan.json"));
    let rows = scan["rows"].as_array().unwrap();
    let strategies: std::collections::BTreeSet<&str> = rows
        .iter()
        .map(|r| r["strategy"].as_str().unwrap())
        .collect();
    assert_eq!(
        strategies.into_iter().collect::<Vec<_>>(),
        // The library under its file's name; the others, which take no
        // config=, under their own.
        [
            "fast",
            "libbench_sudoku_capi",
            "prop=naked,branch=max,order=asc"
        ],
        "{scan}"
    );
    for value in ["1000", "1200"] {
        let meta = json(&out.join(format!("config={value}/meta.json")));
        let specs: Vec<String> = meta["options"]["strategy_details"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["spec"].as_str().unwrap().to_string())
            .collect();
        assert!(
            specs.iter().any(|s| s.contains(&format!("config={value}"))),
            "{specs:?}"
        );
    }
    // Every value solved every puzzle with every strategy.
    assert!(rows.iter().all(|r| r["solved"] == 64), "{scan}");

    let o = bin(&[
        "run",
        &easy(),
        "-s",
        "fast",
        "--scan",
        "config=1,2",
        "--out",
        dir.join("none").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(
        text(&o.stderr).contains("no strategy takes \"config\""),
        "{}",
        err(&o)
    );
}
