//! Bad input never crashes `run`: each case gives a precise message naming
//! the file (and line), exit status 2, no panic, and no output that looks
//! complete. Fixtures are in tests/fixtures/bad/.

mod common;
use common::command;

use std::path::{Path, PathBuf};
use std::process::Output;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/bad")
        .join(name)
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("bench-sudoku-bad-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.parent().unwrap()).unwrap();
    dir
}

fn run(data: &Path, out: &Path, extra: &[&str]) -> Output {
    command()
        .arg("run")
        .arg(data)
        .args(["-s", "hidden", "-q", "--out"])
        .arg(out)
        .args(extra)
        .output()
        .expect("binary runs")
}

/// A file-level problem: exit 2, message `FILE[:LINE]: …`, no results dir.
fn rejected_before_start(name: &str, expect: &str) {
    let data = fixture(name);
    let out = scratch(name);
    let o = run(&data, &out, &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{name}: {err}");
    assert!(err.contains(&data.display().to_string()), "{name}: {err}");
    assert!(err.contains(expect), "{name}: expected {expect:?} in {err}");
    assert!(!err.contains("panicked"), "{name}: {err}");
    assert!(!out.exists(), "{name}: nothing may be written");
}

/// A row problem: exit 2, `FILE:LINE: …`, and what was written says
/// `"complete": false`. With --skip-invalid the run completes and lists it.
fn rejected_row(name: &str, line: u64, expect: &str) {
    let data = fixture(name);
    let out = scratch(name);
    let o = run(&data, &out, &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{name}: {err}");
    let at = format!("{}:{line}: ", data.display());
    assert!(err.contains(&at), "{name}: expected {at:?} in {err}");
    assert!(err.contains(expect), "{name}: expected {expect:?} in {err}");
    assert!(!err.contains("panicked"), "{name}: {err}");
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta["complete"], false, "{name}");
    assert!(meta["stopped"].as_str().unwrap().contains(expect));
    assert!(!out.join("puzzles.csv.partial").exists());

    let o = run(&data, &out, &["--skip-invalid", "--force"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{name}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["results"][0]["skipped"], 1, "{name}");
    assert_eq!(
        summary["skipped_rows"][0]["rows"][0]["line"], line,
        "{name}"
    );
    assert_eq!(summary["meta"]["complete"], true);
}

fn accepted(name: &str, puzzles: u64) {
    let data = fixture(name);
    let out = scratch(name);
    let o = run(&data, &out, &[]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{name}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["results"][0]["puzzles"], puzzles, "{name}");
    assert_eq!(summary["results"][0]["solved"], puzzles, "{name}");
}

#[test]
fn empty_file() {
    rejected_before_start("empty.txt", "empty file");
}

#[test]
fn header_only() {
    rejected_before_start("header_only.csv", "no puzzles (only a CSV header)");
}

#[test]
fn binary_garbage() {
    rejected_before_start("binary.bin", "binary data");
}

#[test]
fn nul_byte_in_a_row() {
    rejected_row("nul_in_row.txt", 2, "NUL byte at column 41");
}

#[test]
fn utf8_bom_is_accepted() {
    accepted("bom.txt", 3);
}

#[test]
fn row_of_80_characters() {
    rejected_row("row80.txt", 2, "expected 81 cells, found 80 characters");
}

#[test]
fn row_of_82_characters() {
    rejected_row("row82.txt", 3, "expected 81 cells, found 82 characters");
}

#[test]
fn letters() {
    rejected_row("letters.txt", 2, "invalid character 'x' at position 11");
}

#[test]
fn other_digits() {
    rejected_row("other_digits.txt", 3, "invalid character '٣' at position 6");
}

#[test]
fn csv_without_puzzle_column() {
    // The header is on line 1, and the message says so.
    rejected_before_start(
        "missing_column.csv",
        "missing_column.csv:1: no puzzle column in the CSV header",
    );
}

#[test]
fn csv_quoted_fields_and_extra_columns_are_accepted() {
    accepted("quoted_extra.csv", 1);
}

#[test]
fn csv_ragged_row() {
    rejected_row("ragged.csv", 3, "expected 2 fields");
}

#[test]
fn mixed_line_ends_are_accepted() {
    accepted("mixed_eol.txt", 3);
}

#[test]
fn solution_of_wrong_length() {
    rejected_row(
        "solution_wrong_length.csv",
        2,
        "solution column: expected 81 cells, found 80",
    );
}

#[test]
fn solution_breaking_the_rules() {
    rejected_row("solution_invalid.csv", 2, "solution column: not a solution");
}

#[test]
fn a_100_mb_line_without_newline() {
    // Generated here (not a fixture): 100 MB of digits and no newline. The
    // reader caps a line at 64 KiB, so this must fail fast and small.
    let dir = scratch("huge");
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("huge.txt");
    {
        use std::io::Write;
        let mut f = std::io::BufWriter::new(std::fs::File::create(&data).unwrap());
        let chunk = vec![b'1'; 1 << 20];
        for _ in 0..100 {
            f.write_all(&chunk).unwrap();
        }
    }
    let out = dir.join("out");
    let o = run(&data, &out, &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(":1: ") && err.contains("over 65536 bytes"),
        "{err}"
    );
    let _ = std::fs::remove_file(&data);
}

#[test]
fn a_directory_and_a_missing_path() {
    let dir = scratch("dir");
    std::fs::create_dir_all(&dir).unwrap();
    let out = scratch("dir-out");
    let o = run(&dir, &out, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is a directory"));
    let missing = dir.join("no-such-file.csv");
    let o = run(&missing, &out, &[]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no-such-file.csv: cannot open"), "{err}");
    assert!(!out.exists());
}

#[test]
fn an_output_directory_that_cannot_be_created() {
    // A path below a regular file cannot be a directory (even for root).
    let out = fixture("bom.txt").join("results");
    let o = run(&fixture("bom.txt"), &out, &[]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("cannot create the results directory"), "{err}");
}

#[test]
fn existing_results_are_not_overwritten_without_force() {
    let out = scratch("existing");
    assert_eq!(run(&fixture("bom.txt"), &out, &[]).status.code(), Some(0));
    let before = std::fs::read(out.join("summary.json")).unwrap();
    let o = run(&fixture("mixed_eol.txt"), &out, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--force"));
    assert_eq!(std::fs::read(out.join("summary.json")).unwrap(), before);
    assert_eq!(
        run(&fixture("mixed_eol.txt"), &out, &["--force"])
            .status
            .code(),
        Some(0)
    );
}

#[test]
fn a_dataset_that_disappears_mid_run() {
    // Sequential strategies each re-read the dataset: removing the file
    // while the first strategy runs makes the second fail to open it.
    // (Interleaved strategies share one reading of the file.)
    let dir = scratch("vanish");
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("vanishing.txt");
    let line = std::fs::read_to_string(fixture("bom.txt")).unwrap();
    let puzzle = line.trim_start_matches('\u{feff}').lines().next().unwrap();
    std::fs::write(&data, format!("{puzzle}\n").repeat(200_000)).unwrap();
    let out = dir.join("out");
    let child = command()
        .arg("run")
        .arg(&data)
        .args(["-s", "mrv", "-s", "hidden", "--sequential", "-q", "--out"])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t = std::time::Instant::now();
    while !out.join("puzzles.csv.partial").exists() {
        assert!(t.elapsed().as_secs() < 60, "run did not start");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    std::fs::remove_file(&data).unwrap();
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("vanishing.txt: cannot open"), "{err}");
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta["complete"], false);
}
