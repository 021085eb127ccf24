//! Solvers that turn on the harness: stop it, signal it, signal every
//! process, raise the signals it interprets. Each is refused by the shield's
//! filter (`src/shield`), ends as a named fault of that solver, and the run
//! ends (never hangs). The fixtures are the C library of
//! `tests/fixtures/solvers/fixtures.c` (in-process, isolated) and the
//! Python script `tests/fixtures/solvers/hostile.py` (`cmd=`); a missing C
//! compiler or python3 fails these tests with the reason.
//!
//! No broad signal here could do harm if the filter were missing: what is
//! aimed at every process or at the test's process group is SIGWINCH
//! (ignored by default); what is aimed at bench-sudoku itself at worst
//! stops or ends the bench-sudoku under test, which the deadline of each
//! run then reports.
#![cfg(target_os = "linux")]

mod common;

use common::solvers::*;
use common::*;

/// How long any run here may take before it counts as a hang.
const DEADLINE: u64 = 120;

/// The puzzle of `hard.csv` at 0-based `index` as the C fixtures read it.
fn hard_puzzle(index: usize) -> String {
    puzzle_of("hard.csv", index)
}

#[test]
fn a_solver_process_that_stops_or_signals_the_harness_is_a_named_fault() {
    need_python();
    let data = dataset("hard.csv");
    for how in [
        "kill-parent:SIGSTOP",
        "kill-parent:SIGUSR1",
        "kill-parent:SIGINT",
        "kill-parent:SIGTERM",
        "kill-all:SIGWINCH",
        "kill-parent-group:SIGWINCH",
        "raise:SIGSTOP",
    ] {
        let spec = hostile_py(how, 2, "h");
        let args = [
            data.as_str(),
            "--limit",
            "3",
            "-j",
            "1",
            "--warmup",
            "0",
            "-s",
            "fast",
        ];
        let mut args = args.to_vec();
        args.extend(["-s", &spec, "--timeout", "5s"]);
        let r = run_within(&format!("py-{how}"), &args, &[], DEADLINE);
        assert_eq!(r.code(), 1, "{how}: {}", r.stderr());
        let faults = fault_details(&r, "h");
        assert!(!faults.is_empty(), "{how}: {}", r.stderr());
        assert!(
            faults
                .iter()
                .all(|d| d.contains("killed by signal 31 (SIGSYS")
                    && d.contains("a stop or a signal aimed at bench-sudoku")),
            "{how}: {faults:?}"
        );
        // The first request was answered before the solver turned.
        assert_eq!(r.column("h", "status")[0], "solved", "{how}");
        assert_eq!(r.result("fast")["solved"], 3, "{how}");
    }
}

#[test]
fn an_isolated_library_that_stops_or_signals_the_harness_is_a_named_fault() {
    let lib = need_fixtures();
    let spec = format!(
        "lib={},symbol=solve_die,name=die,isolate=yes",
        lib.display()
    );
    let target = hard_puzzle(3);
    for how in ["kill:parent:19", "kill:parent:10", "kill:all:28", "stop"] {
        let r = run_within(
            &format!("iso-{how}"),
            &[
                &dataset("hard.csv"),
                "--limit",
                "6",
                "-s",
                "fast",
                "-s",
                &spec,
            ],
            &[("BS_FIXTURE_DIE", &target), ("BS_FIXTURE_DIE_HOW", how)],
            DEADLINE,
        );
        assert_eq!(r.code(), 1, "{how}: {}", r.stderr());
        let faults = r.listed("fault_list", "die");
        assert_eq!(faults.len(), 1, "{how}: {faults:?}");
        assert_eq!(faults[0]["index"], 3, "{how}");
        assert!(
            faults[0]["detail"]
                .as_str()
                .unwrap()
                .contains("killed by signal 31 (SIGSYS"),
            "{how}: {faults:?}"
        );
        assert_eq!(r.result("die")["solved"], 5, "{how}");
    }
}

