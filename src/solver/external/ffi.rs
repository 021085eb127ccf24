//! Solvers in shared libraries, loaded at run time (`lib=PATH,…`).
//!
//! Two C interfaces (`include/bench_sudoku.h` is the contract):
//!
//! - **tdoku's signature**: one function
//!   `size_t f(const char *puzzle, size_t limit, uint32_t configuration,
//!   char *solution, size_t *num_guesses)`; it reports guesses only.
//! - **bench-sudoku's own interface** ([`abi`]): the library lists its
//!   solvers through `bench_sudoku_solvers`; each has a per-thread state and
//!   reports the counters it declares.
//!
//! Every call is timed alone on the harness's clock: the puzzle is written
//! into the call's buffer before the clock starts, the solution read after
//! it stops. A call that does not return within `--timeout` cannot be
//! stopped inside this process. When `run` supervises its measuring
//! process (it does whenever it loads a library: `commands::run::supervise`),
//! each call is announced on the supervisor's board ([`crate::board`]) and
//! the supervisor ends a hang and names its puzzle; otherwise a watchdog
//! thread ends the run with an error that says to use `isolate=yes` (child
//! processes, where a hang or a crash is counted and the run goes on).

use super::{Error, Options};
use crate::grid::{cell_name, Grid, CELLS};
use crate::solver::seam::{
    Answer, Capabilities, Clock, CounterSet, ExternalSolver, SolverInstance,
};
use crate::solver::spec::{Entry, LibSpec};
use crate::solver::stopwatch::{self, Stopwatch};
use crate::solver::{Counters, Limits, Status};
use libloading::Library;
use std::ffi::{c_char, c_void, CStr};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

/// The types of bench-sudoku's C interface, as `include/bench_sudoku.h`
/// declares them (the `capi` crate exports them, the loader reads them).
pub mod abi {
    use std::ffi::{c_char, c_void};

    /// `BENCH_SUDOKU_ABI_VERSION`.
    pub const VERSION: u32 = 1;
    /// `BENCH_SUDOKU_COMPLETE`, `…_GAVE_UP`, `…_STALLED`.
    pub const COMPLETE: u32 = 0;
    pub const GAVE_UP: u32 = 1;
    pub const STALLED: u32 = 2;
    /// The name of the registry function.
    pub const REGISTRY: &str = "bench_sudoku_solvers";

    /// `bench_sudoku_stats`.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct Stats {
        pub guesses: u64,
        pub backtracks: u64,
        pub max_depth: u64,
        pub nodes: u64,
        pub naked_singles: u64,
        pub hidden_singles: u64,
        pub stopped: u32,
        pub reserved: u32,
    }

    pub type CreateFn = unsafe extern "C" fn(configuration: u32) -> *mut c_void;
    pub type DestroyFn = unsafe extern "C" fn(state: *mut c_void);
    pub type SolveFn = unsafe extern "C" fn(
        state: *mut c_void,
        puzzle: *const c_char,
        limit: usize,
        max_guesses: u64,
        solution: *mut c_char,
        stats: *mut Stats,
    ) -> usize;

    /// `bench_sudoku_solver`.
    #[repr(C)]
    #[derive(Debug)]
    pub struct Descriptor {
        pub abi_version: u32,
        pub struct_size: u32,
        pub name: *const c_char,
        pub description: *const c_char,
        pub reports: u32,
        pub flags: u32,
        pub create: Option<CreateFn>,
        pub destroy: Option<DestroyFn>,
        pub solve: Option<SolveFn>,
    }

    /// `bench_sudoku_solvers`.
    pub type RegistryFn = unsafe extern "C" fn(count: *mut usize) -> *const *const Descriptor;

    /// The tdoku signature.
    pub type TdokuFn = unsafe extern "C" fn(
        puzzle: *const c_char,
        limit: usize,
        configuration: u32,
        solution: *mut c_char,
        num_guesses: *mut usize,
    ) -> usize;

    /// Bits of `reports` the interface defines (one per counter, in the
    /// order of [`crate::solver::Counter::ALL`]).
    pub const KNOWN_REPORTS: u32 = (1 << 6) - 1;
}

