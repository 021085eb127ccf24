//! The one judge, from every command that gives a verdict: a liar, a
//! quitter or a run of another experiment never gets a green light from
//! `run --gate`, `compare`, `trend --fail-on-step`, `history add`, `merge`
//! or `export` (docs/RELIABILITY.md).

mod common;

use common::solvers::{fixtures, MANIFEST};
use common::*;
use std::path::{Path, PathBuf};

/// The Python solver of `tests/fixtures/solvers/judged.py` with `args`
/// (`--claim F`, `--quit`), labelled `name`.
fn judged(args: &str, name: &str) -> String {
    let py = Path::new(MANIFEST).join("tests/fixtures/solvers/judged.py");
    format!("cmd=python3 {} {args},name={name},rev=r", py.display())
}

/// `run` of the first `n` puzzles of hard.csv into `out` with `args`.
fn run_into(out: &Path, n: usize, args: &[&str]) -> std::process::Output {
    let data = Path::new(MANIFEST).join("datasets/hard.csv");
    let limit = n.to_string();
    let mut a = vec![
        "run",
        data.to_str().unwrap(),
        "--limit",
        &limit,
        "-j",
        "1",
        "-q",
        "--force",
        "--out",
        out.to_str().unwrap(),
    ];
    a.extend_from_slice(args);
    bin(&a)
}

fn stdout(o: &std::process::Output) -> String {
    text(&o.stdout)
}

fn all(o: &std::process::Output) -> String {
    format!("{}{}", text(&o.stdout), err(o))
}

fn require_python() {
    let ok = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(ok, "these tests need python3 (the judged solver is Python)");
}

/// Two runs of the first `n` puzzles beside `fast` into `dir/a` and
/// `dir/b`: the judged solver with `args.0` at revision `r`, then with
/// `args.1` at `r2`; and `compare` of the two.
fn revisions_compared(
    dir: &Path,
    n: usize,
    args: (&str, &str),
) -> (PathBuf, PathBuf, std::process::Output) {
    let (a, b) = (dir.join("a"), dir.join("b"));
    let base = judged(args.0, "mine");
    let head = judged(args.1, "mine").replace("rev=r", "rev=r2");
    for (out, spec) in [(&a, &base), (&b, &head)] {
        let o = run_into(out, n, &["-s", "fast", "-s", spec]);
        assert_eq!(o.status.code(), Some(0), "{}", all(&o));
    }
    let o = bin(&["compare", a.to_str().unwrap(), b.to_str().unwrap()]);
    (a, b, o)
}

