//! `run --shard K/N` and `merge`: three shards merged equal the unsharded
//! run in every counter, histogram and per-puzzle row (times aside), and
//! inconsistent inputs are refused.

mod common;
use common::{bin, err, json, scratch};

use std::path::Path;

fn hist(path: &Path) -> hdrhistogram::Histogram<u64> {
    let bytes = std::fs::read(path).unwrap();
    hdrhistogram::serialization::Deserializer::new()
        .deserialize(&mut &bytes[..])
        .unwrap()
}

/// puzzles.csv rows without the time column.
fn rows_without_time(path: &Path) -> Vec<Vec<String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let t = r
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "time_ns")
        .unwrap();
    r.records()
        .map(|x| {
            x.unwrap()
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != t)
                .map(|(_, v)| v.to_string())
                .collect()
        })
        .collect()
}

const TIME_FIELDS: [&str; 15] = [
    "wall_ns",
    "solve_ns_total",
    // Which puzzle had which time: it moves with every time.
    "rows_fingerprint",
    "puzzles_per_sec",
    "mean_ns",
    "p50_ns",
    "p90_ns",
    "p99_ns",
    "p999_ns",
    "max_ns",
    "repeat_spread_pct",
    "pass_solve_ns",
    // How many repeats were far faster than the first pass: a timing.
    "repeat_far_faster",
    // The measuring threads' busy time: a timing.
    "busy_ns",
    // Which times were outliers and measured again: a timing.
    "remeasured",
];