/// The library of a `lib=` spec found: its path made absolute (a relative
/// one taken from `base`, a `--solvers` file's directory, or the working
/// directory), and checked to be a file.
pub fn resolve(lib: &LibSpec, base: Option<&Path>) -> Result<LibSpec, Error> {
    let joined = match base {
        Some(b) if lib.path.is_relative() => b.join(&lib.path),
        _ => lib.path.clone(),
    };
    let path = joined.canonicalize().map_err(|e| Error::Library {
        path: joined.clone(),
        why: e.to_string(),
    })?;
    if !path.is_file() {
        return Err(Error::NotAFile { path: joined });
    }
    Ok(LibSpec {
        path,
        ..lib.clone()
    })
}

/// The function a library solver is called through.
#[derive(Clone, Copy)]
enum Function {
    Tdoku(abi::TdokuFn),
    Native {
        create: abi::CreateFn,
        destroy: abi::DestroyFn,
        solve: abi::SolveFn,
        reports: CounterSet,
    },
}

/// A solver in a loaded library, shared by every thread of a run.
pub struct LibSolver {
    spec: LibSpec,
    /// Keeps the library loaded while any solver or instance needs it.
    lib: Arc<Library>,
    function: Function,
    description: String,
    /// `reentrant=no`: held around every call.
    lock: Option<Arc<Mutex<()>>>,
    watchdog: Arc<Watchdog>,
}

impl std::fmt::Debug for LibSolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LibSolver")
            .field("spec", &self.spec)
            .finish_non_exhaustive()
    }
}

impl LibSolver {
    /// Loads the library and finds the solver; for bench-sudoku's interface
    /// also checks the descriptor and makes and frees one state, so that a
    /// broken solver stops the run before any work.
    pub fn load(spec: LibSpec, options: &Options) -> Result<LibSolver, Error> {
        let path = &spec.path;
        // A process its initialisers start and leave behind becomes this
        // process's child, where `solver::alone` sees it.
        super::reaper::adopt_orphans();
        // SAFETY: loading a library runs its initialisers, which could do
        // anything; that is inherent in loading a user's solver, which the
        // user asked for by naming the file. Nothing else is assumed here.
        let lib = unsafe { Library::new(path) }.map_err(|e| Error::Library {
            path: path.clone(),
            why: e.to_string(),
        })?;
        let (function, description) = match &spec.entry {
            Entry::Tdoku { symbol } => {
                let name = format!("{symbol}\0");
                // SAFETY: the spec says that this symbol has tdoku's
                // signature; the harness cannot check a C type, and calls it
                // only as the header specifies.
                let f = unsafe { lib.get::<abi::TdokuFn>(name.as_bytes()) }.map_err(|e| {
                    Error::NoSymbol {
                        path: path.clone(),
                        symbol: symbol.clone(),
                        why: e.to_string(),
                    }
                })?;
                (
                    Function::Tdoku(*f),
                    format!(
                        "{symbol} in {} (tdoku's signature; reports guesses)",
                        path.display()
                    ),
                )
            }
            Entry::Native { solver } => native(&lib, path, solver, spec.config)?,
        };
        Ok(LibSolver {
            lock: (!spec.reentrant).then(|| Arc::new(Mutex::new(()))),
            watchdog: Watchdog::new(options.timeout, spec.spec(false)),
            spec,
            lib: Arc::new(lib),
            function,
            description,
        })
    }
}

