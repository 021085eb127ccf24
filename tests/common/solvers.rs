//! External solvers for the integration tests: the C fixtures of
//! `tests/fixtures/solvers/fixtures.c` compiled at test time, and `run`
//! into a fresh directory with its summary and rows read back.

use super::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

pub const MANIFEST: &str = env!("CARGO_MANIFEST_DIR");

/// The C fixtures as a shared library, compiled once per test process;
/// `None` (with the reason printed) when there is no C compiler.
pub fn fixtures() -> Option<PathBuf> {
    static LIB: OnceLock<Option<PathBuf>> = OnceLock::new();
    LIB.get_or_init(|| {
        let include = Path::new(MANIFEST).join("include");
        let mut flags = vec![
            "-std=c11", "-O2", "-shared", "-fPIC", "-Wall", "-Werror", "-I",
        ];
        let include = include.to_string_lossy().into_owned();
        flags.push(&include);
        compile_c(
            "tests/fixtures/solvers/fixtures.c",
            &lib_name("fixtures"),
            &flags,
            &[],
        )
    })
    .clone()
}

/// Compiles the C file `src` (relative to the manifest) into the scratch
/// directory as `name`, with `flags` before the output and `libs` after the
/// source; `None` (with the reason printed) when there is no C compiler.
pub fn compile_c(src: &str, name: &str, flags: &[&str], libs: &[&str]) -> Option<PathBuf> {
    let out = scratch(&format!("c-{name}")).join(name);
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let src = Path::new(MANIFEST).join(src);
    let status = Command::new(&cc)
        .args(flags)
        .arg("-o")
        .arg(&out)
        .arg(&src)
        .args(libs)
        .status();
    match status {
        Ok(s) => {
            assert!(s.success(), "{cc} failed to compile {}", src.display());
            Some(out)
        }
        Err(e) => {
            skip_without("a C compiler", &format!("{cc}: {e}"));
            None
        }
    }
}

/// A `run` into a fresh directory: its output, `summary.json` and the rows
/// of `puzzles.csv`.
pub struct Run {
    pub dir: PathBuf,
    pub out: std::process::Output,
    pub summary: Value,
    pub rows: Vec<csv::StringRecord>,
    pub headers: csv::StringRecord,
}

impl Run {
    pub fn code(&self) -> i32 {
        self.out.status.code().unwrap_or(-1)
    }

