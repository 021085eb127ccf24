//! A solver author adopts bench-sudoku in their own repository, end to end:
//! the tool installed with the README's command, the CI action's script
//! (scripts/ci/bench-action.sh, what action.yml runs) run for each of three
//! commits of a C solver — the second 10 % slower, the third unchanged —
//! and `trend` over the history it kept.
//!
//! The install is a release build (a few minutes); with
//! BENCH_SUDOKU_ADOPTION_BIN=PATH the test uses that executable instead.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

const MANIFEST: &str = env!("CARGO_MANIFEST_DIR");

fn have(cmd: &str) -> bool {
    Command::new(cmd).arg("--version").output().is_ok()
}

/// The tool, installed the way README says: `cargo install --locked --path
/// .` (into a root of its own rather than ~/.cargo).
fn install(root: &Path) -> PathBuf {
    if let Some(bin) = std::env::var_os("BENCH_SUDOKU_ADOPTION_BIN").filter(|b| !b.is_empty()) {
        return PathBuf::from(bin);
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["install", "--locked", "--path", "."])
        .arg("--root")
        .arg(root)
        .env(
            "CARGO_TARGET_DIR",
            Path::new(MANIFEST).join("target/adoption"),
        )
        .current_dir(MANIFEST)
        .output()
        .expect("cargo runs");
    assert!(out.status.success(), "cargo install failed: {}", err(&out));
    let bin = root.join("bin/bench-sudoku");
    assert!(bin.is_file());
    bin
}

/// The example C solver as the first commit of a repository of its own:
/// its source, the header it includes, and a build script.
fn solver_repo(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let src = std::fs::read_to_string(Path::new(MANIFEST).join("examples/solvers/c/solver.c"))
        .unwrap()
        .replace("../../../include/bench_sudoku.h", "bench_sudoku.h");
    std::fs::write(dir.join("solver.c"), src).unwrap();
    std::fs::copy(
        Path::new(MANIFEST).join("include/bench_sudoku.h"),
        dir.join("bench_sudoku.h"),
    )
    .unwrap();
    std::fs::write(
        dir.join("build.sh"),
        "#!/bin/sh\nset -e\nmkdir -p build\n${CC:-cc} -std=c11 -O2 -fPIC -shared -o build/libmysolver.so solver.c\n",
    )
    .unwrap();
    std::fs::write(dir.join(".gitignore"), "build/\n").unwrap();
    git(dir, &["init", "-q"]);
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "a solver"]);
}

/// The solver made about 10 % slower as the harness sees it: each solve
/// waits, busy, 13 % of the time its search took (the harness's clock
/// also holds the call around the search).
fn make_slower(dir: &Path) {
    let path = dir.join("solver.c");
    let src = std::fs::read_to_string(&path).unwrap();
    let src = format!(
        "#define _POSIX_C_SOURCE 199309L\n#include <time.h>\n\
         static double now_ns(void) {{ struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); \
         return t.tv_sec * 1e9 + t.tv_nsec; }}\n{src}"
    )
    .replace(
        "    (void)configuration; /* this solver has no variants */\n    run(&s, boards, puzzle);",
        "    (void)configuration; /* this solver has no variants */\n    double start = now_ns();\n    \
         run(&s, boards, puzzle);\n    double until = now_ns() + (now_ns() - start) * 0.13;\n    \
         while (now_ns() < until) {}",
    );
    assert!(
        src.contains("while (now_ns() < until)"),
        "the slowdown is in solve()"
    );
    std::fs::write(path, src).unwrap();
}

