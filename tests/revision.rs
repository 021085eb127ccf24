//! Which revision of each solver a run measured: `rev=`, `run --revision`,
//! and `git describe` of the work tree holding an external solver's file.

mod common;
use common::solvers::{self, dataset};
use common::*;
use std::path::Path;
use std::process::Command;

/// A solver command in its own git repository: a script that serves
/// `fast` through bench-sudoku itself. Returns the script's path.
fn solver_repo(dir: &Path) -> std::path::PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let script = dir.join("solver.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nexec '{}' serve -s fast \"$@\"\n",
            env!("CARGO_BIN_EXE_bench-sudoku")
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    script
}

/// Each strategy's (name, revision, revision_from) from meta.json.
fn revisions(dir: &Path) -> Vec<(String, Option<String>, Option<String>)> {
    let meta = json(&dir.join("meta.json"));
    meta["options"]["strategy_details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["name"].as_str().unwrap().to_string(),
                d["revision"].as_str().map(str::to_string),
                d["revision_from"].as_str().map(str::to_string),
            )
        })
        .collect()
}

fn has_git() -> bool {
    Command::new("git").arg("--version").output().is_ok()
}

#[test]
fn a_solver_in_a_work_tree_is_at_its_described_revision() {
    if !has_git() {
        skip_without("git", "revisions come from git");
        return;
    }
    let repo = scratch("repo");
    let script = solver_repo(&repo.join("mine"));
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "first"]);
    let head = git(&repo, &["rev-parse", "--short", "HEAD"]);
    let cmd = format!("cmd={},name=mine", script.display());
    let data = dataset("hard.csv");
    let r = solvers::run(
        "described",
        &[&data, "--limit", "20", "-s", "fast", "-s", &cmd],
        &[],
    );
    assert_eq!(r.code(), 0, "{}", r.stderr());
    let revs = revisions(&r.dir);
    let mine = revs.iter().find(|(n, _, _)| n == "mine").unwrap();
    assert_eq!(mine.1.as_deref(), Some(head.as_str()));
    assert!(
        mine.2.as_deref().unwrap().starts_with("git describe in "),
        "{mine:?}"
    );
    let fast = revs.iter().find(|(n, _, _)| n == "fast").unwrap();
    assert_eq!(fast.2.as_deref(), Some("bench-sudoku's build"));
    assert!(fast.1.is_some());
    let md = std::fs::read_to_string(r.dir.join("summary.md")).unwrap();
    assert!(md.contains(&format!("mine {head}")), "{md}");
    let html = std::fs::read_to_string(r.dir.join("report.html")).unwrap();
    assert!(html.contains(&format!("mine {head}")));

    // A change to a tracked file makes the tree dirty, and says so.
    std::fs::write(
        repo.join("mine/solver.sh"),
        format!(
            "#!/bin/sh\n# changed\nexec '{}' serve -s fast \"$@\"\n",
            env!("CARGO_BIN_EXE_bench-sudoku")
        ),
    )
    .unwrap();
    let r = solvers::run("dirty", &[&data, "--limit", "20", "-s", &cmd], &[]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    assert_eq!(
        revisions(&r.dir)[0].1.as_deref(),
        Some(format!("{head}-dirty").as_str())
    );
}

#[test]
fn rev_and_revision_take_precedence_and_are_carried() {
    let outside = scratch("outside");
    let script = solver_repo(&outside.join("s"));
    let data = dataset("hard.csv");
    let cmd = format!("cmd={}", script.display());
    let a = format!("{cmd},name=a,rev=v2.0-rc1");
    let b = format!("{cmd},name=b");
    let r = solvers::run(
        "precedence",
        &[
            &data,
            "--limit",
            "20",
            "-s",
            "fast,rev=mine-7",
            "-s",
            &a,
            "-s",
            &b,
            "--revision",
            "1a2b3c",
            "--export",
            "github-benchmark",
            outside.join("gab.json").to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(r.code(), 0, "{}", r.stderr());
    let revs = revisions(&r.dir);
    let get = |name: &str| revs.iter().find(|(n, _, _)| n == name).unwrap().clone();
    assert_eq!(
        get("fast"),
        ("fast".into(), Some("mine-7".into()), Some("rev=".into()))
    );
    assert_eq!(
        get("a"),
        ("a".into(), Some("v2.0-rc1".into()), Some("rev=".into()))
    );
    assert_eq!(
        get("b"),
        ("b".into(), Some("1a2b3c".into()), Some("--revision".into()))
    );
    assert_eq!(json(&r.dir.join("meta.json"))["revision"], "1a2b3c");
    let gab = std::fs::read_to_string(outside.join("gab.json")).unwrap();
    assert!(gab.contains("revision v2.0-rc1; "), "{gab}");
}

#[test]
fn bad_revisions_are_refused_before_any_work() {
    let data = dataset("hard.csv");
    for (spec, why) in [
        ("fast,rev=a b", "without spaces"),
        ("fast,rev=x,rev=y", "rev= is given twice"),
        ("rev=abc", "give the strategy too"),
        ("fast,rev=", "1 to 128 characters"),
    ] {
        let dir = scratch("bad-rev");
        let o = bin(&["run", &data, "-s", spec, "--out", dir.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{spec}");
        assert!(err(&o).contains(why), "{spec}: {}", err(&o));
        assert!(!dir.join("meta.json").exists());
    }
    let o = bin(&["run", &data, "--revision", "a,b"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("--revision"), "{}", err(&o));
}

#[test]
fn merge_carries_revisions_and_refuses_shards_of_two() {
    let dir = scratch("merge-revisions");
    let data = dataset("hard.csv");
    let run = |k: u32, rev: &str| {
        let out = dir.join(format!("s{k}-{rev}"));
        let spec = format!("fast,name=mine,rev={rev}");
        let shard = format!("{k}/2");
        let o = bin(&[
            "run",
            &data,
            "--limit",
            "40",
            "-q",
            "-s",
            &spec,
            "--shard",
            &shard,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", err(&o));
        out
    };
    let (a, b, c) = (run(1, "r1"), run(2, "r1"), run(2, "r2"));
    let merged = dir.join("merged");
    let o = bin(&[
        "merge",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(revisions(&merged)[0].1.as_deref(), Some("r1"));
    let o = bin(&[
        "merge",
        a.to_str().unwrap(),
        c.to_str().unwrap(),
        "--out",
        dir.join("bad").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("strategy_details[0].revision: \"r1\" and \"r2\""),
        "{}",
        err(&o)
    );
}