#[test]
fn a_library_in_the_process_that_stops_or_signals_the_harness_is_a_named_fault() {
    let lib = need_fixtures();
    let spec = format!("lib={},symbol=solve_die,name=die", lib.display());
    let target = hard_puzzle(100);
    let cases = [
        (
            "kill:parent:19",
            "send SIGSTOP (kill) to bench-sudoku's supervising process",
        ),
        (
            "kill:parent:10",
            "send SIGUSR1 (kill) to bench-sudoku's supervising process",
        ),
        ("kill:self:2", "send SIGINT (kill) to the measuring process"),
        (
            "kill:zero:15",
            "send SIGTERM (kill) to the measuring process",
        ),
        (
            "kill:all:28",
            "send SIGWINCH (kill) to every process (pid -1)",
        ),
        (
            "kill:parentgroup:28",
            "send SIGWINCH (kill) to bench-sudoku's process group",
        ),
        ("tkill:1", "send SIGHUP (tkill) to the measuring process"),
        ("stop", "send SIGSTOP (tgkill) to the measuring process"),
    ];
    for (how, said) in cases {
        let r = run_within(
            &format!("inproc-{how}"),
            &[
                &dataset("hard.csv"),
                "--limit",
                "120",
                "--batch-size",
                "16",
                "-j",
                "1",
                "-s",
                "fast",
                "-s",
                &spec,
                "--timeout",
                "5s",
            ],
            &[("BS_FIXTURE_DIE", &target), ("BS_FIXTURE_DIE_HOW", how)],
            DEADLINE,
        );
        let err = r.stderr();
        assert_eq!(r.code(), 128 + 31, "{how}: {err}");
        assert!(
            err.contains(&format!("the solver tried to {said}"))
                && err.contains("which solvers may not"),
            "{how}: {err}"
        );
        assert!(
            err.contains("while die solved puzzle 100 ("),
            "{how}: {err}"
        );
        // The batches before it are kept, marked incomplete.
        let meta = json(&r.dir.join("meta.json"));
        assert_eq!(meta["complete"], false, "{how}");
        let kept = r.result("die")["puzzles"].as_u64().unwrap();
        assert!((16..=100).contains(&kept), "{how}: {kept} kept");
    }
    // What is the solver's own business stays allowed: a harmless signal
    // to its own process group, and the run goes on.
    let r = run_within(
        "inproc-own-group",
        &[
            &dataset("hard.csv"),
            "--limit",
            "60",
            "-s",
            "fast",
            "-s",
            &spec,
        ],
        &[
            ("BS_FIXTURE_DIE", &target),
            ("BS_FIXTURE_DIE_HOW", "kill:zero:28"),
        ],
        DEADLINE,
    );
    assert_eq!(r.code(), 0, "{}", r.stderr());
    assert_eq!(r.result("die")["solved"], 60);
}

/// `check FILE` with the fixture `solve_die` doing `how` on `hard.csv`'s
/// puzzle 5 (line 6 of the plain file).
fn check_dying(name: &str, how: &str) -> (std::process::Output, std::path::PathBuf) {
    let lib = need_fixtures();
    let dir = scratch(name);
    let file = dir.join("ten.txt");
    std::fs::write(&file, hard_lines(10)).unwrap();
    let spec = format!("lib={},symbol=solve_die", lib.display());
    let mut cmd = command();
    cmd.arg("check")
        .arg(&file)
        .args(["-s", &spec, "--timeout", "1s"])
        .env("BS_FIXTURE_DIE", hard_puzzle(5))
        .env("BS_FIXTURE_DIE_HOW", how);
    (output_within(&mut cmd, DEADLINE), file)
}

