//! The `sudoku` crate behind two C interfaces (`include/bench_sudoku.h` of
//! bench-sudoku is the contract of both):
//!
//! - bench-sudoku's interface: `bench_sudoku_solvers` lists one solver,
//!   `sudoku-crate`, that reports **no counters** (the crate counts no
//!   guesses), so bench-sudoku shows its counters as absent, never as 0:
//!   `-s 'lib=PATH,solver=sudoku-crate'`. This is how to load it into
//!   bench-sudoku.
//! - tdoku's signature, `sudoku_crate_solve`, for harnesses that know only
//!   that signature (scripts/whole-pass.c, tdoku's own benchmark). The
//!   signature has a guess count but no way to say "not counted", so the
//!   function writes 0 there; bench-sudoku would take that for a count,
//!   which is why it should load the solver through the interface above.
//!
//! Both solve the same way, the way the crate's own reference harness does
//! for the first solution (`Sudoku::some_solution` is
//! `solutions_up_to_buffer(…, 1)`): the 81 characters become the crate's
//! byte array (0 for a blank), `solutions_up_to_buffer` counts up to the
//! limit and keeps the first solution, which is written back as digits.
//! The conversions are inside the timed region of a harness that times the
//! call (tdoku's solvers read and write the same text themselves).

use std::ffi::{c_char, c_void};
use sudoku::Sudoku;

/// Reads the 81 cell characters: `'1'..='9'` as the digit, anything else
/// (the harness sends only `.`) as a blank. Branch-free per byte.
#[inline]
fn read_cells(text: &[u8; 81]) -> [u8; 81] {
    let mut cells = [0u8; 81];
    for (c, &t) in cells.iter_mut().zip(text) {
        let v = t.wrapping_sub(b'0');
        *c = if (1..=9).contains(&v) { v } else { 0 };
    }
    cells
}

/// Counts the solutions up to `limit` (at least 1) and writes the first
/// one found into `out` as 81 characters.
fn solve_text(text: &[u8; 81], limit: usize, out: &mut [u8; 81]) -> usize {
    let cells = read_cells(text);
    // Every byte is at most 9, so `from_bytes` cannot fail; a grid whose
    // givens break a rule is counted as having no solution by the crate.
    let Ok(sudoku) = Sudoku::from_bytes(cells) else {
        return 0;
    };
    let mut first = [[0u8; 81]];
    let count = sudoku.solutions_up_to_buffer(&mut first, limit.max(1));
    if count > 0 {
        for (o, &v) in out.iter_mut().zip(&first[0]) {
            *o = b'0' + v;
        }
    }
    count
}

/// tdoku's signature. `*num_guesses` is set to 0: the crate counts no
/// guesses (see the crate documentation above).
///
/// # Safety
///
/// `puzzle` points to 81 readable bytes, `solution` to 81 writable bytes,
/// `num_guesses` to a writable count or is null (the header's contract).
#[no_mangle]
pub unsafe extern "C" fn sudoku_crate_solve(
    puzzle: *const c_char,
    limit: usize,
    _configuration: u32,
    solution: *mut c_char,
    num_guesses: *mut usize,
) -> usize {
    if puzzle.is_null() || solution.is_null() {
        return 0;
    }
    // SAFETY: the caller guarantees 81 readable and 81 writable bytes at
    // these non-null pointers; `[u8; 81]` has alignment 1, and the two
    // ranges are separate buffers of the caller.
    let (text, out) = unsafe {
        (
            &*(puzzle as *const [u8; 81]),
            &mut *(solution as *mut [u8; 81]),
        )
    };
    if !num_guesses.is_null() {
        // SAFETY: non-null, and writable by the contract.
        unsafe { *num_guesses = 0 };
    }
    solve_text(text, limit, out)
}

