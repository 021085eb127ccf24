//! Names stay apart and printable: dataset names and labels that differ
//! never share a file, control characters in them (or in messages quoting a
//! dataset) never reach the terminal raw, and CSV text cells a spreadsheet
//! would run as formulas are neutralised while numbers stay numbers.
#![cfg(unix)]

mod common;
use common::*;

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The first `n` puzzles of the shipped hard dataset (CSV with solutions).
fn hard_rows(n: usize) -> Vec<String> {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/hard.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .take(n)
        .map(str::to_string)
        .collect()
}

/// A plain-lines dataset of the first `n` hard puzzles at `path`.
fn write_lines(path: &Path, n: usize) {
    let body: Vec<String> = hard_rows(n)
        .iter()
        .map(|r| r.split(',').next().unwrap().to_string())
        .collect();
    std::fs::write(path, body.join("\n") + "\n").unwrap();
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn names_that_differ_never_share_a_file_and_report_reads_each_back() {
    let dir = scratch("apart");
    // Two datasets whose names the old mapping made one (`a b`, `a_b`),
    // and two that differ only in case.
    let sets: Vec<PathBuf> = ["a b.txt", "a_b.txt", "Hard.txt", "hard.txt"]
        .iter()
        .map(|n| dir.join(n))
        .collect();
    for (i, p) in sets.iter().enumerate() {
        write_lines(p, 20 + i);
    }
    let out = dir.join("out");
    let mut args: Vec<&str> = vec!["run", "-q", "-j", "1", "--out", out.to_str().unwrap()];
    args.extend(sets.iter().map(|p| p.to_str().unwrap()));
    // Labels the old mapping made one (`a:b`, `a@b`, `a_b`), and two that
    // differ only in case; different engines, so that their histograms
    // differ too.
    args.extend([
        "-s",
        "mrv,name=a:b",
        "-s",
        "fast,name=a_b",
        "-s",
        "hidden,name=a@b",
        "-s",
        "locked,name=A",
        "-s",
        "fast,name=a",
    ]);
    let o = bin(&args);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let hist = files_in(&out.join("histograms"));
    // 4 datasets × 5 strategies × (time, guesses, depth) × (.hgrm, .hdr).
    assert_eq!(hist.len(), 4 * 5 * 3 * 2, "{hist:?}");
    for name in [
        "a~20b-a~3Ab.hgrm",
        "a_b-a_b.hgrm",
        "a_b-a~40b.hdr",
        "^hard-^a.hgrm",
        "hard-a.guesses.hdr",
    ] {
        assert!(hist.contains(&name.to_string()), "{name} not in {hist:?}");
    }
    let charts = files_in(&out.join("charts"));
    for ds in ["a~20b", "a_b", "^hard", "hard"] {
        assert!(charts.contains(&format!("{ds}-latency.svg")), "{charts:?}");
    }
    // Each unit's histograms, read back, are its own: as many solve times
    // as puzzles, and the largest guess count of its summary.
    let loaded = bench_sudoku::commands::report::load(&out).unwrap();
    assert_eq!(loaded.units.len(), 20);
    for (u, r) in loaded.units.iter().zip(&loaded.results) {
        assert_eq!(u.time.len(), r.puzzles, "{}/{}", r.dataset, r.strategy);
        assert_eq!(
            Some(u.guesses.max()),
            r.guesses_max,
            "{}/{}",
            r.dataset,
            r.strategy
        );
    }
    let distinct: std::collections::HashSet<(u64, u64)> = loaded
        .units
        .iter()
        .map(|u| (u.time.len(), u.guesses.max()))
        .collect();
    assert!(distinct.len() > 5, "{distinct:?}");
    // `report DIR` rebuilds the page from them.
    let o = bin(&["report", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    for label in ["a:b", "a_b", "a@b"] {
        assert!(html.contains(label), "{label}");
    }
}

/// Bytes that must never reach a terminal raw: ESC, and a line break inside
/// a name.
fn assert_printable(what: &str, bytes: &[u8]) {
    assert!(
        !bytes.contains(&0x1b),
        "{what} holds a raw ESC: {}",
        String::from_utf8_lossy(bytes)
    );
}

#[test]
fn control_characters_in_names_and_messages_print_escaped() {
    let dir = scratch("printable");
    let name = "e\x1b[31mred\nline";
    let path = dir.join(std::ffi::OsStr::from_bytes(
        format!("{name}.txt").as_bytes(),
    ));
    write_lines(&path, 12);
    let out = dir.join("out");
    let o = bin(&[
        "run",
        path.to_str().unwrap(),
        "-s",
        "fast,name=a",
        "-s",
        "fast,name=b",
        "--gate",
        "a:b",
        "--progress",
        "plain",
        "--progress-interval",
        "1ms",
        "--out",
        out.to_str().unwrap(),
    ]);
    // 12 puzzles are three chunks (a thread's first block of a job holds
    // two puzzles): the gate is not judged, and says so naming the dataset.
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert_printable("stdout", &o.stdout);
    assert_printable("stderr", &o.stderr);
    let stdout = text(&o.stdout);
    let shown = "e\\x1b[31mred\\nline";
    // The table row, and the gate's reason.
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with(shown) && l.contains(" a ")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "{shown}: not judged: [no-interval] 12 pairs in 3 chunks"
        )),
        "{stdout}"
    );
    // The dataset's name is the file's stem as printed, in every report.
    let s = json(&out.join("summary.json"));
    assert_eq!(s["results"][0]["dataset"], shown);

    // An error quoting the dataset's path and content.
    let bad = dir.join(std::ffi::OsStr::from_bytes(b"bad\x1b[2J.txt"));
    std::fs::write(&bad, b"12345\x1b[2J\x07\n").unwrap();
    let o = bin(&[
        "run",
        bad.to_str().unwrap(),
        "-s",
        "fast",
        "-q",
        "--out",
        dir.join("o2").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert_printable("stderr", &o.stderr);
    assert!(err(&o).contains("bad\\x1b[2J.txt"), "{}", err(&o));
    let o = bin(&["check", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert_printable("stderr", &o.stderr);

    // A label with an escape sequence is refused, and the refusal prints it
    // escaped.
    let o = bin(&[
        "run",
        path.to_str().unwrap(),
        "-s",
        "fast,name=\x1b[31m",
        "--out",
        dir.join("o3").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert_printable("stderr", &o.stderr);
    assert!(err(&o).contains("a label is"), "{}", err(&o));
}

/// The cells of column `col` of a CSV file, as written.
fn column(path: &Path, col: &str) -> Vec<String> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let at = r
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == col)
        .unwrap_or_else(|| panic!("no {col} in {}", path.display()));
    r.records().map(|x| x.unwrap()[at].to_string()).collect()
}

#[test]
fn csv_cells_that_would_run_as_formulas_are_neutralised_numbers_are_not() {
    let dir = scratch("formulas");
    // A dataset named like a formula (a file name cannot hold '/'), ids and
    // ratings that are formulas or negative numbers.
    let set = "=cmd|' C calc'!A0";
    let id = "=cmd|' /C calc'!A0";
    let path = dir.join(format!("{set}.csv"));
    let mut body = String::from("id,puzzle,solution,rating\n");
    for (i, row) in hard_rows(24).iter().enumerate() {
        let mut f = row.split(',');
        let (p, s) = (f.next().unwrap(), f.next().unwrap());
        let (id, rating) = match i % 3 {
            0 => (id.to_string(), "-1.5".to_string()),
            1 => (format!("@{i}"), "+2".to_string()),
            _ => (format!("-{i}"), "-2+3".to_string()),
        };
        body.push_str(&format!("{id},{p},{s},{rating}\n"));
    }
    std::fs::write(&path, body).unwrap();
    let label = "-2+3";
    let spec = format!("fast,name={label}");
    // `run` of the dataset with the label into `out`, with `extra` options.
    let run_to = |out: &Path, extra: &[&str]| {
        let mut args = vec!["run", path.to_str().unwrap(), "-s", &spec, "-q"];
        args.extend_from_slice(extra);
        args.extend(["--out", out.to_str().unwrap()]);
        let o = bin(&args);
        assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    };
    let out = dir.join("run");
    run_to(&out, &[]);
    let puzzles = out.join("puzzles.csv");
    assert!(column(&puzzles, "dataset")
        .iter()
        .all(|d| *d == format!("'{set}")));
    assert!(column(&puzzles, "strategy").iter().all(|s| s == "'-2+3"));
    let ids = column(&puzzles, "id");
    assert_eq!(ids[..3], [format!("'{id}"), "'@1".into(), "-2".into()]);
    let ratings = column(&puzzles, "rating");
    assert_eq!(ratings[..3], ["-1.5", "+2", "'-2+3"]);
    let summary = out.join("summary.csv");
    assert_eq!(column(&summary, "dataset"), [format!("'{set}")]);
    assert_eq!(column(&summary, "strategy"), ["'-2+3"]);
    // JSON keeps the names as they are.
    let s = json(&out.join("summary.json"));
    assert_eq!(
        (
            s["results"][0]["dataset"].as_str(),
            s["results"][0]["strategy"].as_str()
        ),
        (Some(set), Some(label))
    );
    // Readers of puzzles.csv find the units by their names: compare
    // holds each unit's rows against its summary, so a unit not found
    // would be refused.
    let again = dir.join("again");
    run_to(&again, &[]);
    let o = bin(&[
        "compare",
        out.to_str().unwrap(),
        again.to_str().unwrap(),
        "--threshold",
        "1000",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}{}", text(&o.stdout), err(&o));
    let o = bin(&["report", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let merged = dir.join("merged");
    let shards: Vec<PathBuf> = (1..=2).map(|k| dir.join(format!("shard{k}"))).collect();
    for (k, d) in shards.iter().enumerate() {
        run_to(d, &["--shard", &format!("{}/2", k + 1)]);
    }
    let o = bin(&[
        "merge",
        shards[0].to_str().unwrap(),
        shards[1].to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(column(&merged.join("puzzles.csv"), "id")[..3], ids[..3]);

    // A scan, and the trend of its two runs.
    let scan = dir.join("scan");
    let o = bin(&[
        "run",
        path.to_str().unwrap(),
        "-s",
        &spec,
        "-j",
        "1,2",
        "-q",
        "--out",
        scan.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let csv = scan.join("scan.csv");
    assert!(column(&csv, "dataset")
        .iter()
        .all(|d| *d == format!("'{set}")));
    assert!(column(&csv, "strategy").iter().all(|s| s == "'-2+3"));
    assert_eq!(column(&csv, "value"), ["1", "2"]);
    let trend = dir.join("trend");
    let o = bin(&[
        "trend",
        scan.join("threads=1").to_str().unwrap(),
        scan.join("threads=2").to_str().unwrap(),
        "--out",
        trend.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let csv = trend.join("trend.csv");
    assert!(column(&csv, "dataset")
        .iter()
        .all(|d| *d == format!("'{set}")));
    assert!(column(&csv, "series").iter().all(|s| s == "'-2+3"));
}
