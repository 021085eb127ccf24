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

pub mod alone;
pub mod dlx;
pub mod engine;
pub mod external;
pub mod fast;
mod load;
pub mod observer;
pub mod revision;
pub mod seam;
pub mod spec;
pub mod stopwatch;
pub mod strategy;
pub mod techniques;

pub use observer::{NoopObserver, Observer, TraceObserver};
pub use seam::{Answer, Capabilities, Clock, Counter, CounterSet, ExternalSolver, SolverInstance};
pub use strategy::{spec_help, Branch, Builtin, Config, Engine, Propagation, Strategy, ValueOrder};

use crate::grid::pencilmark::Candidates;
use crate::grid::{Conflict, Grid};

/// Why an external solver gets no pencilmark puzzle.
pub const PENCILMARK_EXTERNAL: &str =
    "external solvers take 81-cell puzzles; this is a pencilmark puzzle (candidates eliminated), which only the built-in engines solve";
use serde::Serialize;

/// Default per-puzzle budget of guesses. A run never hangs on an explosive
/// strategy: past the budget the puzzle is reported `gave_up`.
pub const DEFAULT_MAX_GUESSES: u64 = 1_000_000;

/// The outcome of one solve.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize,
)]
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
    /// An external solver's process died (or closed its output) before
    /// answering.
    Crashed,
    /// An external solver did not answer within `--timeout`.
    Timeout,
    /// An external solver's reply broke the protocol.
    ProtocolError,
    /// An external solver replied that it could not handle the puzzle.
    Error,
}

impl Status {
    pub const ALL: [Status; 10] = [
        Status::Solved,
        Status::NoSolution,
        Status::Multiple,
        Status::Invalid,
        Status::Stalled,
        Status::GaveUp,
        Status::Crashed,
        Status::Timeout,
        Status::ProtocolError,
        Status::Error,
    ];

    /// The outcomes where a solver failed to give any answer: they have no
    /// time and no counters, and make a run exit 1.
    pub const FAULTS: [Status; 4] = [
        Status::Crashed,
        Status::Timeout,
        Status::ProtocolError,
        Status::Error,
    ];

    #[inline]
    pub fn is_fault(self) -> bool {
        self as u8 >= Status::Crashed as u8
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Solved => "solved",
            Status::NoSolution => "no_solution",
            Status::Multiple => "multiple",
            Status::Invalid => "invalid",
            Status::Stalled => "stalled",
            Status::GaveUp => "gave_up",
            Status::Crashed => "crashed",
            Status::Timeout => "timeout",
            Status::ProtocolError => "protocol_error",
            Status::Error => "error",
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
    /// Candidates removed by locked candidates (pointing and claiming).
    pub locked_eliminations: u64,
    /// Candidates removed by naked and hidden subsets (`prop=subsets` and
    /// above).
    pub subset_eliminations: u64,
    /// Candidates removed by X-wings, swordfish and jellyfish (`prop=fish`
    /// and above).
    pub fish_eliminations: u64,
    /// Candidates removed by XY- and XYZ-wings (`prop=wings` and above).
    pub wing_eliminations: u64,
    /// Candidates removed by chains (`prop=chains`).
    pub chain_eliminations: u64,
}

impl Counters {
    /// The highest inference level whose rule placed or removed something
    /// (`singles`, `locked`, `subsets`, `fish`, `wings`, `chains`): how far
    /// up the technique ladder a solve got (for a `stalled` one, where it
    /// stopped). `None` when no rule did anything.
    pub fn highest_level(&self) -> Option<&'static str> {
        [
            (self.chain_eliminations, "chains"),
            (self.wing_eliminations, "wings"),
            (self.fish_eliminations, "fish"),
            (self.subset_eliminations, "subsets"),
            (self.locked_eliminations, "locked"),
            (self.naked_singles + self.hidden_singles, "singles"),
        ]
        .into_iter()
        .find(|&(n, _)| n > 0)
        .map(|(_, level)| level)
    }
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

