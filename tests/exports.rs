//! `run --export FORMAT FILE` and `export DIR --export FORMAT FILE`: Bencher
//! Metric Format and github-action-benchmark customSmallerIsBetter JSON.

mod common;
use common::{bin, err, json, scratch};

#[test]
fn run_writes_bmf_and_github_benchmark_files() {
    let dir = scratch("run");
    let easy = format!("{}/datasets/easy.csv", env!("CARGO_MANIFEST_DIR"));
    let p = |n: &str| dir.join(n).display().to_string();
    let o = bin(&[
        "run",
        &easy,
        "--limit",
        "30",
        "-s",
        "locked",
        "-s",
        "mrv",
        "-q",
        "--out",
        &p("res"),
        "--export",
        "bmf",
        &p("bmf.json"),
        "--export",
        "github-benchmark",
        &p("gab.json"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));

    let summary = json(&dir.join("res/summary.json"));
    let bmf = json(&dir.join("bmf.json"));
    let obj = bmf.as_object().unwrap();
    assert_eq!(obj.len(), 2);
    for r in summary["results"].as_array().unwrap() {
        let name = format!(
            "{}/{}",
            r["dataset"].as_str().unwrap(),
            r["strategy"].as_str().unwrap()
        );
        let b = &obj[&name];
        let lat = &b["latency"];
        let (lo, v, hi) = (
            lat["lower_value"].as_f64().unwrap(),
            lat["value"].as_f64().unwrap(),
            lat["upper_value"].as_f64().unwrap(),
        );
        assert_eq!(v, r["mean_ns"].as_f64().unwrap());
        assert!(lo <= v && v <= hi, "{lat}");
        assert_eq!(b["throughput"]["value"], r["puzzles_per_sec"]);
        assert_eq!(b["guesses"]["value"], r["guesses_mean"]);
        assert_eq!(
            b["guesses"]["upper_value"].as_f64().unwrap(),
            r["guesses_max"].as_f64().unwrap()
        );
    }

    let gab = json(&dir.join("gab.json"));
    let entries = gab.as_array().unwrap();
    assert_eq!(entries.len(), 4);
    for e in entries {
        assert!(e["name"].is_string() && e["unit"].is_string(), "{e}");
        assert!(e["value"].is_number(), "{e}");
        if let Some(r) = e.get("range") {
            assert!(r.is_string(), "{e}");
        }
        assert!(e["extra"].is_string());
    }
    assert_eq!(entries[0]["name"], "easy/locked latency");
    assert_eq!(entries[0]["unit"], "ns");
    assert_eq!(entries[1]["name"], "easy/locked guesses");

    // The same exporters on the existing results directory give the same files.
    let o = bin(&[
        "export",
        &p("res"),
        "--export",
        "bmf",
        &p("bmf2.json"),
        "--export",
        "github-benchmark",
        &p("gab2.json"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(json(&dir.join("bmf2.json")), bmf);
    assert_eq!(json(&dir.join("gab2.json")), gab);
}

#[test]
fn bad_export_arguments_exit_2() {
    let dir = scratch("bad");
    let easy = format!("{}/datasets/easy.csv", env!("CARGO_MANIFEST_DIR"));
    let out = dir.join("res").display().to_string();
    // An unknown format fails before anything runs.
    let o = bin(&["run", &easy, "--out", &out, "--export", "csvx", "f.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("unknown format"), "{}", err(&o));
    assert!(!dir.join("res").exists());
    // export on something that is not a results directory.
    let o = bin(&[
        "export",
        &dir.display().to_string(),
        "--export",
        "bmf",
        "x.json",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("not a results directory"), "{}", err(&o));
    // FORMAT without FILE.
    let o = bin(&["export", &out, "--export", "bmf"]);
    assert_eq!(o.status.code(), Some(2));
}
