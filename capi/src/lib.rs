//! bench-sudoku's engines as a C shared library, so that other harnesses
//! (tdoku's `run_benchmark` among them) and bench-sudoku's own `lib=` can
//! load them. Every named strategy is exported twice:
//!
//! - with tdoku's signature, as `bench_sudoku_<name>` (`bench_sudoku_fast`, `bench_sudoku_dlx`,
//!   `bench_sudoku_locked`, …): count, first solution, guesses;
//! - through bench-sudoku's interface (`include/bench_sudoku.h`): the
//!   registry `bench_sudoku_solvers` lists one solver per strategy, named
//!   like the strategy, reporting every counter.
//!
//! ```sh
//! cargo build --release -p bench-sudoku-capi
//! bench-sudoku run datasets/hard.csv -s fast \
//!   -s 'lib=target/release/libbench_sudoku_capi.so,symbol=bench_sudoku_fast,name=capi-fast'
//! ```
//!
//! Through tdoku's signature the guess budget is bench-sudoku's default
//! (1,000,000): a search that spends it returns the solutions found so far,
//! and a strategy that never guesses (`logic`) returns 0 for a grid it
//! cannot finish (the signature has no way to say "unfinished"; the
//! bench-sudoku interface has, in `stats.stopped`).
//!
//! The `configuration` argument of tdoku's signature is a known slowdown,
//! for checking that a benchmark (or a CI gate) detects one: 0 solves as
//! is; C > 0 makes each call, after solving, busy-wait until it has taken
//! C / 1000 times the solve's own time. `config=1000` is the fair base of
//! `config=1050` (5 % slower): both read the clock the same way, so the two
//! differ by the slowdown alone. Answers and guesses are unchanged.

use bench_sudoku::solver::external::ffi::abi;
use bench_sudoku::solver::strategy::NAMED;
use bench_sudoku::solver::{Builtin, Limits, NoopObserver, SolveResult, Solver, Status};
use bench_sudoku::Grid;
use std::cell::RefCell;
use std::ffi::{c_char, c_void, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

thread_local! {
    /// The workspace of the calling thread for tdoku's signature (which
    /// has no state argument).
    static SOLVER: RefCell<Solver> = RefCell::new(Solver::new());
}

/// Reads the 81 cell characters at `puzzle` (`None` for any other byte).
///
/// # Safety
///
/// `puzzle` points to at least 81 readable bytes (the interface's contract).
#[inline]
unsafe fn read_puzzle(puzzle: *const c_char) -> Option<Grid> {
    if puzzle.is_null() {
        return None;
    }
    // SAFETY: the caller guarantees 81 readable bytes; `[u8; 81]` has
    // alignment 1.
    let bytes = unsafe { &*(puzzle as *const [u8; 81]) };
    Grid::parse_exact(bytes)
}

/// Writes `grid` as 81 characters, `.` for an empty cell (a solution has
/// none: `full` skips the test).
///
/// # Safety
///
/// `out` points to at least 81 writable bytes.
#[inline]
unsafe fn write_grid(grid: &Grid, out: *mut c_char, full: bool) {
    if out.is_null() {
        return;
    }
    // SAFETY: the caller guarantees 81 writable bytes; alignment 1.
    let out = unsafe { &mut *(out as *mut [u8; 81]) };
    if full {
        for (o, &v) in out.iter_mut().zip(grid.cells()) {
            *o = b'0' + v;
        }
    } else {
        for (o, &v) in out.iter_mut().zip(grid.cells()) {
            *o = if v == 0 { b'.' } else { b'0' + v };
        }
    }
}

/// One solve through tdoku's signature with a built-in engine.
///
/// # Safety
///
/// The arguments follow tdoku's signature: 81 readable puzzle bytes, 81
/// writable solution bytes, a writable (or null) guess count.
#[inline]
unsafe fn tdoku_call(
    builtin: &Builtin,
    puzzle: *const c_char,
    limit: usize,
    stretch_per_mille: u32,
    solution: *mut c_char,
    num_guesses: *mut usize,
) -> usize {
    let start = (stretch_per_mille > 0).then(std::time::Instant::now);
    // The whole call runs under `catch_unwind`, so that a panic never
    // unwinds into C; only the count comes out of it (moving the solve's
    // result out would copy it).
    catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: forwarded from this function's contract.
        let Some(grid) = (unsafe { read_puzzle(puzzle) }) else {
            return 0;
        };
        let limits = Limits::first().with_solutions(limit.min(u32::MAX as usize) as u32);
        SOLVER.with(|s| {
            let r = s
                .borrow_mut()
                .solve_builtin(&grid, builtin, &limits, &mut NoopObserver);
            if let Some(start) = start {
                stretch(start, stretch_per_mille);
            }
            if !num_guesses.is_null() {
                // SAFETY: non-null, and writable by the contract.
                unsafe { *num_guesses = r.counters.guesses as usize };
            }
            let count = if r.status == Status::Stalled {
                0
            } else {
                r.solutions as usize
            };
            if count > 0 {
                // SAFETY: forwarded from this function's contract.
                unsafe { write_grid(&r.grid, solution, true) };
            }
            count
        })
    }))
    .unwrap_or(0)
}