/// Finds and checks solver `name` of bench-sudoku's interface in the
/// library loaded from `path`.
fn native(
    lib: &Library,
    path: &Path,
    name: &str,
    config: u32,
) -> Result<(Function, String), Error> {
    let registry_name = format!("{}\0", abi::REGISTRY);
    // SAFETY: `bench_sudoku_solvers` is the interface's registry symbol; a
    // library that exports it declares it with this signature.
    let registry =
        unsafe { lib.get::<abi::RegistryFn>(registry_name.as_bytes()) }.map_err(|e| {
            Error::NoRegistry {
                path: path.to_path_buf(),
                why: e.to_string(),
            }
        })?;
    let mut count = 0usize;
    // SAFETY: the registry takes a pointer to a count and returns an array
    // of `count` descriptor pointers (the interface's contract).
    let list = unsafe { registry(&mut count) };
    if list.is_null() && count > 0 {
        return Err(Error::NoList {
            path: path.to_path_buf(),
        });
    }
    let mut names = Vec::new();
    for i in 0..count {
        // SAFETY: `list` holds `count` pointers (checked non-null above when
        // `count > 0`).
        let d = unsafe { *list.add(i) };
        if d.is_null() {
            continue;
        }
        // SAFETY: a non-null entry points to a descriptor that stays valid
        // while the library is loaded. Only the fields up to `name` are read
        // before the version and size are checked.
        let desc = unsafe { &*d };
        let this = c_text(desc.name).unwrap_or_default();
        if this != name {
            names.push(this);
            continue;
        }
        let (function, description) = checked(desc, config).map_err(|why| Error::Descriptor {
            path: path.to_path_buf(),
            solver: name.to_string(),
            why: Box::new(why),
        })?;
        let description = description.unwrap_or_else(|| format!("{name} in {}", path.display()));
        return Ok((function, description));
    }
    Err(Error::NoSuchSolver {
        path: path.to_path_buf(),
        solver: name.to_string(),
        has: names,
    })
}

/// The solver of descriptor `desc` when its version, size, reports and
/// functions are what this bench-sudoku reads, and it can make a state
/// (made and freed once here: a solver that cannot make one stops the run
/// now rather than on every thread); with its description, if it has one.
fn checked(desc: &abi::Descriptor, config: u32) -> Result<(Function, Option<String>), Error> {
    if desc.abi_version != abi::VERSION {
        return Err(Error::AbiVersion(desc.abi_version));
    }
    if (desc.struct_size as usize) < std::mem::size_of::<abi::Descriptor>() {
        return Err(Error::DescriptorSize(desc.struct_size));
    }
    if desc.reports & !abi::KNOWN_REPORTS != 0 {
        return Err(Error::ReportsBits(desc.reports));
    }
    let (Some(create), Some(destroy), Some(solve)) = (desc.create, desc.destroy, desc.solve) else {
        return Err(Error::Functions);
    };
    // SAFETY: `create` and `destroy` are the descriptor's functions, called
    // as the interface specifies.
    let state = unsafe { create(config) };
    if state.is_null() {
        return Err(Error::CreateNull(config));
    }
    // SAFETY: `state` came from this solver's `create` and is freed once.
    unsafe { destroy(state) };
    let description = c_text(desc.description).filter(|s| !s.is_empty());
    Ok((
        Function::Native {
            create,
            destroy,
            solve,
            reports: CounterSet::from_c_bits(desc.reports as u8),
        },
        description,
    ))
}

/// A C string as text (`None` for NULL or invalid UTF-8).
fn c_text(p: *const c_char) -> Option<String> {
    if p.is_null() {
        return None;
    }
    // SAFETY: a non-null name or description of a descriptor is a
    // NUL-terminated string that lives as long as the descriptor.
    unsafe { CStr::from_ptr(p) }
        .to_str()
        .ok()
        .map(str::to_string)
}

impl ExternalSolver for LibSolver {
    fn default_label(&self) -> String {
        self.spec.default_label()
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            counters: match self.function {
                Function::Tdoku(_) => CounterSet::of(&[crate::solver::Counter::Guesses]),
                Function::Native { reports, .. } => reports,
            },
            clock: Clock::Harness,
            trace: false,
            budget: matches!(self.function, Function::Native { .. }),
        }
    }

    fn spec(&self) -> String {
        self.spec.spec(false)
    }

    fn source(&self) -> Option<PathBuf> {
        Some(self.spec.path.clone())
    }

    fn description(&self) -> String {
        self.description.clone()
    }

    fn instance(&self) -> anyhow::Result<Box<dyn SolverInstance>> {
        // On a supervised run's solver thread, calls are announced on the
        // supervisor's board, which watches for hangs; elsewhere the
        // library's own watchdog does.
        #[cfg(unix)]
        let slot = match crate::board::this_thread_slot() {
            Some(s) => CallSlot::Board(s),
            None => CallSlot::Watched(self.watchdog.slot()),
        };
        #[cfg(not(unix))]
        let slot = CallSlot::Watched(self.watchdog.slot());
        let state = match self.function {
            Function::Tdoku(_) => std::ptr::null_mut(),
            Function::Native { create, .. } => {
                // Announced like a solve: a `create` that never returns is
                // a hang the supervisor ends and names.
                let counter = slot.lifecycle(Lifecycle::Create);
                let n = enter(counter);
                // SAFETY: the descriptor's `create`, called as specified.
                let state = unsafe { create(self.spec.config) };
                counter.store(n + 1, Ordering::Relaxed);
                if state.is_null() {
                    anyhow::bail!(
                        "{}: create({}) returned NULL",
                        self.spec.spec(false),
                        self.spec.config
                    );
                }
                state
            }
        };
        Ok(Box::new(LibInstance {
            _lib: Arc::clone(&self.lib),
            function: self.function,
            config: self.spec.config,
            state,
            lock: self.lock.clone(),
            slot,
        }))
    }
}