/// `bench_sudoku_stats` of bench-sudoku's interface (version 1).
#[repr(C)]
pub struct Stats {
    guesses: u64,
    backtracks: u64,
    max_depth: u64,
    nodes: u64,
    naked_singles: u64,
    hidden_singles: u64,
    stopped: u32,
    reserved: u32,
}

/// `bench_sudoku_solver` of bench-sudoku's interface (version 1).
#[repr(C)]
pub struct Descriptor {
    abi_version: u32,
    struct_size: u32,
    name: *const c_char,
    description: *const c_char,
    reports: u32,
    flags: u32,
    create: unsafe extern "C" fn(u32) -> *mut c_void,
    destroy: unsafe extern "C" fn(*mut c_void),
    solve: unsafe extern "C" fn(
        *mut c_void,
        *const c_char,
        usize,
        u64,
        *mut c_char,
        *mut Stats,
    ) -> usize,
}

// SAFETY: the descriptor is immutable and its pointers are to static
// strings and functions, so sharing it between threads is sound.
unsafe impl Sync for Descriptor {}

/// The solver keeps no state between calls; any non-null pointer will do
/// as its state, and this one is never written through.
static STATE: u8 = 0;

unsafe extern "C" fn create(_configuration: u32) -> *mut c_void {
    std::ptr::addr_of!(STATE) as *mut c_void
}

unsafe extern "C" fn destroy(_state: *mut c_void) {}

/// The interface's solve: no guess budget (the crate has none; the
/// interface allows ignoring it), no counters.
unsafe extern "C" fn solve(
    _state: *mut c_void,
    puzzle: *const c_char,
    limit: usize,
    _max_guesses: u64,
    solution: *mut c_char,
    _stats: *mut Stats,
) -> usize {
    // SAFETY: the same contract as tdoku's signature for these pointers;
    // the count pointer is null, which `sudoku_crate_solve` accepts.
    unsafe { sudoku_crate_solve(puzzle, limit, 0, solution, std::ptr::null_mut()) }
}

/// Interface version 1 (`BENCH_SUDOKU_ABI_VERSION`).
const ABI_VERSION: u32 = 1;

static SOLVER: Descriptor = Descriptor {
    abi_version: ABI_VERSION,
    struct_size: std::mem::size_of::<Descriptor>() as u32,
    name: c"sudoku-crate".as_ptr(),
    description: c"the sudoku crate 0.8 (crates.io), first solution by solutions_up_to_buffer; reports no counters".as_ptr(),
    reports: 0,
    flags: 0,
    create,
    destroy,
    solve,
};

/// A `Sync` wrapper for the registry's list of descriptor pointers.
pub struct List([*const Descriptor; 1]);

// SAFETY: the list holds a pointer to an immutable static; see `Descriptor`.
unsafe impl Sync for List {}

static LIST: List = List([&SOLVER]);

/// The registry of bench-sudoku's interface: one solver.
///
/// # Safety
///
/// `count` is null or points to a writable count.
#[no_mangle]
pub unsafe extern "C" fn bench_sudoku_solvers(count: *mut usize) -> *const *const Descriptor {
    if !count.is_null() {
        // SAFETY: non-null, and writable by the contract.
        unsafe { *count = LIST.0.len() };
    }
    LIST.0.as_ptr()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PUZZLE: &[u8; 81] =
        b"4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......";

    #[test]
    fn solves_and_counts() {
        let mut out = [0u8; 81];
        assert_eq!(solve_text(PUZZLE, 2, &mut out), 1);
        for (o, p) in out.iter().zip(PUZZLE) {
            assert!((b'1'..=b'9').contains(o));
            assert!(*p == b'.' || o == p, "a given was changed");
        }
        let empty = [b'.'; 81];
        assert_eq!(solve_text(&empty, 3, &mut out), 3);
        let mut clash = *PUZZLE;
        clash[1] = b'4'; // a second 4 in the first row
        assert_eq!(solve_text(&clash, 1, &mut out), 0);
    }
}