/// Busy-waits until the time since `start` is `per_mille` / 1000 times what
/// it was on entry (at once when that is 1000 or less).
#[inline(never)]
fn stretch(start: std::time::Instant, per_mille: u32) {
    let target = start.elapsed().as_nanos() * per_mille as u128 / 1000;
    while start.elapsed().as_nanos() < target {
        std::hint::spin_loop();
    }
}

/// The index of the named strategy `name` in [`NAMED`], at compile time.
const fn index_of(name: &str) -> usize {
    let mut i = 0;
    while i < NAMED.len() {
        let (a, b) = (NAMED[i].name.as_bytes(), name.as_bytes());
        if a.len() == b.len() {
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return i;
            }
        }
        i += 1;
    }
    panic!("not a named strategy");
}

/// Exports one function with tdoku's signature per named strategy, and the
/// list of their names (checked against the catalogue below).
macro_rules! tdoku_exports {
    ($($symbol:ident => $name:literal),* $(,)?) => {
        $(
            #[doc = concat!("Strategy `", $name, "` with tdoku's signature.")]
            ///
            /// # Safety
            ///
            /// `puzzle`: 81 readable cell characters; `solution`: 81
            /// writable bytes; `num_guesses`: writable or null.
            #[no_mangle]
            pub unsafe extern "C" fn $symbol(
                puzzle: *const c_char,
                limit: usize,
                configuration: u32,
                solution: *mut c_char,
                num_guesses: *mut usize,
            ) -> usize {
                const BUILTIN: Builtin = NAMED[index_of($name)].engine;
                // SAFETY: this function's contract is tdoku_call's.
                unsafe { tdoku_call(&BUILTIN, puzzle, limit, configuration, solution, num_guesses) }
            }
        )*
        /// The strategies exported with tdoku's signature, in order.
        pub const TDOKU_EXPORTS: &[&str] = &[$($name),*];
    };
}

tdoku_exports! {
    bench_sudoku_naive => "naive",
    bench_sudoku_rowmajor => "rowmajor",
    bench_sudoku_mrv => "mrv",
    bench_sudoku_logic => "logic",
    bench_sudoku_hidden => "hidden",
    bench_sudoku_locked => "locked",
    bench_sudoku_fast => "fast",
    bench_sudoku_dlx => "dlx",
}

/// True when the exports cover the catalogue, in its order.
const fn exports_cover_the_catalogue() -> bool {
    if TDOKU_EXPORTS.len() != NAMED.len() {
        return false;
    }
    let mut i = 0;
    while i < NAMED.len() {
        if index_of(TDOKU_EXPORTS[i]) != i {
            return false;
        }
        i += 1;
    }
    true
}

const _: () = assert!(
    exports_cover_the_catalogue(),
    "every named strategy needs a tdoku_exports! line and a CREATE entry"
);

// ---------------------------------------------------------------------------
// bench-sudoku's interface.

/// A thread's state: a workspace and the strategy's engine.
struct State {
    solver: Solver,
    builtin: Builtin,
}

/// `create` of the solver for `NAMED[I]`.
unsafe extern "C" fn create<const I: usize>(_configuration: u32) -> *mut c_void {
    match catch_unwind(|| {
        Box::new(State {
            solver: Solver::new(),
            builtin: NAMED[I].engine,
        })
    }) {
        Ok(state) => Box::into_raw(state).cast(),
        Err(_) => std::ptr::null_mut(),
    }
}