/// One thread's use of a library solver (and its state, for bench-sudoku's
/// interface).
struct LibInstance {
    /// Keeps the library loaded until the state is freed (dropped after
    /// `drop` has run).
    _lib: Arc<Library>,
    function: Function,
    config: u32,
    /// The thread's state (null for tdoku's signature).
    state: *mut c_void,
    lock: Option<Arc<Mutex<()>>>,
    slot: CallSlot,
}

#[cfg(unix)]
use crate::board::Lifecycle;

/// Calls other than solves (without a board, only counted).
#[cfg(not(unix))]
#[derive(Clone, Copy)]
enum Lifecycle {
    Create,
    Destroy,
}

/// Where an instance announces its calls: its watchdog's slot, or its
/// thread's slot on the supervisor's board.
enum CallSlot {
    Watched(Arc<AtomicU64>),
    #[cfg(unix)]
    Board(crate::board::SlotRef<'static>),
}

impl CallSlot {
    /// The call counter for a call that is not a solve (`create`,
    /// `destroy`); on the board, also which it is.
    fn lifecycle(&self, what: Lifecycle) -> &AtomicU64 {
        match self {
            CallSlot::Watched(a) => {
                let _ = what;
                a
            }
            #[cfg(unix)]
            CallSlot::Board(s) => {
                s.lifecycle(what);
                s.calls()
            }
        }
    }

    /// The call counter; on the board, also the call's position in its
    /// chunk (which names the puzzle).
    #[inline(always)]
    fn counter(&self, position: usize) -> &AtomicU64 {
        match self {
            CallSlot::Watched(a) => a,
            #[cfg(unix)]
            CallSlot::Board(s) => {
                s.position(position);
                s.calls()
            }
        }
    }
}

// SAFETY: the one field that is not `Send` by itself is the state pointer.
// The state is used by one thread at a time: an instance belongs to one
// solver thread, which alone calls `solve` with it (`&mut self`), and it is
// dropped (calling `destroy`) after that thread's last call, possibly on
// another thread, which the interface allows (include/bench_sudoku.h).
unsafe impl Send for LibInstance {}

impl Drop for LibInstance {
    fn drop(&mut self) {
        if let Function::Native { destroy, .. } = self.function {
            let counter = self.slot.lifecycle(Lifecycle::Destroy);
            let n = enter(counter);
            // SAFETY: `state` came from this solver's `create`, is not null
            // and is freed exactly once, after its last `solve`.
            unsafe { destroy(self.state) };
            counter.store(n + 1, Ordering::Relaxed);
        }
    }
}

impl LibInstance {
    /// One call, timed alone (`undisturbed`: the stopwatch's undisturbed
    /// timing), for the puzzle at `position` in its chunk; returns the
    /// answer with its time, and its wall time.
    #[inline]
    fn call(
        &mut self,
        position: usize,
        puzzle: &Grid,
        limits: &Limits,
        undisturbed: bool,
    ) -> (Answer, u64) {
        let mut input = [0u8; CELLS + 1];
        for (b, &v) in input.iter_mut().zip(puzzle.cells()) {
            *b = if v == 0 { b'.' } else { b'0' + v };
        }
        let mut solution = [0u8; CELLS];
        let limit = limits.solutions.max(1) as usize;
        let guard = self
            .lock
            .as_ref()
            .map(|m| m.lock().unwrap_or_else(|e| e.into_inner()));
        let input = input.as_ptr().cast();
        let out = solution.as_mut_ptr().cast();
        let (config, state) = (self.config, self.state);
        let slot = self.slot.counter(position);
        let (count, counters, stopped, (wall, ns)) = match self.function {
            Function::Tdoku(f) => {
                let mut guesses = 0usize;
                // SAFETY: the arguments follow the header's contract: 81
                // cell characters and a NUL, a limit of at least 1, 81
                // writable bytes for the solution and a writable count.
                let (count, ns) = timed(slot, undisturbed, || unsafe {
                    f(input, limit, config, out, &mut guesses)
                });
                let counters = Counters {
                    guesses: guesses as u64,
                    ..Counters::default()
                };
                (count, counters, abi::COMPLETE, ns)
            }
            Function::Native { solve, .. } => {
                let mut stats = abi::Stats::default();
                let budget = limits.max_guesses;
                // SAFETY: as above, plus this thread's own state from
                // `create` and a zeroed, writable stats struct.
                let (count, ns) = timed(slot, undisturbed, || unsafe {
                    solve(state, input, limit, budget, out, &mut stats)
                });
                let counters = Counters {
                    guesses: stats.guesses,
                    backtracks: stats.backtracks,
                    max_depth: stats.max_depth.min(u32::MAX as u64) as u32,
                    nodes: stats.nodes,
                    naked_singles: stats.naked_singles,
                    hidden_singles: stats.hidden_singles,
                    ..Counters::default()
                };
                (count, counters, stats.stopped, ns)
            }
        };
        drop(guard);
        let mut answer = self.answer(puzzle, limit, count, &solution, counters, stopped);
        answer.time_ns = Some(ns);
        (answer, wall)
    }

