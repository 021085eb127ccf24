//! The seam between the harness and every solver.
//!
//! The built-in engines and external solvers (a shared library, an
//! executable speaking the line protocol, a Rust type implementing
//! [`SolverInstance`]) are the same kind of thing to the pipeline, the
//! reports, `compare` and `merge`: a [`Strategy`](super::Strategy) whose
//! [`Capabilities`] say which counters it reports and which clock times it.
//! A counter a solver does not report is *absent* everywhere (null in JSON
//! and CSV, "—" in tables), never 0.
//!
//! The built-in engines stay on static dispatch in the benchmark loop; an
//! external solver is reached through two object-safe traits:
//! [`ExternalSolver`], shared by the threads of a run, makes one
//! [`SolverInstance`] per thread (a loaded library's per-thread state, a
//! child process), which solves puzzles in order.

use super::{Counters, Limits, SolveResult, Status};
use crate::grid::Grid;
use std::fmt;
use std::time::Instant;

/// One search-effort counter of [`Counters`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Counter {
    Guesses,
    Backtracks,
    MaxDepth,
    Nodes,
    NakedSingles,
    HiddenSingles,
    /// Candidates removed by the generic engine's inference levels: locked
    /// candidates, subsets, fish, wings, chains.
    LockedEliminations,
    SubsetEliminations,
    FishEliminations,
    WingEliminations,
    ChainEliminations,
}

impl Counter {
    pub const ALL: [Counter; 11] = [
        Counter::Guesses,
        Counter::Backtracks,
        Counter::MaxDepth,
        Counter::Nodes,
        Counter::NakedSingles,
        Counter::HiddenSingles,
        Counter::LockedEliminations,
        Counter::SubsetEliminations,
        Counter::FishEliminations,
        Counter::WingEliminations,
        Counter::ChainEliminations,
    ];

    /// The name used in reports and `puzzles.csv` columns.
    pub fn name(self) -> &'static str {
        match self {
            Counter::Guesses => "guesses",
            Counter::Backtracks => "backtracks",
            Counter::MaxDepth => "max_depth",
            Counter::Nodes => "nodes",
            Counter::NakedSingles => "naked_singles",
            Counter::HiddenSingles => "hidden_singles",
            Counter::LockedEliminations => "locked_eliminations",
            Counter::SubsetEliminations => "subset_eliminations",
            Counter::FishEliminations => "fish_eliminations",
            Counter::WingEliminations => "wing_eliminations",
            Counter::ChainEliminations => "chain_eliminations",
        }
    }

    pub fn parse(name: &str) -> Option<Counter> {
        Counter::ALL.into_iter().find(|c| c.name() == name)
    }

    /// This counter's value in `c`.
    pub fn get(self, c: &Counters) -> u64 {
        match self {
            Counter::Guesses => c.guesses,
            Counter::Backtracks => c.backtracks,
            Counter::MaxDepth => c.max_depth as u64,
            Counter::Nodes => c.nodes,
            Counter::NakedSingles => c.naked_singles,
            Counter::HiddenSingles => c.hidden_singles,
            Counter::LockedEliminations => c.locked_eliminations,
            Counter::SubsetEliminations => c.subset_eliminations,
            Counter::FishEliminations => c.fish_eliminations,
            Counter::WingEliminations => c.wing_eliminations,
            Counter::ChainEliminations => c.chain_eliminations,
        }
    }

    const fn bit(self) -> u16 {
        1 << self as u16
    }
}

/// A set of [`Counter`]s: the ones a solver reports.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CounterSet(u16);

impl CounterSet {
    /// No counter (a solver that reports only its answers).
    pub const NONE: CounterSet = CounterSet(0);
    /// Every counter (the generic engine).
    pub const ALL: CounterSet = CounterSet((1 << Counter::ALL.len()) - 1);
    /// The six search-effort counters every built-in engine reports (and
    /// the C interface can carry): guesses to hidden singles. The
    /// elimination counters of the generic engine's inference levels are
    /// the rest of [`CounterSet::ALL`].
    pub const SEARCH: CounterSet = CounterSet((1 << 6) - 1);

    pub const fn of(counters: &[Counter]) -> CounterSet {
        let mut bits = 0;
        let mut i = 0;
        while i < counters.len() {
            bits |= counters[i].bit();
            i += 1;
        }
        CounterSet(bits)
    }

