//! Reports agree with themselves and with what they were given (issue 17):
//! percentiles never above the maximum, Markdown tables that stay tables
//! whatever a dataset is called, strategy specs that say one thing once.

mod common;
use common::{command, hard_lines, json};

use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("bench-sudoku-reliability-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
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
    // The dataset is named by its file's stem as printed (the line break
    // shown as `\n`), whose `\` Markdown escapes.
    assert!(rows[2].contains("we\\|ird\\\\nname\\\\\\|"), "{}", rows[2]);
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

/// A valid grid: row r, column c holds (3r + r/3 + c) mod 9, digits mapped
/// by `map`.
fn pattern_grid(map: impl Fn(usize) -> usize) -> String {
    (0..81)
        .map(|i| {
            let (r, c) = (i / 9, i % 9);
            char::from(b'0' + map((3 * r + r / 3 + c) % 9 + 1) as u8)
        })
        .collect()
}

#[test]
fn another_valid_solution_of_a_puzzle_with_several_is_not_a_mismatch() {
    let dir = scratch("multi");
    // The empty grid has every valid grid as a solution; the dataset gives
    // one that the engines do not find first.
    let empty = "0".repeat(81);
    let given = pattern_grid(|d| 10 - d);
    let data = dir.join("multi.csv");
    std::fs::write(&data, format!("puzzle,solution\n{empty},{given}\n")).unwrap();
    let out = dir.join("out");
    let o = command()
        .args(["run", "-q", "-s", "fast", "-s", "hidden", "--out"])
        .arg(&out)
        .arg(&data)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let summary = json(&out.join("summary.json"));
    for r in summary["results"].as_array().unwrap() {
        assert_eq!(r["mismatches"], 0, "{r}");
        assert_eq!(r["wrong_answers"], 0, "{r}");
    }
    // A wrong grid is still caught: a dataset solution that differs from
    // the engine's on a puzzle with one solution.
    let unique =
        "800000000003600000070090200050007000000045700000100030001000068008500010090000400";
    let wrong_given = pattern_grid(|d| d); // solves the empty grid, not this one
    std::fs::write(&data, format!("puzzle,solution\n{unique},{wrong_given}\n")).unwrap();
    let o = command()
        .args(["run", "-q", "-s", "fast", "--force", "--out"])
        .arg(&out)
        .arg(&data)
        .output()
        .unwrap();
    // The reader refuses a solution column that does not solve its puzzle.
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn a_closed_stdout_ends_solve_quietly() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;
    let mut child = command()
        .args(["solve", "--json", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        for _ in 0..20_000 {
            if writeln!(stdin, "{}", common::EASY).is_err() {
                break; // the command has stopped reading
            }
        }
    });
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with('{'), "{first}");
    // The reader goes away, as `| head -1` does.
    let o = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.is_empty(), "nothing said about the closed pipe: {err}");
}

#[test]
fn solve_bounds_the_lines_it_reads() {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = command()
        .args(["solve", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // 10 MB without a newline: refused once past the line limit.
    let feeder = std::thread::spawn(move || {
        let block = vec![b'1'; 1 << 16];
        for _ in 0..160 {
            if stdin.write_all(&block).is_err() {
                break;
            }
        }
    });
    let o = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("stdin:1: line longer than 65536 bytes"),
        "{err}"
    );
}

#[cfg(unix)]
#[test]
fn paths_that_are_not_utf8_work() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = scratch("bytes");
    let data = dir.join(OsStr::from_bytes(b"data\xff.txt"));
    std::fs::write(&data, hard_lines(3)).unwrap();
    let out = dir.join(OsStr::from_bytes(b"out\xfe"));
    let o = command()
        .args(["run", "-q", "-s", "fast", "--out"])
        .arg(&out)
        .arg(&data)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let meta = json(&out.join("meta.json"));
    let line = meta["command_line"].to_string();
    assert!(line.contains("out\u{fffd}"), "{line}");
    assert_eq!(meta["complete"], true);
}