#[test]
fn three_shards_merged_equal_the_unsharded_run() {
    let dir = scratch("equal");
    let hard = format!("{}/datasets/hard.csv", env!("CARGO_MANIFEST_DIR"));
    let d = |n: &str| dir.join(n).display().to_string();
    let o = bin(&[
        "run",
        &hard,
        "--limit",
        "300",
        "-j",
        "2",
        "-q",
        "-s",
        "mrv",
        "-s",
        "hidden",
        "-s",
        "fast",
        "--out",
        &d("full"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let out = d(&format!("s{k}"));
        let o = bin(&[
            "run", &hard, "--limit", "300", "-j", "2", "-q", "-s", "mrv", "-s", "hidden", "-s",
            "fast", "--shard", &shard, "--out", &out,
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", err(&o));
        let meta = json(&dir.join(format!("s{k}/meta.json")));
        assert_eq!(meta["options"]["shard"], shard.as_str());
        assert_eq!(meta["datasets"][0]["puzzles"], 100);
    }
    // Any order of the inputs.
    let o = bin(&["merge", &d("s3"), &d("s1"), &d("s2"), "--out", &d("merged")]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));

    let full = json(&dir.join("full/summary.json"));
    let merged = json(&dir.join("merged/summary.json"));
    let (fr, mr) = (
        full["results"].as_array().unwrap(),
        merged["results"].as_array().unwrap(),
    );
    assert_eq!(fr.len(), 3);
    assert_eq!(fr.len(), mr.len());
    for (f, m) in fr.iter().zip(mr) {
        let strip = |v: &serde_json::Value| {
            let mut o = v.as_object().unwrap().clone();
            for k in TIME_FIELDS {
                assert!(o.remove(k).is_some(), "{k}");
            }
            // Shards' pairings are not merged (the merge says so).
            o.remove("paired");
            o
        };
        assert_eq!(strip(f), strip(m));
        // Recomputed, not copied: the mean is the summed total over puzzles.
        let mean = m["solve_ns_total"].as_f64().unwrap() / m["puzzles"].as_f64().unwrap();
        assert!((m["mean_ns"].as_f64().unwrap() - mean).abs() < 1e-6);
        assert!(m["p50_ns"].as_u64().unwrap() <= m["p99_ns"].as_u64().unwrap());
    }
    for entry in std::fs::read_dir(dir.join("full/histograms")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let merged_file = dir.join("merged/histograms").join(&name);
        assert!(merged_file.exists(), "{name}");
        if name.ends_with(".guesses.hdr") || name.ends_with(".depth.hdr") {
            let f = hist(&dir.join("full/histograms").join(&name));
            let m = hist(&merged_file);
            assert_eq!(f, m, "{name}");
            assert_eq!(f.len(), 300);
        } else if name.ends_with(".hdr") {
            assert_eq!(hist(&merged_file).len(), 300, "{name}");
        }
    }
    assert_eq!(
        rows_without_time(&dir.join("full/puzzles.csv")),
        rows_without_time(&dir.join("merged/puzzles.csv"))
    );
    // The merged rows agree with the merged summary, percentiles and
    // row fingerprint included: the two runs are judged, not refused.
    let o = bin(&["compare", &d("full"), &d("merged")]);
    assert!(!err(&o).contains("[files-disagree]"), "{}", err(&o));
    assert_ne!(o.status.code(), Some(2), "{}", err(&o));
    let meta = json(&dir.join("merged/meta.json"));
    assert_eq!(meta["complete"], true);
    assert!(meta.get("stopped").is_none());
    assert!(meta["options"].get("shard").is_none());
    assert_eq!(meta["merged_from"].as_array().unwrap().len(), 3);
    assert_eq!(meta["datasets"][0]["puzzles"], 300);
    assert_eq!(meta["processed"], 900);
    // The shards' content hashes add up to the unsharded run's.
    let full_meta = json(&dir.join("full/meta.json"));
    let hash = &full_meta["datasets"][0]["content_hash"];
    assert!(hash.as_str().unwrap().starts_with("xxh3-sum:"), "{hash}");
    assert_eq!(&meta["datasets"][0]["content_hash"], hash);
    let s1 = json(&dir.join("s1/meta.json"));
    assert_ne!(&s1["datasets"][0]["content_hash"], hash);
    assert_eq!(meta["command_line"][1], "merge");
    assert!(dir.join("merged/summary.md").exists() && dir.join("merged/summary.csv").exists());

    // Two of three shards: refused, naming the missing one; merged with
    // --allow-partial, but incomplete and saying so.
    let o = bin(&["merge", &d("s1"), &d("s2"), "--out", &d("partial")]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("shard 3/3 missing"), "{}", err(&o));
    assert!(!dir.join("partial/meta.json").exists());
    let o = bin(&[
        "merge",
        &d("s1"),
        &d("s2"),
        "--out",
        &d("partial"),
        "--allow-partial",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let meta = json(&dir.join("partial/meta.json"));
    assert_eq!(meta["complete"], false);
    assert_eq!(meta["options"]["shard"], "1+2/3");
    assert!(meta["stopped"]
        .as_str()
        .unwrap()
        .contains("only 2 of 3 shards"));

    // --force replaces every output of a results directory, including the
    // charts, the page and a gate's verdict of an earlier run there, and
    // leaves other files alone.
    let stale = dir.join("stale");
    std::fs::create_dir_all(stale.join("charts")).unwrap();
    for f in [
        "charts/old-paired.svg",
        "report.html",
        "gate.md",
        "summary.json",
        "notes.txt",
    ] {
        std::fs::write(stale.join(f), "stale").unwrap();
    }
    let o = bin(&[
        "merge",
        &d("s1"),
        &d("s2"),
        &d("s3"),
        "--out",
        &d("stale"),
        "--force",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(!stale.join("charts/old-paired.svg").exists());
    assert!(!stale.join("gate.md").exists());
    assert_ne!(std::fs::read(stale.join("report.html")).unwrap(), b"stale");
    assert_eq!(std::fs::read(stale.join("notes.txt")).unwrap(), b"stale");

    // Refusals: exit 2 with the reason.
    let refusals: [(Vec<String>, &str); 5] = [
        (vec![d("s1"), d("s1")], "overlapping shards"),
        (vec![d("full"), d("s1")], "not a shard"),
        (vec![d("s1"), d("nope")], "no such directory"),
        (
            vec![d("s1"), d("s2"), d("s3"), "--out".into(), d("merged")],
            "already holds results",
        ),
        (
            vec![d("s1"), d("s2"), d("s3"), "--out".into(), d("s1")],
            "is the results directory",
        ),
    ];
    for (args, msg) in refusals {
        let mut a: Vec<&str> = vec!["merge"];
        a.extend(args.iter().map(String::as_str));
        if !args.iter().any(|x| x == "--out") {
            a.extend(["--out", "/nonexistent-never-created"]);
        }
        let o = bin(&a);
        assert_eq!(o.status.code(), Some(2), "{a:?}");
        assert!(err(&o).contains(msg), "{a:?}: {}", err(&o));
    }
}

#[test]
fn shards_of_different_runs_are_refused() {
    let dir = scratch("different");
    let easy = format!("{}/datasets/easy.csv", env!("CARGO_MANIFEST_DIR"));
    let d = |n: &str| dir.join(n).display().to_string();
    let hard = format!("{}/datasets/hard.csv", env!("CARGO_MANIFEST_DIR"));
    let runs: [(&str, &[&str]); 5] = [
        ("a", &["--shard", "1/2", "-s", "locked"]),
        ("b", &["--shard", "2/2", "-s", "hidden"]),
        ("c", &["--shard", "2/3", "-s", "locked"]),
        ("e", &["--shard", "2/2", "-s", "locked", "--count", "2"]),
        ("h", &["--shard", "2/2", "-s", "locked", "HARD"]),
    ];
    for (name, extra) in runs {
        let out = d(name);
        let data = if extra.contains(&"HARD") {
            &hard
        } else {
            &easy
        };
        let mut a = vec!["run", data.as_str(), "--limit", "20", "-q", "--out", &out];
        a.extend(extra.iter().filter(|x| **x != "HARD"));
        let o = bin(&a);
        assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    }
    for (other, msg) in [
        ("b", "different run options"),
        ("c", "does not split like"),
        ("e", "different run options"),
        ("h", "different datasets"),
    ] {
        let o = bin(&["merge", &d("a"), &d(other), "--out", &d("m")]);
        assert_eq!(o.status.code(), Some(2), "{other}");
        assert!(err(&o).contains(msg), "{other}: {}", err(&o));
    }
    assert!(!dir.join("m").exists(), "nothing written on refusal");
}

#[test]
fn shard_values_are_validated() {
    let easy = format!("{}/datasets/easy.csv", env!("CARGO_MANIFEST_DIR"));
    for bad in ["0/3", "4/3", "1/0", "x", "1-3", "2/"] {
        let o = bin(&[
            "run",
            &easy,
            "--shard",
            bad,
            "--out",
            "/nonexistent-never-created",
        ]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(err(&o).contains("expected K/N"), "{bad}: {}", err(&o));
    }
}