/// Giving up is never faster: a revision that gives up on most puzzles
/// fails `compare` and `trend --fail-on-step` whatever its times.
#[test]
fn a_quitter_fails_compare_and_trend() {
    require_python();
    let dir = scratch("judge-quitter");
    let (a, b, o) = revisions_compared(&dir, 200, ("", "--quit"));
    assert_eq!(o.status.code(), Some(1), "{}", all(&o));
    assert!(
        stdout(&o).contains("hard/mine: FAIL: [gave-up] the current run gave up or stalled"),
        "{}",
        stdout(&o)
    );
    let h = dir.join("history.jsonl");
    for out in [&a, &b] {
        let o = bin(&[
            "history",
            "add",
            out.to_str().unwrap(),
            "--file",
            h.to_str().unwrap(),
            "-s",
            "mine",
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", all(&o));
    }
    let o = bin(&["trend", h.to_str().unwrap(), "--fail-on-step"]);
    assert_eq!(o.status.code(), Some(1), "{}", all(&o));
    assert!(
        err(&o).contains("FAIL: hard/mine at r2: [gave-up]"),
        "{}",
        all(&o)
    );
}

/// Giving up is judged puzzle by puzzle: a revision that gives up on as
/// many puzzles as the baseline, but on puzzles the baseline answered,
/// fails `compare`; the times are compared over the puzzles both answered.
#[test]
fn giving_up_on_other_puzzles_fails_compare() {
    require_python();
    let dir = scratch("judge-quit-other");
    let (_, _, o) = revisions_compared(&dir, 120, ("--quit-on 1", "--quit-on 2"));
    assert_eq!(o.status.code(), Some(1), "{}", all(&o));
    assert!(
        stdout(&o).contains("puzzles the baseline answered (e.g. index"),
        "{}",
        stdout(&o)
    );
}

/// A results directory whose puzzles.csv and summary.json disagree gets no
/// verdict, whichever figure was edited (an answer marked rejected, an
/// outcome changed, every time of a strategy tripled: the interval would
/// otherwise say regressed while the passes' totals say nothing moved);
/// and a run compared with itself or a copy of itself is refused too.
#[test]
fn rows_that_disagree_with_the_summary_are_not_judged() {
    let dir = scratch("judge-rows-summary");
    let a = dir.join("a");
    // One strategy: the exit status is its verdict alone (another
    // unit's time could move between the two runs).
    let o = run_into(&a, 60, &["-s", "naive"]);
    assert_eq!(o.status.code(), Some(0), "{}", all(&o));
    // Each edit: (what, the column, the new cell from the old, what the
    // refusal must name).
    type Edit = (&'static str, &'static str, fn(&str) -> String, &'static str);
    let edits: [Edit; 5] = [
        (
            "rejected",
            "answer",
            |_| "mismatch".into(),
            "rejected answers: 1 in puzzles.csv, 0 in summary.json",
        ),
        ("gave-up", "status", |_| "gave_up".into(), "solved: "),
        (
            "tripled",
            "time_ns",
            |t| (t.parse::<u64>().unwrap() * 3).to_string(),
            "sum of the times kept (ns)",
        ),
        (
            "unreadable",
            "status",
            |_| "gave-up".into(),
            "rows with an outcome this build cannot read: 1",
        ),
        (
            "guesses",
            "guesses",
            |g| (g.parse::<u64>().unwrap() + 1).to_string(),
            "guesses: ",
        ),
    ];
    for (name, column, edit, said) in edits {
        let b = dir.join(name);
        copy_dir(&a, &b);
        // A copy is the same run: refused before anything else.
        let o = bin(&["compare", a.to_str().unwrap(), b.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{}", all(&o));
        assert!(err(&o).contains("[same-run]"), "{}", all(&o));
        // The first row only, or every row for the tripled times.
        edit_rows(&b, column, |i| i == 0 || name == "tripled", edit);
        let o = bin(&["compare", a.to_str().unwrap(), b.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", all(&o));
        assert!(err(&o).contains("[files-disagree]"), "{name}: {}", all(&o));
        assert!(err(&o).contains(said), "{name}: {}", all(&o));
    }
    // A copy whose run_id was rewritten in both files is still one run:
    // the same start, command line and times.
    let forged = dir.join("forged");
    copy_dir(&a, &forged);
    for f in ["summary.json", "meta.json"] {
        let p = forged.join(f);
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        let meta = if f == "meta.json" {
            &mut v
        } else {
            &mut v["meta"]
        };
        meta["run_id"] = "00000000000000ff".into();
        std::fs::write(&p, v.to_string()).unwrap();
    }
    let o = bin(&["compare", a.to_str().unwrap(), forged.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", all(&o));
    assert!(err(&o).contains("[same-run]"), "{}", all(&o));
    // A row renumbered (its time moved to a puzzle out of range) keeps
    // every total, not which puzzle had which time: refused.
    let b = dir.join("b");
    let o = run_into(&b, 60, &["-s", "naive"]);
    assert_eq!(o.status.code(), Some(0), "{}", all(&o));
    let renumbered = dir.join("renumbered");
    copy_dir(&b, &renumbered);
    edit_rows(&renumbered, "index", |i| i == 0, |_| "100000".into());
    let o = bin(&["compare", a.to_str().unwrap(), renumbered.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", all(&o));
    assert!(err(&o).contains("[files-disagree]"), "{}", all(&o));
    assert!(err(&o).contains("(rows_fingerprint)"), "{}", all(&o));
    // So is a time moved from one puzzle to another.
    let swapped = dir.join("swapped");
    copy_dir(&b, &swapped);
    let first = std::fs::read_to_string(swapped.join("puzzles.csv")).unwrap();
    let header: Vec<&str> = first.lines().next().unwrap().split(',').collect();
    let at = header.iter().position(|h| *h == "time_ns").unwrap();
    let times: Vec<String> = first
        .lines()
        .skip(1)
        .take(2)
        .map(|l| l.split(',').nth(at).unwrap().to_string())
        .collect();
    assert_ne!(
        times[0], times[1],
        "two rows of one time cannot show a swap"
    );
    edit_rows(
        &swapped,
        "time_ns",
        |i| i < 2,
        |t| {
            if t == times[0] {
                times[1].clone()
            } else {
                times[0].clone()
            }
        },
    );
    let o = bin(&["compare", b.to_str().unwrap(), swapped.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", all(&o));
    assert!(err(&o).contains("(rows_fingerprint)"), "{}", all(&o));
    // A summary written without the fingerprint leaves the renumbered
    // rows in agreement with it, but the two runs holding different
    // puzzles: not judged.
    let p = renumbered.join("summary.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    for r in v["results"].as_array_mut().unwrap() {
        r.as_object_mut().unwrap().remove("rows_fingerprint");
    }
    std::fs::write(&p, v.to_string()).unwrap();
    let o = bin(&["compare", a.to_str().unwrap(), renumbered.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", all(&o));
    assert!(
        stdout(&o).contains("[other-puzzles] the two runs hashed the same puzzles"),
        "{}",
        all(&o)
    );
}

#[test]
fn a_summary_percentile_its_rows_do_not_give_is_not_judged() {
    let dir = scratch("judge-rows-percentiles");
    let a = dir.join("a");
    let o = run_into(&a, 60, &["-s", "naive"]);
    assert_eq!(o.status.code(), Some(0), "{}", all(&o));
    // Rewritten outside the bucket of the rows' own figure (one part in a
    // thousand), in summary.json alone: its sum, largest time, outcomes and
    // counters still agree with the rows.
    for (field, name) in [("p50_ns", "p50"), ("p99_ns", "p99"), ("p999_ns", "p99.9")] {
        let b = dir.join(field);
        copy_dir(&a, &b);
        let p = b.join("summary.json");
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        let old = v["results"][0][field].as_u64().unwrap();
        v["results"][0][field] = (old / 2).into();
        std::fs::write(&p, v.to_string()).unwrap();
        let o = bin(&["compare", a.to_str().unwrap(), b.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{field}: {}", all(&o));
        assert!(err(&o).contains("[files-disagree]"), "{field}: {}", all(&o));
        let said = format!(
            "{name} of the times kept (ns): {old} in puzzles.csv, {} in",
            old / 2
        );
        assert!(err(&o).contains(&said), "{field}: {}", all(&o));
    }
}

#[test]
fn a_pairing_its_rows_do_not_give_is_not_judged() {
    let dir = scratch("judge-rows-paired");
    let a = dir.join("a");
    let o = run_into(&a, 60, &["-s", "fast", "-s", "locked"]);
    assert_eq!(o.status.code(), Some(0), "{}", all(&o));
    let text = std::fs::read_to_string(a.join("summary.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let locked = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .position(|r| r["strategy"] == "locked")
        .unwrap();
    // Another ratio to the yardstick, or another number of pairs, in
    // summary.json alone: what `history add` and `trend` would record.
    for (name, field, scale) in [("ratio", "geomean_ratio", 1.5), ("pairs", "pairs", 0.5)] {
        let b = dir.join(name);
        copy_dir(&a, &b);
        let mut v = v.clone();
        let p = &mut v["results"][locked]["paired"][field];
        *p = if field == "pairs" {
            ((p.as_f64().unwrap() * scale) as u64).into()
        } else {
            (p.as_f64().unwrap() * scale).into()
        };
        std::fs::write(b.join("summary.json"), v.to_string()).unwrap();
        let o = bin(&["compare", a.to_str().unwrap(), b.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", all(&o));
        assert!(err(&o).contains("[files-disagree]"), "{name}: {}", all(&o));
        assert!(
            err(&o).contains("the pairing with fast: 60 pairs"),
            "{name}: {}",
            all(&o)
        );
    }
    // A side timed by its own clock is paired by its chunks' totals, which
    // the rows do not keep: its honest run reads back, and its number of
    // pairs is still held against the rows.
    require_python();
    let own = dir.join("own-clock");
    let o = run_into(&own, 40, &["-s", "fast", "-s", &judged("", "own")]);
    assert_eq!(o.status.code(), Some(0), "{}", all(&o));
    let bmf = dir.join("own-clock.bmf.json");
    let export = || {
        bin(&[
            "export",
            own.to_str().unwrap(),
            "--export",
            "bmf",
            bmf.to_str().unwrap(),
        ])
    };
    let o = export();
    assert_eq!(o.status.code(), Some(0), "{}", all(&o));
    let p = own.join("summary.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    for r in v["results"].as_array_mut().unwrap() {
        if r["strategy"] == "own" {
            assert_eq!(r["clock"], "solver", "{r}");
            r["paired"]["pairs"] = 39.into();
        }
    }
    std::fs::write(&p, v.to_string()).unwrap();
    let o = export();
    assert_eq!(o.status.code(), Some(2), "{}", all(&o));
    assert!(
        err(&o).contains("the pairing with fast: 40 pairs"),
        "{}",
        all(&o)
    );
}

/// Rewrites column `column` of the rows of `dir/puzzles.csv` whose
/// 0-based row number `which` picks, with `edit` of the old cell (the
/// files of these tests hold no quoted cells).
fn edit_rows(
    dir: &Path,
    column: &str,
    which: impl Fn(usize) -> bool,
    edit: impl Fn(&str) -> String,
) {
    let file = dir.join("puzzles.csv");
    let text = std::fs::read_to_string(&file).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let at = header.split(',').position(|h| h == column).unwrap();
    let mut out = vec![header.to_string()];
    for (i, l) in lines.enumerate() {
        let mut cells: Vec<String> = l.split(',').map(str::to_string).collect();
        if which(i) {
            cells[at] = edit(&cells[at]);
        }
        out.push(cells.join(","));
    }
    std::fs::write(&file, out.join("\n") + "\n").unwrap();
}

/// A solver's own clock is held against the harness's: claiming more than
/// the call took fails; hiding half of its time is not judged; an honest
/// copy is neither.
#[test]
fn a_lying_clock_gets_no_verdict_from_the_gate() {
    require_python();
    let dir = scratch("judge-clock");
    let gate = |cand: &str, out: &str| {
        let o = run_into(
            &dir.join(out),
            320,
            &[
                "-s",
                &judged("", "base"),
                "-s",
                &judged(cand, "cand"),
                "--gate",
                "base:cand",
            ],
        );
        (o.status.code(), all(&o))
    };
    // Twenty times what it took: more than the round trip around the call
    // even on a loaded machine.
    let (code, text) = gate("--claim 20", "more");
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("[clock-claims-more] CANDIDATE cand"),
        "{text}"
    );
    let (code, text) = gate("--claim 0.3", "less");
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("[clock-shares-differ]"), "{text}");
    // Neither the gate nor the tables call it faster.
    assert!(text.contains("0 improved"), "{text}");
    assert!(
        !text
            .lines()
            .any(|l| l.starts_with("hard ") && l.contains("faster")),
        "{text}"
    );
    // Time moved from every other puzzle's claim to its neighbour's: the
    // geometric mean of per-puzzle ratios would call it about 2× faster;
    // paired by chunk totals (all a self-timed side's claims can be
    // checked by) it is not faster.
    let (_, text) = gate("--alt", "alt");
    assert!(text.contains("0 improved"), "{text}");
    // The same solver on both sides: whatever the time verdict, the
    // clocks are believed.
    let (code, text) = gate("", "same");
    assert!(!text.contains("[clock-"), "{text}");
    assert_ne!(code, Some(1), "{text}");
}

/// Runs under another solution limit, search budget or dataset are not one
/// experiment: `compare` does not judge them (exit 2), naming the field.
#[test]
fn compare_refuses_another_experiment() {
    let dir = scratch("judge-experiment");
    let base = dir.join("base");
    let o = run_into(&base, 200, &["-s", "mrv"]);
    assert!(o.status.success(), "{}", all(&o));
    for (name, extra, rule) in [
        ("count", &["--count", "2"][..], "[other-solution-limit]"),
        (
            "budget",
            &["--max-guesses", "3"][..],
            "[other-search-budget]",
        ),
        ("timing", &["--repeat", "2"][..], "[other-timing]"),
        ("transform", &["--transform", "7"][..], "[other-transform]"),
    ] {
        let out = dir.join(name);
        let mut args = vec!["-s", "mrv"];
        args.extend_from_slice(extra);
        let o = run_into(&out, 200, &args);
        assert_ne!(o.status.code(), Some(2), "{name}: {}", all(&o));
        let o = bin(&["compare", base.to_str().unwrap(), out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", all(&o));
        assert!(all(&o).contains(rule), "{name}: {}", all(&o));
        assert!(stdout(&o).contains("0 improved"), "{name}: {}", all(&o));
    }
}

/// Shards of two files are not one run: `merge` refuses them.
#[test]
fn merge_refuses_shards_of_two_files() {
    let dir = scratch("judge-merge");
    let one = hard_csv(&dir, "set", 120);
    let other_dir = dir.join("other");
    std::fs::create_dir_all(&other_dir).unwrap();
    // The same name, other puzzles.
    let two = other_dir.join("set.csv");
    std::fs::write(
        &two,
        hard_lines(240)
            .lines()
            .skip(120)
            .collect::<Vec<_>>()
            .join("\n")
            + "\n",
    )
    .unwrap();
    let shard = |data: &PathBuf, k: &str, out: &str| {
        let o = bin(&[
            "run",
            data.to_str().unwrap(),
            "-s",
            "fast",
            "--shard",
            k,
            "-q",
            "--out",
            dir.join(out).to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", all(&o));
    };
    shard(&one, "1/2", "s1");
    shard(&two, "2/2", "s2");
    let o = bin(&[
        "merge",
        dir.join("s1").to_str().unwrap(),
        dir.join("s2").to_str().unwrap(),
        "--out",
        dir.join("merged").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", all(&o));
    assert!(err(&o).contains("[other-source]"), "{}", all(&o));
    // Shards of one file merge.
    shard(&one, "2/2", "s2b");
    let o = bin(&[
        "merge",
        dir.join("s1").to_str().unwrap(),
        dir.join("s2b").to_str().unwrap(),
        "--out",
        dir.join("merged").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", all(&o));
    // The same shards merged twice are one run, not two that agree.
    let again = dir.join("merged-again");
    let o = bin(&[
        "merge",
        dir.join("s1").to_str().unwrap(),
        dir.join("s2b").to_str().unwrap(),
        "--out",
        again.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", all(&o));
    let merged_first = dir.join("merged");
    let o = bin(&[
        "compare",
        merged_first.to_str().unwrap(),
        again.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", all(&o));
    assert!(err(&o).contains("[same-run]"), "{}", all(&o));
    // A shard whose rows do not add up to its summary (one time tripled)
    // is refused, and no merged puzzles.csv is left behind.
    let edited = dir.join("s2c");
    copy_dir(&dir.join("s2b"), &edited);
    edit_rows(
        &edited,
        "time_ns",
        |i| i == 0,
        |t| (t.parse::<u64>().unwrap() * 3).to_string(),
    );
    // A refused merge of s1 and `shard` into `dir/name`: it says `said`,
    // leaves no merged file, and the --out directory it created is gone.
    let refused = |shard: &Path, name: &str, said: &str| {
        let merged = dir.join(name);
        let o = bin(&[
            "merge",
            dir.join("s1").to_str().unwrap(),
            shard.to_str().unwrap(),
            "--out",
            merged.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{}", all(&o));
        assert!(err(&o).contains("[files-disagree]"), "{}", all(&o));
        assert!(err(&o).contains(said), "{}", all(&o));
        for f in ["puzzles.csv", "puzzles.csv.partial", "summary.json"] {
            assert!(!merged.join(f).exists(), "{f} left in {}", merged.display());
        }
        assert!(!merged.exists(), "{} left behind", merged.display());
    };
    refused(&edited, "merged-edited", "sum of the times kept");
    // A shard whose time histogram (the .hdr the merged percentiles are
    // added up from) is another shard's, its summary and rows untouched.
    let swapped = dir.join("s2d");
    copy_dir(&dir.join("s2b"), &swapped);
    let hdr = |d: &Path| {
        std::fs::read_dir(d.join("histograms"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| {
                let name = p.file_name().unwrap().to_str().unwrap();
                name.ends_with(".hdr") && !name.contains(".guesses") && !name.contains(".depth")
            })
            .unwrap()
    };
    std::fs::copy(hdr(&dir.join("s1")), hdr(&swapped)).unwrap();
    refused(&swapped, "merged-swapped", "the time histogram (.hdr)");
}

/// A history follows one yardstick: a run not paired with it is refused,
/// and so is a run of another experiment.
#[test]
fn history_add_refuses_another_yardstick_or_experiment() {
    let dir = scratch("judge-history");
    let h = dir.join("history.jsonl");
    let h = h.to_str().unwrap();
    // A gate between two builds without fast: head's ratio is to base.
    let gate = dir.join("gate");
    let o = run_into(
        &gate,
        200,
        &[
            "-s",
            "fast,name=base",
            "-s",
            "fast,name=head",
            "--gate",
            "base:head",
        ],
    );
    assert!(gate.join("summary.json").is_file(), "{}", all(&o));
    let o = bin(&[
        "history",
        "add",
        gate.to_str().unwrap(),
        "--file",
        h,
        "-s",
        "head",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", all(&o));
    assert!(
        err(&o).contains("not with the yardstick fast"),
        "{}",
        all(&o)
    );
    assert!(!Path::new(h).exists());
    // With fast beside them, it is recorded; a later run with another
    // solution limit is refused.
    let with_fast = dir.join("with-fast");
    let o = run_into(&with_fast, 200, &["-s", "fast", "-s", "mrv,name=mine"]);
    assert!(o.status.success(), "{}", all(&o));
    let add = |d: &Path| {
        bin(&[
            "history",
            "add",
            d.to_str().unwrap(),
            "--file",
            h,
            "-s",
            "mine",
        ])
    };
    assert!(add(&with_fast).status.success());
    let other = dir.join("count2");
    let o = run_into(
        &other,
        200,
        &["-s", "fast", "-s", "mrv,name=mine", "--count", "2"],
    );
    assert!(o.status.success(), "{}", all(&o));
    let o = add(&other);
    assert_eq!(o.status.code(), Some(2), "{}", all(&o));
    assert!(err(&o).contains("[other-solution-limit]"), "{}", all(&o));
}

/// A budgeted gate that finds a liar in a later round: the results
/// directory says so (`later_rounds`), and `export` refuses it.
#[test]
fn what_a_later_round_found_reaches_the_results_and_export() {
    let Some(lib) = fixtures() else {
        panic!("these tests need a C compiler (cc)");
    };
    let dir = scratch("judge-rounds");
    // Five puzzles: too few chunks for one round, so the gate measures
    // more; the liar is right the first time it sees a puzzle only.
    let data = hard_csv(&dir, "five", 5);
    let out = dir.join("out");
    let liar = format!("lib={},symbol=solve_honest_first,name=cand", lib.display());
    let base = format!("lib={},symbol=solve,name=base", lib.display());
    let o = bin(&[
        "run",
        data.to_str().unwrap(),
        "-s",
        &base,
        "-s",
        &liar,
        "--gate",
        "base:cand",
        "--repeat",
        "1",
        "--warmup",
        "0",
        "--budget",
        "20s",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", all(&o));
    let s = json(&out.join("summary.json"));
    let cand = s["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["strategy"] == "cand")
        .unwrap()
        .clone();
    // Found in round 2 (or already in round 1, when a spike there was
    // measured again: the liar is right only the first time it sees a
    // puzzle): either way the results directory says so.
    let later = cand["later_rounds"]["rejected"].as_u64().unwrap_or(0);
    let first = cand["rejected"].as_u64().unwrap();
    assert!(later + first > 0, "{cand}");
    let bmf = dir.join("bmf.json");
    let o = bin(&[
        "export",
        out.to_str().unwrap(),
        "--export",
        "bmf",
        bmf.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", all(&o));
    assert!(err(&o).contains("[rejected]"), "{}", all(&o));
    assert!(!bmf.exists());
    let o = bin(&[
        "export",
        out.to_str().unwrap(),
        "--export",
        "bmf",
        bmf.to_str().unwrap(),
        "--allow-untrusted",
    ]);
    assert!(o.status.success(), "{}", all(&o));
    let doc = std::fs::read_to_string(&bmf).unwrap();
    assert!(doc.contains("cand [untrusted]"), "{doc}");
}

/// A dataset that repeats its puzzles: a solver that remembers answers is
/// caught by the repeats as by a repeated pass, and the repeats are said.
#[test]
fn repeated_puzzles_in_a_dataset_feed_the_cache_check() {
    let Some(lib) = fixtures() else {
        panic!("these tests need a C compiler (cc)");
    };
    let dir = scratch("judge-repeats");
    let lines: Vec<String> = hard_lines(200).lines().map(String::from).collect();
    let mut text = lines.clone();
    text.extend(lines[1..].iter().cloned());
    let data = dir.join("twice.csv");
    std::fs::write(&data, text.join("\n") + "\n").unwrap();
    let cache = format!("lib={},symbol=solve_cache,name=cand", lib.display());
    let base = format!("lib={},symbol=solve,name=base", lib.display());
    let out = dir.join("out");
    let o = bin(&[
        "run",
        data.to_str().unwrap(),
        "-s",
        &base,
        "-s",
        &cache,
        "--gate",
        "base:cand",
        "--repeat",
        "1",
        "--warmup",
        "0",
        "-j",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    let said = all(&o);
    assert_eq!(o.status.code(), Some(2), "{said}");
    assert!(
        said.contains("[cache] CANDIDATE cand may be caching answers"),
        "{said}"
    );
    assert!(said.contains("dataset twice repeats 199 puzzles"), "{said}");
    let m = json(&out.join("meta.json"));
    assert_eq!(m["datasets"][0]["repeated_puzzles"], 199);
}

/// The repeats of a dataset are found whatever the threads and the layout
/// (the grids are spread over a few shards per finishing thread): a lone
/// solver with its reader and finishing thread, solver threads finishing
/// their own batches, more threads than cores.
#[test]
fn repeated_puzzles_are_counted_at_any_thread_count() {
    let dir = scratch("judge-repeats-threads");
    let lines: Vec<String> = hard_lines(300).lines().map(String::from).collect();
    let mut text = lines.clone();
    // Every other puzzle again, then the first one a third time.
    text.extend(lines[1..].iter().step_by(2).cloned());
    text.push(lines[1].clone());
    let data = dir.join("again.csv");
    std::fs::write(&data, text.join("\n") + "\n").unwrap();
    let again = lines[1..].iter().step_by(2).count() + 1;
    for j in ["1", "2", "5"] {
        let out = dir.join(format!("out-{j}"));
        let o = bin(&[
            "run",
            data.to_str().unwrap(),
            "-s",
            "fast",
            "-j",
            j,
            "--batch-size",
            "16",
            "-q",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "-j {j}: {}", all(&o));
        let m = json(&out.join("meta.json"));
        assert_eq!(m["datasets"][0]["repeated_puzzles"], again, "-j {j}");
        let r = &json(&out.join("summary.json"))["results"][0];
        assert_eq!(r["repeated"], again, "-j {j}: {r}");
    }
}

/// `run --count 2` with a library that returns a count and no grid: the
/// headline gives its ratio and no claim of speed.
#[test]
fn unverifiable_answers_get_no_claim_in_the_headline() {
    let Some(lib) = fixtures() else {
        panic!("these tests need a C compiler (cc)");
    };
    let dir = scratch("judge-count-only");
    let count_only = format!("lib={},symbol=solve_count_only,name=cand", lib.display());
    let o = run_into(
        &dir.join("out"),
        200,
        &["-s", "fast", "-s", &count_only, "--count", "2"],
    );
    let out = stdout(&o);
    let row = out
        .lines()
        .find(|l| l.starts_with("hard ") && l.contains(" cand "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        row.contains("not judged") && !row.contains("faster"),
        "{row}"
    );
}

/// A history can follow one difficulty class: `history add --class` adds
/// the class's lines as a series of their own, which `trend` shows and
/// never compares with the whole dataset's.
#[test]
fn history_follows_one_difficulty_class() {
    let dir = scratch("judge-class-history");
    let h = dir.join("history.jsonl");
    let mut class = String::new();
    for (i, rev) in ["r1", "r2"].iter().enumerate() {
        let out = dir.join(format!("run{i}"));
        let spec = format!("locked,rev={rev}");
        let o = run_into(&out, 120, &["-s", "fast", "-s", &spec, "--repeat", "2"]);
        assert_eq!(o.status.code(), Some(0), "{}", all(&o));
        let summary: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
        // The most populated effort class of the run.
        let rows = summary["by_class"]["rows"]
            .as_array()
            .expect("by_class rows");
        let best = rows
            .iter()
            .filter(|r| r["scheme"] == "effort" && r["strategy"] == "locked")
            .max_by_key(|r| r["puzzles"].as_u64().unwrap())
            .expect("an effort class");
        class = format!("effort {}", best["class"].as_str().unwrap());
        let o = bin(&[
            "history",
            "add",
            out.to_str().unwrap(),
            "--file",
            h.to_str().unwrap(),
            "-s",
            "locked",
            "--class",
            &class,
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", all(&o));
    }
    let text = std::fs::read_to_string(&h).unwrap();
    let series = format!("locked [{class}]");
    assert_eq!(
        text.lines()
            .filter(|l| l.contains(&format!("\"series\":\"{series}\"")))
            .count(),
        2,
        "{text}"
    );
    let o = bin(&["trend", h.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", all(&o));
    assert!(stdout(&o).contains(&series), "{}", stdout(&o));
    // An unknown class is refused, naming it.
    let o = bin(&[
        "history",
        "add",
        dir.join("run0").to_str().unwrap(),
        "--file",
        h.to_str().unwrap(),
        "--class",
        "effort 5000+",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", all(&o));
    assert!(err(&o).contains("no puzzle of class"), "{}", all(&o));
}

/// A unit that gave up or stalled on some puzzles is not exported as a
/// clean measurement: its times would stand for solving them all.
#[test]
fn export_refuses_a_unit_that_stalled_on_puzzles() {
    let dir = scratch("judge-export-stalled");
    let out = dir.join("r");
    // `logic` never guesses: it stalls on the puzzles it cannot finish.
    let o = run_into(&out, 100, &["-s", "fast", "-s", "logic"]);
    assert_eq!(o.status.code(), Some(0), "{}", all(&o));
    let s = json(&out.join("summary.json"));
    let logic = s["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["strategy"] == "logic")
        .unwrap()
        .clone();
    assert!(logic["stalled"].as_u64().unwrap() > 0, "{logic}");
    let bmf = dir.join("bmf.json");
    let export = |extra: &[&str]| {
        let mut a = vec![
            "export",
            out.to_str().unwrap(),
            "--export",
            "bmf",
            bmf.to_str().unwrap(),
        ];
        a.extend_from_slice(extra);
        bin(&a)
    };
    let o = export(&[]);
    assert_eq!(o.status.code(), Some(2), "{}", all(&o));
    assert!(
        err(&o).contains("[gave-up] hard/logic gave up or stalled"),
        "{}",
        all(&o)
    );
    assert!(!bmf.exists());
    let o = export(&["--allow-untrusted"]);
    assert!(o.status.success(), "{}", all(&o));
    let doc = std::fs::read_to_string(&bmf).unwrap();
    assert!(doc.contains("hard/logic [untrusted]"), "{doc}");
    assert!(doc.contains("\"hard/fast\""), "{doc}");
}