#[test]
fn check_never_exits_0_when_a_library_crashes_exits_or_hangs() {
    for (how, code, said) in [
        (
            "exit0",
            125,
            "the solver ended the process itself (exit status 0)",
        ),
        (
            "_exit0",
            125,
            "the solver ended the process itself (exit status 0)",
        ),
        ("segv", 139, "the process died of signal 11 (SIGSEGV)"),
        ("abort", 134, "the process died of signal 6 (SIGABRT)"),
        ("spin", 124, "a call did not return within 1s (--timeout)"),
        (
            "kill:parent:19",
            159,
            "the solver tried to send SIGSTOP (kill)",
        ),
    ] {
        let (o, file) = check_dying(&format!("check-{how}"), how);
        let e = err(&o);
        assert_eq!(o.status.code(), Some(code), "{how}: {e}");
        assert!(e.contains(said), "{how}: {e}");
        assert!(
            e.contains(&format!("solved the puzzle at {}:6", file.display())),
            "{how}: {e}"
        );
        assert!(e.contains("isolate=yes"), "{how}: {e}");
        assert!(!text(&o.stdout).contains("10 puzzles"), "{how}: no tally");
    }
    // Unharmed, the same library checks the file and exits 0.
    let (o, _) = check_dying("check-none", "none");
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(
        text(&o.stdout).contains("10 puzzles"),
        "{}",
        text(&o.stdout)
    );
}

#[test]
fn solve_never_exits_0_when_a_library_ends_the_process_and_keeps_what_it_printed() {
    let lib = need_fixtures();
    let spec = format!("lib={},symbol=solve_die", lib.display());
    let mut child = command()
        .args(["solve", "-s", &spec])
        .env("BS_FIXTURE_DIE", hard_puzzle(5))
        .env("BS_FIXTURE_DIE_HOW", "exit0")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(hard_lines(10).as_bytes()).unwrap();
    drop(stdin);
    let o = wait_output(child);
    let e = err(&o);
    assert_eq!(o.status.code(), Some(125), "{e}");
    assert!(
        e.contains("the solver ended the process itself (exit status 0)")
            && e.contains("solved puzzle 6 (stdin:6: "),
        "{e}"
    );
    // The five puzzles answered before it are printed.
    let out = text(&o.stdout);
    assert_eq!(out.matches("status: solved").count(), 5, "{out}");
}

#[test]
fn generate_hard_for_never_exits_0_when_a_library_ends_the_process() {
    let lib = need_fixtures();
    let spec = format!("lib={},symbol=solve_die", lib.display());
    let dir = scratch("generate-exit");
    let out = dir.join("hard.csv");
    for (how, code) in [("exit0", 125), ("segv", 139)] {
        let mut cmd = command();
        cmd.args([
            "generate",
            "--hard-for",
            &spec,
            "-n",
            "3",
            "--max-steps",
            "50",
        ])
        .args(["-j", "1", "--timeout", "1s", "-o"])
        .arg(&out)
        .env("BS_FIXTURE_DIE", "call:30")
        .env("BS_FIXTURE_DIE_HOW", how);
        let o = output_within(&mut cmd, DEADLINE);
        let e = err(&o);
        assert_eq!(o.status.code(), Some(code), "{how}: {e}");
        assert!(
            e.contains("while lib=") && e.contains("solved a puzzle of search "),
            "{e}"
        );
        // Nothing half-written is left, under any name.
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
        assert!(left.is_empty(), "{how}: {left:?}");
    }
}

/// Processes whose command line holds `marker`.
fn alive(marker: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        if String::from_utf8_lossy(&cmdline).contains(marker) {
            found.push(pid);
        }
    }
    found
}

/// Lines of `path` (0 when it does not exist).
fn lines(path: &std::path::Path) -> usize {
    std::fs::read(path).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count())
}

/// Sends SIGINT to `pid` (as a user's Ctrl-C or `kill -INT` would).
fn interrupt(pid: u32) {
    let ok = std::process::Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -INT {pid}");
}