    /// Reads what a call returned.
    fn answer(
        &self,
        puzzle: &Grid,
        limit: usize,
        count: usize,
        solution: &[u8; CELLS],
        counters: Counters,
        stopped: u32,
    ) -> Answer {
        let count32 = count.min(u32::MAX as usize) as u32;
        if stopped == abi::STALLED {
            let partial = read_grid(solution, true).unwrap_or(*puzzle);
            let mut a = Answer::counted(puzzle, 0, *puzzle, counters);
            a.result.status = Status::Stalled;
            a.result.conflict = None;
            a.result.grid = partial;
            let set = partial.cells().iter().filter(|&&v| v != 0).count();
            a.result.filled = set.saturating_sub(puzzle.givens()) as u8;
            return a;
        }
        if stopped != abi::COMPLETE && stopped != abi::GAVE_UP {
            return Answer::fault(
                puzzle,
                Status::ProtocolError,
                format!("stats.stopped = {stopped} (known: 0, 1, 2)"),
            );
        }
        let mut answer = if count == 0 {
            Answer::counted(puzzle, 0, *puzzle, counters)
        } else if solution.iter().all(|&b| b == 0) {
            let mut a = Answer::counted(puzzle, count32, *puzzle, counters);
            let tdoku = matches!(self.function, Function::Tdoku(_));
            if tdoku && limit > 1 {
                a.unwritten = true;
            } else {
                a.note = Some("no solution written".into());
            }
            a
        } else {
            match read_grid(solution, false) {
                Ok(g) => Answer::counted(puzzle, count32, g, counters),
                Err(why) => {
                    let mut a = Answer::counted(puzzle, count32, *puzzle, counters);
                    a.note = Some(format!("solution is not a grid: {why}").into());
                    a
                }
            }
        };
        if stopped == abi::GAVE_UP {
            answer.result.status = Status::GaveUp;
            answer.result.conflict = None;
        }
        answer
    }
}

impl SolverInstance for LibInstance {
    fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Answer {
        let mut out = Vec::with_capacity(1);
        self.solve_batch(std::slice::from_ref(puzzle), limits, &mut out);
        out.pop().expect("one answer per puzzle")
    }

