//! Solvers that cannot be trusted: answers checked on every pass, not only
//! the first; a rejected answer is not a solve; a solver whose repeated
//! passes are far faster than its first is suspected of caching answers.
//! The C fixtures are compiled at test time (tests/fixtures/solvers).
#![cfg(unix)]

mod common;

use common::solvers::*;
use common::*;

/// A solver honest on a puzzle's first call and wrong (instantly) on every
/// later one is caught in every configuration that solves a puzzle twice:
/// the default interleaved run (a warm-up and one measured pass), repeats,
/// and the gate, which never passes it.
#[test]
fn an_answer_is_checked_on_every_pass_not_only_the_first() {
    let Some(lib) = fixtures() else { return };
    let liar = format!("lib={},symbol=solve_honest_first,name=liar", lib.display());
    let data = dataset("hard.csv");
    for (name, extra) in [
        ("every-pass-default", vec![]),
        ("every-pass-repeat", vec!["--repeat", "3", "--warmup", "0"]),
        ("every-pass-gate", vec!["--gate", "fast:liar"]),
    ] {
        let mut args = vec![data.as_str(), "--limit", "100", "-s", "fast", "-s", &liar];
        args.extend(extra.iter().copied());
        let r = run(name, &args, &[]);
        assert_eq!(r.code(), 1, "{name}: {}", r.stderr());
        let res = r.result("liar");
        assert_eq!(res["rejected"], 100, "{name}");
        assert_eq!(res["unstable_answers"], 100, "{name}");
        assert_eq!(res["solved"], 0, "{name}: a rejected answer is not a solve");
        // Kept out of every time statistic and of the pairs.
        assert_eq!(res["mean_ns"].as_f64(), Some(0.0), "{name}");
        assert_eq!(res["paired"]["pairs"], 0, "{name}");
        let listed = r.listed("mismatch_list", "liar");
        assert!(listed.iter().all(|m| m["kind"] == "unstable"), "{name}");
        assert!(
            listed[0]["detail"]
                .as_str()
                .unwrap()
                .contains("answered otherwise than pass 1"),
            "{name}: {listed:?}"
        );
        assert!(r.column("liar", "answer").iter().all(|a| a == "unstable"));
        assert!(r.column("fast", "answer").iter().all(|a| a == "ok"));
        assert!(
            r.stderr()
                .contains("100 answers changed from one pass to another"),
            "{name}: {}",
            r.stderr()
        );
        assert!(!text(&r.out.stdout).contains("PASS"), "{name}");
    }
}

/// A solver that remembers answers is correct on every pass, so only its
/// times give it away: the run warns, says what "far" is, and never makes
/// it the reference of "relative".
#[test]
fn a_solver_far_faster_on_repeats_is_suspected_of_caching() {
    let Some(lib) = fixtures() else { return };
    let cache = format!("lib={},symbol=solve_cache,name=cache", lib.display());
    let honest = format!("lib={},symbol=solve,name=honest", lib.display());
    let r = run(
        "caching",
        &[
            &dataset("hard.csv"),
            "--limit",
            "200",
            "-s",
            &honest,
            "-s",
            &cache,
            "--repeat",
            "3",
        ],
        &[],
    );
    assert_eq!(r.code(), 0, "{}", r.stderr());
    let res = r.result("cache");
    assert_eq!(res["repeated"], 200);
    let far = res["repeat_far_faster"].as_u64().unwrap();
    assert!(far > 100, "{far} of 200 far faster");
    // Its answers are right: nothing is rejected.
    assert_eq!(
        (res["rejected"].as_u64(), res["solved"].as_u64()),
        (Some(0), Some(200))
    );
    let stderr = r.stderr();
    assert!(
        stderr.contains("[cache] hard/cache may be caching answers: on")
            && stderr.contains("at least 4× faster than the first"),
        "{stderr}"
    );
    assert!(stderr.contains("--transform") && stderr.contains("--repeat 1 --warmup 0"));
    // The honest solver, also compiled C, is not suspected.
    let honest = r.result("honest");
    assert!(
        2 * honest["repeat_far_faster"].as_u64().unwrap() < honest["repeated"].as_u64().unwrap()
    );
    assert!(!stderr.contains("hard/honest: on"), "{stderr}");
    // The honest solver is the reference (the baseline of the paired
    // comparison); the cache is marked where it is compared.
    let table = text(&r.out.stdout);
    let line = |label: &str| {
        table
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(label))
            .unwrap_or_else(|| panic!("no row of {label}: {table}"))
            .to_string()
    };
    assert!(line("honest").ends_with("baseline"), "{table}");
    assert!(line("cache").contains("may cache answers"), "{table}");
}

