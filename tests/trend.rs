//! `trend INPUT…`: results directories and history files, one point per
//! revision of each series (oldest first), the ratio to the yardstick, the
//! steps; table, CSV, SVG and HTML.

mod common;

use common::{bin, err, scratch, text};
use std::path::Path;

/// A copy of results directory `from` at `to`, claiming that its built-in
/// strategies ran at revision `rev` and that it started at `started` (with
/// a run id of its own).
fn relabel(from: &Path, to: &Path, rev: &str, started: &str) {
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
        meta["started"] = started.into();
        meta["run_id"] = format!("id-{started}").into();
        for d in meta["options"]["strategy_details"].as_array_mut().unwrap() {
            d["revision"] = rev.into();
        }
        std::fs::write(&path, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    }
}

#[test]
fn trend_follows_revisions_in_order_with_the_ratio_to_the_yardstick() {
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
        "700",
        "--repeat",
        "2",
        "-q",
        "--out",
        base.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", err(&o));
    // Given out of order: the newest revision first; the second revision
    // was run twice.
    relabel(&base, &dir.join("c2b"), "rev-two", "2026-11-23T12:00:00Z");
    relabel(&base, &dir.join("c1"), "rev-one", "2026-11-21T12:00:00Z");
    relabel(&base, &dir.join("c2a"), "rev-two", "2026-11-22T12:00:00Z");
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
    let lines: Vec<&str> = table.lines().filter(|l| l.contains(" hidden ")).collect();
    assert_eq!(lines.len(), 2, "{table}");
    assert!(
        lines[0].contains("rev-one") && lines[1].contains("rev-two"),
        "{table}"
    );
    // The same figures twice: a range of ±0.0%, and no step.
    assert!(lines[1].contains("±0.0%"), "{table}");
    assert!(!table.contains("stepped at"), "{table}");
    // hidden is paired with fast (the baseline): its ratio is shown.
    assert!(
        lines[0].contains("× ±") && lines[0].contains('['),
        "{table}"
    );
    let csv = std::fs::read_to_string(out.join("trend.csv")).unwrap();
    assert!(
        csv.starts_with("dataset,series,revision,position,runs,not_judged,yardstick,ratio"),
        "{csv}"
    );
    // Two series (fast, hidden) × two revisions.
    assert_eq!(csv.lines().count(), 1 + 2 * 2, "{csv}");
    let svg = std::fs::read_to_string(out.join("charts/trend-easy.svg")).unwrap();
    assert!(
        svg.contains("by revision") && svg.contains("rev-one"),
        "chart"
    );
    let ratio = std::fs::read_to_string(out.join("charts/trend-easy-hidden-ratio.svg")).unwrap();
    assert!(ratio.contains("ratio to fast"), "ratio chart");
    let html = std::fs::read_to_string(out.join("trend.html")).unwrap();
    assert!(html.contains("<svg") && html.contains("rev-two"), "html");

    // One input is a trend of one revision; a missing one is an error naming it.
    let o = bin(&["trend", base.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let o = bin(&[
        "trend",
        base.to_str().unwrap(),
        dir.join("nope").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("nope"), "{}", err(&o));
}

/// A run counted twice would weigh twice: the same input under two
/// spellings is refused. An incomplete run is refused unless
/// `--allow-incomplete`, and then shown, not judged.
#[test]
fn trend_refuses_an_input_twice_and_does_not_judge_incomplete_runs() {
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
            err(&o).contains("the same input given twice"),
            "{}",
            err(&o)
        );
    }
    // A copy of the directory (or a directory already in a history file)
    // is the same run: counted once, and said.
    let copy = dir.join("copy");
    common::copy_dir(&full, &copy);
    let o = bin(&["trend", full.to_str().unwrap(), copy.to_str().unwrap()]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(
        err(&o).contains("[same-run] 1 measurement reached trend twice"),
        "{}",
        err(&o)
    );
    let row = text(&o.stdout);
    let row = row.lines().find(|l| l.starts_with("hard")).unwrap();
    assert_eq!(row.split_whitespace().nth(3), Some("1"), "{row}");
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
    assert!(table.contains("2 (1 not judged)"), "{table}");
    let csv = std::fs::read_to_string(out.join("trend.csv")).unwrap();
    assert!(csv.lines().nth(1).unwrap().contains(",2,1,"), "{csv}");
    let html = std::fs::read_to_string(out.join("trend.html")).unwrap();
    assert!(html.contains("not judged"), "html");
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

/// `history add` appends each run once; `trend` reads the file; a step to
/// slower at the newest revision fails `--fail-on-step`, and a revision it
/// cannot judge is said to be unjudged.
#[test]
fn a_history_file_steps_and_fails_on_step() {
    let dir = scratch("history");
    let hard = format!("{}/datasets/hard.csv", env!("CARGO_MANIFEST_DIR"));
    let history = dir.join("h.jsonl");
    let h = history.to_str().unwrap();
    // The yardstick fast against itself at 1.0 and at a 30 % slower
    // configuration of the same engine, through the C library.
    let lib = common::capi();
    let mut revs = Vec::new();
    for (k, config) in [(1, 1000), (2, 1000), (3, 1300)] {
        let spec = format!(
            "lib={},symbol=bench_sudoku_fast,config={config},name=mine,rev=r{k}",
            lib.display()
        );
        let out = dir.join(format!("r{k}"));
        let o = bin(&[
            "run",
            &hard,
            "-s",
            "fast",
            "-s",
            &spec,
            "--repeat",
            "3",
            "-q",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", err(&o));
        let o = bin(&[
            "history",
            "add",
            out.to_str().unwrap(),
            "--file",
            h,
            "-s",
            "mine",
        ]);
        assert!(o.status.success(), "{}", err(&o));
        assert!(
            text(&o.stdout).contains("1 line(s) added"),
            "{}",
            text(&o.stdout)
        );
        revs.push(out);
    }
    // The same run again adds nothing.
    let r1 = revs[0].to_str().unwrap();
    let o = bin(&["history", "add", r1, "--file", h, "-s", "mine"]);
    assert!(
        text(&o.stdout).contains("0 line(s) added, 1 already there"),
        "{}",
        text(&o.stdout)
    );
    // The yardstick's own line (no ratio: it is the baseline) joins the
    // file without changing what is judged: each series' newest revision.
    let o = bin(&["history", "add", r1, "--file", h]);
    assert!(
        text(&o.stdout).contains("1 line(s) added"),
        "{}",
        text(&o.stdout)
    );
    let o = bin(&["trend", h, "--fail-on-step"]);
    assert_eq!(o.status.code(), Some(1), "{}{}", text(&o.stdout), err(&o));
    assert!(
        text(&o.stdout).contains("stepped at r3"),
        "{}",
        text(&o.stdout)
    );
    assert!(
        err(&o).contains("FAIL: hard/mine: stepped at r3"),
        "{}",
        err(&o)
    );
    // Since r2, not only at the newest: the same step.
    let o = bin(&["trend", h, "--fail-on-step", "--since", "r2"]);
    assert_eq!(o.status.code(), Some(1));
    let o = bin(&["trend", h, "--fail-on-step", "--since", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("no such revision"), "{}", err(&o));

    // A newest revision at r3's level but measured ±10 %: no step is
    // found, and none could have been at 5 %: undecided, not passed.
    let lines = std::fs::read_to_string(&history).unwrap();
    let r3: serde_json::Value = lines
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["revision"] == "r3" && v["series"] == "mine")
        .unwrap();
    let mut r4 = r3.clone();
    r4["revision"] = "r4".into();
    r4["run"] = "00000000000000r4".into();
    r4["started"] = "2999-01-01T00:00:00Z".into();
    let ratio = r3["yardstick"]["ratio"].as_f64().unwrap();
    for (k, v) in [
        ("low", 0.9),
        ("noise_low", 0.9),
        ("high", 1.1),
        ("noise_high", 1.1),
    ] {
        r4["yardstick"][k] = (ratio * v).into();
    }
    let noisy = dir.join("noisy.jsonl");
    std::fs::write(&noisy, format!("{lines}{r4}\n")).unwrap();
    let n = noisy.to_str().unwrap();
    let o = bin(&["trend", n, "--fail-on-step"]);
    assert_eq!(o.status.code(), Some(3), "{}{}", text(&o.stdout), err(&o));
    assert!(
        err(&o).contains("UNDECIDED: hard/mine at r4")
            && err(&o).contains("could not be told from none"),
        "{}",
        err(&o)
    );
    let o = bin(&["trend", n, "--fail-on-step", "--undecided", "pass"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));

    // A broken line is named; --series needs one -s; an unknown -s is named.
    std::fs::write(dir.join("bad.jsonl"), "{\"schema\":1}\n").unwrap();
    let o = bin(&["trend", dir.join("bad.jsonl").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("bad.jsonl:1"), "{}", err(&o));
    let r = revs[0].to_str().unwrap();
    let o = bin(&["history", "add", r, "--file", h, "--series", "x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("-s LABEL"), "{}", err(&o));
    let o = bin(&["history", "add", r, "--file", h, "-s", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("no strategy \"nope\""), "{}", err(&o));
    // The history file may not be a file of a results directory.
    let inside = revs[0].join("summary.json");
    let o = bin(&["history", "add", r, "--file", inside.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));

    // One measured pass has no rerun interval, and a run of too few
    // puzzles has no interval at all: not judged.
    let out = dir.join("short");
    let spec = format!(
        "lib={},symbol=bench_sudoku_fast,name=mine,rev=r4",
        lib.display()
    );
    let o = bin(&[
        "run",
        &hard,
        "-s",
        "fast",
        "-s",
        &spec,
        "--limit",
        "100",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", err(&o));
    // Other puzzles and another timing are another experiment: the history
    // refuses it, naming why.
    let o = bin(&[
        "history",
        "add",
        out.to_str().unwrap(),
        "--file",
        h,
        "-s",
        "mine",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(
        err(&o).contains("[other-puzzles]") && err(&o).contains("[other-timing]"),
        "{}",
        err(&o)
    );
    // Drawn beside the history, it is the newest revision and not judged.
    let o = bin(&["trend", h, out.to_str().unwrap(), "--fail-on-step"]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(
        err(&o).contains("NOT JUDGED: hard/mine at r4"),
        "{}",
        err(&o)
    );
}
