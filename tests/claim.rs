//! Runs never share a results directory: a default name is taken
//! atomically, an explicit `--out` is held by one run at a time (a lock file
//! naming its owner), and a lock left by a dead process blocks nobody.

mod common;
use common::{command, hard_lines, json, scratch};

use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};

fn spawn(cwd: &Path, args: &[&str]) -> Child {
    command()
        .current_dir(cwd)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The rows of a puzzles.csv (header left out) by strategy.
fn rows_by_strategy(file: &Path) -> Vec<(String, usize)> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut counts: Vec<(String, usize)> = Vec::new();
    for line in text.lines().skip(1) {
        let strategy = line.split(',').nth(4).unwrap().to_string();
        match counts.iter_mut().find(|(s, _)| *s == strategy) {
            Some((_, n)) => *n += 1,
            None => counts.push((strategy, 1)),
        }
    }
    counts
}

/// Runs started together in one working directory, each with the default
/// results directory: all succeed, each in its own directory, with exactly
/// its own rows.
#[test]
fn runs_started_together_get_their_own_default_directories() {
    let dir = scratch("default");
    // One dataset name (the default directory is named after it), three
    // sizes and three strategies: every run's rows are told apart.
    let runs = [("a", 30, "fast"), ("b", 40, "hidden"), ("c", 50, "locked")];
    for (sub, n, _) in runs {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        std::fs::write(dir.join(sub).join("set.txt"), hard_lines(n)).unwrap();
    }
    let children: Vec<Child> = runs
        .iter()
        .map(|(sub, _, s)| {
            spawn(
                &dir,
                &["run", &format!("{sub}/set.txt"), "-s", s, "-q", "-j", "1"],
            )
        })
        .collect();
    let outputs: Vec<Output> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    let mut dirs: Vec<PathBuf> = Vec::new();
    for ((_, n, strategy), o) in runs.iter().zip(&outputs) {
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{err}");
        let out = String::from_utf8_lossy(&o.stdout);
        let line = out
            .lines()
            .find_map(|l| l.strip_prefix("results in "))
            .unwrap_or_else(|| panic!("no 'results in': {out}"));
        let results = dir.join(line);
        assert_eq!(json(&results.join("meta.json"))["complete"], true);
        assert_eq!(
            json(&results.join("summary.json"))["results"][0]["strategy"],
            *strategy
        );
        assert_eq!(
            rows_by_strategy(&results.join("puzzles.csv")),
            vec![(strategy.to_string(), *n)],
            "{line}"
        );
        assert!(!results.join(".bench-sudoku.lock").exists());
        dirs.push(results);
    }
    dirs.sort();
    dirs.dedup();
    assert_eq!(dirs.len(), runs.len(), "{dirs:?}");
    let made = std::fs::read_dir(dir.join("results")).unwrap().count();
    assert_eq!(made, runs.len());
}

/// Two runs started together on one `--out` (one with `--force`): one
/// holds the directory and completes; the other is refused with exit 2,
/// naming the first (its pid and command line). A lock file left behind by
/// a process that no longer runs blocks nobody.
#[test]
fn a_second_run_on_one_out_directory_is_refused_naming_the_first() {
    let dir = scratch("out");
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/hard.csv");
    let data = data.to_str().unwrap();
    // Long enough (about 1.5 s in a debug build) for the two to overlap.
    let long = [
        "-s", "mrv", "--repeat", "3", "-j", "1", "-q", "--out", "shared",
    ];
    let mut a: Vec<&str> = vec!["run", data];
    a.extend(long);
    let mut b = a.clone();
    b.push("--force");
    let children = [spawn(&dir, &a), spawn(&dir, &b)];
    let pids: Vec<u32> = children.iter().map(Child::id).collect();
    let outputs: Vec<Output> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    let codes: Vec<Option<i32>> = outputs.iter().map(|o| o.status.code()).collect();
    let winner = codes
        .iter()
        .position(|c| *c == Some(0))
        .unwrap_or_else(|| panic!("no run succeeded: {codes:?}"));
    let loser = 1 - winner;
    let err = String::from_utf8_lossy(&outputs[loser].stderr);
    assert_eq!(codes[loser], Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "--out shared: in use by another bench-sudoku command (pid {}, started ",
            pids[winner]
        )),
        "{err}"
    );
    assert!(
        err.contains("run ") && err.contains("--out shared"),
        "{err}"
    );
    let shared = dir.join("shared");
    assert_eq!(json(&shared.join("meta.json"))["complete"], true);
    assert_eq!(
        rows_by_strategy(&shared.join("puzzles.csv")),
        vec![("mrv".to_string(), 1000)]
    );
    assert!(!shared.join(".bench-sudoku.lock").exists());

    // A lock file of a process that is gone: the next run takes the
    // directory, and removes the file at the end.
    std::fs::write(
        shared.join(".bench-sudoku.lock"),
        "{\"pid\":4194304,\"started\":\"2026-01-01T00:00:00Z\",\"command_line\":[\"gone\"]}\n",
    )
    .unwrap();
    let o = command()
        .current_dir(&dir)
        .args([
            "run", data, "-s", "fast", "-q", "--limit", "20", "--out", "shared", "--force",
        ])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!shared.join(".bench-sudoku.lock").exists());
}

/// `merge --out` claims its directory the same way.
#[test]
fn merge_refuses_a_directory_another_command_holds() {
    let dir = scratch("merge");
    std::fs::write(dir.join("set.txt"), hard_lines(20)).unwrap();
    for k in ["1/2", "2/2"] {
        let o = command()
            .current_dir(&dir)
            .args(["run", "set.txt", "-s", "fast", "-q", "--shard", k, "--out"])
            .arg(format!("s{}", &k[..1]))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    // A long run holds `held`; the merge into it is refused while it runs.
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/hard.csv");
    let mut holder = spawn(
        &dir,
        &[
            "run",
            data.to_str().unwrap(),
            "-s",
            "mrv",
            "--repeat",
            "3",
            "-j",
            "1",
            "-q",
            "--out",
            "held",
        ],
    );
    let lock = dir.join("held/.bench-sudoku.lock");
    let since = std::time::Instant::now();
    while !std::fs::read_to_string(&lock).is_ok_and(|t| t.contains("\"pid\"")) {
        assert!(
            since.elapsed().as_secs() < 60,
            "the run never took its directory"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let o = command()
        .current_dir(&dir)
        .args(["merge", "s1", "s2", "--out", "held", "--force"])
        .output()
        .unwrap();
    let done = holder.wait().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(done.success());
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "--out held: in use by another bench-sudoku command (pid {}",
            holder.id()
        )),
        "{err}"
    );
    assert_eq!(
        json(&dir.join("held/meta.json"))["options"]["strategies"][0],
        "mrv"
    );
}
