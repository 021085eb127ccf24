//! End-to-end tests of `bench-sudoku run`: formats, verification, ordering
//! under several threads, bad input and the report schema.

mod common;
use common::{bin, json, scratch, text};

use common::*;
use std::io::Write;
use std::path::Path;

/// Solutions of the test puzzles, computed by the engine.
fn solutions() -> Vec<(String, String)> {
    use bench_sudoku::solver::{solve, Limits, Strategy};
    let s = Strategy::named("locked").unwrap();
    LOGIC_SOLVES
        .iter()
        .chain([&SINGLES_STALL, &EASY, &FAMOUS_HARD])
        .map(|p| {
            let r = solve(&grid(p), &s, &Limits::uniqueness());
            (p.to_string(), r.grid.to_line_zeros())
        })
        .collect()
}

fn csv_rows(path: &Path) -> Vec<csv::StringRecord> {
    let mut r = csv::Reader::from_path(path).unwrap();
    r.records().map(|x| x.unwrap()).collect()
}

/// The position of `column` in puzzles.csv's header.
fn puzzle_col(column: &str) -> usize {
    bench_sudoku::results::puzzles::HEADER
        .iter()
        .position(|h| *h == column)
        .unwrap()
}

#[test]
fn csv_with_solutions_produces_every_report() {
    let dir = scratch("csv");
    let data = dir.join("kaggle.csv");
    let mut body = String::from("quizzes,solutions\n");
    for (p, s) in solutions() {
        body.push_str(&format!("{p},{s}\n"));
    }
    std::fs::write(&data, body).unwrap();
    let out = dir.join("out");
    let o = bin(&[
        "run",
        data.to_str().unwrap(),
        "-s",
        "hidden",
        "-s",
        "locked",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    // Interleaved: the headline is the paired comparison with the baseline.
    assert!(
        stdout.contains("vs hidden (paired geomean, 95% CI)"),
        "{stdout}"
    );
    assert!(stdout.contains("baseline"), "{stdout}");

    // puzzles.csv: one row per puzzle × strategy, in input order per strategy.
    let rows = csv_rows(&out.join("puzzles.csv"));
    assert_eq!(rows.len(), 12);
    let header = csv::Reader::from_path(out.join("puzzles.csv"))
        .unwrap()
        .headers()
        .unwrap()
        .clone();
    for col in [
        "index",
        "id",
        "strategy",
        "status",
        "time_ns",
        "guesses",
        "backtracks",
        "max_depth",
        "nodes",
        "naked_singles",
        "hidden_singles",
        "givens",
        "matches_solution",
    ] {
        assert!(header.iter().any(|h| h == col), "column {col}");
    }
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row[col("index")], (i % 6).to_string());
        assert_eq!(&row[col("status")], "solved");
        assert_eq!(&row[col("matches_solution")], "true");
        assert!(row[col("time_ns")].parse::<u64>().unwrap() > 0);
    }

    // summary.json: meta + results with the documented fields.
    let summary = json(&out.join("summary.json"));
    let results = summary["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    for r in results {
        for key in [
            "dataset",
            "strategy",
            "puzzles",
            "solved",
            "no_solution",
            "multiple",
            "stalled",
            "gave_up",
            "invalid",
            "mismatches",
            "threads",
            "wall_ns",
            "solve_ns_total",
            "puzzles_per_sec",
            "mean_ns",
            "p50_ns",
            "p90_ns",
            "p99_ns",
            "p999_ns",
            "max_ns",
            "guesses_mean",
            "guesses_max",
            "backtracks_mean",
            "backtracks_max",
            "max_depth_max",
            "no_guess_pct",
        ] {
            assert!(r.get(key).is_some(), "results field {key} missing");
        }
        assert_eq!(r["dataset"], "kaggle");
        assert_eq!(r["puzzles"], 6);
        assert_eq!(r["solved"], 6);
        assert_eq!(r["mismatches"], 0);
        assert!(r["p50_ns"].as_u64().unwrap() <= r["max_ns"].as_u64().unwrap());
        assert!(r["solve_ns_total"].as_u64().unwrap() <= r["wall_ns"].as_u64().unwrap() * 2 + 1);
    }
    assert_eq!(summary["meta"]["complete"], true);

    let meta = json(&out.join("meta.json"));
    for key in [
        "version",
        "command_line",
        "cpu_model",
        "logical_cores",
        "threads",
        "os",
        "rustc",
        "target_features",
        "started",
        "finished",
        "timer_overhead_ns",
        "complete",
    ] {
        assert!(meta.get(key).is_some(), "meta field {key} missing");
    }
    assert_eq!(meta["complete"], true);
    assert_eq!(meta["processed"], 12);
    // What the harness cost: its layout and its serial stages per puzzle.
    let h = &meta["harness"];
    assert!(
        ["helpers", "workers-only"].contains(&h["layout"].as_str().unwrap()),
        "{h}"
    );
    let (read, write, serial) = (
        h["read_ns_per_puzzle"].as_f64().unwrap(),
        h["write_ns_per_puzzle"].as_f64().unwrap(),
        h["serial_ns_per_puzzle"].as_f64().unwrap(),
    );
    assert!(read > 0.0 && write > 0.0, "{h}");
    assert!((serial - (read + write)).abs() < 0.02, "{h}");

    let csv_summary = csv_rows(&out.join("summary.csv"));
    assert_eq!(csv_summary.len(), 2);
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("| kaggle | hidden |"), "{md}");
    assert!(md.contains("| kaggle | locked |"), "{md}");

    for base in ["kaggle-hidden", "kaggle-locked"] {
        for suffix in ["", ".guesses", ".depth"] {
            let hgrm = std::fs::read_to_string(out.join(format!("histograms/{base}{suffix}.hgrm")))
                .unwrap();
            assert!(hgrm.contains("Percentile"));
            assert!(hgrm.contains("Total count    =            6"), "{hgrm}");
            let hdr = std::fs::read(out.join(format!("histograms/{base}{suffix}.hdr"))).unwrap();
            let h: hdrhistogram::Histogram<u64> = hdrhistogram::serialization::Deserializer::new()
                .deserialize(&mut &hdr[..])
                .unwrap();
            assert_eq!(h.len(), 6);
        }
    }
    // Nothing temporary is left behind.
    let leftovers: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".tmp") || n.ends_with(".partial"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn plain_lines_crlf_comments_and_gzip() {
    let dir = scratch("lines");
    let mut body = String::from("# generated for a test\r\n\r\n");
    for (p, _) in solutions() {
        body.push_str(&p.replace('0', "."));
        body.push_str("\r\n");
    }
    let plain = dir.join("plain.txt");
    std::fs::write(&plain, &body).unwrap();
    let gz = dir.join("packed.txt.gz");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::default(),
    );
    enc.write_all(body.as_bytes()).unwrap();
    enc.finish().unwrap();
    let out = dir.join("out");
    let o = bin(&[
        "run",
        plain.to_str().unwrap(),
        gz.to_str().unwrap(),
        "-s",
        "locked",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let summary = json(&out.join("summary.json"));
    let results = summary["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["dataset"], "plain");
    assert_eq!(results[1]["dataset"], "packed");
    for r in results {
        assert_eq!(r["puzzles"], 6);
        assert_eq!(r["solved"], 6);
    }
    // No solution column: matches_solution is empty.
    let rows = csv_rows(&out.join("puzzles.csv"));
    let m = puzzle_col("matches_solution");
    assert!(rows.iter().all(|r| r[m].is_empty()));
    assert_eq!(summary["meta"]["datasets"][1]["gzip"], true);
}

#[test]
fn the_solution_column_is_compared_and_another_valid_solution_is_not_a_mismatch() {
    let dir = scratch("mismatch");
    let data = dir.join("m.csv");
    let sols = solutions();
    let mut body = String::from("id,puzzle,solution,clues,difficulty\n");
    for (i, (p, s)) in sols.iter().enumerate() {
        body.push_str(&format!("p{i},{p},{s},{},{}\n", grid(p).givens(), i % 3));
    }
    // The empty grid, listed with a valid solution that is not the one the
    // engine finds first: both are solutions, so the puzzle has several and
    // the answer is right.
    let empty = "0".repeat(81);
    body.push_str(&format!("p6,{empty},{},0,9\n", sols[0].1));
    std::fs::write(&data, body).unwrap();
    let out = dir.join("out");
    let o = bin(&[
        "run",
        data.to_str().unwrap(),
        "-s",
        "hidden",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let summary = json(&out.join("summary.json"));
    assert_eq!(summary["results"][0]["mismatches"], 0);
    let rows = csv_rows(&out.join("puzzles.csv"));
    let m = puzzle_col("matches_solution");
    assert_eq!(&rows[6][m], "", "nothing to compare with");
    assert_eq!(&rows[6][2], "p6");
    assert_eq!(&rows[6][3], "9");
    assert_eq!(&rows[0][m], "true");

    // A solver whose answers disagree with the solution column: a mismatch
    // on every puzzle, exit 1.
    let liar = common::no_solution_solver(&dir);
    let o = bin(&[
        "run",
        data.to_str().unwrap(),
        "-s",
        &liar,
        "--out",
        out.to_str().unwrap(),
        "--force",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("disagree"), "{}", text(&o.stderr));
    let summary = json(&out.join("summary.json"));
    assert_eq!(summary["results"][0]["mismatches"], 7);
    let rows = csv_rows(&out.join("puzzles.csv"));
    assert_eq!(&rows[0][puzzle_col("matches_solution")], "false");
}

#[test]
fn order_and_counters_do_not_depend_on_threads_or_shuffle() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/hard.csv");
    let dir = scratch("order");
    let mut tables = Vec::new();
    for (name, extra) in [
        ("j1", vec!["-j", "1"]),
        ("j2", vec!["-j", "2", "--batch-size", "37"]),
        (
            "shuf",
            vec!["-j", "2", "--shuffle", "--seed", "9", "--batch-size", "50"],
        ),
        // One thread per core: answers are verified and rows formatted on the
        // solver threads (with fewer threads than cores, on the writer).
        ("all", vec!["-j", "0", "--batch-size", "41"]),
    ] {
        let out = dir.join(name);
        let mut args = vec![
            "run",
            data.to_str().unwrap(),
            "-s",
            "hidden",
            "-s",
            "mrv",
            "--limit",
            "300",
            "--out",
            out.to_str().unwrap(),
            "-q",
        ];
        args.extend(extra);
        let o = bin(&args);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        // Everything but the time column.
        let rows: Vec<String> = csv_rows(&out.join("puzzles.csv"))
            .iter()
            .map(|r| {
                r.iter()
                    .enumerate()
                    .filter(|(i, _)| *i != 7)
                    .map(|(_, f)| f)
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect();
        assert_eq!(rows.len(), 600);
        tables.push(rows);
    }
    assert_eq!(tables[0], tables[1], "-j 1 vs -j 2");
    assert_eq!(tables[0], tables[2], "shuffled run restores input order");
    assert_eq!(tables[0], tables[3], "-j 1 vs one thread per core");
    for (i, row) in tables[0].iter().take(300).enumerate() {
        assert!(row.starts_with(&format!("hard,{i},")), "{row}");
    }
}

#[test]
fn repeat_keeps_the_minimum_and_reports_passes() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/easy.csv");
    let out = scratch("repeat").join("out");
    let o = bin(&[
        "run",
        data.to_str().unwrap(),
        "-s",
        "hidden",
        "--repeat",
        "3",
        "--warmup",
        "1",
        "--limit",
        "200",
        "--no-puzzle-csv",
        "-j",
        "1",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(!out.join("puzzles.csv").exists());
    let summary = json(&out.join("summary.json"));
    let r = &summary["results"][0];
    let passes = r["pass_solve_ns"].as_array().unwrap();
    assert_eq!(passes.len(), 3);
    let total = r["solve_ns_total"].as_u64().unwrap();
    // The sum of per-puzzle minima is at most the fastest pass.
    let fastest = passes.iter().map(|p| p.as_u64().unwrap()).min().unwrap();
    assert!(total <= fastest, "{total} > {fastest}");
    assert!(r["repeat_spread_pct"].as_f64().unwrap() >= 0.0);
    assert_eq!(summary["meta"]["options"]["repeat"], 3);
    assert_eq!(summary["meta"]["options"]["warmup"], 1);
    // The solving loop's cost is only defined with one pass per puzzle.
    let h = &json(&out.join("meta.json"))["harness"];
    assert!(h.get("solve_loop_ns_per_puzzle").is_none(), "{h}");
    assert!(h.get("harness_cpu_pct").is_none(), "{h}");
    assert!(h.get("stages").is_none(), "{h}");
}

#[test]
fn stage_times_are_recorded_when_asked_for_in_both_layouts() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/easy.csv");
    // The helper layout (one solver thread; with a single core, workers
    // only) and workers only (a solver thread per core).
    for threads in ["1", "0"] {
        let out = scratch(&format!("stages-{threads}")).join("out");
        let run = |stage_times: bool| {
            let mut cmd = command();
            if stage_times {
                cmd.env("BENCH_SUDOKU_STAGE_TIMES", "1");
            }
            let o = cmd
                .args(["run", data.to_str().unwrap(), "-s", "fast", "-j", threads])
                .args(["--limit", "600", "--batch-size", "64", "--force", "-q"])
                .arg("--out")
                .arg(&out)
                .output()
                .unwrap();
            assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
            json(&out.join("meta.json"))["harness"].clone()
        };
        let plain = run(false);
        // One pass: the solving loop beyond the solves is always there.
        assert!(
            plain["solve_loop_ns_per_puzzle"].as_f64().unwrap() >= 0.0,
            "{plain}"
        );
        assert!(plain.get("stages").is_none(), "{plain}");
        let h = run(true);
        let stages = &h["stages"];
        assert!(
            stages["prepare_ns_per_puzzle"].as_f64().unwrap() > 0.0,
            "{h}"
        );
        assert!(
            stages["finish_ns_per_puzzle"].as_f64().unwrap() > 0.0,
            "{h}"
        );
    }
}

/// `BENCH_SUDOKU_PROBE_SKIP` leaves work out only in a diagnostic build
/// (`--features harness-probe`, scripts/harness-probe.sh): the binary the
/// tests build ignores it and writes every row, verified and counted.
#[test]
fn the_harness_probe_does_nothing_in_a_default_build() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/easy.csv");
    let out = scratch("probe-off").join("out");
    let mut hashes = Vec::new();
    for threads in ["1", "0"] {
        let o = command()
            .env("BENCH_SUDOKU_PROBE_SKIP", "hash")
            .args(["run", data.to_str().unwrap(), "-s", "fast", "-j", threads])
            .args(["--limit", "300", "--force", "-q", "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let r = &json(&out.join("summary.json"))["results"][0];
        assert_eq!(r["puzzles"], 300, "{r}");
        assert_eq!(r["solved"], 300, "{r}");
        let rows = std::fs::read_to_string(out.join("puzzles.csv")).unwrap();
        assert_eq!(rows.lines().count(), 301);
        // The content hash covers every record (the probe's last level
        // leaves it out), the same with either layout.
        let meta = json(&out.join("meta.json"));
        let hash = meta["datasets"][0]["content_hash"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(hash.starts_with("xxh3-sum:"), "{hash}");
        assert_ne!(hash, "xxh3-sum:0000000000000000");
        hashes.push(hash);
    }
    assert_eq!(hashes[0], hashes[1]);
}

#[test]
fn bad_rows_stop_the_run_with_file_and_line() {
    let dir = scratch("bad");
    let data = dir.join("bad.txt");
    std::fs::write(
        &data,
        format!(
            "{}\n{}\n{}\n",
            LOGIC_SOLVES[0],
            &LOGIC_SOLVES[1][..80],
            LOGIC_SOLVES[2]
        ),
    )
    .unwrap();
    let out = dir.join("out");
    let o = bin(&[
        "run",
        data.to_str().unwrap(),
        "-s",
        "hidden",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains(&format!("{}:2:", data.display())) && err.contains("found 80"),
        "{err}"
    );
    assert!(!err.contains("panicked"));
    // What was written says it is incomplete.
    let meta = json(&out.join("meta.json"));
    assert_eq!(meta["complete"], false);

    // --skip-invalid: counted, listed, and the run goes on.
    let o = bin(&[
        "run",
        data.to_str().unwrap(),
        "-s",
        "hidden",
        "--skip-invalid",
        "--out",
        out.to_str().unwrap(),
        "--force",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let summary = json(&out.join("summary.json"));
    assert_eq!(summary["results"][0]["puzzles"], 2);
    assert_eq!(summary["results"][0]["skipped"], 1);
    assert_eq!(summary["skipped_rows"][0]["rows"][0]["line"], 2);
    let rows = csv_rows(&out.join("puzzles.csv"));
    assert_eq!(&rows[1][1], "2", "indices stay stable across skips");
}

#[test]
fn unusable_paths_are_clear_errors() {
    let dir = scratch("paths");
    let o = bin(&["run", "/nonexistent/x.csv", "-q"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("/nonexistent/x.csv"),
        "{}",
        text(&o.stderr)
    );
    let o = bin(&["run", dir.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("directory"), "{}", text(&o.stderr));
    // An existing results directory is not overwritten without --force.
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/easy.csv");
    let out = dir.join("out");
    let args = [
        "run",
        data.to_str().unwrap(),
        "-s",
        "hidden",
        "--limit",
        "10",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ];
    assert_eq!(bin(&args).status.code(), Some(0));
    let o = bin(&args);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--force"), "{}", text(&o.stderr));
    let o = bin(&["run", data.to_str().unwrap(), "-s", "nope", "-q"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn explosive_strategies_give_up_instead_of_hanging() {
    let dir = scratch("budget");
    let data = dir.join("hard.txt");
    std::fs::write(&data, format!("{FAMOUS_HARD}\n{}\n", LOGIC_SOLVES[0])).unwrap();
    let out = dir.join("out");
    let o = bin(&[
        "run",
        data.to_str().unwrap(),
        "-s",
        "all",
        "--max-guesses",
        "2000",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let summary = json(&out.join("summary.json"));
    let by_name = |n: &str| {
        summary["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["strategy"] == n)
            .unwrap()
            .clone()
    };
    assert_eq!(by_name("naive")["gave_up"], 1);
    assert_eq!(by_name("naive")["guesses_max"], 2000);
    assert_eq!(by_name("logic")["stalled"], 1);
    assert_eq!(by_name("locked")["solved"], 2);
}

/// Runs the binary with the read end of its stdout pipe closed at once (as
/// in `bench-sudoku run … | head -0`); returns the exit status and stderr.
/// (Every command here starts a thread pool or reads files before it prints,
/// so the pipe is closed before the first write.)
fn with_closed_stdout(args: &[&str]) -> (Option<i32>, String) {
    let mut child = command()
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("binary runs");
    drop(child.stdout.take());
    let o = child.wait_with_output().expect("binary finishes");
    (o.status.code(), text(&o.stderr))
}

#[test]
fn a_closed_stdout_neither_panics_nor_hides_the_outcome() {
    let dir = scratch("closed-stdout");
    let data = dir.join("p.txt");
    std::fs::write(&data, format!("{EASY}\n{FAMOUS_HARD}\n")).unwrap();
    let out = dir.join("out");
    let (code, stderr) = with_closed_stdout(&[
        "run",
        data.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(json(&out.join("summary.json"))["meta"]["complete"], true);
    // A mismatch still exits 1 when the table cannot be printed.
    let bad = dir.join("bad.csv");
    let (p, solution) = solutions()[0].clone();
    std::fs::write(&bad, format!("puzzle,solution\n{p},{solution}\n")).unwrap();
    let liar = common::no_solution_solver(&dir);
    let out = dir.join("out-bad");
    let (code, stderr) = with_closed_stdout(&[
        "run",
        bad.to_str().unwrap(),
        "-s",
        &liar,
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    // Other commands that print to stdout.
    for args in [
        vec!["strategies"],
        vec!["report", out.to_str().unwrap()],
        vec!["compare", out.to_str().unwrap(), out.to_str().unwrap()],
        vec!["solve", EASY],
    ] {
        let (code, stderr) = with_closed_stdout(&args);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        // compare: the liar fails (exit 1), one puzzle per run is too few
        // to judge (exit 2).
        let expected = if args[0] == "compare" { 1..=2 } else { 0..=1 };
        assert!(
            code.is_some_and(|c| expected.contains(&c)),
            "{args:?}: {code:?} {stderr}"
        );
    }
}

/// `BENCH_SUDOKU_FAST_PATH` picks the fast engine's compiled build, and
/// `meta.json` names the one taken; every build gives the same rows apart
/// from the times (the answers and all counters).
#[test]
fn every_fast_build_gives_the_same_rows() {
    let dir = scratch("fast-paths");
    let mut rows = Vec::new();
    for path in ["portable", "bmi", "pext", ""] {
        let out = dir.join(format!("out-{path}"));
        let o = common::command()
            .env("BENCH_SUDOKU_FAST_PATH", path)
            .args([
                "run",
                "datasets/hard.csv",
                "-s",
                "fast",
                "--count",
                "2",
                "-q",
            ])
            .args(["--limit", "300", "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o.stderr));
        let meta = json(&out.join("meta.json"));
        let taken = meta["options"]["strategy_details"][0]["code_path"]
            .as_str()
            .unwrap()
            .to_string();
        if path == "portable" {
            assert_eq!(taken, "portable");
        }
        let csv = std::fs::read_to_string(out.join("puzzles.csv")).unwrap();
        let mut lines = csv.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let time = header.iter().position(|h| *h == "time_ns").unwrap();
        // Every row without its time (no row here has quoted fields).
        let kept: Vec<String> = lines
            .map(|l| {
                let mut f: Vec<&str> = l.split(',').collect();
                f.remove(time);
                f.join(",")
            })
            .collect();
        assert_eq!(kept.len(), 300);
        rows.push((taken, kept));
    }
    for (taken, kept) in &rows[1..] {
        assert_eq!(kept, &rows[0].1, "{taken} against portable");
    }
}

/// A measurement setting in the environment that means nothing is an error
/// naming the variable and what it may be (exit 2, nothing written), never
/// a silent fall-back to the default.
#[test]
fn a_misspelt_measurement_variable_is_an_error() {
    let dir = scratch("bad-env");
    for (var, value, says) in [
        ("BENCH_SUDOKU_FAST_PATH", "pxet", "portable, bmi, pext"),
        ("BENCH_SUDOKU_FAULT", "finish", "STAGE:N"),
    ] {
        let out = dir.join(var);
        let o = common::command()
            .env(var, value)
            .args(["run", "datasets/hard.csv", "-s", "fast", "-q", "--out"])
            .arg(&out)
            .output()
            .unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{var}={value}: {err}");
        assert!(
            err.contains(&format!("{var}={value}")) && err.contains(says),
            "{err}"
        );
        assert!(!out.exists(), "{var}={value} wrote {}", out.display());
    }
}

/// A run too short to time says so on every surface: the terminal, the
/// summary.json flag, summary.csv, summary.md and report.html, with its
/// puzzles/s marked; and a run long enough says it nowhere. One puzzle is
/// too short on any machine but one so loaded that the run's wall time
/// passes the bound: whichever the run was, every surface must agree with
/// summary.json's flag, so the test's verdict does not depend on the load.
#[test]
fn a_run_too_short_to_time_is_said_everywhere() {
    let dir = scratch("too-short");
    let out = dir.join("r");
    let data = format!("{}/datasets/easy.csv", env!("CARGO_MANIFEST_DIR"));
    let o = bin(&[
        "run",
        &data,
        "-s",
        "fast",
        "--limit",
        "1",
        "-q",
        "--details",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let summary = json(&out.join("summary.json"));
    let short = summary["results"][0]["too_short"].as_bool().unwrap();
    let stderr = text(&o.stderr);
    assert_eq!(
        stderr.contains("too short to time: easy/fast"),
        short,
        "{stderr}"
    );
    // The full table (--details) has puzzles/s, marked.
    let stdout = text(&o.stdout);
    assert_eq!(stdout.contains("(too short)"), short, "{stdout}");
    let csv = csv_rows(&out.join("summary.csv"));
    let header = csv::Reader::from_path(out.join("summary.csv"))
        .unwrap()
        .headers()
        .unwrap()
        .clone();
    let at = header.iter().position(|h| h == "too_short").unwrap();
    assert_eq!(&csv[0][at], if short { "true" } else { "false" });
    for f in ["summary.md", "report.html"] {
        let page = std::fs::read_to_string(out.join(f)).unwrap();
        assert_eq!(page.contains("too short to time"), short, "{f}");
        assert_eq!(page.contains("(too short)"), short, "{f}");
    }
    if !short {
        eprintln!("the machine was too loaded for a one-puzzle run to be too short");
    }
}

/// `repeat=` and `warmup=` in a spec give that strategy passes of its own:
/// made as asked (its per-pass totals), recorded in meta.json, shown in
/// summary.md; its pair with a strategy of other passes is shown but not
/// judged; a bad value is an error before any work.
#[test]
fn a_strategy_makes_the_passes_its_spec_asks_for() {
    let dir = scratch("own-passes");
    let out = dir.join("r");
    let o = bin(&[
        "run",
        "datasets/hard.csv",
        "-s",
        "fast",
        "-s",
        "mrv,repeat=1,warmup=0",
        "--repeat",
        "3",
        "--limit",
        "100",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let meta = json(&out.join("meta.json"));
    let details = meta["options"]["strategy_details"].as_array().unwrap();
    assert!(details[0].get("passes").is_none(), "{meta}");
    assert_eq!(details[1]["passes"]["repeat"], 1);
    assert_eq!(details[1]["passes"]["warmup"], 0);
    let summary = json(&out.join("summary.json"));
    let passes = |i: usize| {
        summary["results"][i]["pass_solve_ns"]
            .as_array()
            .unwrap()
            .len()
    };
    assert_eq!((passes(0), passes(1)), (3, 1));
    assert!(
        text(&o.stdout).contains("not judged"),
        "{}",
        text(&o.stdout)
    );
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("mrv: repeat 1, warm-up 0"), "{md}");
    let bad = dir.join("bad");
    let o = bin(&[
        "run",
        "datasets/hard.csv",
        "-s",
        "fast,repeat=0",
        "--out",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("repeat=\"0\""),
        "{}",
        text(&o.stderr)
    );
    assert!(!bad.exists());
}
