//! The `sudoku` crate through examples/peers/sudoku-crate, loaded into a
//! run beside `fast` the way scripts/peers-table.sh loads it: every answer
//! verified (first solutions and counts up to 2), and the counters it does
//! not report absent, never 0. Building the example crate fetches the
//! crate from crates.io and compiles it (tens of seconds), so the test runs
//! only when BENCH_SUDOKU_PEERS is set.

mod common;

use common::solvers::{dataset, run};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The example crate's library, built in release mode in its own target
/// directory (it is its own workspace), or `None` when the test is off.
fn crate_lib() -> Option<PathBuf> {
    std::env::var_os("BENCH_SUDOKU_PEERS")?;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/peers/sudoku-crate");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--quiet", "--release", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .status()
        .expect("cargo runs");
    assert!(
        status.success(),
        "building examples/peers/sudoku-crate failed"
    );
    let lib = dir
        .join("target/release")
        .join(common::lib_name("sudoku_crate_peer"));
    assert!(lib.is_file(), "{} not built", lib.display());
    Some(lib)
}

#[test]
fn sudoku_crate_runs_beside_fast_with_its_counters_absent() {
    let Some(lib) = crate_lib() else { return };
    let spec = format!("lib={},solver=sudoku-crate", lib.display());
    for count in ["1", "2"] {
        let r = run(
            &format!("peer-{count}"),
            &[
                &dataset("hard.csv"),
                "--limit",
                "200",
                "-j",
                "1",
                "--count",
                count,
                "-s",
                "fast",
                "-s",
                &spec,
            ],
            &[],
        );
        assert_eq!(r.code(), 0, "{}", r.stderr());
        let res = r.result("sudoku-crate");
        assert_eq!(res["puzzles"], 200);
        assert_eq!(res["solved"], 200, "{res}");
        assert_eq!(res["rejected"], 0);
        assert_eq!(res["unverified"], 0, "every answer carries its grid");
        assert_eq!(res["counters"], serde_json::json!([]));
        for key in ["guesses_total", "backtracks_total", "nodes_total"] {
            assert!(res[key].is_null(), "{key} must be absent: {}", res[key]);
        }
        // Paired with fast, puzzle by puzzle.
        assert_eq!(res["paired"]["pairs"], 200);
        assert!(res["paired"]["guesses_ratio"].is_null());
    }
}