/// A strategy whose answers were rejected is never the reference of
/// "relative", however fast, and is marked where it is ranked.
#[test]
fn a_strategy_with_rejected_answers_is_never_the_fastest() {
    let Some(lib) = fixtures() else { return };
    let wrong = format!("lib={},symbol=solve_wrong_grid,name=wrong", lib.display());
    let r = run(
        "rejected-never-fastest",
        &[
            &dataset("easy.csv"),
            "--limit",
            "50",
            "-s",
            "mrv",
            "-s",
            &wrong,
        ],
        &[],
    );
    assert_eq!(r.code(), 1, "{}", r.stderr());
    let csv = std::fs::read_to_string(r.dir.join("summary.csv")).unwrap();
    let mut rdr = csv::Reader::from_reader(csv.as_bytes());
    let h = rdr.headers().unwrap().clone();
    let col = |name: &str| h.iter().position(|x| x == name).unwrap();
    for row in rdr.records().map(Result::unwrap) {
        match &row[col("strategy")] {
            "mrv" => assert_eq!(&row[col("mean_ratio_vs_fastest")], "1.0"),
            "wrong" => {
                assert_eq!(&row[col("rejected")], "50");
                assert_eq!(&row[col("solved")], "0");
                assert_eq!(&row[col("unfinished")], "true");
            }
            other => panic!("{other}"),
        }
    }
    let table = text(&r.out.stdout);
    assert!(table.contains("(50 rejected)"), "{table}");
}

/// The puzzle of `hard.csv` at 0-based `index`, as the C fixtures read
/// it, and its dataset line (the header is line 1).
fn hard_puzzle(index: usize) -> (String, usize) {
    (puzzle_of("hard.csv", index), index + 2)
}

/// `run` of `fast` and the fixture `solve_die` (labelled `die`) on
/// hard.csv in batches of 16, dying as `how` says on puzzle 200.
fn run_dying(name: &str, how: &str, extra: &[&str]) -> Run {
    let lib = fixtures().expect("checked by the caller");
    let spec = format!("lib={},symbol=solve_die,name=die", lib.display());
    let (puzzle, _) = hard_puzzle(200);
    let data = dataset("hard.csv");
    let mut args = vec![
        data.as_str(),
        "--limit",
        "300",
        "--batch-size",
        "16",
        "-s",
        "fast",
        "-s",
        &spec,
    ];
    args.extend_from_slice(extra);
    run(
        name,
        &args,
        &[("BS_FIXTURE_DIE", &puzzle), ("BS_FIXTURE_DIE_HOW", how)],
    )
}