    /// The summary record of `strategy`.
    pub fn result(&self, strategy: &str) -> &Value {
        self.summary["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["strategy"] == strategy)
            .unwrap_or_else(|| panic!("no result for {strategy}: {}", self.stderr()))
    }

    /// Column `col` of the rows of `strategy`, in input order.
    pub fn column(&self, strategy: &str, col: &str) -> Vec<String> {
        let s = self.headers.iter().position(|h| h == "strategy").unwrap();
        let c = self.headers.iter().position(|h| h == col).unwrap();
        self.rows
            .iter()
            .filter(|r| &r[s] == strategy)
            .map(|r| r[c].to_string())
            .collect()
    }

    /// The listed rows of `list` (`mismatch_list`, `fault_list`) of
    /// `strategy`.
    pub fn listed(&self, list: &str, strategy: &str) -> Vec<Value> {
        self.summary[list]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter(|u| u["strategy"] == strategy)
                    .flat_map(|u| u["rows"].as_array().unwrap().clone())
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn stderr(&self) -> String {
        err(&self.out)
    }
}

/// Runs `bench-sudoku run` with `args` (and `envs`) into `scratch(name)`,
/// every column of the table printed (`--details`: the tests read cells).
pub fn run(name: &str, args: &[&str], envs: &[(&str, &str)]) -> Run {
    let dir = scratch(name);
    let out = command()
        .arg("run")
        .args(args)
        .args(["--out", dir.to_str().unwrap(), "--quiet", "--details"])
        .envs(envs.iter().copied())
        .output()
        .unwrap();
    let summary = if dir.join("summary.json").is_file() {
        json(&dir.join("summary.json"))
    } else {
        Value::Null
    };
    let (headers, rows) = match csv::Reader::from_path(dir.join("puzzles.csv")) {
        Ok(mut r) => (
            r.headers().unwrap().clone(),
            r.records().map(Result::unwrap).collect(),
        ),
        Err(_) => (csv::StringRecord::new(), Vec::new()),
    };
    Run {
        dir,
        out,
        summary,
        rows,
        headers,
    }
}

pub fn dataset(name: &str) -> String {
    Path::new(MANIFEST)
        .join("datasets")
        .join(name)
        .display()
        .to_string()
}

/// The `n`-th puzzle (0-based) of a shipped dataset, '.' for blanks.
pub fn puzzle_of(name: &str, n: usize) -> String {
    let text = std::fs::read_to_string(dataset(name)).unwrap();
    let line = text.lines().nth(n + 1).unwrap();
    line.split(',').next().unwrap().replace('0', ".")
}

/// Every row of a run solved and equal to the dataset's solution.
pub fn all_correct(r: &Run, strategy: &str) {
    for (i, (st, m)) in r
        .column(strategy, "status")
        .iter()
        .zip(r.column(strategy, "matches_solution"))
        .enumerate()
    {
        assert_eq!((st.as_str(), m.as_str()), ("solved", "true"), "row {i}");
    }
}

/// The C fixtures, which the test needs: a missing C compiler fails it
/// with the reason (CI has one) instead of skipping it.
pub fn need_fixtures() -> PathBuf {
    fixtures().expect("this test needs a C compiler (cc, or $CC) to build its fixtures")
}

/// `python3`, which the test needs: missing, it fails the test with the
/// reason instead of skipping it.
pub fn need_python() {
    let found = Command::new("python3").arg("--version").output();
    assert!(
        found.is_ok_and(|o| o.status.success()),
        "this test needs python3 on PATH (its hostile solver is a Python script)"
    );
}

/// `tests/fixtures/solvers/hostile.py` as a `cmd=` spec doing `how` on
/// request `at`, labelled `name`.
pub fn hostile_py(how: &str, at: u32, name: &str) -> String {
    hostile_py_marked(how, at, name, "-")
}

/// [`hostile_py`] with `mark` on its command line (to find it in /proc).
pub fn hostile_py_marked(how: &str, at: u32, name: &str, mark: &str) -> String {
    let script = Path::new(MANIFEST).join("tests/fixtures/solvers/hostile.py");
    format!(
        "cmd=python3 {} {how} {at} {mark},name={name}",
        script.display()
    )
}

/// As [`run`], but a command that has not ended within `secs` seconds is
/// killed and fails the test (a hang must never stall the suite).
pub fn run_within(name: &str, args: &[&str], envs: &[(&str, &str)], secs: u64) -> Run {
    let dir = scratch(name);
    let mut cmd = command();
    cmd.arg("run")
        .args(args)
        .args(["--out", dir.to_str().unwrap(), "--quiet"])
        .envs(envs.iter().copied());
    let out = output_within(&mut cmd, secs);
    let summary = if dir.join("summary.json").is_file() {
        json(&dir.join("summary.json"))
    } else {
        Value::Null
    };
    let (headers, rows) = match csv::Reader::from_path(dir.join("puzzles.csv")) {
        Ok(mut r) => (
            r.headers().unwrap().clone(),
            r.records().map(Result::unwrap).collect(),
        ),
        Err(_) => (csv::StringRecord::new(), Vec::new()),
    };
    Run {
        dir,
        out,
        summary,
        rows,
        headers,
    }
}

/// The details of every fault listed for `strategy` in `summary.json`.
pub fn fault_details(r: &Run, strategy: &str) -> Vec<String> {
    r.listed("fault_list", strategy)
        .iter()
        .map(|f| f["detail"].as_str().unwrap_or_default().to_string())
        .collect()
}
