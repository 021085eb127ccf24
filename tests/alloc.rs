//! The engines allocate nothing per solve: one counting global allocator
//! watches the calling thread while batches of puzzles are solved after
//! warm-up.

mod common;

use bench_sudoku::solver::fast::Workspace;
use bench_sudoku::solver::{Limits, NoopObserver, Solver, Strategy};
use bench_sudoku::Grid;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    /// Whether this thread is watched, and what it allocated meanwhile.
    /// Per thread: the test harness (and other tests) allocate on other
    /// threads at the same time.
    static WATCHING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count_one() {
    // `try_with`: the allocator can be called while a thread's locals are
    // being torn down.
    if WATCHING.try_with(Cell::get).unwrap_or(false) {
        let _ = ALLOCATIONS.try_with(|a| a.set(a.get() + 1));
    }
}

// SAFETY: every call is forwarded unchanged to the system allocator, which
// upholds GlobalAlloc's contract; the bookkeeping touches only
// const-initialised thread-locals without destructors, which do not
// allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `f` and returns its result and the allocations it made on this
/// thread.
fn allocations_during<R>(f: impl FnOnce() -> R) -> (R, u64) {
    ALLOCATIONS.with(|a| a.set(0));
    WATCHING.with(|w| w.set(true));
    let r = f();
    WATCHING.with(|w| w.set(false));
    (r, ALLOCATIONS.with(Cell::get))
}

#[test]
fn the_counter_sees_an_allocation() {
    let (v, n) = allocations_during(|| std::hint::black_box(vec![1u8; 64]));
    drop(v);
    assert_eq!(n, 1);
}

#[test]
fn every_strategy_solves_without_allocating_after_warm_up() {
    use common::*;
    let puzzles: Vec<_> = LOGIC_SOLVES
        .iter()
        .chain([
            &SINGLES_STALL,
            &LADDER_STALLS,
            &EASY,
            &FAMOUS_HARD,
            &NO_SOLUTION,
        ])
        .map(|p| grid(p))
        .chain([Grid::empty()])
        .collect();
    // The named strategies and the inference levels above `locked`.
    let mut strategies = Strategy::all();
    for level in ["subsets", "fish", "wings", "chains"] {
        strategies.push(Strategy::parse(&format!("prop={level}")).unwrap());
    }
    let limits = Limits::uniqueness().with_max_guesses(100_000);
    let mut solver = Solver::new();
    // Warm-up: the workspace exists; nothing else is lazily created.
    for s in &strategies {
        solver.solve(&puzzles[0], s, &limits);
    }
    let (solved, n) = allocations_during(|| {
        let mut solved = 0;
        for _ in 0..3 {
            for s in &strategies {
                for p in &puzzles {
                    solved += solver.solve(p, s, &limits).solutions;
                }
            }
        }
        solved
    });
    assert!(solved > 0);
    assert_eq!(n, 0, "the solver allocated while solving");
}

#[test]
fn fast_solves_without_allocating_under_every_limit() {
    const PUZZLES: [&str; 4] = [
        "009020034070008006600500000003900080700040002050002700000001007200300090480060500",
        "800000000070090200003600000050007000000045700000100030001000068008500010090000400",
        "100040007050002090008000400070200008006090100300008050001000600020800040600030005",
        "12345678.........9...............................................................",
    ];
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
    let (solved, n) = allocations_during(|| {
        let mut solved = 0u32;
        for _ in 0..3 {
            for p in &puzzles {
                for l in &limits {
                    solved += solver.solve(p, &strategy, l).solutions;
                    solved += ws.solve(p, l, &mut NoopObserver).solutions;
                }
            }
        }
        solved
    });
    assert!(solved > 0);
    assert_eq!(n, 0, "allocations while solving");
}