/// A panic in a worker (injected with BENCH_SUDOKU_FAULT) ends the run
/// promptly: exit 70, the message names the stage and the batch, and what
/// was measured before is written and marked incomplete. Either stage that
/// runs in parallel: finishing a batch, and parsing one.
#[test]
fn a_panic_in_a_worker_ends_the_run_with_partial_results() {
    let dir = scratch("panic");
    let data = dir.join("many.txt");
    let lines = hard_lines(1000);
    std::fs::write(&data, lines.repeat(3)).unwrap();
    for (threads, fault, stage) in [
        (
            "1",
            "finish:1500",
            "finishing the batch of many from puzzle",
        ),
        (
            "2",
            "finish:1500",
            "finishing the batch of many from puzzle",
        ),
        ("1", "prepare:1500", "reading many"),
        ("2", "prepare:1500", "reading many"),
    ] {
        let out = dir.join(format!("out{threads}-{}", &fault[..6]));
        let o = command()
            .env("BENCH_SUDOKU_FAULT", fault)
            .args([
                "run",
                "-q",
                "-s",
                "fast",
                "--batch-size",
                "100",
                "-j",
                threads,
                "--out",
            ])
            .arg(&out)
            .arg(&data)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(70), "{err}");
        assert!(err.contains(&format!("a thread panicked {stage}")), "{err}");
        assert!(
            err.contains(&format!("injected by BENCH_SUDOKU_FAULT={fault}")),
            "{err}"
        );
        assert!(err.contains("run incomplete"), "{err}");
        let meta = json(&out.join("meta.json"));
        assert_eq!(meta["complete"], false);
        assert!(
            meta["stopped"].as_str().unwrap().contains("panicked"),
            "{meta}"
        );
        let summary = json(&out.join("summary.json"));
        let r = &summary["results"][0];
        assert_eq!(r["complete"], false);
        let puzzles = r["puzzles"].as_u64().unwrap();
        assert!(puzzles < 3000, "{puzzles}");
        let rows = std::fs::read_to_string(out.join("puzzles.csv")).unwrap();
        assert!(
            rows.lines().count() - 1 <= 1500,
            "rows before the batch only"
        );
        // The summary counts exactly the rows written, also when batches
        // after the failed one were finished.
        assert_eq!(rows.lines().count() as u64 - 1, puzzles);
    }
}

/// Runs the binary (its arguments set by `args`) with files limited to
/// `kib` KiB: writes past it fail with EFBIG, as on a full disk; the signal
/// that would kill the process is ignored.
#[cfg(unix)]
fn with_small_files(
    kib: u32,
    args: impl FnOnce(&mut std::process::Command) -> &mut std::process::Command,
) -> std::process::Output {
    let mut cmd = std::process::Command::new("bash");
    cmd.arg("-c")
        .arg(format!("trap '' XFSZ; ulimit -f {kib}; exec \"$0\" \"$@\""))
        .arg(common::BIN);
    args(&mut cmd).output().unwrap()
}

#[cfg(unix)]
#[test]
fn a_write_that_fails_leaves_nothing_that_looks_finished() {
    let dir = scratch("full");
    // generate -o: the file is never there half-written.
    let file = dir.join("gen.csv");
    let o = with_small_files(4, |c| {
        c.args(["generate", "-n", "300", "-q", "-o"]).arg(&file)
    });
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot write"), "{err}");
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "nothing left behind: {left:?}");
    // run: puzzles.csv cannot be written whole; the run says so, keeps no
    // cut-off rows under the final name, and its meta says incomplete.
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/hard.csv");
    let out = dir.join("out");
    let o = with_small_files(40, |c| {
        c.arg("run")
            .arg(&data)
            .args(["-s", "fast", "-q", "--out"])
            .arg(&out)
    });
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("writing puzzles.csv"), "{err}");
    assert!(!out.join("puzzles.csv").exists());
    assert!(!out.join("puzzles.csv.partial").exists());
    let meta = json(&out.join("meta.json"));
    assert_eq!(meta["complete"], false);
    assert_eq!(json(&out.join("summary.json"))["meta"]["complete"], false);
}

fn run_into(out: &Path, data: &Path, extra: &[&str]) -> std::process::Output {
    command()
        .args(["run", "-q", "-s", "fast", "--out"])
        .arg(out)
        .arg(data)
        .args(extra)
        .output()
        .unwrap()
}

fn compare_dirs(a: &Path, b: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let o = command()
        .arg("compare")
        .arg(a)
        .arg(b)
        .args(extra)
        .output()
        .unwrap();
    // The refusal is on stderr; a row the judge does not judge says why
    // on stdout: both are read.
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned() + &String::from_utf8_lossy(&o.stdout),
    )
}

/// `compare` refuses, with exit 2 and the reason, what it cannot judge.
#[test]
fn compare_refuses_what_it_cannot_judge() {
    let dir = scratch("judge");
    let data = dir.join("set.txt");
    std::fs::write(&data, hard_lines(300)).unwrap();
    let full = dir.join("full");
    assert!(run_into(&full, &data, &[]).status.success());
    // One run given twice shows no change by construction: refused.
    let (code, err) = compare_dirs(&full, &full, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("[same-run]"), "{err}");

    // An incomplete run (a panic injected half-way).
    let cut = dir.join("cut");
    let o = command()
        .env("BENCH_SUDOKU_FAULT", "finish:150")
        .args(["run", "-q", "-s", "fast", "--batch-size", "50", "--out"])
        .arg(&cut)
        .arg(&data)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(70));
    let (code, err) = compare_dirs(&full, &cut, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("is an incomplete run"), "{err}");
    // Allowed, but an incomplete run does not record its dataset's content
    // (the hash covers every record): whether both measured the same
    // puzzles cannot be checked, so its time is not judged.
    let (code, err) = compare_dirs(&full, &cut, &["--allow-incomplete"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("does not record its dataset's content"),
        "{err}"
    );

    // A puzzles.csv cut short (99 rows) under a summary of 300.
    let short = dir.join("short");
    assert!(run_into(&short, &data, &[]).status.success());
    let rows = std::fs::read_to_string(short.join("puzzles.csv")).unwrap();
    let kept: Vec<&str> = rows.lines().take(100).collect();
    std::fs::write(short.join("puzzles.csv"), kept.join("\n") + "\n").unwrap();
    let (code, err) = compare_dirs(&full, &short, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(
            "disagree on set/fast (rows (puzzles): 99 in puzzles.csv, 300 in summary.json"
        ),
        "{err}"
    );

    // Another file of the same name.
    let other_dir = dir.join("other");
    std::fs::create_dir_all(&other_dir).unwrap();
    let other = other_dir.join("set.txt");
    std::fs::write(
        &other,
        hard_lines(600)
            .lines()
            .skip(300)
            .collect::<Vec<_>>()
            .join("\n"),
    )
    .unwrap();
    let elsewhere = dir.join("elsewhere");
    assert!(run_into(&elsewhere, &other, &[]).status.success());
    let (code, err) = compare_dirs(&full, &elsewhere, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("[other-puzzles] not the same experiment"),
        "{err}"
    );

    // Two shards of one file: no puzzle in common.
    let (s1, s2) = (dir.join("s1"), dir.join("s2"));
    assert!(run_into(&s1, &data, &["--shard", "1/2"]).status.success());
    assert!(run_into(&s2, &data, &["--shard", "2/2"]).status.success());
    let (code, err) = compare_dirs(&s1, &s2, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("set/fast: the two runs share no puzzle"),
        "{err}"
    );
}

