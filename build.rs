//! Records build facts for `meta.json`: the git commit (when built from a
//! checkout), the rustc version and the enabled target features.

use std::process::Command;

fn main() {
    let commit = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    let dirty = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=no"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| !o.stdout.is_empty())
        .unwrap_or(false);
    let commit = if !commit.is_empty() && dirty {
        format!("{commit}-dirty")
    } else {
        commit
    };
    println!("cargo:rustc-env=BENCH_SUDOKU_GIT_COMMIT={commit}");

    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    println!("cargo:rustc-env=BENCH_SUDOKU_RUSTC_VERSION={version}");

    let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    println!("cargo:rustc-env=BENCH_SUDOKU_TARGET_FEATURES={features}");
    let target = std::env::var("TARGET").unwrap_or_default();
    println!("cargo:rustc-env=BENCH_SUDOKU_TARGET={target}");

    // Re-run when the commit changes: HEAD, the branch it names, packed
    // refs (works in worktrees too, where .git is a file); nothing outside
    // a checkout. Not on the index: `git status` rewrites it, and every
    // test binary would relink. So `-dirty` says whether the work tree
    // differed from its commit when the commit last changed (or the build
    // script did).
    let git_path = |p: &str| {
        Command::new("git")
            .args(["rev-parse", "--git-path", p])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .map(|s| s.trim().to_string())
    };
    let branch = Command::new("git")
        .args(["symbolic-ref", "-q", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string());
    let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
    watched.extend(branch);
    for p in watched {
        if let Some(path) = git_path(&p) {
            if std::path::Path::new(&path).exists() {
                println!("cargo:rerun-if-changed={path}");
            }
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