    /// The result for a pencilmark puzzle whose candidates rule out one of
    /// its own givens: no solution, found before any search (the root node
    /// only).
    pub fn given_ruled_out(puzzle: &Grid) -> Self {
        SolveResult {
            status: Status::NoSolution,
            solutions: 0,
            grid: *puzzle,
            counters: Counters {
                nodes: 1,
                ..Counters::default()
            },
            filled: 0,
            conflict: None,
        }
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

/// A reusable solving workspace; one per thread. It runs the built-in
/// engines itself and keeps one instance of each external solver it has
/// been asked to run (made on first use).
pub struct Solver {
    generic: engine::Workspace,
    fast: fast::Workspace,
    dlx: dlx::Workspace,
    external: Vec<(std::sync::Arc<dyn ExternalSolver>, Box<dyn SolverInstance>)>,
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
            dlx: dlx::Workspace::new(),
            external: Vec::new(),
        }
    }

    /// Solves `puzzle` with `strategy` within `limits`. For an external
    /// strategy this is [`Solver::answer`]'s result (a fault shows only as
    /// its status).
    #[inline]
    pub fn solve(&mut self, puzzle: &Grid, strategy: &Strategy, limits: &Limits) -> SolveResult {
        match strategy.engine() {
            Engine::Builtin(b) => self.solve_builtin(puzzle, b, limits, &mut NoopObserver),
            Engine::External(_) => self.answer(puzzle, strategy, limits).result,
        }
    }

    /// Solves with a built-in engine, reporting every engine event to `obs`.
    #[inline]
    pub fn solve_builtin<O: Observer>(
        &mut self,
        puzzle: &Grid,
        builtin: &Builtin,
        limits: &Limits,
        obs: &mut O,
    ) -> SolveResult {
        self.solve_builtin_with(puzzle, None, builtin, limits, obs)
    }

    /// Solves with a built-in engine from candidate masks when `cands` is
    /// given (a pencilmark puzzle, see [`crate::grid::pencilmark`]): digit
    /// `d` may go in blank cell `c` only when bit `d - 1` of `cands[c]` is
    /// set.
    #[inline]
    pub fn solve_builtin_with<O: Observer>(
        &mut self,
        puzzle: &Grid,
        cands: Option<&Candidates>,
        builtin: &Builtin,
        limits: &Limits,
        obs: &mut O,
    ) -> SolveResult {
        match builtin {
            Builtin::Generic(config) => self
                .generic
                .solve_restricted(puzzle, cands, config, limits, obs),
            Builtin::Fast => self.fast.dispatch(puzzle, cands, limits, obs),
            Builtin::Dlx => self.dlx.solve_restricted(puzzle, cands, limits, obs),
        }
    }

    /// [`Solver::answer`] for a puzzle that may come with candidate masks.
    /// External solvers take 81-cell puzzles only: a pencilmark puzzle is
    /// an `error` outcome for them, saying so.
    pub fn answer_with(
        &mut self,
        puzzle: &Grid,
        cands: Option<&Candidates>,
        strategy: &Strategy,
        limits: &Limits,
    ) -> Answer {
        match (cands, strategy.engine()) {
            (None, _) => self.answer(puzzle, strategy, limits),
            (Some(c), Engine::Builtin(b)) => Answer {
                result: self.solve_builtin_with(puzzle, Some(c), b, limits, &mut NoopObserver),
                time_ns: None,
                note: None,
                unwritten: false,
            },
            (Some(_), Engine::External(_)) => {
                Answer::fault(puzzle, Status::Error, PENCILMARK_EXTERNAL)
            }
        }
    }

