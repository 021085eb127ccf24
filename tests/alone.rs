//! The check that a batch of library calls ran on the calling thread
//! alone (`solver::alone`), in a test binary of its own and one test: the
//! check reads the whole process's CPU clock, its threads and children,
//! and whether any process started meanwhile, which other tests running
//! beside it would disturb (their threads, their processes).

#![cfg(target_os = "linux")]

mod common;

use bench_sudoku::solver::alone::{self, Mark};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Works until the calling thread has used `d` of CPU time.
fn spin(d: Duration) {
    let cpu = || bench_sudoku::solver::stopwatch::thread_cpu_ns().unwrap();
    let until = cpu() + d.as_nanos() as u64;
    let mut x = 0u64;
    while cpu() < until {
        x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(1));
    }
}

/// The CPU time of other threads than the harness's while the calling
/// thread spins 10 ms and then waits, without blocking, for 30 ms of work
/// done by a thread of its own; `register`: that thread is one of the
/// harness's. It is started (and registered) before the clocks are first
/// read, and read again once it is done and before it exits, as the
/// harness's threads live through a run.
fn foreign_while_handed_off(register: bool) -> (Option<u64>, bool) {
    let go = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicBool::new(false));
    let (g, d) = (go.clone(), done.clone());
    let helper = std::thread::spawn(move || {
        if register {
            alone::enter();
        }
        while !g.load(Ordering::Acquire) {
            std::thread::sleep(Duration::from_millis(1));
        }
        spin(Duration::from_millis(30));
        d.store(true, Ordering::Release);
        while g.load(Ordering::Acquire) {
            std::thread::sleep(Duration::from_millis(1));
        }
    });
    std::thread::sleep(Duration::from_millis(20));
    let mark = Mark::now().expect("linux has the clocks");
    spin(Duration::from_millis(10));
    go.store(true, Ordering::Release);
    while !done.load(Ordering::Acquire) {
        std::thread::yield_now();
    }
    let found = (mark.foreign_ns(), alone::clean(&mark, 40_000_000));
    go.store(false, Ordering::Release);
    helper.join().unwrap();
    found
}

#[test]
fn only_work_on_the_harnesss_own_threads_counts_as_alone() {
    the_check_in_this_process();
    slow_library_calls_on_another_thread_keep_the_wall_clock();
}

fn the_check_in_this_process() {
    // A thread that is not the harness's is never judged.
    assert!(std::thread::spawn(Mark::now).join().unwrap().is_none());

    alone::enter();
    // The calling thread's work and a registered thread's: alone.
    let (foreign, clean) = foreign_while_handed_off(true);
    let f = foreign.expect("no child process");
    assert!(f < alone::SLACK_NS, "{f} ns foreign");
    assert!(clean);

    // A thread of the library's own: its 30 ms are foreign.
    let (foreign, clean) = foreign_while_handed_off(false);
    let f = foreign.unwrap();
    assert!(f >= 25_000_000, "{f} ns foreign");
    assert!(!clean);

    // A child process, alive or reaped, cannot be judged.
    let mark = Mark::now().unwrap();
    let mut child = std::process::Command::new("sleep")
        .arg("0.05")
        .spawn()
        .unwrap();
    assert!(mark.foreign_ns().is_none());
    child.wait().unwrap();
    assert!(
        Mark::now().is_some(),
        "a reaped child leaves nothing behind"
    );
    let mark = Mark::now().unwrap();
    let busy = std::process::Command::new("sh")
        .args(["-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"])
        .status()
        .unwrap();
    assert!(busy.success());
    assert!(
        mark.foreign_ns().is_none(),
        "a reaped child's CPU time counts"
    );

    // A thread started and ended within the batch cannot be judged.
    let mark = Mark::now().unwrap();
    std::thread::spawn(|| spin(Duration::from_millis(1)))
        .join()
        .unwrap();
    assert!(mark.foreign_ns().is_none(), "a thread came and went");
}

/// A library's slow calls are timed undisturbed (a preempted call given
/// its thread's CPU time) only in batches during which nothing but the
/// harness's threads worked: a library that does its work on a thread of
/// its own while the calling thread yields keeps the wall clock.
fn slow_library_calls_on_another_thread_keep_the_wall_clock() {
    use common::solvers::*;
    let Some(lib) = fixtures() else { return };
    let batches = |symbol: &str, threads: &str| {
        // Both about 0.3 ms a puzzle here, well above the pace at which
        // calls are timed undisturbed.
        let spec = format!("lib={},symbol={symbol},name=s", lib.display());
        let r = run(
            &format!("undisturbed-{symbol}-{threads}"),
            &[
                &dataset("hard.csv"),
                "--limit",
                "200",
                "-j",
                threads,
                "-s",
                &spec,
            ],
            &[],
        );
        assert_eq!(r.code(), 0, "{}", r.stderr());
        all_correct(&r, "s");
        let meta = common::json(&r.dir.join("meta.json"));
        meta["harness"]["withdrawn_batches"].as_u64().unwrap_or(0)
    };
    // Every batch but the first of each job (its pace still unknown) is
    // one in which the library started threads of its own (about 20).
    assert!(batches("solve_handoff", "1") >= 10);
    // The same search on the calling thread, on its own and beside a
    // second solver thread: none, or on a loaded machine one whose
    // reading of the clocks a tick on another core pushed over the
    // slack (1 in a gate round of top1465 beside a busy loop per core).
    assert!(batches("solve_plain_stretch_cpu", "1") <= 1);
    assert!(batches("solve_plain_stretch_cpu", "2") <= 1);
}
