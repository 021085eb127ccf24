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
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(DEADLINE);
    while child.try_wait().unwrap().is_none() {
        assert!(std::time::Instant::now() < deadline, "solve did not end");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let o = child.wait_with_output().unwrap();
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