/// One CI job for the repository's HEAD: builds it (and the base commit in
/// a worktree), then runs the action's script. Returns its exit status and
/// the job summary it wrote.
fn ci_job(repo: &Path, tool: &Path, base: Option<&str>, k: usize) -> (i32, String) {
    let work = repo.parent().unwrap();
    let build = |dir: &Path| {
        let s = Command::new("sh")
            .arg("build.sh")
            .current_dir(dir)
            .status()
            .unwrap();
        assert!(s.success(), "the solver builds in {}", dir.display());
    };
    build(repo);
    let summary = work.join(format!("summary-{k}.md"));
    let mut cmd = Command::new(Path::new(MANIFEST).join("scripts/ci/bench-action.sh"));
    cmd.current_dir(repo)
        .env("BENCH_SUDOKU", tool)
        .env("BS_HEAD", "lib=build/libmysolver.so")
        .env("BS_NAME", "mysolver")
        .env("BS_HISTORY", work.join("history.jsonl"))
        .env("BS_RESULTS", work.join(format!("results-{k}")))
        .env("BS_RUN_ARGS", "-j 1")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", work.join(format!("outputs-{k}")))
        .env_remove("GITHUB_REPOSITORY");
    if let Some(rev) = base {
        let dir = work.join(format!("base-{k}"));
        git(repo, &["worktree", "add", "-q", dir.to_str().unwrap(), rev]);
        build(&dir);
        cmd.env(
            "BS_BASE",
            format!("lib={}/build/libmysolver.so", dir.display()),
        );
    }
    let out = cmd.output().unwrap();
    eprintln!("{}", err(&out));
    let summary = std::fs::read_to_string(&summary).unwrap_or_default();
    (out.status.code().unwrap_or(-1), summary)
}

#[test]
fn a_solver_repository_gates_and_tracks_its_commits() {
    for tool in ["git", "cc", "python3"] {
        if !have(tool) {
            eprintln!("skipped: no {tool}");
            return;
        }
    }
    let work = scratch("adoption");
    let tool = install(&work.join("tool"));
    let repo = work.join("mysolver");
    solver_repo(&repo);
    let first = git(&repo, &["rev-parse", "--short", "HEAD"]);

    // Commit 1: measured and tracked; nothing to gate against yet.
    let (code, summary) = ci_job(&repo, &tool, None, 1);
    assert_eq!(code, 0, "{summary}");
    assert!(summary.contains("History of mysolver"), "{summary}");

    // Commit 2: 10 % slower. The gate fails.
    make_slower(&repo);
    git(&repo, &["commit", "-q", "-am", "slower"]);
    let second = git(&repo, &["rev-parse", "--short", "HEAD"]);
    let (code, summary) = ci_job(&repo, &tool, Some(&first), 2);
    assert_eq!(code, 1, "a slower head fails: {summary}");
    assert!(summary.contains("FAIL"), "{summary}");

    // Commit 3: the same code. The gate passes.
    std::fs::write(repo.join("README"), "A solver.\n").unwrap();
    git(&repo, &["add", "README"]);
    git(&repo, &["commit", "-q", "-m", "a readme"]);
    let third = git(&repo, &["rev-parse", "--short", "HEAD"]);
    let (code, summary) = ci_job(&repo, &tool, Some(&second), 3);
    assert_eq!(code, 0, "identical builds pass: {summary}");

    // The history: the head of every job, and the base of the two gated
    // ones (each a run of its own revision); trend names the second commit
    // as the step, and the unchanged third does not step.
    let history = work.join("history.jsonl");
    let lines = std::fs::read_to_string(&history).unwrap();
    assert_eq!(lines.lines().count(), 1 + 2 + 2, "{lines}");
    let trend = Command::new(&tool)
        .arg("trend")
        .arg(&history)
        .output()
        .unwrap();
    assert_eq!(trend.status.code(), Some(0), "{}", err(&trend));
    let out = text(&trend.stdout);
    assert!(
        out.contains(&format!("stepped at {second}")),
        "the second commit {second} is the step:\n{out}"
    );
    assert!(!out.contains(&format!("stepped at {third}")), "{out}");
    assert!(!out.contains(&format!("stepped at {first}")), "{out}");
    let fail_on_step = |since: Option<&str>| {
        let mut c = Command::new(&tool);
        c.arg("trend").arg(&history).arg("--fail-on-step");
        if let Some(rev) = since {
            c.args(["--since", rev]);
        }
        c.output().unwrap().status.code()
    };
    assert_eq!(
        fail_on_step(None),
        Some(0),
        "no step at the newest revision"
    );
    assert_eq!(
        fail_on_step(Some(&second)),
        Some(1),
        "the step since the second"
    );
}