/// One `create` per named strategy, in catalogue order.
const CREATE: [abi::CreateFn; 8] = [
    create::<0>,
    create::<1>,
    create::<2>,
    create::<3>,
    create::<4>,
    create::<5>,
    create::<6>,
    create::<7>,
];
const _: () = assert!(CREATE.len() == NAMED.len());

unsafe extern "C" fn destroy(state: *mut c_void) {
    if !state.is_null() {
        // SAFETY: a non-null state came from `create` (Box::into_raw) and
        // the harness frees it once.
        drop(unsafe { Box::from_raw(state.cast::<State>()) });
    }
}

unsafe extern "C" fn solve(
    state: *mut c_void,
    puzzle: *const c_char,
    limit: usize,
    max_guesses: u64,
    solution: *mut c_char,
    stats: *mut abi::Stats,
) -> usize {
    if state.is_null() {
        return 0;
    }
    // SAFETY: the state came from `create` and is used by one thread at a
    // time (the interface's contract).
    let state = unsafe { &mut *state.cast::<State>() };
    // As in `tdoku_call`: everything under `catch_unwind`, the count out.
    catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: 81 readable bytes by the contract.
        let Some(grid) = (unsafe { read_puzzle(puzzle) }) else {
            return 0;
        };
        let limits = Limits::first()
            .with_solutions(limit.min(u32::MAX as usize) as u32)
            .with_max_guesses(if max_guesses == 0 {
                u64::MAX
            } else {
                max_guesses
            });
        let builtin = state.builtin;
        let r = state
            .solver
            .solve_builtin(&grid, &builtin, &limits, &mut NoopObserver);
        if !stats.is_null() {
            // SAFETY: non-null and writable by the contract.
            unsafe { *stats = stats_of(&r) };
        }
        let count = match r.status {
            Status::Stalled => 0,
            _ => r.solutions as usize,
        };
        if count > 0 || r.status == Status::Stalled {
            // SAFETY: 81 writable bytes by the contract.
            unsafe { write_grid(&r.grid, solution, count > 0) };
        }
        count
    }))
    .unwrap_or(0)
}

fn stats_of(r: &SolveResult) -> abi::Stats {
    let c = &r.counters;
    abi::Stats {
        guesses: c.guesses,
        backtracks: c.backtracks,
        max_depth: c.max_depth as u64,
        nodes: c.nodes,
        naked_singles: c.naked_singles,
        hidden_singles: c.hidden_singles,
        stopped: match r.status {
            Status::GaveUp => abi::GAVE_UP,
            Status::Stalled => abi::STALLED,
            _ => abi::COMPLETE,
        },
        reserved: 0,
    }
}

/// The descriptors and the strings they point to, made on first use.
struct Registry {
    /// Owns the names and descriptions the descriptors point to.
    _strings: Vec<(CString, CString)>,
    descriptors: Vec<abi::Descriptor>,
    pointers: Vec<*const abi::Descriptor>,
}

// SAFETY: the registry is built once and never changed; its raw pointers
// point into its own heap allocations (strings, descriptors), which live as
// long as the registry (a static) and are only read.
unsafe impl Send for Registry {}
unsafe impl Sync for Registry {}

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let strings: Vec<(CString, CString)> = NAMED
            .iter()
            .map(|n| {
                let text = |s: &str| CString::new(s).expect("no NUL in the catalogue");
                (text(n.name), text(n.description))
            })
            .collect();
        let descriptors: Vec<abi::Descriptor> = strings
            .iter()
            .zip(CREATE)
            .map(|((name, description), create)| abi::Descriptor {
                abi_version: abi::VERSION,
                struct_size: std::mem::size_of::<abi::Descriptor>() as u32,
                name: name.as_ptr(),
                description: description.as_ptr(),
                reports: abi::KNOWN_REPORTS,
                flags: 0,
                create: Some(create),
                destroy: Some(destroy),
                solve: Some(solve),
            })
            .collect();
        let pointers = descriptors.iter().map(|d| d as *const _).collect();
        Registry {
            _strings: strings,
            descriptors,
            pointers,
        }
    })
}

/// bench-sudoku's interface: one solver per named strategy.
///
/// # Safety
///
/// `count` is writable or null.
#[no_mangle]
pub unsafe extern "C" fn bench_sudoku_solvers(count: *mut usize) -> *const *const abi::Descriptor {
    let r = registry();
    if !count.is_null() {
        // SAFETY: non-null and writable by the contract.
        unsafe { *count = r.descriptors.len() };
    }
    r.pointers.as_ptr()
}
