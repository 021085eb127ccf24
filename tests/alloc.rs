//! The solver allocates nothing per solve: a counting global allocator
//! watches this thread while a batch of puzzles is solved after warm-up.

mod common;

use bench_sudoku::solver::{Limits, Solver, Strategy};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static WATCHING: Cell<bool> = const { Cell::new(false) };
}

// SAFETY: every call is forwarded unchanged to the system allocator, which
// upholds GlobalAlloc's contract; the bookkeeping touches only an atomic
// counter and a const-initialised thread-local without a destructor, neither
// of which allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if WATCHING.with(Cell::get) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if WATCHING.with(Cell::get) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn solving_allocates_nothing_after_warm_up() {
    use common::*;
    let puzzles: Vec<_> = LOGIC_SOLVES
        .iter()
        .chain([&LOGIC_STALLS, &EASY, &FAMOUS_HARD, &NO_SOLUTION])
        .map(|p| grid(p))
        .chain([bench_sudoku::Grid::empty()])
        .collect();
    let strategies = Strategy::all();
    let limits = Limits::uniqueness().with_max_guesses(100_000);
    let mut solver = Solver::new();
    // Warm-up: the workspace exists; nothing else is lazily created.
    for s in &strategies {
        solver.solve(&puzzles[0], s, &limits);
    }
    WATCHING.with(|w| w.set(true));
    let mut solved = 0;
    for _ in 0..3 {
        for s in &strategies {
            for p in &puzzles {
                let r = solver.solve(p, s, &limits);
                solved += r.solutions;
            }
        }
    }
    WATCHING.with(|w| w.set(false));
    assert!(solved > 0);
    assert_eq!(
        ALLOCATIONS.load(Ordering::Relaxed),
        0,
        "the solver allocated while solving"
    );
    // The counter works: an allocation in the watched window is seen.
    WATCHING.with(|w| w.set(true));
    let v = std::hint::black_box(vec![1u8; 64]);
    WATCHING.with(|w| w.set(false));
    drop(v);
    assert_eq!(ALLOCATIONS.load(Ordering::Relaxed), 1);
}