/// What a run that died keeps: a results directory marked incomplete whose
/// rows and summaries agree, that `report` renders and `compare` refuses.
fn kept_incomplete(r: &Run) {
    let meta = json(&r.dir.join("meta.json"));
    assert_eq!(meta["complete"], false, "{}", r.stderr());
    assert!(
        meta["stopped"].as_str().unwrap().contains("puzzle 200"),
        "{meta}"
    );
    assert_eq!(r.summary["meta"]["complete"], false);
    let (fast, die) = (r.result("fast"), r.result("die"));
    let n = fast["puzzles"].as_u64().unwrap();
    // The batches written before puzzle 200's, every strategy alike.
    assert!((100..=200).contains(&n), "{n} puzzles kept");
    assert_eq!(die["puzzles"].as_u64(), Some(n));
    assert_eq!(
        die["solved"].as_u64(),
        Some(n),
        "its answers before it died were right"
    );
    assert_eq!(r.column("fast", "index").len() as u64, n);
    assert_eq!(r.column("die", "index").len() as u64, n);
    assert!(!r.dir.join("puzzles.csv.partial").exists());
    assert!(r
        .stderr()
        .contains("what was measured before it stopped is in"));
    let report = command().arg("report").arg(&r.dir).output().unwrap();
    assert_eq!(report.status.code(), Some(0), "{}", err(&report));
    let compare = command()
        .arg("compare")
        .args([&r.dir, &r.dir])
        .output()
        .unwrap();
    assert_eq!(compare.status.code(), Some(2), "{}", err(&compare));
    // What was kept reads back whole, its rows agreeing with its summary
    // (pass totals the rows cannot give are left unknown, not 0 ns).
    let bmf = r.dir.with_extension("bmf.json");
    let export = command()
        .arg("export")
        .arg(&r.dir)
        .args(["--export", "bmf"])
        .arg(&bmf)
        .args(["--allow-incomplete", "--allow-untrusted"])
        .output()
        .unwrap();
    assert!(
        !err(&export).contains("[files-disagree]"),
        "{}",
        err(&export)
    );
    assert_eq!(export.status.code(), Some(0), "{}", err(&export));
}

/// A fatal signal in an in-process library: the strategy and the puzzle
/// are named (even with two solver threads inside the library), what was
/// measured is kept, and the status is 128 + the signal.
#[test]
fn an_in_process_crash_names_the_puzzle_and_keeps_what_was_measured() {
    if fixtures().is_none() {
        return;
    }
    for (how, code, name) in [("segv", 139, "SIGSEGV"), ("abort", 134, "SIGABRT")] {
        let r = run_dying(&format!("crash-{how}"), how, &["-j", "2"]);
        assert_eq!(r.code(), code, "{how}: {}", r.stderr());
        let err = r.stderr();
        assert!(
            err.contains(&format!("died of signal {} ({name})", code - 128)),
            "{err}"
        );
        assert!(
            err.contains("while die solved puzzle 200 (") && err.contains("hard.csv:202)"),
            "{err}"
        );
        assert!(
            !err.contains("one of them"),
            "the culprit thread is known: {err}"
        );
        kept_incomplete(&r);
    }
}

/// Without `--batch-size`, a run that loads a library into its process and
/// solves each puzzle once (no warm-up, no repeat) writes its rows a small
/// batch at a time: a crash after 255 puzzles (less than the usual batch
/// of 256) keeps the rows of the batches before it. (With repeated passes
/// its batches are the usual 256, so that repeats stay cold.)
#[test]
fn a_crash_inside_the_first_usual_batch_keeps_the_rows_before_it() {
    let lib = fixtures().expect("these tests need a C compiler (cc)");
    let spec = format!("lib={},symbol=solve_die,name=die", lib.display());
    let (puzzle, _) = hard_puzzle(255);
    let data = dataset("hard.csv");
    let r = run(
        "crash-first-batch",
        &[
            data.as_str(),
            "--limit",
            "400",
            "-j",
            "1",
            "--warmup",
            "0",
            "-s",
            "fast",
            "-s",
            &spec,
        ],
        &[("BS_FIXTURE_DIE", &puzzle), ("BS_FIXTURE_DIE_HOW", "abort")],
    );
    assert_eq!(r.code(), 134, "{}", r.stderr());
    let n = r.result("die")["puzzles"].as_u64().unwrap();
    assert!((128..=255).contains(&n), "{n} puzzles kept: {}", r.stderr());
    assert_eq!(r.column("die", "index").len() as u64, n);
}

