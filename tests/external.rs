//! External solvers as strategies: shared libraries (tdoku's signature and
//! bench-sudoku's interface), compiled at test time from the C fixtures in
//! `tests/fixtures/solvers/fixtures.c` with the system C compiler; programs
//! speaking the line protocol (shell scripts written here, the Python
//! example, `bench-sudoku serve`); and the `capi` library loaded back.
//!
//! Tests that need `cc` or `python3` say so and return when it is missing.
#![cfg(unix)]

mod common;

use bench_sudoku::solver::{CounterSet, Limits, Strategy};
use bench_sudoku::Grid;
use common::solvers::*;
use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

#[test]
fn a_correct_library_with_tdokus_signature_is_a_strategy_beside_fast() {
    let Some(lib) = fixtures() else { return };
    let spec = format!("lib={}", lib.display());
    let r = run(
        "tdoku-correct",
        &[
            &dataset("hard.csv"),
            "--limit",
            "150",
            "-s",
            "fast",
            "-s",
            &spec,
        ],
        &[],
    );
    assert_eq!(r.code(), 0, "{}", r.stderr());
    // The default symbol is `solve`, and it is the label.
    let res = r.result("solve");
    assert_eq!(
        (res["puzzles"].as_u64(), res["solved"].as_u64()),
        (Some(150), Some(150))
    );
    assert_eq!(res["clock"], "harness");
    assert_eq!(res["counters"], serde_json::json!(["guesses"]));
    // Reported: guesses. Absent: everything else, null and never 0.
    assert!(res["guesses_total"].as_u64().unwrap() > 0);
    for absent in [
        "backtracks_total",
        "max_depth_max",
        "nodes_total",
        "naked_singles_total",
    ] {
        assert!(res[absent].is_null(), "{absent}: {}", res[absent]);
    }
    all_correct(&r, "solve");
    assert!(r.column("solve", "backtracks").iter().all(String::is_empty));
    assert!(r.column("solve", "guesses").iter().all(|g| !g.is_empty()));
    assert!(r.column("fast", "backtracks").iter().all(|g| !g.is_empty()));
    // The terminal table shows the guesses; the histograms exist for time
    // and guesses, not for the depth the solver does not report.
    let table = text(&r.out.stdout);
    assert!(
        table.lines().any(|l| l.starts_with("hard     solve")),
        "{table}"
    );
}