    /// The set whose bit `1 << i` stands for `Counter::ALL[i]`; unknown
    /// bits are dropped.
    pub const fn from_bits(bits: u16) -> CounterSet {
        CounterSet(bits & CounterSet::ALL.0)
    }

    /// The set a C solver's `reports` byte names: bit `1 << i` for
    /// `Counter::ALL[i]`, of the six [`CounterSet::SEARCH`] counters only.
    pub const fn from_c_bits(bits: u8) -> CounterSet {
        CounterSet(bits as u16 & CounterSet::SEARCH.0)
    }

    pub const fn bits(self) -> u16 {
        self.0
    }

    /// True when every counter of `other` is in this set.
    pub const fn contains(self, other: CounterSet) -> bool {
        self.0 & other.0 == other.0
    }

    pub const fn with(self, c: Counter) -> CounterSet {
        CounterSet(self.0 | c.bit())
    }

    pub const fn has(self, c: Counter) -> bool {
        self.0 & c.bit() != 0
    }

    pub fn iter(self) -> impl Iterator<Item = Counter> {
        Counter::ALL.into_iter().filter(move |&c| self.has(c))
    }

    /// The names of the counters in the set, in [`Counter::ALL`] order.
    pub fn names(self) -> Vec<&'static str> {
        self.iter().map(Counter::name).collect()
    }

    /// The set of the named counters; unknown names are an error.
    pub fn from_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<CounterSet, String> {
        let mut set = CounterSet::NONE;
        for n in names {
            set = set.with(Counter::parse(n).ok_or_else(|| format!("unknown counter {n:?}"))?);
        }
        Ok(set)
    }

    /// `value` of counter `c` when the set holds it.
    pub fn value(self, c: Counter, counters: &Counters) -> Option<u64> {
        self.has(c).then(|| c.get(counters))
    }
}

impl fmt::Debug for CounterSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.names()).finish()
    }
}

impl serde::Serialize for CounterSet {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.names())
    }
}

impl<'de> serde::Deserialize<'de> for CounterSet {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let names: Vec<String> = serde::Deserialize::deserialize(d)?;
        CounterSet::from_names(names.iter().map(String::as_str)).map_err(serde::de::Error::custom)
    }
}

/// Which clock a solver's per-puzzle times come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Clock {
    /// The harness's monotonic clock around an in-process call (for a
    /// slow solve that was preempted, of a built-in engine or of a library
    /// whose batch ran on the calling thread alone, the CPU time it used:
    /// [`super::stopwatch`], [`super::alone`]).
    #[default]
    Harness,
    /// The solver's own measurement (the protocol's `ns`).
    Solver,
    /// The harness's monotonic clock from writing a request to a child
    /// process to reading its reply (pipe transfers and wake-ups included).
    RoundTrip,
}

impl Clock {
    pub fn as_str(self) -> &'static str {
        match self {
            Clock::Harness => "harness",
            Clock::Solver => "solver",
            Clock::RoundTrip => "round_trip",
        }
    }

    pub fn parse(s: &str) -> Option<Clock> {
        [Clock::Harness, Clock::Solver, Clock::RoundTrip]
            .into_iter()
            .find(|c| c.as_str() == s)
    }

    /// What the clock measures, for reports.
    pub fn describe(self) -> &'static str {
        match self {
            Clock::Harness => "the harness's monotonic clock around the solve call",
            Clock::Solver => "the solver's own measurement",
            Clock::RoundTrip => "round trip to the solver process on the harness's clock",
        }
    }
}

impl serde::Serialize for Clock {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Clock {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s: String = serde::Deserialize::deserialize(d)?;
        Clock::parse(&s).ok_or_else(|| serde::de::Error::custom(format!("unknown clock {s:?}")))
    }
}

/// What a solver can report and do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Capabilities {
    /// The counters it reports; the others are absent.
    pub counters: CounterSet,
    /// Where its per-puzzle times come from.
    pub clock: Clock,
    /// It can show its solving process step by step (`solve --trace`).
    pub trace: bool,
    /// It honours the guess budget (`--max-guesses`).
    pub budget: bool,
}

impl Capabilities {
    /// The generic engine: every counter, harness clock, traces, budget.
    pub const BUILTIN: Capabilities = Capabilities {
        counters: CounterSet::ALL,
        clock: Clock::Harness,
        trace: true,
        budget: true,
    };
    /// The fixed engines (`fast`, `dlx`): the search counters (they have no
    /// inference levels whose eliminations could be counted alike).
    pub const FIXED_ENGINE: Capabilities = Capabilities {
        counters: CounterSet::SEARCH,
        ..Capabilities::BUILTIN
    };
}

