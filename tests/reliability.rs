//! Reports agree with themselves and with what they were given (issue 17):
//! percentiles never above the maximum, Markdown tables that stay tables
//! whatever a dataset is called, strategy specs that say one thing once.

mod common;
use common::{command, json};

use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("bench-sudoku-reliability-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn hard_lines(n: usize) -> String {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/hard.csv"))
            .unwrap();
    let mut out = String::new();
    for line in text.lines().skip(1).take(n) {
        out.push_str(line.split(',').next().unwrap());
        out.push('\n');
    }
    out
}

#[test]
fn percentiles_never_exceed_the_maximum_on_small_runs() {
    let dir = scratch("small");
    for n in [1, 2, 3, 7] {
        let data = dir.join(format!("small{n}.txt"));
        std::fs::write(&data, hard_lines(n)).unwrap();
        let out = dir.join(format!("out{n}"));
        let o = command()
            .args([
                "run",
                "-q",
                "-s",
                "fast",
                "-s",
                "locked",
                "--no-puzzle-csv",
                "--out",
            ])
            .arg(&out)
            .arg(&data)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let summary = json(&out.join("summary.json"));
        for r in summary["results"].as_array().unwrap() {
            let max = r["max_ns"].as_u64().unwrap();
            let ps: Vec<u64> = ["p50_ns", "p90_ns", "p99_ns", "p999_ns"]
                .iter()
                .map(|k| r[*k].as_u64().unwrap())
                .collect();
            assert!(ps.windows(2).all(|w| w[0] <= w[1]), "{r}");
            assert!(ps[3] <= max, "p99.9 above max: {r}");
        }
    }
}

#[test]
fn markdown_tables_survive_any_dataset_name() {
    let dir = scratch("names");
    let data = dir.join("we|ird\nname\\|.txt");
    std::fs::write(&data, hard_lines(5)).unwrap();
    let out = dir.join("out");
    let o = command()
        .args(["run", "-q", "-s", "fast", "-s", "hidden,name=a|b", "--out"])
        .arg(&out)
        .arg(&data)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    if !o.status.success() {
        // A label with '|' may be refused; then the dataset name alone.
        assert!(err.contains("name"), "{err}");
        let o = command()
            .args(["run", "-q", "-s", "fast", "-s", "hidden", "--out"])
            .arg(&out)
            .arg(&data)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    let header = md
        .lines()
        .find(|l| l.starts_with("| dataset |"))
        .expect("a results table");
    let columns = |l: &str| l.replace("\\|", "").matches('|').count();
    let width = columns(header);
    let rows: Vec<&str> = md
        .lines()
        .skip_while(|l| !l.starts_with("| dataset |"))
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert_eq!(rows.len(), 4, "header, rule and two rows:\n{md}");
    for row in &rows {
        assert_eq!(columns(row), width, "{row}\n{md}");
    }
    assert!(rows[2].contains("we\\|ird name\\\\\\|"), "{}", rows[2]);
}

#[test]
fn a_key_given_twice_in_a_strategy_spec_is_refused() {
    for spec in [
        "hidden,prop=locked,prop=hidden",
        "prop=naked,propagation=hidden",
        "branch=mrv,order=asc,branch=first",
    ] {
        let o = command()
            .args(["solve", common::EASY, "-s", spec])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{spec}: {err}");
        assert!(err.contains("given twice"), "{spec}: {err}");
    }
}