/// A strategy's repeats of a puzzle are a batch of its own solves apart,
/// and other strategies' solves in between do not make the puzzle cold for
/// it: a run that loads libraries keeps batches of 256 with repeats,
/// however many strategies share them, and smaller batches are warned
/// about whatever the number of strategies.
#[test]
fn repeats_stay_a_cold_distance_apart_however_many_strategies_share_the_batch() {
    let Some(lib) = fixtures() else { return };
    let (a, b) = (
        format!("lib={},name=a", lib.display()),
        format!("lib={},name=b", lib.display()),
    );
    let hard = dataset("hard.csv");
    let args = |extra: &'static [&'static str]| {
        let mut v = vec![&hard[..], "--limit", "300", "--repeat", "2"];
        v.extend(["-s", "fast", "-s", &a, "-s", &b]);
        v.extend(extra);
        v
    };
    let r = run("cold-distance-default", &args(&[]), &[]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    let meta = json(&r.dir.join("meta.json"));
    assert_eq!(meta["options"]["batch_size"], 256);
    assert!(!r.stderr().contains("partly practised"), "{}", r.stderr());
    let r = run("cold-distance-small", &args(&["--batch-size", "128"]), &[]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    assert!(
        r.stderr().contains("only 128 of its own solves apart"),
        "{}",
        r.stderr()
    );
}

#[test]
fn a_wrong_grid_is_a_wrong_grid_mismatch_and_exit_1() {
    let Some(lib) = fixtures() else { return };
    let spec = format!("lib={},symbol=solve_wrong_grid,name=wrong", lib.display());
    let r = run(
        "tdoku-wrong",
        &[
            &dataset("easy.csv"),
            "--limit",
            "40",
            "-s",
            &spec,
            "-s",
            "fast",
        ],
        &[],
    );
    assert_eq!(r.code(), 1, "{}", r.stderr());
    assert_eq!(r.result("wrong")["wrong_answers"], 40);
    let listed = r.listed("mismatch_list", "wrong");
    assert_eq!(listed.len(), 40);
    assert!(
        listed.iter().all(|m| m["kind"] == "wrong_grid"),
        "{listed:?}"
    );
    assert!(listed[0]["detail"].as_str().unwrap().contains("are both"));
    // The other strategy's results are whole and correct.
    all_correct(&r, "fast");
    assert!(r.stderr().contains("40 answers rejected"), "{}", r.stderr());
    // A rejected answer is not a solve and has no time.
    let res = r.result("wrong");
    assert_eq!(
        (res["rejected"].as_u64(), res["solved"].as_u64()),
        (Some(40), Some(0))
    );
    assert_eq!(res["mean_ns"].as_f64(), Some(0.0));
}

#[test]
fn a_lying_count_is_a_wrong_count_mismatch() {
    let Some(lib) = fixtures() else { return };
    let spec = format!("lib={},symbol=solve_lying_count,name=liar", lib.display());
    // With a limit of 2, it claims two solutions of unique puzzles.
    let r = run(
        "tdoku-liar",
        &[
            &dataset("easy.csv"),
            "--limit",
            "30",
            "-s",
            &spec,
            "--count",
            "2",
        ],
        &[],
    );
    assert_eq!(r.code(), 1, "{}", r.stderr());
    let res = r.result("liar");
    // Its answers are rejected: neither `multiple` nor `solved`.
    assert_eq!(
        (
            res["wrong_counts"].as_u64(),
            res["rejected"].as_u64(),
            res["multiple"].as_u64()
        ),
        (Some(30), Some(30), Some(0))
    );
    assert_eq!(res["wrong_answers"], 0, "its grids are right");
    let listed = r.listed("mismatch_list", "liar");
    assert!(listed.iter().all(|m| m["kind"] == "wrong_count"));
    assert!(listed[0]["detail"]
        .as_str()
        .unwrap()
        .contains("said 2 solutions, bench-sudoku's engine counts 1"));
    // With a limit of 1 it tells the truth: nothing to report.
    let r = run(
        "tdoku-liar-1",
        &[&dataset("easy.csv"), "--limit", "30", "-s", &spec],
        &[],
    );
    assert_eq!(r.code(), 0, "{}", r.stderr());
}

#[test]
fn an_isolated_library_that_segfaults_is_counted_and_the_run_goes_on() {
    let Some(lib) = fixtures() else { return };
    let spec = format!(
        "lib={},symbol=solve_segv10,isolate=yes,name=segv",
        lib.display()
    );
    let r = run(
        "tdoku-segv",
        &[
            &dataset("easy.csv"),
            "--limit",
            "35",
            "-j",
            "1",
            "-s",
            &spec,
        ],
        &[],
    );
    assert_eq!(r.code(), 1, "{}", r.stderr());
    let res = r.result("segv");
    // Every process dies on its tenth call, after nine answers, and every
    // death is counted (on the first request without a reply when several
    // were in flight; the others are replayed one at a time, where they
    // are calls again): 35 answers and faults take at least four processes,
    // so at least 3 crashes; more depending on how deep the pipeline was at
    // each death. Every puzzle is either solved or crashed.
    let crashed = res["crashed"].as_u64().unwrap();
    assert!(crashed >= 3, "{res}");
    assert_eq!(res["solved"].as_u64().unwrap() + crashed, 35);
    assert_eq!(
        (res["mismatches"].as_u64(), res["wrong_answers"].as_u64()),
        (Some(0), Some(0))
    );
    let faults = r.listed("fault_list", "segv");
    assert_eq!(faults.len() as u64, crashed);
    for f in &faults {
        assert_eq!(f["status"], "crashed");
        assert!(f["detail"].as_str().unwrap().contains("SIGSEGV"), "{f}");
    }
    // Every other puzzle has its correct answer, and a crash has no time.
    let statuses = r.column("segv", "status");
    let times = r.column("segv", "time_ns");
    let matches = r.column("segv", "matches_solution");
    for i in 0..35 {
        if statuses[i] == "crashed" {
            assert_eq!((times[i].as_str(), matches[i].as_str()), ("", ""));
        } else {
            assert_eq!(
                (statuses[i].as_str(), matches[i].as_str()),
                ("solved", "true")
            );
        }
    }
    assert!(r.stderr().contains("failed in external solvers"));
}

#[test]
fn an_isolated_library_that_hangs_times_out_on_that_puzzle_only() {
    let Some(lib) = fixtures() else { return };
    let spec = format!(
        "lib={},symbol=solve_hang,isolate=yes,name=hang",
        lib.display()
    );
    let hang = puzzle_of("easy.csv", 6);
    let started = std::time::Instant::now();
    let r = run(
        "tdoku-hang",
        &[
            &dataset("easy.csv"),
            "--limit",
            "12",
            "-j",
            "1",
            "-s",
            &spec,
            "--timeout",
            "700ms",
        ],
        &[("BS_FIXTURE_HANG", &hang)],
    );
    assert_eq!(r.code(), 1, "{}", r.stderr());
    let res = r.result("hang");
    assert_eq!(
        (res["timeout"].as_u64(), res["solved"].as_u64()),
        (Some(1), Some(11))
    );
    let faults = r.listed("fault_list", "hang");
    assert_eq!(faults[0]["index"], 6);
    assert!(faults[0]["detail"].as_str().unwrap().contains("700ms"));
    assert_eq!(r.column("hang", "status")[6], "timeout");
    // At most two timeouts' worth of waiting (a pipelined batch may need a
    // second, one request at a time, to find the puzzle), not a hang.
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
}

#[test]
fn a_library_that_hangs_in_the_process_ends_the_run_with_advice() {
    let Some(lib) = fixtures() else { return };
    let spec = format!("lib={},symbol=solve_hang,name=hang", lib.display());
    let hang = puzzle_of("easy.csv", 2);
    let r = run(
        "tdoku-hang-inproc",
        &[
            &dataset("easy.csv"),
            "--limit",
            "5",
            "-s",
            &spec,
            "--timeout",
            "500ms",
        ],
        &[("BS_FIXTURE_HANG", &hang)],
    );
    // The supervisor names the puzzle (index 2, line 4 of easy.csv: the
    // header is line 1), kills the measuring process and keeps what was
    // measured, marked incomplete.
    assert_eq!(r.code(), 124, "{}", r.stderr());
    let err = r.stderr();
    assert!(err.contains("did not return within 500ms"), "{err}");
    assert!(
        err.contains("hang solved puzzle 2 (") && err.contains("easy.csv:4)"),
        "{err}"
    );
    assert!(err.contains("isolate=yes"), "{err}");
    assert_eq!(json(&r.dir.join("meta.json"))["complete"], false);
    assert_eq!(r.summary["meta"]["complete"], false);

    // Unsupervised (switched off), the library's watchdog ends the run:
    // nothing that looks like a finished result.
    let r = run(
        "tdoku-hang-inproc-unsupervised",
        &[
            &dataset("easy.csv"),
            "--limit",
            "5",
            "-s",
            &spec,
            "--timeout",
            "500ms",
        ],
        &[("BS_FIXTURE_HANG", &hang), ("BENCH_SUDOKU_SUPERVISE", "0")],
    );
    assert_eq!(r.code(), 2, "{}", r.stderr());
    assert!(r.stderr().contains("isolate=yes"), "{}", r.stderr());
    assert!(r.summary.is_null());
    assert_eq!(json(&r.dir.join("meta.json"))["complete"], false);
}

#[test]
fn global_scratch_state_is_wrong_under_concurrency_unless_serialised_or_isolated() {
    let Some(lib) = fixtures() else { return };
    let base = format!("lib={},symbol=solve_global", lib.display());
    let args = |extra: &str| {
        vec![
            dataset("hard.csv"),
            "--limit".into(),
            "120".into(),
            "-j".into(),
            "4".into(),
            "-s".into(),
            format!("{base}{extra},name=global"),
        ]
    };
    let call = |name: &str, extra: &str| {
        let a = args(extra);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        run(name, &a, &[])
    };
    let shared = call("global-shared", "");
    assert_eq!(shared.code(), 1, "{}", shared.stderr());
    let res = shared.result("global");
    let bad = res["wrong_answers"].as_u64().unwrap()
        + res["mismatches"].as_u64().unwrap()
        + res["wrong_counts"].as_u64().unwrap();
    assert!(bad > 0, "four threads in one global state: {res}");
    for (name, extra) in [
        ("global-serial", ",reentrant=no"),
        ("global-isolated", ",isolate=yes"),
    ] {
        let r = call(name, extra);
        assert_eq!(r.code(), 0, "{extra}: {}", r.stderr());
        all_correct(&r, "global");
    }
}

#[test]
fn bench_sudokus_interface_reports_more_counters() {
    let Some(lib) = fixtures() else { return };
    let rich = format!("lib={},solver=fixture-rich", lib.display());
    let plain = format!("lib={}", lib.display());
    let r = run(
        "rich",
        &[
            &dataset("hard.csv"),
            "--limit",
            "100",
            "-s",
            &rich,
            "-s",
            &plain,
            "--count",
            "2",
        ],
        &[],
    );
    assert_eq!(r.code(), 0, "{}", r.stderr());
    let res = r.result("fixture-rich");
    assert_eq!(
        res["counters"],
        serde_json::json!(["guesses", "backtracks", "max_depth", "nodes"])
    );
    assert!(res["naked_singles_total"].is_null());
    // The same search behind both interfaces: the same guesses.
    assert_eq!(
        r.column("fixture-rich", "guesses"),
        r.column("solve", "guesses")
    );
    // A complete search undoes every guess.
    assert_eq!(
        r.column("fixture-rich", "guesses"),
        r.column("fixture-rich", "backtracks")
    );
    all_correct(&r, "fixture-rich");
}

#[test]
fn a_solver_that_cannot_be_used_stops_the_run_before_any_work() {
    let Some(lib) = fixtures() else { return };
    let l = lib.display();
    let not_a_library = Path::new(MANIFEST).join("datasets/easy.csv");
    for (spec, expect) in [
        (
            "lib=/no/such/libsolver.so".to_string(),
            "/no/such/libsolver.so".to_string(),
        ),
        (
            format!("lib={l},symbol=no_such_symbol"),
            "no_such_symbol".to_string(),
        ),
        (
            format!("lib={l},solver=fixture-badversion"),
            "interface version 99".to_string(),
        ),
        (
            format!("lib={l},solver=fixture-nullstate"),
            "returned NULL".to_string(),
        ),
        (format!("lib={l},solver=nope"), "fixture-rich".to_string()),
        (
            format!("lib={}", not_a_library.display()),
            "easy.csv".to_string(),
        ),
        (
            "cmd=/no/such/solver --fast".to_string(),
            "/no/such/solver".to_string(),
        ),
        (
            "cmd=true".to_string(),
            "ended before its handshake".to_string(),
        ),
        (
            format!("lib={l},name=fast"),
            "labelled \"fast\"".to_string(),
        ),
    ] {
        let dir = scratch("unusable");
        let o = bin(&[
            "run",
            &dataset("easy.csv"),
            "-s",
            &spec,
            "-s",
            "fast",
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{spec}: {}", err(&o));
        let e = err(&o);
        assert!(e.contains("error:") && e.contains(&expect), "{spec}: {e}");
        assert!(
            !dir.join("summary.json").exists(),
            "{spec}: no work was done"
        );
    }
}

/// A protocol solver written as a shell script in `dir`.
fn script(dir: &Path, name: &str, body: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
    format!("cmd=sh {}", path.display())
}

const HELLO: &str = "read greeting\necho 'bench-sudoku-protocol 1 name=script reports=guesses'\n";

#[test]
fn protocol_faults_are_outcomes_of_their_puzzles() {
    let dir = scratch("scripts");
    let garbage = script(
        &dir,
        "garbage.sh",
        &format!("{HELLO}while read p l; do echo '1 not-a-grid guesses=1'; done\n"),
    );
    let refuses = script(
        &dir,
        "refuses.sh",
        &format!("{HELLO}while read p l; do echo 'error this solver cannot'; done\n"),
    );
    let dies = script(
        &dir,
        "dies.sh",
        &format!("{HELLO}read p l\necho 'it went wrong here' >&2\nexit 3\n"),
    );
    for (spec, status, detail) in [
        (garbage, "protocol_error", "not 81 digits"),
        (refuses, "error", "this solver cannot"),
        (dies, "crashed", "exit status 3; stderr: it went wrong here"),
    ] {
        let r = run(
            "protocol",
            &[
                &dataset("easy.csv"),
                "--limit",
                "4",
                "-j",
                "1",
                "-s",
                &format!("{spec},name=s"),
                "-s",
                "fast",
            ],
            &[],
        );
        assert_eq!(r.code(), 1, "{spec}: {}", r.stderr());
        assert_eq!(r.result("s")[status], 4, "{spec}");
        let faults = r.listed("fault_list", "s");
        assert!(
            faults[0]["detail"].as_str().unwrap().contains(detail),
            "{faults:?}"
        );
        // Round trips, because the script does not report its own time.
        assert_eq!(r.result("s")["clock"], "round_trip");
        all_correct(&r, "fast");
    }
}

#[test]
fn the_python_example_speaks_the_protocol() {
    if Command::new("python3").arg("--version").output().is_err() {
        skip_without("python3", "the example solver is Python");
        return;
    }
    let solver = Path::new(MANIFEST).join("examples/solvers/python/solver.py");
    let timed = format!("cmd=python3 {}", solver.display());
    let untimed = format!("cmd=python3 {} --no-ns,name=py-rt", solver.display());
    let r = run(
        "python",
        &[
            &dataset("hard.csv"),
            "--limit",
            "30",
            "-s",
            &timed,
            "-s",
            &untimed,
            "-s",
            "hidden",
        ],
        &[],
    );
    assert_eq!(r.code(), 0, "{}", r.stderr());
    let res = r.result("python-example");
    assert_eq!(res["clock"], "solver");
    assert_eq!(r.result("py-rt")["clock"], "round_trip");
    assert_eq!(
        res["counters"],
        serde_json::json!(["guesses", "backtracks", "max_depth"])
    );
    all_correct(&r, "python-example");
    all_correct(&r, "py-rt");
    // Its search is `hidden`'s, so its counters are too.
    assert_eq!(
        r.column("python-example", "guesses"),
        r.column("hidden", "guesses")
    );
    assert_eq!(
        r.column("python-example", "max_depth"),
        r.column("hidden", "max_depth")
    );
    let table = text(&r.out.stdout);
    assert!(table.contains("times of py-rt: round trip"), "{table}");
}

fn grids(name: &str, n: usize) -> Vec<Grid> {
    (0..n).map(|i| grid(&puzzle_of(name, i))).collect()
}

#[test]
fn capi_loaded_back_gives_the_built_in_answers_and_counters() {
    let lib = capi();
    let hard = grids("hard.csv", 40);
    let easy = grids("easy.csv", 8);
    for s in Strategy::all() {
        let name = s.name();
        let puzzles = if s.explosive() { &easy } else { &hard };
        let tdoku =
            Strategy::parse(&format!("lib={},symbol=bench_sudoku_{name}", lib.display())).unwrap();
        let rich = Strategy::parse(&format!("lib={},solver={name}", lib.display())).unwrap();
        // The C interface carries the six search counters (its `reports`
        // bits); the elimination counters of the inference levels stay
        // with the built-in engine.
        let carried = s.capabilities().counters.bits() & CounterSet::SEARCH.bits();
        assert_eq!(rich.capabilities().counters.bits(), carried, "{name}");
        for limits in [Limits::first(), Limits::uniqueness()] {
            same_answers(&s, &rich, puzzles, &limits, true);
            // tdoku's signature cannot say "unfinished" (see capi).
            same_answers(&s, &tdoku, puzzles, &limits, false);
        }
    }
}

#[test]
fn serve_round_trips_every_built_in_strategy() {
    let hard = grids("hard.csv", 40);
    for name in ["fast", "locked", "mrv", "logic"] {
        let s = Strategy::named(name).unwrap();
        let served = Strategy::parse(&format!("cmd={BIN} serve -s {name},name=served")).unwrap();
        let caps = served.capabilities();
        assert_eq!(caps.clock, bench_sudoku::solver::Clock::Solver);
        assert_eq!(
            caps.counters.names(),
            ["guesses", "backtracks", "max_depth", "nodes"]
        );
        for limits in [Limits::first(), Limits::uniqueness()] {
            same_answers(&s, &served, &hard, &limits, true);
        }
    }
}

#[test]
fn a_solvers_file_names_external_solvers() {
    let Some(lib) = fixtures() else { return };
    let dir = scratch("solvers-file");
    std::fs::copy(&lib, dir.join(lib_name("fx"))).unwrap();
    let file = dir.join("solvers.toml");
    std::fs::write(
        &file,
        format!(
            "[solvers.fx]\nlib = \"{}\"\n\n[solvers.fx-rich]\nspec = \"lib={},solver=fixture-rich\"\n\n[solvers.served]\ncmd = [\"{BIN}\", \"serve\", \"-s\", \"locked\"]\n",
            lib_name("fx"),
            dir.join(lib_name("fx")).display()
        ),
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let o = bin(&["strategies", "--solvers", f]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let listed = text(&o.stdout);
    for label in ["fx ", "fx-rich ", "served "] {
        assert!(
            listed.lines().any(|l| l.starts_with(label)),
            "{label}: {listed}"
        );
    }
    let r = run(
        "solvers-file-run",
        &[
            &dataset("hard.csv"),
            "--limit",
            "20",
            "--solvers",
            f,
            "-s",
            "fx",
            "-s",
            "fx-rich",
            "-s",
            "served",
        ],
        &[],
    );
    assert_eq!(r.code(), 0, "{}", r.stderr());
    for s in ["fx", "fx-rich", "served"] {
        all_correct(&r, s);
    }
    // The spec of every strategy is in meta.json.
    let meta = json(&r.dir.join("meta.json"));
    let details = meta["options"]["strategy_details"].as_array().unwrap();
    assert_eq!(details[0]["kind"], "lib");
    assert_eq!(details[2]["kind"], "cmd");
    assert_eq!(details[2]["clock"], "solver");
}

#[test]
fn solve_shows_absent_counters_as_absent() {
    let Some(lib) = fixtures() else { return };
    let spec = format!("lib={}", lib.display());
    let p = puzzle_of("hard.csv", 0);
    let o = bin(&["solve", "-s", &spec, &p]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let out = text(&o.stdout);
    assert!(
        out.contains("backtracks —") && out.contains("guesses "),
        "{out}"
    );
    let o = bin(&["solve", "-s", &spec, "--json", &p]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["backtracks"].is_null() && v["guesses"].is_u64(), "{v}");
    let o = bin(&["solve", "-s", &spec, "--trace", &p]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("cannot show its solving process"));
    // A wrong answer is shown as such, with exit status 1.
    let liar = format!("lib={},symbol=solve_wrong_grid", lib.display());
    let o = bin(&["solve", "-s", &liar, &p]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stdout).contains("WRONG: invalid answer"));
}

/// A signal while an in-process library solve never returns: the run
/// cannot finish the batch in flight, so it exits 130 after its grace
/// period (10 s), saying why, instead of hanging.
#[cfg(unix)]
#[test]
fn a_signal_ends_a_run_whose_library_solve_never_returns() {
    let Some(lib) = fixtures() else { return };
    let spec = format!("lib={},symbol=solve_hang,name=hang", lib.display());
    let dir = scratch("hang-signal");
    let out = dir.join("out");
    let child = common::command()
        .env("BS_FIXTURE_HANG", puzzle_of("easy.csv", 2))
        .args([
            "run",
            &dataset("easy.csv"),
            "--limit",
            "5",
            "-q",
            "-s",
            &spec,
        ])
        .args(["--timeout", "10m", "--out"])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Give it time to reach the puzzle that hangs.
    std::thread::sleep(std::time::Duration::from_secs(2));
    let started = std::time::Instant::now();
    assert!(Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap()
        .success());
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("did not stop within 10 s"), "{err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    // The supervisor keeps what was measured (nothing here: the hang is in
    // the first batch), marked incomplete.
    let meta = json(&out.join("meta.json"));
    assert_eq!(meta["complete"], false, "{err}");
    assert!(
        meta["stopped"].as_str().unwrap().contains("puzzle 2"),
        "{meta}"
    );
}

/// A solver that reports u64::MAX guesses on every puzzle: the totals
/// saturate at u64::MAX and are flagged (`counters_saturated`, a warning),
/// in the run and in a merge of its shards, with no panic (this test runs
/// a debug build, where an overflowing `+` panics).
#[test]
fn counters_that_would_overflow_saturate_and_are_flagged() {
    let dir = scratch("saturate");
    // `serve -s fast` answers; the shell replaces every guess count on the
    // way (its replies go `ns=… guesses=… backtracks=…`), line by line.
    let huge = script(
        &dir,
        "huge.sh",
        &format!(
            "'{BIN}' serve -s fast | while IFS= read -r line; do
  case $line in
    *guesses=*) pre=${{line%%guesses=*}}; rest=${{line#*guesses=}}; rest=${{rest#* }}
      line=\"${{pre}}guesses=18446744073709551615 $rest\" ;;
  esac
  printf '%s\\n' \"$line\"
done
"
        ),
    );
    let spec = format!("{huge},name=huge");
    let max = u64::MAX;
    let check = |summary: &Value, stderr: &str| {
        let r = summary["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["strategy"] == "huge")
            .unwrap();
        assert_eq!(r["guesses_total"].as_u64(), Some(max), "{r}");
        assert_eq!(r["guesses_max"].as_u64(), Some(max), "{r}");
        assert_eq!(r["counters_saturated"], true, "{r}");
        assert!(
            stderr.contains(&format!("hard/huge: guesses_total reached {max}")),
            "{stderr}"
        );
    };
    let r = run(
        "saturate-run",
        &[
            &dataset("hard.csv"),
            "--limit",
            "6",
            "-j",
            "1",
            "-s",
            "fast",
            "-s",
            &spec,
        ],
        &[],
    );
    assert_eq!(r.code(), 0, "{}", r.stderr());
    check(&r.summary, &r.stderr());
    // Written only when true.
    assert!(r.result("fast").get("counters_saturated").is_none());
    // Paired with fast: the guess totals of the pairs saturate too.
    assert!(
        r.result("huge")["paired"]["guesses_ratio"]
            .as_f64()
            .unwrap()
            > 1e15
    );
    let md = std::fs::read_to_string(r.dir.join("summary.md")).unwrap();
    assert!(md.contains("guesses_total reached"), "{md}");
    // Two shards, merged: the sum of two saturated totals stays saturated.
    let shards: Vec<Run> = (1..=2)
        .map(|k| {
            run(
                &format!("saturate-shard{k}"),
                &[
                    &dataset("hard.csv"),
                    "--limit",
                    "6",
                    "-j",
                    "1",
                    "-s",
                    &spec,
                    "--shard",
                    &format!("{k}/2"),
                ],
                &[],
            )
        })
        .collect();
    let merged = scratch("saturate-merged");
    let o = command()
        .arg("merge")
        .args(shards.iter().map(|s| &s.dir))
        .arg("--out")
        .arg(&merged)
        .arg("--force")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    check(&json(&merged.join("summary.json")), &err(&o));
}

/// Times a solver reports on its own clock beyond what the histograms hold
/// (seven days) are warned about: the percentiles stop there, the mean and
/// the maximum are exact.
#[test]
fn times_beyond_the_histograms_are_said_to_cap_the_percentiles() {
    let dir = scratch("capped");
    let slow = script(
        &dir,
        "slow.sh",
        &format!(
            "'{BIN}' serve -s fast | while IFS= read -r line; do
  case $line in
    *ns=*) pre=${{line%%ns=*}}; rest=${{line#*ns=}}; rest=${{rest#* }}
      line=\"${{pre}}ns=700000000000000 $rest\" ;;
  esac
  printf '%s\\n' \"$line\"
done
"
        ),
    );
    let spec = format!("{slow},name=slow");
    let r = run(
        "capped-run",
        &[&dataset("hard.csv"), "--limit", "5", "-s", &spec],
        &[],
    );
    assert_eq!(r.code(), 0, "{}", r.stderr());
    let res = r.result("slow");
    assert_eq!(res["max_ns"].as_u64(), Some(700_000_000_000_000));
    // Seven days, to the histogram's precision (0.1 %).
    let p50 = res["p50_ns"].as_u64().unwrap() as f64;
    assert!((p50 / (7.0 * 24.0 * 3.6e12) - 1.0).abs() < 0.002, "{p50}");
    assert!(
        r.stderr().contains("its percentiles stop at"),
        "{}",
        r.stderr()
    );
}