/// One solve as the harness receives it from any solver.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// Status, number of solutions, first solution, counters (an absent
    /// counter is 0 here; [`Capabilities::counters`] says which are real).
    pub result: SolveResult,
    /// The time of this solve when the solver measured it itself (its own
    /// clock, or a round trip); `None` when the harness times the call.
    pub time_ns: Option<u64>,
    /// Why a solve failed (crashed, timeout, protocol_error, error), or why
    /// the solution it returned could not be read as a grid.
    pub note: Option<Box<str>>,
    /// The solver counted solutions without writing the first one (allowed
    /// through tdoku's signature when the limit is above 1): only the count
    /// can be checked, and `result.grid` is the puzzle.
    pub unwritten: bool,
}

impl Answer {
    /// The answer of a solver that found `count` solutions (the first in
    /// `grid`). A count of 0 on givens that already break a rule is
    /// `invalid`, as the built-in engines report it.
    pub fn counted(puzzle: &Grid, count: u32, grid: Grid, counters: Counters) -> Answer {
        let conflict = if count == 0 {
            puzzle.find_conflict()
        } else {
            None
        };
        let status = if conflict.is_some() {
            Status::Invalid
        } else {
            Status::of_completed_search(count)
        };
        Answer {
            result: SolveResult {
                status,
                solutions: count,
                grid: if count > 0 { grid } else { *puzzle },
                counters,
                // `givens` counts the non-blank cells of any grid.
                filled: if count > 0 {
                    grid.givens().saturating_sub(puzzle.givens()) as u8
                } else {
                    0
                },
                conflict,
            },
            time_ns: None,
            note: None,
            unwritten: false,
        }
    }

    /// A failed solve (`status` is a fault) with what went wrong.
    pub fn fault(puzzle: &Grid, status: Status, note: impl Into<String>) -> Answer {
        debug_assert!(status.is_fault());
        Answer {
            result: SolveResult {
                status,
                solutions: 0,
                grid: *puzzle,
                counters: Counters::default(),
                filled: 0,
                conflict: None,
            },
            time_ns: None,
            note: Some(note.into().into_boxed_str()),
            unwritten: false,
        }
    }
}

/// A solver as one thread uses it: puzzles in, answers out, in order.
/// Implement it (with [`ExternalSolver`]) to benchmark a Rust solver
/// beside the built-in ones (`examples/solvers/rust_solver.rs`).
pub trait SolverInstance: Send {
    /// Solves one puzzle within `limits` (an instance may ignore the guess
    /// budget when its capabilities say so).
    fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Answer;

    /// Solves `puzzles` in order, appending one answer each to `out`, each
    /// with its time. The default times every [`solve`](Self::solve) call
    /// alone on the harness's monotonic clock; instances that can do better
    /// (a library call timed without the harness's conversions, requests
    /// pipelined to a process) override it.
    fn solve_batch(&mut self, puzzles: &[Grid], limits: &Limits, out: &mut Vec<Answer>) {
        for p in puzzles {
            let t = Instant::now();
            let mut a = self.solve(p, limits);
            let ns = t.elapsed().as_nanos() as u64;
            a.time_ns.get_or_insert(ns);
            out.push(a);
        }
    }
}

/// An external solver as the whole run sees it: its capabilities, how it
/// was specified, and a maker of per-thread instances. Shared by every
/// thread of a run.
pub trait ExternalSolver: Send + Sync + fmt::Debug {
    /// The label it is reported under unless the spec gives `name=`.
    fn default_label(&self) -> String;
    /// What it reports and which clock times it.
    fn capabilities(&self) -> Capabilities;
    /// How it was specified, canonically (recorded in `meta.json`).
    fn spec(&self) -> String;
    /// One line for `strategies` and the reports.
    fn description(&self) -> String;
    /// A new instance for the calling thread.
    fn instance(&self) -> anyhow::Result<Box<dyn SolverInstance>>;
    /// The file the solver is built from or run as (a library, a
    /// command's program or script): the git work tree holding it tells
    /// which revision of the solver a run measured
    /// ([`super::revision::describe`]). `None` when there is none.
    fn source(&self) -> Option<std::path::PathBuf> {
        None
    }
}