/// A library that ends the process (exit, _exit, with any status, also
/// from its initialisers) never ends the run with 0.
#[test]
fn a_library_that_exits_never_ends_the_run_with_0() {
    let Some(lib) = fixtures() else { return };
    for how in ["exit0", "_exit0", "exit3"] {
        let r = run_dying(&format!("exit-{how}"), how, &["-j", "1"]);
        assert_eq!(r.code(), 125, "{how}: {}", r.stderr());
        let err = r.stderr();
        assert!(err.contains("the solver ended the process itself"), "{err}");
        assert!(err.contains("while die solved puzzle 200 ("), "{err}");
        kept_incomplete(&r);
    }
    // In its initialisers: nothing measured, no results directory.
    let spec = format!("lib={},symbol=solve", lib.display());
    for (how, code) in [("exit0", 125), ("segv", 139)] {
        let dir = scratch(&format!("ctor-{how}"));
        let out = command()
            .args([
                "run",
                &dataset("hard.csv"),
                "--limit",
                "20",
                "-q",
                "-s",
                "fast",
                "-s",
            ])
            .arg(&spec)
            .arg("--out")
            .arg(dir.join("out"))
            .env("BS_FIXTURE_CTOR", how)
            .output()
            .unwrap();
        let e = err(&out);
        assert_eq!(out.status.code(), Some(code), "{how}: {e}");
        assert!(
            e.contains("while loading strategy") && e.contains("symbol=solve"),
            "{e}"
        );
        assert!(e.contains("nothing was measured"), "{e}");
        assert!(!dir.join("out").join("summary.json").exists());
    }
}

/// A call into an in-process library that never returns is ended at
/// `--timeout`, named, and what was measured is kept.
#[test]
fn an_in_process_hang_is_ended_at_the_timeout_and_named() {
    if fixtures().is_none() {
        return;
    }
    let started = std::time::Instant::now();
    let r = run_dying("hang-spin", "spin", &["--timeout", "1s"]);
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
    assert_eq!(r.code(), 124, "{}", r.stderr());
    let err = r.stderr();
    assert!(
        err.contains("a call did not return within 1s (--timeout)"),
        "{err}"
    );
    assert!(err.contains("while die solved puzzle 200 ("), "{err}");
    kept_incomplete(&r);
}

/// A gate whose candidate takes the process down is not passed, and the
/// job summary says it was not judged.
#[test]
fn a_crashing_solver_never_passes_a_gate() {
    if fixtures().is_none() {
        return;
    }
    let summary = scratch("gate-crash-summary").join("summary.md");
    let r = run_dying(
        "gate-crash",
        "segv",
        &[
            "--gate",
            "fast:die",
            "--gate-summary",
            summary.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code(), 139, "{}", r.stderr());
    assert!(!text(&r.out.stdout).contains("PASS"));
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(md.contains("not judged") && md.contains("SIGSEGV"), "{md}");
}

/// `run` of `fast` and the fixture-rich solver (labelled `rich`) on
/// hard.csv with `envs` set, `--timeout 1s`.
fn run_rich(name: &str, envs: &[(&str, &str)]) -> Run {
    let lib = fixtures().expect("checked by the caller");
    let spec = format!("lib={},solver=fixture-rich,name=rich", lib.display());
    run(
        name,
        &[
            &dataset("hard.csv"),
            "--limit",
            "100",
            "-s",
            "fast",
            "-s",
            &spec,
            "--timeout",
            "1s",
        ],
        envs,
    )
}

/// A library that spins while it is loaded is ended at `--timeout`, named,
/// and nothing is left waiting; one that stops the process is refused (the
/// shield's filter: tests/hostile.rs) and named.
#[test]
fn a_library_that_hangs_or_stops_while_loading_is_ended_at_the_timeout() {
    if fixtures().is_none() {
        return;
    }
    for (how, code, said) in [
        ("spin", 124, "did not finish loading within 1s"),
        ("stop", 159, "tried to send SIGSTOP (tgkill)"),
    ] {
        let started = std::time::Instant::now();
        let r = run_rich(&format!("ctor-{how}"), &[("BS_FIXTURE_CTOR", how)]);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "{how}"
        );
        assert_eq!(r.code(), code, "{how}: {}", r.stderr());
        let err = r.stderr();
        assert!(err.contains(said), "{err}");
        assert!(err.contains("solver=fixture-rich"), "{err}");
    }
}