    /// Each call timed alone on the wall clock or, when the thread's solves
    /// are timed undisturbed ([`stopwatch::undisturbed`]), undisturbed for
    /// as long as the batch ran on the calling thread alone
    /// ([`crate::solver::alone`]): otherwise every answer of the batch
    /// keeps its wall time.
    fn solve_batch(&mut self, puzzles: &[Grid], limits: &Limits, out: &mut Vec<Answer>) {
        let undisturbed = stopwatch::undisturbed();
        let mark = undisturbed.then(crate::solver::alone::Mark::now).flatten();
        if undisturbed && mark.is_none() {
            stopwatch::count_withdrawn();
        }
        let first = out.len();
        let mut walls = Vec::with_capacity(if mark.is_some() { puzzles.len() } else { 0 });
        for (i, p) in puzzles.iter().enumerate() {
            let (answer, wall) = self.call(i, p, limits, mark.is_some());
            out.push(answer);
            if mark.is_some() {
                walls.push(wall);
            }
        }
        if let Some(mark) = mark {
            keep_undisturbed(&mark, &mut out[first..], &walls);
        }
    }
}

/// Keeps a batch's undisturbed times (`answers`, their wall times
/// `walls`) when the batch ran on the calling thread alone since `mark`,
/// counting the solves given their CPU time; else puts the wall times
/// back and counts the batch ([`stopwatch::count_withdrawn`]).
fn keep_undisturbed(mark: &crate::solver::alone::Mark, answers: &mut [Answer], walls: &[u64]) {
    let total = walls.iter().fold(0u64, |t, &w| t.saturating_add(w));
    if crate::solver::alone::clean(mark, total) {
        let preempted = answers
            .iter()
            .zip(walls)
            .filter(|(a, &w)| a.time_ns != Some(w))
            .count();
        stopwatch::count_preempted(preempted as u64);
    } else {
        for (a, &w) in answers.iter_mut().zip(walls) {
            a.time_ns = Some(w);
        }
        stopwatch::count_withdrawn();
    }
}

/// Reads 81 solution bytes: digits `1`-`9` (and `.` for a blank when
/// `blanks`); says which cell holds what otherwise.
fn read_grid(bytes: &[u8; CELLS], blanks: bool) -> Result<Grid, Error> {
    // The usual case, a full grid, in one branch-free pass (it vectorises);
    // anything else takes the loop below, which says what is wrong.
    let mut cells = [0u8; CELLS];
    let mut bad = false;
    for (c, &b) in cells.iter_mut().zip(bytes) {
        let d = b.wrapping_sub(b'0');
        bad |= d.wrapping_sub(1) > 8;
        *c = d;
    }
    if !bad {
        return Ok(Grid::from_cells(cells).expect("values 1..=9"));
    }
    for (i, (&b, c)) in bytes.iter().zip(cells.iter_mut()).enumerate() {
        *c = match b {
            b'1'..=b'9' => b - b'0',
            b'.' if blanks => 0,
            _ => {
                return Err(Error::SolutionCell {
                    cell: cell_name(i),
                    holds: if b.is_ascii_graphic() {
                        format!("{:?}", b as char)
                    } else {
                        format!("byte {b:#04x}")
                    },
                })
            }
        };
    }
    Ok(Grid::from_cells(cells).expect("values 0..=9"))
}

/// Runs `call` timed alone on the monotonic clock (`undisturbed`: and
/// the thread's usage, [`Stopwatch`]), with the watchdog slot marked busy
/// around it (outside the timed region); returns its result, its wall
/// time and its undisturbed time (ns).
#[inline(always)]
fn timed<R>(slot: &AtomicU64, undisturbed: bool, call: impl FnOnce() -> R) -> (R, (u64, u64)) {
    let n = enter(slot);
    let t = Stopwatch::start(undisturbed);
    let r = call();
    let times = t.stop_both();
    slot.store(n + 1, Ordering::Relaxed);
    (r, times)
}

/// Marks a watchdog slot busy before a call; returns the odd number it
/// now holds (the caller stores the next, even, number after the call).
/// Only the slot's own thread writes it, so a load and a store suffice.
#[inline]
fn enter(slot: &AtomicU64) -> u64 {
    let call = slot.load(Ordering::Relaxed) + 1;
    slot.store(call, Ordering::Relaxed);
    call
}

/// Ends the run when a library call has not returned within the timeout:
/// a thread inside a library cannot be stopped, and a run that waits for
/// it forever helps nobody. One per library solver; its thread starts with
/// the first instance and ends with the solver.
///
/// Each instance has a slot holding a call number, odd while a call runs
/// (no clock read in the timed region): a slot seen at the same odd number
/// for longer than the timeout is stuck, which the watchdog notices within
/// one of its periods.
struct Watchdog {
    timeout: Duration,
    spec: String,
    slots: Mutex<Vec<Weak<AtomicU64>>>,
    started: std::sync::Once,
}

impl Watchdog {
    fn new(timeout: Duration, spec: String) -> Arc<Watchdog> {
        Arc::new(Watchdog {
            timeout,
            spec,
            slots: Mutex::new(Vec::new()),
            started: std::sync::Once::new(),
        })
    }

