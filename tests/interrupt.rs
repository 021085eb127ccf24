//! Ctrl-C during `run`: the run stops dispatching, writes what it measured
//! with `"complete": false`, and exits 130. Unix only (signals via `kill`).
#![cfg(unix)]

mod common;

use common::command;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A dataset of `rows` puzzles in a fresh scratch directory of its own
/// (the test's output goes beside it).
fn big_dataset(name: &str, rows: usize) -> PathBuf {
    let path = common::scratch(name).join(name);
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let puzzles = [
        common::FAMOUS_HARD,
        common::SINGLES_STALL,
        common::LOGIC_SOLVES[0],
    ];
    for i in 0..rows {
        writeln!(f, "{}", puzzles[i % puzzles.len()]).unwrap();
    }
    f.flush().unwrap();
    path
}

fn signal(pid: u32, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .expect("kill runs")
        .success();
    assert!(ok);
}

/// Waits until the run has created its results directory (it is running).
fn wait_started(out: &std::path::Path) {
    let t = Instant::now();
    while !out.join("puzzles.csv.partial").exists() {
        assert!(t.elapsed() < Duration::from_secs(60), "run did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
}

#[test]
fn sigint_writes_partial_results_and_exits_130() {
    let data = big_dataset("big.txt", 400_000);
    let out = data.with_file_name("out-int");
    let _ = std::fs::remove_dir_all(&out);
    let child = command()
        .args(["run", data.to_str().unwrap(), "-s", "mrv", "-q", "--out"])
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_started(&out);
    signal(child.id(), "-INT");
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta["complete"], false);
    assert_eq!(meta["stopped"], "interrupted");
    let processed = meta["processed"].as_u64().unwrap();
    assert!(processed > 0 && processed < 400_000, "{processed}");
    // Every processed puzzle has its row; the summary counts the same.
    let rows = csv::Reader::from_path(out.join("puzzles.csv"))
        .unwrap()
        .records()
        .count() as u64;
    assert_eq!(rows, processed);
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(
        summary["results"][0]["puzzles"].as_u64().unwrap(),
        processed
    );
    assert_eq!(summary["results"][0]["complete"], false);
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("INCOMPLETE RUN"));
    assert!(out.join("histograms/big-mrv.hgrm").exists());
}

#[test]
fn sigterm_and_sighup_too() {
    let data = big_dataset("big-term.txt", 400_000);
    for sig in ["-TERM", "-HUP"] {
        let out = data.with_file_name(format!("out{sig}"));
        let _ = std::fs::remove_dir_all(&out);
        let child = command()
            .args(["run", data.to_str().unwrap(), "-s", "mrv", "-q", "--out"])
            .arg(&out)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        wait_started(&out);
        signal(child.id(), sig);
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(130), "{sig}");
        let meta: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("meta.json")).unwrap()).unwrap();
        assert_eq!(meta["complete"], false, "{sig}");
    }
}

/// A second signal exits at once, without waiting for the batches in
/// flight: here `naive` counting three million solutions of the empty grid,
/// seconds each (about a microsecond a solution in a release build), so that
/// the first signal's wait for them is longer than the test allows however
/// fast the machine.
#[test]
fn a_second_signal_exits_at_once() {
    let data = common::scratch("empty-grids").join("empty-grids.txt");
    std::fs::write(&data, format!("{}\n", "0".repeat(81)).repeat(64)).unwrap();
    let out = data.with_file_name("out-second");
    let _ = std::fs::remove_dir_all(&out);
    let child = command()
        .args(["run", data.to_str().unwrap(), "-s", "naive", "-q"])
        .args(["--count", "3000000", "--max-guesses", "4000000000", "--out"])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_started(&out);
    signal(child.id(), "-INT");
    std::thread::sleep(Duration::from_millis(200));
    let start = Instant::now();
    signal(child.id(), "-INT");
    let o = child.wait_with_output().unwrap();
    // Ignoring the second signal would mean waiting out STOP_GRACE (10 s)
    // after the first; a loaded machine still exits well within it.
    assert!(start.elapsed().as_secs() < 9, "took {:?}", start.elapsed());
    assert_eq!(o.status.code(), Some(130));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("second interrupt"), "{err}");
}
