//! `trend DIR…`: runs ordered by start time, grouped by commit, with the
//! range across a commit's runs; table, CSV, SVG and HTML.

mod common;

use common::{bin, err, scratch, text};
use std::path::Path;

/// A copy of results directory `from` at `to`, claiming to be built from
/// `commit` and started at `started`.
fn relabel(from: &Path, to: &Path, commit: &str, started: &str) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
    for file in ["summary.json", "meta.json"] {
        let path = to.join(file);
        let mut v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let meta = if file == "meta.json" {
            &mut v
        } else {
            &mut v["meta"]
        };
        meta["git_commit"] = commit.into();
        meta["started"] = started.into();
        std::fs::write(&path, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    }
}

#[test]
fn trend_orders_runs_by_time_and_groups_them_by_commit() {
    let dir = scratch("trend");
    let easy = format!("{}/datasets/easy.csv", env!("CARGO_MANIFEST_DIR"));
    let base = dir.join("base");
    let o = bin(&[
        "run",
        &easy,
        "-s",
        "fast",
        "-s",
        "hidden",
        "--limit",
        "100",
        "-q",
        "--out",
        base.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", err(&o));
    // Given out of order: the newest commit first.
    relabel(
        &base,
        &dir.join("c2b"),
        "2222222222bbbb",
        "2026-11-23T12:00:00Z",
    );
    relabel(
        &base,
        &dir.join("c1"),
        "1111111111aaaa",
        "2026-11-21T12:00:00Z",
    );
    relabel(
        &base,
        &dir.join("c2a"),
        "2222222222bbbb",
        "2026-11-22T12:00:00Z",
    );
    let out = dir.join("t");
    let o = bin(&[
        "trend",
        dir.join("c2b").to_str().unwrap(),
        dir.join("c1").to_str().unwrap(),
        dir.join("c2a").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", err(&o));
    let table = text(&o.stdout);
    let lines: Vec<&str> = table.lines().filter(|l| l.contains(" fast ")).collect();
    assert_eq!(lines.len(), 2, "{table}");
    assert!(
        lines[0].contains("1111111111") && lines[1].contains("2222222222"),
        "{table}"
    );
    // The second commit was run twice (the same figures here): range ±0.0%,
    // change from the first commit +0.0%.
    assert!(
        lines[1].contains("±0.0%") && lines[1].contains("+0.0%"),
        "{table}"
    );
    let csv = std::fs::read_to_string(out.join("trend.csv")).unwrap();
    assert!(
        csv.starts_with("commit_index,commit,started,dir,dataset,strategy"),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 1 + 3 * 2);
    let svg = std::fs::read_to_string(out.join("charts/trend-easy.svg")).unwrap();
    assert!(
        svg.contains("by commit") && svg.contains("1111111111"),
        "chart"
    );
    let html = std::fs::read_to_string(out.join("trend.html")).unwrap();
    assert!(html.contains("<svg") && html.contains("2222222222"), "html");

    // One directory is not a trend; a missing one is an error naming it.
    let o = bin(&["trend", base.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let o = bin(&[
        "trend",
        base.to_str().unwrap(),
        dir.join("nope").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("nope"), "{}", err(&o));
}

/// A run counted twice would weigh twice: the same directory under two
/// spellings is refused. An incomplete run is refused unless
/// `--allow-incomplete`, and then marked in the table, trend.csv, the
/// charts and the page.
#[test]
fn trend_refuses_a_directory_twice_and_marks_incomplete_runs() {
    let dir = scratch("trend-checks");
    let hard = format!("{}/datasets/hard.csv", env!("CARGO_MANIFEST_DIR"));
    let run = |name: &str, fault: Option<&str>| {
        let mut cmd = common::command();
        if let Some(f) = fault {
            cmd.env("BENCH_SUDOKU_FAULT", f);
        }
        cmd.args(["run", &hard, "-s", "fast", "--limit", "300", "-q"])
            .args(["--batch-size", "50", "--out"])
            .arg(dir.join(name))
            .output()
            .unwrap()
    };
    let o = run("full", None);
    assert!(o.status.success(), "{}", err(&o));
    let full = dir.join("full");
    let twice = [
        dir.join("full/.").display().to_string(),
        dir.join("full/../full").display().to_string(),
    ];
    for other in &twice {
        let o = bin(&["trend", full.to_str().unwrap(), other]);
        assert_eq!(o.status.code(), Some(2), "{other}");
        assert!(
            err(&o).contains("the same results directory given twice"),
            "{}",
            err(&o)
        );
    }
    let o = run("cut", Some("finish:150"));
    assert_eq!(o.status.code(), Some(70), "{}", err(&o));
    let cut = dir.join("cut");
    let o = bin(&["trend", full.to_str().unwrap(), cut.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("an incomplete run"), "{}", err(&o));
    assert!(err(&o).contains("--allow-incomplete"), "{}", err(&o));
    let out = dir.join("t");
    let o = bin(&[
        "trend",
        full.to_str().unwrap(),
        cut.to_str().unwrap(),
        "--allow-incomplete",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", err(&o));
    let table = text(&o.stdout);
    assert!(
        table.contains("[incomplete]") && table.contains("2 (1 incomplete)"),
        "{table}"
    );
    let csv = std::fs::read_to_string(out.join("trend.csv")).unwrap();
    assert!(csv.lines().next().unwrap().ends_with(",complete"), "{csv}");
    assert!(csv.lines().any(|l| l.ends_with(",false")), "{csv}");
    assert!(csv.lines().any(|l| l.ends_with(",true")), "{csv}");
    let svg = std::fs::read_to_string(out.join("charts/trend-hard.svg")).unwrap();
    assert!(svg.contains("[incomplete]"), "chart");
    let html = std::fs::read_to_string(out.join("trend.html")).unwrap();
    assert!(html.contains("INCOMPLETE RUNS"), "html");
    // --out may not be (or lie within the results files of) an input.
    for bad in [full.clone(), full.join("charts")] {
        let o = bin(&[
            "trend",
            full.to_str().unwrap(),
            cut.to_str().unwrap(),
            "--allow-incomplete",
            "--out",
            bad.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{}", bad.display());
        assert!(err(&o).contains("that this command reads"), "{}", err(&o));
    }
    assert!(!full.join("trend.csv").exists() && !full.join("charts/trend-hard.svg").exists());
}
