//! The solver: one call signature for every strategy.
//!
//! ```
//! use bench_sudoku::{Grid, solver::{Solver, Strategy, Limits, Status}};
//! let puzzle = Grid::parse(
//!     "009020034070008006600500000003900080700040002050002700000001007200300090480060500",
//! ).unwrap();
//! let mut solver = Solver::new();
//! let r = solver.solve(&puzzle, &Strategy::named("hidden").unwrap(), &Limits::uniqueness());
//! assert_eq!(r.status, Status::Solved);
//! assert!(r.grid.is_solution_of(&puzzle));
//! ```
//!
//! A [`Solver`] holds the per-thread workspace (the explicit search stack);
//! it allocates once in [`Solver::new`] and never again, so the benchmark
//! path is allocation-free.

pub mod engine;
pub mod fast;
pub mod observer;
pub mod strategy;

pub use observer::{NoopObserver, Observer, TraceObserver};
pub use strategy::{Branch, Config, Engine, Propagation, Strategy, ValueOrder};

use crate::grid::{Conflict, Grid};
use serde::Serialize;

/// Default per-puzzle budget of guesses. A run never hangs on an explosive
/// strategy: past the budget the puzzle is reported `gave_up`.
pub const DEFAULT_MAX_GUESSES: u64 = 1_000_000;

/// The outcome of one solve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// A solution was found (and, with a solution limit ≥ 2, proven unique).
    Solved,
    /// The search space was exhausted without a solution.
    NoSolution,
    /// At least two solutions were found.
    Multiple,
    /// The givens already break a rule.
    Invalid,
    /// A no-guessing strategy could not finish the grid.
    Stalled,
    /// The guess budget ran out first.
    GaveUp,
}

impl Status {
    pub const ALL: [Status; 6] = [
        Status::Solved,
        Status::NoSolution,
        Status::Multiple,
        Status::Invalid,
        Status::Stalled,
        Status::GaveUp,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Solved => "solved",
            Status::NoSolution => "no_solution",
            Status::Multiple => "multiple",
            Status::Invalid => "invalid",
            Status::Stalled => "stalled",
            Status::GaveUp => "gave_up",
        }
    }

    /// The status of a search that ran to its end (or to the solution
    /// limit) having found `solutions` solutions.
    pub fn of_completed_search(solutions: u32) -> Status {
        match solutions {
            0 => Status::NoSolution,
            1 => Status::Solved,
            _ => Status::Multiple,
        }
    }

    pub fn parse(s: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|st| st.as_str() == s)
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Exact search-effort counters of one solve; identical on every run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Counters {
    /// Values tried at branch cells that had two or more candidates.
    pub guesses: u64,
    /// Guesses undone: their subtree was exhausted (a dead end, or, when
    /// counting solutions, all its solutions counted). When the search runs to
    /// completion `backtracks == guesses`.
    pub backtracks: u64,
    /// Deepest number of open branch frames (nested guesses) on the stack.
    pub max_depth: u32,
    /// Search nodes: the root plus one per value placed by the search
    /// (guesses and, without propagation, forced single-candidate cells).
    pub nodes: u64,
    /// Cells placed by the naked-single rule.
    pub naked_singles: u64,
    /// Cells placed by the hidden-single rule.
    pub hidden_singles: u64,
}

/// What one solve may spend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Stop after this many solutions (1: first solution; 2: proves uniqueness).
    pub solutions: u32,
    /// Give up after this many guesses.
    pub max_guesses: u64,
}

impl Limits {
    /// First solution only, default guess budget.
    pub const fn first() -> Self {
        Limits {
            solutions: 1,
            max_guesses: DEFAULT_MAX_GUESSES,
        }
    }

    /// Count up to two solutions (proves uniqueness), default guess budget.
    pub const fn uniqueness() -> Self {
        Limits {
            solutions: 2,
            max_guesses: DEFAULT_MAX_GUESSES,
        }
    }

    pub const fn with_solutions(mut self, n: u32) -> Self {
        self.solutions = if n == 0 { 1 } else { n };
        self
    }

    pub const fn with_max_guesses(mut self, n: u64) -> Self {
        self.max_guesses = n;
        self
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits::uniqueness()
    }
}

/// The result of one solve. Plain data, no heap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SolveResult {
    pub status: Status,
    /// Solutions found, up to the limit.
    pub solutions: u32,
    /// The first solution when `solutions > 0`; the partly filled grid when
    /// `stalled`; otherwise the puzzle as given.
    pub grid: Grid,
    pub counters: Counters,
    /// Cells filled by the engine (not givens) in `grid`.
    pub filled: u8,
    /// The conflicting givens when `invalid`.
    pub conflict: Option<Conflict>,
}

impl SolveResult {
    /// The first solution found, if any.
    pub fn solution(&self) -> Option<&Grid> {
        (self.solutions > 0).then_some(&self.grid)
    }

    /// The result for a puzzle whose givens conflict.
    pub fn invalid(puzzle: &Grid) -> Self {
        SolveResult {
            status: Status::Invalid,
            solutions: 0,
            grid: *puzzle,
            counters: Counters::default(),
            filled: 0,
            conflict: puzzle.find_conflict(),
        }
    }
}

/// A reusable solving workspace; one per thread.
pub struct Solver {
    generic: engine::Workspace,
    fast: fast::Workspace,
}

impl Default for Solver {
    fn default() -> Self {
        Self::new()
    }
}

impl Solver {
    /// Allocates the workspace (the only allocation the solver makes).
    pub fn new() -> Self {
        Solver {
            generic: engine::Workspace::new(),
            fast: fast::Workspace::new(),
        }
    }

    /// Solves `puzzle` with `strategy` within `limits`.
    #[inline]
    pub fn solve(&mut self, puzzle: &Grid, strategy: &Strategy, limits: &Limits) -> SolveResult {
        self.solve_observed(puzzle, strategy, limits, &mut NoopObserver)
    }

    /// Like [`Solver::solve`], reporting every engine event to `obs`.
    pub fn solve_observed<O: Observer>(
        &mut self,
        puzzle: &Grid,
        strategy: &Strategy,
        limits: &Limits,
        obs: &mut O,
    ) -> SolveResult {
        match strategy.engine() {
            Engine::Generic(config) => self.generic.solve(puzzle, config, limits, obs),
            Engine::Fast => self.fast.solve(puzzle, limits, obs),
        }
    }
}

/// One-off convenience: solves with a fresh workspace.
pub fn solve(puzzle: &Grid, strategy: &Strategy, limits: &Limits) -> SolveResult {
    Solver::new().solve(puzzle, strategy, limits)
}