    /// A slot for one instance; starts the watching thread on first use.
    fn slot(self: &Arc<Self>) -> Arc<AtomicU64> {
        let slot = Arc::new(AtomicU64::new(0));
        self.slots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Arc::downgrade(&slot));
        self.started.call_once(|| {
            let me = Arc::downgrade(self);
            let period =
                (self.timeout / 4).clamp(Duration::from_millis(10), Duration::from_millis(250));
            let _ = std::thread::Builder::new()
                .name("lib-watchdog".into())
                .spawn(move || watch(me, period));
        });
        slot
    }
}

fn watch(dog: Weak<Watchdog>, period: Duration) {
    super::super::alone::enter();
    // Per slot (by address): the odd call number last seen and when it
    // was first seen.
    let mut seen: std::collections::HashMap<usize, (u64, Instant)> = Default::default();
    loop {
        std::thread::sleep(period);
        let Some(dog) = dog.upgrade() else { return };
        let now = Instant::now();
        let slots: Vec<Arc<AtomicU64>> = dog
            .slots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .filter_map(Weak::upgrade)
            .collect();
        let mut stuck = false;
        for s in &slots {
            let key = Arc::as_ptr(s) as usize;
            let call = s.load(Ordering::Relaxed);
            if call % 2 == 0 {
                seen.remove(&key);
                continue;
            }
            let since = match seen.get(&key) {
                Some(&(c, t)) if c == call => t,
                _ => {
                    seen.insert(key, (call, now));
                    now
                }
            };
            stuck |= now.duration_since(since) >= dog.timeout;
        }
        if stuck {
            eprintln!(
                "bench-sudoku: error: {}: a call has not returned after {} (--timeout); a library \
                 running inside bench-sudoku cannot be stopped, so the run ends here without \
                 results. Run it with isolate=yes to have a hang counted as a timeout and the \
                 run go on.",
                dog.spec,
                humantime::format_duration(dog.timeout)
            );
            std::process::exit(2);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solution_bytes_are_read_strictly() {
        let line =
            b"812753649943682175675491283154237896369845721287169534521974368438526917796318452";
        let g = read_grid(line, false).unwrap();
        assert_eq!(g.to_line().as_bytes(), line);
        let mut bad = *line;
        bad[10] = b'0';
        assert_eq!(
            read_grid(&bad, false).unwrap_err().to_string(),
            "r2c2 holds '0'"
        );
        bad[10] = 0;
        assert_eq!(
            read_grid(&bad, false).unwrap_err().to_string(),
            "r2c2 holds byte 0x00"
        );
        bad[10] = b'.';
        assert!(read_grid(&bad, false).is_err());
        assert_eq!(read_grid(&bad, true).unwrap().get(10), 0);
    }

    #[test]
    fn specs_are_canonical() {
        use crate::solver::spec::Spec;
        let here = std::env::current_exe().unwrap();
        let text = format!(
            "lib={},symbol=TdokuSolverDpllTriadSimd,config=2,reentrant=no",
            here.display()
        );
        let parsed = Spec::parse(&text).unwrap();
        let spec = resolve(parsed.library().unwrap(), None).unwrap();
        assert_eq!(spec.default_label(), "TdokuSolverDpllTriadSimd");
        assert_eq!(
            spec.spec(true),
            format!(
                "lib={},symbol=TdokuSolverDpllTriadSimd,config=2,reentrant=no,isolate=yes",
                here.canonicalize().unwrap().display()
            )
        );
        let bad = |k: &str, v: &str| {
            Spec::parse(&format!("lib={},{k}={v}", here.display()))
                .unwrap_err()
                .why
        };
        assert!(bad("config", "-1").contains("config"));
        assert!(bad("symbol", "a b").contains("C identifier"));
        assert!(bad("isolate", "maybe").contains("yes or no"));
    }
}
