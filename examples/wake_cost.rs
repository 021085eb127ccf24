//! Development probe: the process CPU time one hand-over between two cores
//! costs, as the helper layout's threads hand batches on: a thread on one
//! core works for a while, then sends a message to a thread waiting on the
//! other core and goes on working. With a long enough time between
//! messages the other core has gone idle and must be woken, as in a run.
//!
//! usage: cargo run --release --example wake_cost -- [ROUNDS]
use bench_sudoku::bench::sysinfo::process_cpu_ns;
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

fn pin(core: usize) {
    if let Some(id) = core_affinity::get_core_ids().and_then(|c| c.get(core).copied()) {
        core_affinity::set_for_current(id);
    }
}

fn main() {
    let rounds: u32 = std::env::args()
        .nth(1)
        .map_or(200, |a| a.parse().expect("ROUNDS is a number"));
    if core_affinity::get_core_ids().map_or(0, |c| c.len()) < 2 {
        eprintln!("wake_cost needs two cores");
        std::process::exit(2);
    }
    println!("| work between hand-overs (µs) | CPU per hand-over beyond the work (µs) |");
    println!("|---:|---:|");
    for gap_us in [20u64, 100, 500, 2000] {
        let (to_other, from_first) = channel::<u32>();
        let other = std::thread::spawn(move || {
            pin(1);
            let mut last = 0;
            while let Ok(i) = from_first.recv() {
                last = std::hint::black_box(i);
            }
            last
        });
        pin(0);
        let gap = Duration::from_micros(gap_us);
        let cpu0 = process_cpu_ns().expect("process CPU time");
        let mut worked = Duration::ZERO;
        for i in 0..rounds {
            // Busy, as a solver thread is between hand-overs.
            let start = Instant::now();
            while start.elapsed() < gap {
                std::hint::spin_loop();
            }
            worked += start.elapsed();
            to_other.send(i).expect("the other thread is there");
        }
        drop(to_other);
        other.join().expect("the other thread ends");
        let cpu = process_cpu_ns().expect("process CPU time") - cpu0;
        let beyond = cpu as f64 - worked.as_nanos() as f64;
        println!("| {gap_us} | {:.1} |", beyond / rounds as f64 / 1000.0);
    }
}