/// A fault after the results were written (a destructor that crashes,
/// exits or spins while the library is unloaded) fails the run with its
/// status, and the complete results are kept as they are.
#[test]
fn a_fault_after_the_results_keeps_them_complete() {
    if fixtures().is_none() {
        return;
    }
    for (how, code) in [("segv", 139), ("exit3", 125), ("spin", 124)] {
        let r = run_rich(&format!("dtor-{how}"), &[("BS_FIXTURE_DTOR", how)]);
        assert_eq!(r.code(), code, "{how}: {}", r.stderr());
        let err = r.stderr();
        assert!(
            err.contains("while the solvers were unloaded"),
            "{how}: {err}"
        );
        assert!(err.contains("were complete before that"), "{how}: {err}");
        assert_eq!(json(&r.dir.join("meta.json"))["complete"], true, "{how}");
        assert_eq!(r.result("rich")["solved"], 100, "{how}");
    }
}

/// A `destroy` of a thread's state that never returns is a hang, named as
/// such, and what was measured is kept.
#[test]
fn a_hang_freeing_a_state_is_named() {
    if fixtures().is_none() {
        return;
    }
    let r = run_rich("destroy-spin", &[("BS_FIXTURE_DESTROY", "spin")]);
    assert_eq!(r.code(), 124, "{}", r.stderr());
    let err = r.stderr();
    assert!(
        err.contains("rich freed a thread's state (destroy)"),
        "{err}"
    );
    assert_eq!(r.result("rich")["puzzles"], 100);
    assert_eq!(json(&r.dir.join("meta.json"))["complete"], false);
}

/// An interrupt a solver raises is not taken for the user's: the call is
/// refused, the run names the solver and the puzzle, and what was measured
/// is kept.
#[test]
fn an_interrupt_a_solver_raises_is_said_to_be_one() {
    if fixtures().is_none() {
        return;
    }
    let r = run_dying("raised-term", "term", &["-j", "1"]);
    assert_eq!(r.code(), 159, "{}", r.stderr());
    let err = r.stderr();
    assert!(
        err.contains("the solver tried to send SIGTERM (tgkill) to the measuring process"),
        "{err}"
    );
    assert!(err.contains("while die solved puzzle 200 ("), "{err}");
    kept_incomplete(&r);
}

/// A library that ignores SIGINT cannot keep the run from stopping: the
/// second interrupt reaches the measuring process as SIGTERM.
#[test]
fn a_library_that_ignores_sigint_can_still_be_interrupted() {
    let Some(lib) = fixtures() else { return };
    let spec = format!("lib={},symbol=solve_die,name=die", lib.display());
    let (first, _) = hard_puzzle(0);
    let out = scratch("ignore-int").join("out");
    let child = command()
        .args(["run", &dataset("hard.csv"), "-q", "-s", "mrv", "-s", &spec])
        .args(["--repeat", "200", "--out"])
        .arg(&out)
        .env("BS_FIXTURE_DIE", &first)
        .env("BS_FIXTURE_DIE_HOW", "ignore_int")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(2));
    let started = std::time::Instant::now();
    for _ in 0..2 {
        let pid = child.id().to_string();
        assert!(std::process::Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success());
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", err(&o));
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert_eq!(json(&out.join("meta.json"))["complete"], false);
}

/// A library that changes the working directory cannot scatter the results
/// of a run given a relative `--out`, nor keep it from reading its dataset.
#[test]
fn a_library_that_changes_directory_does_not_move_the_results() {
    let Some(lib) = fixtures() else { return };
    let spec = format!("lib={},symbol=solve_die,name=die", lib.display());
    let (first, _) = hard_puzzle(0);
    let here = scratch("chdir");
    std::fs::write(here.join("set.txt"), hard_lines(300)).unwrap();
    let o = command()
        .current_dir(&here)
        .args([
            "run",
            "set.txt",
            "-q",
            "-s",
            "fast",
            "-s",
            &spec,
            "--batch-size",
            "16",
        ])
        .args(["--out", "rel"])
        .env("BS_FIXTURE_DIE", &first)
        .env("BS_FIXTURE_DIE_HOW", "chdir")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(
        text(&o.stdout).contains("results in rel"),
        "{}",
        text(&o.stdout)
    );
    let meta = json(&here.join("rel/meta.json"));
    assert_eq!(meta["complete"], true);
    let summary = json(&here.join("rel/summary.json"));
    assert!(summary["results"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["solved"] == 300));
    assert!(!std::path::Path::new("/rel").exists());
}

