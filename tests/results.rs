//! The results directory's `summary.json` is written and read by one type:
//! what a run writes loads and writes back byte for byte.

mod common;
use bench_sudoku::results::Summary;
use common::*;
use std::path::Path;

#[test]
fn a_runs_summary_loads_and_writes_back_byte_identical() {
    let dir = scratch("results-roundtrip");
    // Three puzzles with their solutions, one whose solution column holds
    // another of its solutions (a mismatch), and a malformed row (skipped):
    // every list is non-empty but the faults'.
    let hard =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/hard.csv"))
            .unwrap();
    let rows: Vec<&str> = hard.lines().skip(1).take(4).collect();
    let mut body = String::from("puzzle,solution\n");
    for r in &rows[..3] {
        body.push_str(r);
        body.push('\n');
    }
    // The empty grid with a valid solution that is not the engines' first.
    let solution = rows[0].split(',').nth(1).unwrap();
    body.push_str(&format!("{},{solution}\n", "0".repeat(81)));
    body.push_str("12345,\n");
    let data = dir.join("set.csv");
    std::fs::write(&data, body).unwrap();
    // A protocol solver that finds no solution: mismatches to list.
    let liar = common::no_solution_solver(&dir);
    let out = dir.join("out");
    let o = bin(&[
        "run",
        data.to_str().unwrap(),
        "-s",
        "fast",
        "-s",
        "hidden,name=h",
        "-s",
        &liar,
        "--skip-invalid",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    let written = std::fs::read(out.join("summary.json")).unwrap();
    let s = Summary::read(&out).unwrap();
    assert_eq!(s.results.len(), 3);
    assert!(s.results[1].paired.is_some());
    assert!(!s.skipped_rows.is_empty() && !s.mismatch_list.is_empty());
    let again = s.to_bytes().unwrap();
    assert!(
        again == written,
        "summary.json changed on a round trip:\n{}\n---\n{}",
        String::from_utf8_lossy(&written),
        String::from_utf8_lossy(&again)
    );
}

#[test]
fn a_summary_of_a_later_schema_is_refused_naming_the_version() {
    let dir = scratch("results-schema");
    let out = dir.join("out");
    let o = bin(&[
        "run",
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("datasets/easy.csv")
            .to_str()
            .unwrap(),
        "-s",
        "fast",
        "--limit",
        "20",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let path = out.join("summary.json");
    let mut v = json(&path);
    assert_eq!(v["schema"], bench_sudoku::results::summary::SCHEMA);
    v["schema"] = 99.into();
    std::fs::write(&path, serde_json::to_vec(&v).unwrap()).unwrap();
    for args in [
        vec!["report", out.to_str().unwrap()],
        vec!["compare", out.to_str().unwrap(), out.to_str().unwrap()],
    ] {
        let o = bin(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(err(&o).contains("summary schema 99"), "{}", err(&o));
    }
    // Without the field: the layout before versions, which loads.
    v.as_object_mut().unwrap().remove("schema");
    std::fs::write(&path, serde_json::to_vec(&v).unwrap()).unwrap();
    assert_eq!(Summary::read(&out).unwrap().schema, 1);
}
