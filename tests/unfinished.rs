//! Nothing half-written looks finished: a run whose report files cannot
//! all be written leaves no file that says `"complete": true`, and every
//! reader of a results directory requires a `meta.json` that says complete
//! (`report` renders an incomplete run, marked as such).

mod common;
use common::{command, hard_lines, json, scratch};

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Every regular file under `dir`, hidden ones included.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                todo.push(e.path());
            } else {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

fn claims_complete(file: &Path) -> bool {
    let bytes = std::fs::read(file).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    text.contains("\"complete\": true") || text.contains("\"complete\":true")
}

/// The exit status and standard error of `bench-sudoku args…`.
fn status(args: &[OsString]) -> (Option<i32>, String) {
    let o = command().args(args).output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn os(parts: &[&dyn AsRef<std::ffi::OsStr>]) -> Vec<OsString> {
    parts.iter().map(|p| p.as_ref().to_os_string()).collect()
}

/// Every reader refuses `dir` (exit 2, saying why) and `report` renders it
/// marked incomplete, or refuses it when it has no summary.json.
#[track_caller]
fn readers_refuse(dir: &Path, good: &Path, scratch: &Path) {
    let why = |err: &str| {
        err.contains("the run did not finish writing its results")
            || err.contains("an incomplete run")
            // A limit below meta.json's size stops the run before it
            // measures: the directory holds nothing of a result.
            || err.contains("not a results directory")
    };
    let (bmf, merged) = (scratch.join("bmf.json"), scratch.join("merged"));
    let checks = [
        ("compare", os(&[&"compare", &good, &dir])),
        ("export", os(&[&"export", &dir, &"--export", &"bmf", &bmf])),
        ("merge", os(&[&"merge", &dir, &"--out", &merged])),
        ("trend", os(&[&"trend", &good, &dir])),
    ];
    for (name, args) in checks {
        let (code, err) = status(&args);
        assert_eq!(code, Some(2), "{name} {}: {err}", dir.display());
        assert!(why(&err), "{name} {}: {err}", dir.display());
    }
    assert!(!bmf.exists());
    assert!(!merged.join("meta.json").exists());
    let (code, err) = status(&os(&[&"report", &dir]));
    if dir.join("summary.json").is_file() && dir.join("meta.json").is_file() {
        assert_eq!(code, Some(0), "report {}: {err}", dir.display());
        let page = std::fs::read_to_string(dir.join("report.html")).unwrap();
        assert!(page.contains("INCOMPLETE RUN"), "{}", dir.display());
    } else {
        assert_eq!(code, Some(2), "report {}: {err}", dir.display());
        assert!(why(&err), "{err}");
    }
}

/// A file size limit (`ulimit -f`, the signal it raises left as it is: the
/// binary ignores SIGXFSZ itself) set so that each report file in turn is
/// the first that cannot be written.
#[cfg(unix)]
#[test]
fn a_report_that_cannot_be_written_whole_claims_nothing() {
    let dir = scratch("limits");
    let data = dir.join("set.txt");
    std::fs::write(&data, hard_lines(100)).unwrap();
    let run = |out: &Path, limit: Option<u64>| {
        let mut cmd = std::process::Command::new("bash");
        let limit = limit.map_or(String::new(), |k| format!("ulimit -f {k}; "));
        cmd.arg("-c")
            .arg(format!("{limit}exec \"$0\" \"$@\""))
            .arg(common::BIN)
            .args([
                "run",
                "-q",
                "-s",
                "fast",
                "--no-puzzle-csv",
                "--shard",
                "1/1",
            ])
            .arg("--out")
            .arg(out)
            .arg(&data);
        cmd.output().unwrap()
    };
    let good = dir.join("good");
    let o = run(&good, None);
    assert_eq!(o.status.code(), Some(0), "{}", common::err(&o));
    // Limits (in KiB) just below the size of each file of a whole report,
    // and 1/8 below it (the sizes vary a little from run to run: the times
    // differ). All report files are written to temporary files before any
    // is renamed, so the first that fails stops them all; what the limit
    // then decides is which files of the report marked incomplete can still
    // be written (none, or meta.json alone, or meta.json and summary.json,
    // …). Every limit is well below the largest file, which never fits.
    let sizes: Vec<u64> = files(&good)
        .iter()
        .map(|f| std::fs::metadata(f).unwrap().len())
        .collect();
    let largest = sizes.iter().max().unwrap() * 7 / 8 / 1024;
    let mut limits: Vec<u64> = sizes
        .iter()
        .flat_map(|&len| [len.saturating_sub(1) / 1024, len * 7 / 8 / 1024])
        .filter(|&k| k > 0 && k <= largest)
        .collect();
    limits.sort_unstable();
    limits.dedup();
    assert!(limits.len() >= 3, "{limits:?}");
    for k in limits {
        let out = dir.join(format!("limit-{k}"));
        let o = run(&out, Some(k));
        let err = common::err(&o);
        assert_eq!(o.status.code(), Some(2), "limit {k} KiB: {err}");
        assert!(err.contains("File too large"), "limit {k} KiB: {err}");
        assert!(
            err.contains("writing the results in"),
            "limit {k} KiB: {err}"
        );
        // A directory the run created and could write nothing into is
        // removed with the run.
        let left = if out.exists() {
            files(&out)
        } else {
            Vec::new()
        };
        for f in left {
            assert!(!claims_complete(&f), "limit {k} KiB: {}", f.display());
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            assert!(!name.ends_with(".tmp"), "limit {k} KiB: {name} left");
        }
        if out.join("meta.json").exists() {
            let meta = json(&out.join("meta.json"));
            assert_eq!(meta["complete"], false);
            assert!(
                meta["stopped"]
                    .as_str()
                    .unwrap()
                    .contains("the results could not be written"),
                "{meta}"
            );
        }
        if out.exists() {
            readers_refuse(&out, &good, &dir);
        }
    }
}

/// What a kill at the worst moments leaves: a summary.json without
/// meta.json (killed before the report began: a results directory of an
/// older layout, or files copied without it), and a summary.json of the
/// finished run beside the meta.json written before the report files, which
/// says incomplete (killed between the last two renames). Both are refused.
#[test]
fn a_summary_without_a_finished_meta_is_refused() {
    let dir = scratch("killed");
    let data = dir.join("set.txt");
    std::fs::write(&data, hard_lines(50)).unwrap();
    let run_to = |out: &Path| {
        let o = command()
            .args(["run", "-q", "-s", "fast", "--shard", "1/1", "--out"])
            .arg(out)
            .arg(&data)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", common::err(&o));
    };
    let good = dir.join("good");
    run_to(&good);
    let copy = |name: &str| {
        let to = dir.join(name);
        common::copy_dir(&good, &to);
        to
    };
    let no_meta = copy("no-meta");
    std::fs::remove_file(no_meta.join("meta.json")).unwrap();
    readers_refuse(&no_meta, &good, &dir);

    let between = copy("between");
    let mut meta = json(&between.join("meta.json"));
    meta["complete"] = false.into();
    meta["stopped"] = "the command stopped while it wrote the results".into();
    std::fs::write(
        between.join("meta.json"),
        serde_json::to_vec_pretty(&meta).unwrap(),
    )
    .unwrap();
    readers_refuse(&between, &good, &dir);
    // The opt-in reads it, as the incomplete run meta.json says it is
    // (against another run: a copy of `good` is the same run).
    let other = dir.join("other");
    run_to(&other);
    let o = command()
        .arg("compare")
        .arg(&other)
        .arg(&between)
        .arg("--allow-incomplete")
        .output()
        .unwrap();
    assert!(
        matches!(o.status.code(), Some(0 | 1 | 3)),
        "{}",
        common::err(&o)
    );
    assert!(
        common::text(&o.stdout).contains("is an incomplete run"),
        "{}",
        common::text(&o.stdout)
    );
}