/// `--force` replaces the files a run writes, and nothing else: a user's
/// file in `charts/` or `histograms/` stays.
#[test]
fn force_replaces_the_results_and_nothing_else() {
    let out = scratch("force-own").join("out");
    for (folder, name) in [("charts", "notes.txt"), ("histograms", "mine.so")] {
        std::fs::create_dir_all(out.join(folder)).unwrap();
        std::fs::write(out.join(folder).join(name), b"keep").unwrap();
    }
    for _ in 0..2 {
        let o = command()
            .args([
                "run",
                &dataset("easy.csv"),
                "--limit",
                "20",
                "-q",
                "-s",
                "fast",
                "--force",
            ])
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    }
    assert_eq!(
        std::fs::read(out.join("charts/notes.txt")).unwrap(),
        b"keep"
    );
    assert_eq!(
        std::fs::read(out.join("histograms/mine.so")).unwrap(),
        b"keep"
    );
    assert!(out.join("charts/easy-latency.svg").is_file());
}

/// The gate judges only sides whose times and answers it can believe: not
/// a side that may cache answers, one whose answers carry no grid, or one
/// whose own clock claims a sliver of the time its calls took. Each is
/// "not judged" (exit 2), never passed.
#[test]
fn a_gate_does_not_judge_what_it_cannot_believe() {
    let Some(lib) = fixtures() else { return };
    let honest = format!("lib={},symbol=solve,name=base", lib.display());
    let data = dataset("hard.csv");
    let gate = |name: &str, cand: &str, extra: &[&str]| {
        let mut args = vec![
            data.as_str(),
            "--batch-size",
            "16",
            "-s",
            &honest,
            "-s",
            cand,
        ];
        args.extend_from_slice(&["--gate", "base:cand"]);
        args.extend_from_slice(extra);
        run(name, &args, &[])
    };
    let cache = format!("lib={},symbol=solve_cache,name=cand", lib.display());
    let r = gate("gate-cache", &cache, &["--limit", "400"]);
    assert_eq!(r.code(), 2, "{}", r.stderr());
    assert!(
        text(&r.out.stdout).contains("may be caching answers"),
        "{}",
        text(&r.out.stdout)
    );

    let count_only = format!("lib={},symbol=solve_count_only,name=cand", lib.display());
    let r = gate(
        "gate-count-only",
        &count_only,
        &["--limit", "400", "--count", "2"],
    );
    assert_eq!(r.code(), 1, "{}", r.stderr());
    assert!(
        text(&r.out.stdout)
            .contains("[unverified] CANDIDATE cand wrote no solution for 400 answers"),
        "{}",
        text(&r.out.stdout)
    );
    assert_eq!(r.result("cand")["unverified"], 400);

    // `serve -s fast` with every reply's time replaced by 1 ns, against the
    // same served honestly.
    let dir = scratch("gate-fake-clock");
    let liar = dir.join("liar.sh");
    std::fs::write(
        &liar,
        format!(
            "'{BIN}' serve -s fast | while IFS= read -r line; do
  case $line in
    *ns=*) pre=${{line%%ns=*}}; rest=${{line#*ns=}}; rest=${{rest#* }}
      line=\"${{pre}}ns=1 $rest\" ;;
  esac
  printf '%s\\n' \"$line\"
done
"
        ),
    )
    .unwrap();
    let served = format!("cmd={BIN} serve -s fast,name=base");
    let fake = format!("cmd=sh {},name=cand", liar.display());
    let r = run(
        "gate-fake-clock-run",
        &[
            &data,
            "--limit",
            "200",
            "--batch-size",
            "16",
            "-s",
            &served,
            "-s",
            &fake,
            "--gate",
            "base:cand",
        ],
        &[],
    );
    assert_eq!(r.code(), 2, "{}", r.stderr());
    let out = text(&r.out.stdout);
    assert!(
        out.contains("timed by its own clock") && out.contains("not believable"),
        "{out}"
    );
    assert!(r.result("cand")["claimed_share"].as_f64().unwrap() < 0.02);
    assert!(r.result("base")["claimed_share"].as_f64().unwrap() > 0.1);
}