/// Waits (up to the deadline) until `ready` holds, polling.
fn wait_for(what: &str, ready: impl Fn() -> bool) {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(DEADLINE);
    while !ready() {
        assert!(
            std::time::Instant::now() < until,
            "waited too long for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// As [`wait_for`], while `child` runs: a child that ended first, or the
/// deadline, fails the test, and the child is killed so that no command
/// outlives a failed test.
fn wait_while_running(child: &mut std::process::Child, what: &str, ready: impl Fn() -> bool) {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(DEADLINE);
    while !ready() {
        let ended = child.try_wait().unwrap();
        if ended.is_some() || std::time::Instant::now() > until {
            let _ = child.kill();
            let _ = child.wait();
            panic!("waited in vain for {what} (the command: {ended:?})");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A run whose `cmd=` solver has become very slow (30 s a puzzle) when the
/// user interrupts it: the solver process is stopped where it is (never
/// waited for: the run would otherwise give up after its grace period
/// without results), and the rows measured before are written as an
/// incomplete results directory, which `report` renders and `compare`
/// refuses.
#[test]
fn an_interrupt_stops_a_slow_solver_process_at_once_and_keeps_the_rows() {
    need_python();
    let dir = scratch("interrupt-slow");
    let out = dir.join("out");
    // The solver's 60th request (puzzles and re-measured outliers) and
    // every later one take 30 s; the file says the first has begun.
    let slow = dir.join("now-slow");
    let spec = hostile_py_marked("sleep:30", 60, "slow", slow.to_str().unwrap());
    let data = dataset("hard.csv");
    let mut child = command()
        .args([
            "run", &data, "--limit", "100", "-q", "-j", "1", "--warmup", "0",
        ])
        .args(["--batch-size", "4", "-s", "fast", "-s", &spec, "--out"])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_while_running(&mut child, "the slow solve", || slow.exists());
    interrupt(child.id());
    let o = wait_output(child);
    let e = err(&o);
    assert_eq!(o.status.code(), Some(130), "{e}");
    assert!(
        !e.contains("did not stop within"),
        "the slow solve was waited for: {e}"
    );
    let meta = json(&out.join("meta.json"));
    assert_eq!(meta["complete"], false, "{e}");
    assert_eq!(meta["stopped"], "interrupted", "{e}");
    let summary = json(&out.join("summary.json"));
    for r in summary["results"].as_array().unwrap() {
        let n = r["puzzles"].as_u64().unwrap();
        assert!((1..60).contains(&n), "{n} kept: {e}");
        assert_eq!(r["solved"], r["puzzles"], "the interrupt is no fault: {r}");
    }
    assert!(summary["fault_list"]
        .as_array()
        .is_none_or(|f| f.is_empty()));
    let report = command().arg("report").arg(&out).output().unwrap();
    assert_eq!(report.status.code(), Some(0), "{}", err(&report));
    let compare = command()
        .arg("compare")
        .args([&out, &out])
        .output()
        .unwrap();
    assert_eq!(compare.status.code(), Some(2), "{}", err(&compare));
    let mark = slow.to_string_lossy().into_owned();
    wait_for("no solver process left", || alive(&mark).is_empty());
}

/// Waits for `child` to end (the deadline fails the test) and returns its
/// output.
fn wait_output(mut child: std::process::Child) -> std::process::Output {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(DEADLINE);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > until {
            let _ = child.kill();
            panic!("the command did not end within {DEADLINE} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// An interrupted `generate` keeps what it found: in `FILE.partial`, which
/// says it is partial; `FILE` itself appears only when every puzzle was
/// found.
#[test]
fn an_interrupted_generate_keeps_what_it_found_marked_partial() {
    let dir = scratch("generate-interrupt");
    for (mode, args) in [
        ("grids", vec!["--grids", "1000000000"]),
        (
            "hard-for",
            vec![
                "--hard-for",
                "fast",
                "-n",
                "100000",
                "-j",
                "1",
                "--max-steps",
                "10",
            ],
        ),
    ] {
        let out = dir.join(format!("{mode}.txt"));
        let partial = dir.join(format!("{mode}.txt.partial"));
        let temporaries = || {
            std::fs::read_dir(&dir)
                .unwrap()
                .flatten()
                .any(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        };
        let mut child = command()
            .arg("generate")
            .args(&args)
            .args(["-q", "-o"])
            .arg(&out)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Something was found (its temporary file grew past the header).
        wait_while_running(&mut child, "a first puzzle", || {
            std::fs::read_dir(&dir).unwrap().flatten().any(|e| {
                let n = e.file_name().to_string_lossy().into_owned();
                n.starts_with(&format!(".{mode}.txt.")) && lines(&e.path()) > 3
            })
        });
        interrupt(child.id());
        let o = wait_output(child);
        let e = err(&o);
        assert_eq!(o.status.code(), Some(130), "{mode}: {e}");
        assert!(!out.exists(), "{mode}: the whole output must not appear");
        assert!(!temporaries(), "{mode}");
        let text = std::fs::read_to_string(&partial).unwrap();
        let last = text.lines().last().unwrap();
        assert!(
            last.starts_with("# partial: ") && last.ends_with("(interrupted)"),
            "{last}"
        );
        assert!(
            e.contains(&format!("kept in {}", partial.display())),
            "{mode}: {e}"
        );
        // Every line but the comments is a whole row.
        let rows = text.lines().filter(|l| !l.starts_with('#'));
        let width = if mode == "grids" { 81 } else { 0 };
        for row in rows.skip(usize::from(mode != "grids")) {
            if width > 0 {
                assert_eq!(row.len(), 81, "{row}");
            } else {
                assert_eq!(row.split(',').count(), 9, "{row}");
            }
        }
    }
}

/// With too few file descriptors to start a solver process, the run stops
/// with an error of the run (2) that names the cause, never a fault of the
/// solver: at every limit, the run either succeeds or says so.
#[test]
fn descriptor_exhaustion_is_an_error_of_the_run_not_a_fault_of_the_solver() {
    let dir = scratch("emfile");
    let spec = format!("cmd={BIN} serve -s fast,name=served");
    let data = dataset("hard.csv");
    let mut stopped_mid_run = false;
    for n in [8, 10, 12, 13, 14, 15, 16, 20, 24, 32, 64] {
        let out = dir.join(format!("n{n}"));
        let script = format!(
            "ulimit -n {n} && exec \"$0\" run \"$1\" --limit 20 -q -j 3 -s fast -s \"$2\" --out \"$3\""
        );
        let mut cmd = std::process::Command::new("sh");
        cmd.arg("-c")
            .arg(script)
            .arg(BIN)
            .arg(&data)
            .arg(&spec)
            .arg(&out);
        let o = output_within(&mut cmd, DEADLINE);
        let e = err(&o);
        match o.status.code() {
            Some(0) => {}
            Some(2) => {
                assert!(e.contains("Too many open files"), "n={n}: {e}");
                assert!(e.contains("not a fault of the solver"), "n={n}: {e}");
                if e.contains("a solver process could not be started") {
                    stopped_mid_run = true;
                    let meta = json(&out.join("meta.json"));
                    assert_eq!(meta["complete"], false, "n={n}");
                    let summary = json(&out.join("summary.json"));
                    let faults = summary["fault_list"].as_array().map_or(0, |f| f.len());
                    assert_eq!(faults, 0, "n={n}: no fault is the solver's: {summary}");
                }
            }
            other => panic!("n={n}: exit {other:?}: {e}"),
        }
    }
    assert!(
        stopped_mid_run,
        "no limit stopped the run as it started solver processes"
    );
}

/// A solver that hangs on every request costs three timeouts, not one per
/// puzzle: after three in a row with no reply between them its remaining
/// puzzles are `crashed`, saying why, and the run ends (exit 1).
#[test]
fn a_solver_that_hangs_on_every_request_is_given_up_after_three_timeouts() {
    need_python();
    let spec = hostile_py("sleep:100", 1, "hang");
    let data = dataset("easy.csv");
    let args = [
        data.as_str(),
        "--limit",
        "12",
        "-j",
        "1",
        "--timeout",
        "1s",
        "-s",
        &spec,
    ];
    // 12 timeouts would take 12 s; the limit only stops a hang of the suite.
    let r = run_within("hang-every-request", &args, &[], 60);
    assert_eq!(r.out.status.code(), Some(1), "{}", err(&r.out));
    let status = r.column("hang", "status");
    assert_eq!(status.len(), 12);
    assert!(status[..3].iter().all(|s| s == "timeout"), "{status:?}");
    assert!(status[3..].iter().all(|s| s == "crashed"), "{status:?}");
    let details = fault_details(&r, "hang");
    assert!(
        details[3..]
            .iter()
            .all(|d| d.contains("3 timeouts in a row")),
        "{details:?}"
    );
}
