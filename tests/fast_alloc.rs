//! The `fast` engine allocates nothing per solve: a counting global
//! allocator watches a batch of solves after warm-up.

use bench_sudoku::solver::fast::Workspace;
use bench_sudoku::solver::{Limits, NoopObserver, Solver, Strategy};
use bench_sudoku::Grid;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;

thread_local! {
    /// Set on the thread under test only: the test harness allocates on
    /// other threads meanwhile.
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}
static ALLOCS: AtomicU64 = AtomicU64::new(0);

fn counting() -> bool {
    COUNTING.try_with(Cell::get).unwrap_or(false)
}

// SAFETY: every call is forwarded unchanged to the system allocator; the
// wrapper only bumps a counter.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if counting() {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if counting() {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const PUZZLES: [&str; 4] = [
    "009020034070008006600500000003900080700040002050002700000001007200300090480060500",
    "800000000070090200003600000050007000000045700000100030001000068008500010090000400",
    "100040007050002090008000400070200008006090100300008050001000600020800040600030005",
    "12345678.........9...............................................................",
];

#[test]
fn fast_solves_without_allocating() {
    let mut puzzles: Vec<Grid> = PUZZLES.iter().map(|p| Grid::parse(p).unwrap()).collect();
    puzzles.push(Grid::empty());
    let mut conflict = Grid::empty();
    conflict.set(0, 3);
    conflict.set(1, 3);
    puzzles.push(conflict);
    let strategy = Strategy::named("fast").unwrap();
    let limits = [
        Limits::first(),
        Limits::uniqueness(),
        Limits::first().with_solutions(50).with_max_guesses(500),
    ];
    let mut solver = Solver::new();
    let mut ws = Workspace::new();
    // Warm-up (nothing is lazily allocated, but be fair to the allocator).
    for p in &puzzles {
        solver.solve(p, &strategy, &limits[0]);
        ws.solve(p, &limits[0], &mut NoopObserver);
    }
    COUNTING.with(|c| c.set(true));
    let mut solved = 0u32;
    for _ in 0..3 {
        for p in &puzzles {
            for l in &limits {
                solved += solver.solve(p, &strategy, l).solutions;
                solved += ws.solve(p, l, &mut NoopObserver).solutions;
            }
        }
    }
    COUNTING.with(|c| c.set(false));
    assert!(solved > 0);
    assert_eq!(
        ALLOCS.load(Ordering::SeqCst),
        0,
        "allocations while solving"
    );
}
