//! The check that a batch of library calls ran on the calling thread
//! alone (`solver::alone`), in a test binary of its own: the check reads
//! the whole process's CPU clock and its children, which the other tests
//! of a shared binary would disturb (their threads, their processes).

#![cfg(target_os = "linux")]

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
}
