//! What one puzzle × strategy produced, as the aggregator sees it
//! ([`PuzzleOutcome`]): the verified answer, its kept time, its counters,
//! how its passes compared, and what is wrong with it, if anything. The
//! one type the pipeline hands to the statistics ([`super::metrics`]) and to
//! the pairing ([`super::paired`]).

use crate::solver::{Counters, Status};
use serde::Serialize;

/// What one puzzle × strategy produced, as the aggregator sees it.
#[derive(Clone, Debug)]
pub struct PuzzleOutcome {
    pub index: u64,
    pub line: u64,
    pub status: Status,
    pub solutions: u32,
    /// Minimum over the measured repeats.
    pub time_ns: u64,
    pub counters: Counters,
    pub givens: u8,
    /// `Some(true/false)` when the dataset has a solution for this puzzle and
    /// the engine returned a verdict to compare; `None` otherwise.
    pub matches_solution: Option<bool>,
    /// The engine returned a grid that breaks a rule or a given (an engine
    /// bug, never expected), or a solution that is not a grid.
    pub wrong: Option<String>,
    /// bench-sudoku's own engine counts this many solutions (up to the same
    /// limit) where the solver said otherwise (checked for external solvers).
    pub wrong_count: Option<u32>,
    /// What went wrong, when `status` is a fault (crashed, timeout, …).
    pub fault: Option<Box<str>>,
    /// How the puzzle's later passes compared with its first.
    pub repeats: Repeats,
    /// The solver counted solutions without writing one (tdoku's signature
    /// with a limit above 1): only the count could be checked.
    pub unverified: bool,
}

/// How a puzzle's passes after the first compared with the first (an
/// answer is checked on every pass, not only the one kept).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Repeats {
    /// The 1-based pass whose answer (status, solution count, grid) first
    /// differed from the first pass's; 0 when none did. Such a puzzle's
    /// answer is rejected.
    pub answer_changed: u32,
    /// The 1-based pass whose search counters first differed while the
    /// answer did not; 0 when none did.
    pub counters_changed: u32,
    /// The puzzle was solved more than once.
    pub repeated: bool,
    /// Its fastest later pass took at most 1/[`CACHE_FACTOR`](super::metrics::CACHE_FACTOR) of its
    /// first pass's time.
    pub far_faster: bool,
    /// Its kept time was an outlier against the puzzles of like search
    /// effort, and it was solved again (the minimum kept).
    pub remeasured: bool,
}

impl PuzzleOutcome {
    /// The `answer` cell of its `puzzles.csv` row: `ok` for an accepted
    /// answer, the first reason for a rejected one (`wrong_grid`,
    /// `unstable`, `differs`, `wrong_count`), empty for a fault.
    pub fn answer(&self) -> &'static str {
        if self.status.is_fault() {
            ""
        } else if self.wrong.is_some() {
            MismatchKind::WrongGrid.as_str()
        } else if self.repeats.answer_changed > 0 {
            MismatchKind::Unstable.as_str()
        } else if self.matches_solution == Some(false) {
            MismatchKind::Differs.as_str()
        } else if self.wrong_count.is_some() {
            MismatchKind::WrongCount.as_str()
        } else {
            "ok"
        }
    }

    /// The harness rejects the answer: it breaks a rule or a given, is not
    /// a grid, disagrees with the dataset's solution or with bench-sudoku's
    /// count of solutions, or changed from one pass to another. A rejected
    /// answer is not a solve: it is counted apart, without its time or
    /// counters.
    #[inline(always)]
    pub fn rejected(&self) -> bool {
        self.wrong.is_some()
            || self.matches_solution == Some(false)
            || self.wrong_count.is_some()
            || self.repeats.answer_changed > 0
    }
}

/// What kind of disagreement a listed mismatch is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MismatchKind {
    /// The answer differs from the dataset's solution column.
    Differs,
    /// The returned grid breaks a rule or a given, or is not a grid.
    WrongGrid,
    /// The number of solutions differs from bench-sudoku's own count.
    WrongCount,
    /// A later pass answered otherwise than the first (status, solution
    /// count or grid).
    Unstable,
}

impl MismatchKind {
    pub fn as_str(self) -> &'static str {
        match self {
            MismatchKind::Differs => "differs",
            MismatchKind::WrongGrid => "wrong_grid",
            MismatchKind::WrongCount => "wrong_count",
            MismatchKind::Unstable => "unstable",
        }
    }
}