/// Tracker exports of a run that stopped early say so in their own format:
/// the unit's name carries `[incomplete]` (and github-benchmark's `extra`
/// says why), so that it never joins the series of finished runs.
#[test]
fn tracker_exports_of_an_incomplete_run_say_so() {
    let dir = scratch("exports");
    let data = dir.join("set.txt");
    std::fs::write(&data, hard_lines(300)).unwrap();
    let (bmf, gh) = (dir.join("bmf.json"), dir.join("gh.json"));
    let o = command()
        .env("BENCH_SUDOKU_FAULT", "finish:150")
        .args(["run", "-q", "-s", "fast", "--batch-size", "50", "--out"])
        .arg(dir.join("out"))
        .arg(&data)
        .args(["--export", "bmf"])
        .arg(&bmf)
        .args(["--export", "github-benchmark"])
        .arg(&gh)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(70));
    let b = json(&bmf);
    assert!(b.get("set/fast [incomplete]").is_some(), "{b}");
    assert!(b.get("set/fast").is_none(), "{b}");
    let g = json(&gh);
    let first = &g.as_array().unwrap()[0];
    assert_eq!(first["name"], "set/fast [incomplete] latency");
    assert!(
        first["extra"]
            .as_str()
            .unwrap()
            .starts_with("INCOMPLETE RUN"),
        "{first}"
    );
}

/// A dataset given as a stream (`-`, a FIFO) is read once: copied to a
/// temporary file, then inspected and read like any file.
#[cfg(unix)]
#[test]
fn streams_work_as_datasets() {
    let dir = scratch("streams");
    let lines = hard_lines(50);
    // Standard input.
    let out = dir.join("stdin");
    let mut run = command();
    run.args(["run", "-", "-q", "-s", "fast", "--out"])
        .arg(&out);
    succeeds_with_stdin(run, &lines);
    let meta = json(&out.join("meta.json"));
    assert_eq!(meta["datasets"][0]["name"], "stdin");
    assert_eq!(meta["datasets"][0]["puzzles"], 50);
    // A FIFO, fed gzip-compressed by another process.
    let fifo = dir.join("pipe.fifo");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let plain = dir.join("plain.txt");
    std::fs::write(&plain, &lines).unwrap();
    let feeder = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "gzip -c '{}' > '{}'",
            plain.display(),
            fifo.display()
        ))
        .spawn()
        .unwrap();
    let out = dir.join("fifo");
    let o = command()
        .args([
            "run",
            "-q",
            "-s",
            "fast",
            "-s",
            "hidden",
            "--sequential",
            "--out",
        ])
        .arg(&out)
        .arg(&fifo)
        .output()
        .unwrap();
    feeder.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let meta = json(&out.join("meta.json"));
    assert_eq!(meta["datasets"][0]["gzip"], true);
    assert_eq!(meta["processed"], 100, "both strategies read it whole");
    // check - reads standard input too.
    let mut check = command();
    check.args(["check", "-"]);
    succeeds_with_stdin(check, &lines);
}

/// Runs `cmd` with `input` on its standard input; it must exit 0.
#[cfg(unix)]
fn succeeds_with_stdin(mut cmd: std::process::Command, input: &str) {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
}

/// `--out DIR --force` never removes or overwrites a dataset that sits in
/// DIR under the name of a results file.
#[test]
fn an_output_never_overwrites_an_input() {
    let dir = scratch("clobber");
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let data = out.join("summary.csv");
    std::fs::write(&data, hard_lines(20)).unwrap();
    let o = command()
        .args(["run", "-q", "-s", "fast", "--force", "--out"])
        .arg(&out)
        .arg(&data)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("would overwrite the dataset"), "{err}");
    assert_eq!(std::fs::read_to_string(&data).unwrap(), hard_lines(20));
}