    /// Solves `puzzle` with the `fast` engine with some candidates already
    /// ruled out (see [`fast::Workspace::solve_restricted`]): the exclusion
    /// tests of the generator ("is there a solution in which this cell is
    /// not its known digit?").
    pub fn fast_restricted(
        &mut self,
        puzzle: &Grid,
        allowed: &[u16; crate::grid::CELLS],
        limits: &Limits,
    ) -> SolveResult {
        self.fast
            .solve_restricted(puzzle, allowed, limits, &mut NoopObserver)
    }

    /// Like [`Solver::solve`], reporting every engine event to `obs`.
    /// External strategies cannot be observed (their capabilities say
    /// `trace: false`); they are solved without events.
    pub fn solve_observed<O: Observer>(
        &mut self,
        puzzle: &Grid,
        strategy: &Strategy,
        limits: &Limits,
        obs: &mut O,
    ) -> SolveResult {
        match strategy.engine() {
            Engine::Builtin(b) => self.solve_builtin(puzzle, b, limits, obs),
            Engine::External(_) => self.answer(puzzle, strategy, limits).result,
        }
    }

    /// Solves `puzzle` with any strategy and returns the whole [`Answer`]:
    /// for an external solver its own time (when it measures one) and what
    /// went wrong when it failed. The first call for an external strategy
    /// makes this workspace's instance of it; failing that, the answer is
    /// `crashed` with the reason.
    pub fn answer(&mut self, puzzle: &Grid, strategy: &Strategy, limits: &Limits) -> Answer {
        let solver = match strategy.engine() {
            Engine::Builtin(b) => {
                return Answer {
                    result: self.solve_builtin(puzzle, b, limits, &mut NoopObserver),
                    time_ns: None,
                    note: None,
                    unwritten: false,
                }
            }
            Engine::External(solver) => solver,
        };
        match self.instance(solver) {
            Ok(instance) => instance.solve(puzzle, limits),
            Err(e) => Answer::fault(puzzle, Status::Crashed, format!("{e:#}")),
        }
    }

    /// bench-sudoku's own count of `puzzle`'s solutions (the `fast`
    /// engine, up to the same limit), when it differs from the count in
    /// `r`: how an external solver's count is checked. `proven` says that
    /// `r`'s first solution was verified; then a count of 1 under a limit
    /// of 1 needs no second solve. Unchecked (`None`) when either side
    /// stopped early (a budget, or a solver that does not guess), its count
    /// being only a lower bound.
    pub fn count_disagrees(
        &mut self,
        puzzle: &Grid,
        r: &SolveResult,
        limits: &Limits,
        proven: bool,
    ) -> Option<u32> {
        if matches!(r.status, Status::GaveUp | Status::Stalled) || r.status.is_fault() {
            return None;
        }
        if proven && limits.solutions <= 1 && r.solutions == 1 {
            return None;
        }
        let reference = self.fast.solve(
            puzzle,
            &Limits::first()
                .with_solutions(limits.solutions)
                .with_max_guesses(DEFAULT_MAX_GUESSES.max(limits.max_guesses)),
            &mut NoopObserver,
        );
        (reference.status != Status::GaveUp && reference.solutions != r.solutions)
            .then_some(reference.solutions)
    }

    /// This workspace's instance of `solver`, made on first use.
    pub fn instance(
        &mut self,
        solver: &std::sync::Arc<dyn ExternalSolver>,
    ) -> anyhow::Result<&mut dyn SolverInstance> {
        let i = match self
            .external
            .iter()
            .position(|(s, _)| std::sync::Arc::ptr_eq(s, solver))
        {
            Some(i) => i,
            None => {
                let instance = solver.instance()?;
                self.external
                    .push((std::sync::Arc::clone(solver), instance));
                self.external.len() - 1
            }
        };
        Ok(self.external[i].1.as_mut())
    }
}

/// One-off convenience: solves with a fresh workspace.
pub fn solve(puzzle: &Grid, strategy: &Strategy, limits: &Limits) -> SolveResult {
    Solver::new().solve(puzzle, strategy, limits)
}
