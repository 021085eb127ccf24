//! Solver processes never outlive the run: what a `cmd=` solver starts,
//! in its process group or out of it (`setsid`), is ended after a fault, at
//! the end of the run and when the run is interrupted; a solver's stderr is
//! drained and kept to its tail; what an isolated library prints never
//! reaches the protocol.
#![cfg(target_os = "linux")]

mod common;

use common::solvers::*;
use common::*;
use std::path::Path;

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
        let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        // A zombie has an empty command line: it is gone but for its status.
        if text.contains(marker) {
            found.push(pid);
        }
    }
    found
}

/// Waits up to a few seconds for no process to hold `marker`.
fn none_left(marker: &str) -> bool {
    for _ in 0..100 {
        if alive(marker).is_empty() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    false
}

/// A `cmd=` solver: a shell script that starts two sleepers (one in its
/// process group, one that leaves it with setsid), does `before`, then
/// becomes `bench-sudoku serve -s fast`. The sleepers' durations carry a
/// marker unique to the test.
fn forking_solver(dir: &Path, marker: u32, before: &str) -> String {
    let path = dir.join("solver.sh");
    let body = format!(
        "#!/bin/sh\n\
         setsid sleep {marker}1 </dev/null >/dev/null 2>&1 &\n\
         sleep {marker}2 </dev/null >/dev/null 2>&1 &\n\
         {before}\n\
         exec {BIN} serve -s fast\n"
    );
    std::fs::write(&path, body).unwrap();
    format!("cmd=sh {},name=forker", path.display())
}

fn marker(seed: u32) -> u32 {
    // Distinct per test and per test process: sleep durations no one else
    // uses.
    7_000_000 + (std::process::id() % 1000) * 100 + seed
}

#[test]
fn what_a_solver_starts_is_ended_at_the_end_of_the_run() {
    let dir = scratch("children-end");
    let m = marker(1);
    let spec = forking_solver(&dir, m, "");
    let r = run(
        "children-end-run",
        &[
            &dataset("easy.csv"),
            "--limit",
            "50",
            "-s",
            &spec,
            "-j",
            "2",
        ],
        &[],
    );
    assert_eq!(r.code(), 0, "{}", r.stderr());
    assert_eq!(r.result("forker")["solved"], 50);
    assert!(
        none_left(&format!("sleep {m}")),
        "left: {:?}",
        alive(&m.to_string())
    );
}

#[test]
fn what_a_crashing_solver_started_is_ended_and_its_stderr_tail_kept() {
    let dir = scratch("children-crash");
    let m = marker(2);
    // Dies before answering, after a megabyte of stderr whose last line
    // is what the fault message shows.
    let spec = forking_solver(
        &dir,
        m,
        "read greeting\necho 'bench-sudoku-protocol 1 name=forker reports='\nread request\n\
         head -c 1000000 /dev/zero | tr '\\0' x >&2\necho >&2\necho 'the last words' >&2\nexit 3",
    );
    let r = run(
        "children-crash-run",
        &[&dataset("easy.csv"), "--limit", "3", "-s", &spec, "-j", "1"],
        &[],
    );
    assert_eq!(r.code(), 1, "{}", r.stderr());
    let faults = r.listed("fault_list", "forker");
    assert!(!faults.is_empty());
    let detail = faults[0]["detail"].as_str().unwrap();
    assert!(detail.contains("stderr: the last words"), "{detail}");
    assert!(
        none_left(&format!("sleep {m}")),
        "left: {:?}",
        alive(&m.to_string())
    );
}

#[test]
fn an_interrupted_run_leaves_no_solver_process_behind() {
    let dir = scratch("children-interrupt");
    let m = marker(3);
    // A slow solver: each request waits, so the run is still going when
    // the signal comes.
    let path = dir.join("slow.sh");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\n\
             setsid sleep {m}1 </dev/null >/dev/null 2>&1 &\n\
             sleep {m}2 </dev/null >/dev/null 2>&1 &\n\
             read greeting\n\
             echo 'bench-sudoku-protocol 1 name=slow reports='\n\
             while read puzzle limit; do sleep 1; echo '0'; done\n"
        ),
    )
    .unwrap();
    let spec = format!("cmd=sh {},name=slow", path.display());
    for (name, signals) in [("once", 1), ("twice", 2)] {
        let out = dir.join(name);
        let child = command()
            .args([
                "run",
                &dataset("easy.csv"),
                "--limit",
                "40",
                "-q",
                "-s",
                &spec,
            ])
            .arg("--out")
            .arg(&out)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(1500));
        for _ in 0..signals {
            let pid = child.id().to_string();
            assert!(std::process::Command::new("kill")
                .args(["-INT", &pid])
                .status()
                .unwrap()
                .success());
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(130), "{name}: {}", err(&o));
        assert!(
            none_left(&format!("sleep {m}")),
            "{name}: left: {:?}",
            alive(&m.to_string())
        );
    }
}

/// What a library prints to standard output, isolated in a `serve` child,
/// goes to that child's stderr: the protocol reads only replies.
#[test]
fn a_chatty_isolated_library_does_not_break_the_protocol() {
    let Some(lib) = fixtures() else { return };
    let spec = format!(
        "lib={},symbol=solve_print,isolate=yes,name=chatty",
        lib.display()
    );
    let r = run(
        "chatty-isolated",
        &[&dataset("easy.csv"), "--limit", "20", "-s", &spec],
        &[],
    );
    assert_eq!(r.code(), 0, "{}", r.stderr());
    assert_eq!(r.result("chatty")["solved"], 20);
    assert_eq!(r.result("chatty")["protocol_error"], 0);
}

/// A solver that dies while a process it started holds its output open
/// crashed: it is not a timeout, and nobody waits for one.
#[test]
fn a_solver_that_dies_while_its_child_holds_its_output_crashed() {
    let dir = scratch("children-holder");
    let m = marker(4);
    let path = dir.join("holder.sh");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\n\
             read greeting\n\
             echo 'bench-sudoku-protocol 1 name=holder reports='\n\
             read request\n\
             setsid sleep {m}1 &\n\
             kill -ABRT $$\n"
        ),
    )
    .unwrap();
    let spec = format!("cmd=sh {},name=holder", path.display());
    let started = std::time::Instant::now();
    let r = run(
        "children-holder-run",
        &[
            &dataset("easy.csv"),
            "--limit",
            "3",
            "-s",
            &spec,
            "-j",
            "1",
            "--timeout",
            "20s",
        ],
        &[],
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(15),
        "waited for a timeout"
    );
    assert_eq!(r.code(), 1, "{}", r.stderr());
    let res = r.result("holder");
    assert_eq!(
        (res["crashed"].as_u64(), res["timeout"].as_u64()),
        (Some(3), Some(0)),
        "{res}"
    );
    assert!(
        none_left(&format!("sleep {m}")),
        "left: {:?}",
        alive(&m.to_string())
    );
}
