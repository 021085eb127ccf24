//! Search for the puzzles one strategy finds hardest (`generate --hard-for`).
//!
//! Each output puzzle is the best state of one independent chain of
//! simulated annealing over puzzles with exactly one solution:
//!
//! * **State**: a puzzle `P` and its unique solution `S`.
//! * **Start**: a random minimal puzzle (a grid from [`full_grid`], clues
//!   removed while unique), or puzzle `k mod n` of `--from`.
//! * **Moves** (on single cells, or on 180°-symmetric pairs with
//!   `symmetric`): *swap* a clue for a blank cell (given its digit in `S`),
//!   *remove* a clue (with `minimal`, which no state allows: *add two*
//!   clues from `S` instead), *add* a clue from `S`, or *relabel* a clue to
//!   another digit (the solution changes: the new puzzle must have exactly
//!   one).
//!   Uniqueness after a swap or removal is tested by exclusion: any other
//!   solution must differ from `S` in a cell that lost its clue
//!   ([`unique_after_removing`]). With `minimal`, every new state is then
//!   reduced (clues removed in random order while unique) before it is
//!   judged; with `max_clues`, states above it are refused.
//! * **Objective**: the strategy's guesses, nodes or backtracks on `P`
//!   (under the run's solution limit: first solution by default, like
//!   `run`), or its solve time (median of several solves). Its answer must
//!   be `S`; anything else is a fault and the state is refused.
//! * **Acceptance**: better or equal always; worse with probability
//!   `exp(-(ln(1 + f) - ln(1 + f')) / T)`, the temperature `T` falling
//!   linearly from [`T0`] to 0 over the chain's steps (or its share of the
//!   time budget).
//!
//! Chain `k` draws all its randomness from ChaCha8 seeded with the seed on
//! stream `k`; with a step budget and a counting objective its output is a
//! function of the options alone (any thread count, any machine). A time
//! budget or the `time` objective make it depend on the machine.

use super::dig::{remove_clues, unique_after_removing, Removal};
use super::fill::full_grid;
use super::{candidate_rng, GenError};
use crate::grid::{Grid, CELLS, PEERS};
use crate::random::{below, shuffle};
use crate::solver::{Counters, Limits, Solver, Status, Strategy};
use rand::RngCore;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Starting temperature, on the scale of `ln(1 + objective)`: a move that
/// loses a fifth of the objective is taken about one time in three at the
/// start, and ever more rarely as the temperature falls. (Chosen by
/// measurement among 0.1 to 0.8: docs/GENERATE.md.)
pub const T0: f64 = 0.2;

/// The whole search's time when neither a step nor a time budget is
/// given: each chain also stops at its share of it.
pub const DEFAULT_CAP: Duration = Duration::from_secs(300);

/// Steps per chain when neither a step nor a time budget is given.
pub const DEFAULT_STEPS: u64 = 250_000;

/// What a chain maximises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Objective {
    /// Guesses (values tried at cells with two or more candidates).
    Guesses,
    /// Search nodes.
    Nodes,
    /// Guesses undone.
    Backtracks,
    /// Solve time in ns, the median of `time_samples` solves.
    Time,
}

impl Objective {
    pub fn as_str(self) -> &'static str {
        match self {
            Objective::Guesses => "guesses",
            Objective::Nodes => "nodes",
            Objective::Backtracks => "backtracks",
            Objective::Time => "time",
        }
    }

    /// True when the value is a pure function of the puzzle.
    pub fn deterministic(self) -> bool {
        self != Objective::Time
    }

    /// The counter this objective reads, if it reads one.
    pub fn counter(self) -> Option<crate::solver::Counter> {
        use crate::solver::Counter;
        match self {
            Objective::Guesses => Some(Counter::Guesses),
            Objective::Nodes => Some(Counter::Nodes),
            Objective::Backtracks => Some(Counter::Backtracks),
            Objective::Time => None,
        }
    }
}

/// Everything that decides what [`climb`] produces.
#[derive(Clone, Debug)]
pub struct ClimbConfig {
    /// The strategy whose effort is maximised.
    pub strategy: Strategy,
    pub objective: Objective,
    /// Limits of the objective's solves (default: first solution, as `run`).
    pub limits: Limits,
    /// Number of puzzles (= chains).
    pub count: usize,
    pub seed: u64,
    /// Steps per chain (`None`: [`DEFAULT_STEPS`] unless `budget` is set).
    pub steps: Option<u64>,
    /// Wall-clock budget of the whole search, shared evenly by the chains.
    pub budget: Option<Duration>,
    /// Without a budget: a safety stop for the whole search, shared like a
    /// budget. A search it does not cut is the same as without it; one it
    /// cuts ends early (its puzzle's `steps` are under the step limit).
    pub cap: Option<Duration>,
    /// Keep every state minimal (no clue can be removed).
    pub minimal: bool,
    /// Keep every state symmetric under 180° rotation.
    pub symmetric: bool,
    /// Refuse states with more clues.
    pub max_clues: Option<usize>,
    /// Start puzzles with their unique solutions (chain `k` starts from
    /// entry `k mod len`); empty: random minimal puzzles.
    pub starts: Vec<(Grid, Grid)>,
    /// Solves per measurement of the `time` objective.
    pub time_samples: usize,
    /// Worker threads (0: one per core).
    pub threads: usize,
}

impl ClimbConfig {
    /// The steps each chain takes at most (`u64::MAX` under a time budget
    /// alone).
    pub fn step_limit(&self) -> u64 {
        match (self.steps, self.budget) {
            (Some(s), _) => s,
            (None, Some(_)) => u64::MAX,
            (None, None) => DEFAULT_STEPS,
        }
    }

    /// True when the output is a function of the options alone.
    pub fn reproducible(&self) -> bool {
        self.objective.deterministic() && self.budget.is_none()
    }
}

/// One objective measurement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Measure {
    pub value: u64,
    pub counters: Counters,
}

/// The result of one chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HardPuzzle {
    /// The chain number `k`.
    pub chain: u64,
    pub puzzle: Grid,
    pub solution: Grid,
    pub clues: usize,
    /// The objective and the counters of the strategy on `puzzle`.
    pub measure: Measure,
    /// Objective of the chain's start.
    pub start_value: u64,
    /// Steps taken and states accepted.
    pub steps: u64,
    pub accepted: u64,
}

/// Why a chain could not run.
#[derive(Debug, thiserror::Error)]
pub enum ClimbError {
    #[error(transparent)]
    Gen(#[from] GenError),
    #[error(
        "{strategy} did not give the known unique solution of a start puzzle ({status}): {puzzle}"
    )]
    StartFault {
        strategy: String,
        status: Status,
        puzzle: String,
    },
    #[error("no start puzzle within --max-clues {max}: {why}")]
    NoStart { max: usize, why: String },
    #[error("interrupted")]
    Interrupted,
}

/// Live totals for a progress display, updated by the chains.
#[derive(Debug, Default)]
pub struct Progress {
    /// Steps taken by all chains.
    pub steps: AtomicU64,
    /// Chains finished.
    pub done: AtomicU64,
    /// Best objective of any chain so far (finished or running).
    pub best: AtomicU64,
    /// Sum of the finished chains' objectives.
    pub sum: AtomicU64,
    /// Objective faults: answers that were not the known solution.
    pub faults: AtomicU64,
}

/// The cells moved together: one cell, or a 180°-symmetric pair (the
/// centre alone).
fn orbit(c: usize, symmetric: bool) -> &'static [usize] {
    static PAIRS: [[usize; 2]; CELLS] = {
        let mut t = [[0usize; 2]; CELLS];
        let mut c = 0;
        while c < CELLS {
            t[c] = [c, CELLS - 1 - c];
            c += 1;
        }
        t
    };
    let pair = &PAIRS[c];
    if symmetric && c != CELLS / 2 {
        &pair[..]
    } else {
        &pair[..1]
    }
}

/// The orbit representatives (cells) of `p` that are filled (`filled`) or
/// blank.
fn representatives(p: &Grid, symmetric: bool, filled: bool, out: &mut Vec<usize>) {
    out.clear();
    let last = if symmetric { CELLS / 2 } else { CELLS - 1 };
    out.extend((0..=last).filter(|&c| (p.get(c) != 0) == filled));
}

/// One chain's private state and tools.
struct Chain<'a> {
    cfg: &'a ClimbConfig,
    solver: &'a mut Solver,
    rng: rand_chacha::ChaCha8Rng,
    progress: &'a Progress,
    cells: Vec<usize>,
    others: Vec<usize>,
    /// In a supervised measuring child: this thread's slot on the board,
    /// where each puzzle measured is named (with the chain's number) before
    /// the strategy solves it.
    #[cfg(unix)]
    board: Option<(crate::board::SlotRef<'static>, u64)>,
}

impl Chain<'_> {
    /// The objective of `p`, whose unique solution is `s`; `None` when the
    /// strategy's answer is not `s` (a fault, counted).
    fn measure(&mut self, p: &Grid, s: &Grid) -> Option<Measure> {
        let cfg = self.cfg;
        let samples = if cfg.objective == Objective::Time {
            cfg.time_samples.max(1)
        } else {
            1
        };
        let mut times = [0u64; 64];
        let mut first = None;
        #[cfg(unix)]
        if let Some((slot, k)) = &self.board {
            let text: [u8; CELLS] = std::array::from_fn(|i| match p.get(i) {
                0 => b'.',
                v => b'0' + v,
            });
            slot.puzzle(*k, 0, &text);
        }
        for t in times.iter_mut().take(samples.min(64)) {
            let start = Instant::now();
            let a = self.solver.answer(p, &cfg.strategy, &cfg.limits);
            let wall = start.elapsed().as_nanos() as u64;
            *t = a.time_ns.unwrap_or(wall);
            let ok = a.result.status == Status::Solved && a.result.grid == *s;
            if !ok {
                self.progress.faults.fetch_add(1, Ordering::Relaxed);
                return None;
            }
            first.get_or_insert(a.result.counters);
        }
        let counters = first?;
        let value = match cfg.objective {
            Objective::Guesses => counters.guesses,
            Objective::Nodes => counters.nodes,
            Objective::Backtracks => counters.backtracks,
            Objective::Time => {
                let n = samples.min(64);
                let ts = &mut times[..n];
                ts.sort_unstable();
                ts[n / 2]
            }
        };
        Some(Measure { value, counters })
    }

    /// Removes clues (orbits) of `p` in random order while the solution
    /// stays unique; returns the new clue count.
    fn reduce(&mut self, p: &mut Grid, s: &Grid) {
        let symmetric = self.cfg.symmetric;
        let mut cells = std::mem::take(&mut self.cells);
        representatives(p, symmetric, true, &mut cells);
        shuffle(&mut self.rng, &mut cells);
        for &c in &cells {
            let o = orbit(c, symmetric);
            for &x in o {
                p.set(x, 0);
            }
            if !unique_after_removing(self.solver, p, s, o) {
                for &x in o {
                    p.set(x, s.get(x));
                }
            }
        }
        self.cells = cells;
    }

    /// A random neighbour of `(p, s)` with exactly one solution, or `None`
    /// when the drawn move breaks uniqueness or has nothing to act on.
    fn propose(&mut self, p: &Grid, s: &Grid) -> Option<(Grid, Grid)> {
        let symmetric = self.cfg.symmetric;
        let mut filled = std::mem::take(&mut self.cells);
        let mut blank = std::mem::take(&mut self.others);
        representatives(p, symmetric, true, &mut filled);
        representatives(p, symmetric, false, &mut blank);
        let pick = |rng: &mut rand_chacha::ChaCha8Rng, v: &[usize]| -> Option<usize> {
            (!v.is_empty()).then(|| v[below(rng, v.len() as u32) as usize])
        };
        let roll = below(&mut self.rng, 100);
        let mut q = *p;
        let out = if roll < 50 {
            // Swap a clue for a blank cell.
            match (pick(&mut self.rng, &filled), pick(&mut self.rng, &blank)) {
                (Some(a), Some(b)) => {
                    let (oa, ob) = (orbit(a, symmetric), orbit(b, symmetric));
                    for &x in ob {
                        q.set(x, s.get(x));
                    }
                    for &x in oa {
                        q.set(x, 0);
                    }
                    unique_after_removing(self.solver, &q, s, oa).then_some((q, *s))
                }
                _ => None,
            }
        } else if roll < 65 && self.cfg.minimal {
            // A minimal state cannot lose a clue: add two from the
            // solution instead; the reduction that follows every move in
            // this mode then removes clues elsewhere (a step to another
            // minimal puzzle with the same solution).
            for _ in 0..2 {
                if let Some(b) = pick(&mut self.rng, &blank) {
                    for &x in orbit(b, symmetric) {
                        q.set(x, s.get(x));
                    }
                }
            }
            (q != *p).then_some((q, *s))
        } else if roll < 65 {
            // Remove a clue.
            pick(&mut self.rng, &filled).and_then(|a| {
                let oa = orbit(a, symmetric);
                for &x in oa {
                    q.set(x, 0);
                }
                unique_after_removing(self.solver, &q, s, oa).then_some((q, *s))
            })
        } else if roll < 80 {
            // Add a clue from the solution.
            pick(&mut self.rng, &blank).map(|b| {
                for &x in orbit(b, symmetric) {
                    q.set(x, s.get(x));
                }
                (q, *s)
            })
        } else {
            // Relabel a clue: another digit no peer clue has; the new
            // puzzle must have exactly one solution, which becomes `S`.
            pick(&mut self.rng, &filled).and_then(|a| self.relabel(q, a))
        };
        self.cells = filled;
        self.others = blank;
        out
    }

    /// `q` with a clue of `a`'s orbit given another digit no peer clue
    /// has, when the result has exactly one solution (the new solution
    /// with it).
    fn relabel(&mut self, mut q: Grid, a: usize) -> Option<(Grid, Grid)> {
        let symmetric = self.cfg.symmetric;
        let c = orbit(a, symmetric)[below(&mut self.rng, 2) as usize % orbit(a, symmetric).len()];
        let mut used = 1u16 << q.get(c);
        for &n in &PEERS[c] {
            used |= 1 << q.get(n as usize);
        }
        let free: Vec<u8> = (1..=9u8).filter(|&d| used & (1 << d) == 0).collect();
        if free.is_empty() {
            return None;
        }
        q.set(c, free[below(&mut self.rng, free.len() as u32) as usize]);
        let r = self
            .solver
            .fast_restricted(&q, &[0x1ff; CELLS], &Limits::uniqueness());
        (r.status == Status::Solved).then_some((q, r.grid))
    }

    fn allowed(&self, p: &Grid) -> bool {
        !matches!(self.cfg.max_clues, Some(m) if p.givens() > m)
    }

    /// The chain's start: `(puzzle, solution)`.
    fn start(&mut self, k: u64) -> Result<(Grid, Grid), ClimbError> {
        let cfg = self.cfg;
        let removal = Removal {
            min_clues: None,
            symmetric: cfg.symmetric,
        };
        if !cfg.starts.is_empty() {
            let (mut p, s) = cfg.starts[(k % cfg.starts.len() as u64) as usize];
            if cfg.minimal || !self.allowed(&p) {
                self.reduce(&mut p, &s);
            }
            if !self.allowed(&p) {
                return Err(ClimbError::NoStart {
                    max: cfg.max_clues.unwrap_or(CELLS),
                    why: format!(
                        "start puzzle {} keeps {} clues after removing every clue it can lose",
                        k % cfg.starts.len() as u64 + 1,
                        p.givens()
                    ),
                });
            }
            return Ok((p, s));
        }
        const TRIES: u32 = 10_000;
        for _ in 0..TRIES {
            let s = full_grid(&mut self.rng);
            let p = remove_clues(&s, &removal, &mut self.rng, self.solver);
            if self.allowed(&p) {
                return Ok((p, s));
            }
        }
        Err(ClimbError::NoStart {
            max: cfg.max_clues.unwrap_or(CELLS),
            why: format!("none of {TRIES} random minimal puzzles was that small"),
        })
    }

    fn run(
        &mut self,
        k: u64,
        slice: Option<Duration>,
        stop: &AtomicBool,
    ) -> Result<HardPuzzle, ClimbError> {
        let started = Instant::now();
        let (mut p, mut s) = self.start(k)?;
        let mut cur = self.measure(&p, &s).ok_or_else(|| ClimbError::StartFault {
            strategy: self.cfg.strategy.name().to_string(),
            status: self
                .solver
                .answer(&p, &self.cfg.strategy, &self.cfg.limits)
                .result
                .status,
            puzzle: p.to_line(),
        })?;
        let start_value = cur.value;
        let mut best = (p, s, cur);
        self.progress.best.fetch_max(cur.value, Ordering::Relaxed);
        let limit = self.cfg.step_limit();
        let (mut steps, mut accepted) = (0u64, 0u64);
        let score = |m: &Measure| (1.0 + m.value as f64).ln();
        while steps < limit {
            let Some(frac) = progress(started, slice, (steps, limit)) else {
                break;
            };
            if steps % 64 == 0 {
                if stop.load(Ordering::Relaxed) {
                    return Err(ClimbError::Interrupted);
                }
                self.progress.steps.fetch_add(64, Ordering::Relaxed);
            }
            steps += 1;
            let Some((mut q, t)) = self.propose(&p, &s) else {
                continue;
            };
            if self.cfg.minimal {
                self.reduce(&mut q, &t);
            }
            if !self.allowed(&q) {
                continue;
            }
            let Some(m) = self.measure(&q, &t) else {
                continue;
            };
            let temp = T0 * (1.0 - frac);
            let delta = score(&m) - score(&cur);
            // Draw only when it matters, so every chain draws the same way
            // whatever the thread count.
            let take = delta >= 0.0
                || (temp > 0.0 && {
                    let u = (self.rng.next_u32() as f64 + 0.5) / 4_294_967_296.0;
                    u < (delta / temp).exp()
                });
            if take {
                p = q;
                s = t;
                cur = m;
                accepted += 1;
                if m.value > best.2.value {
                    best = (p, s, m);
                    self.progress.best.fetch_max(m.value, Ordering::Relaxed);
                }
            }
        }
        let (p, s, m) = best;
        Ok(HardPuzzle {
            chain: k,
            puzzle: p,
            solution: s,
            clues: p.givens(),
            measure: m,
            start_value,
            steps,
            accepted,
        })
    }
}

/// Progress through a chain, 0 → 1: its steps out of `limit`, or its time
/// out of `slice` (whichever is further); `None` once the time is up.
fn progress(started: Instant, slice: Option<Duration>, (steps, limit): (u64, u64)) -> Option<f64> {
    let by_steps = steps as f64 / limit as f64;
    let Some(d) = slice else {
        return Some(by_steps);
    };
    let f = started.elapsed().as_secs_f64() / d.as_secs_f64().max(1e-9);
    if f >= 1.0 {
        None
    } else if limit == u64::MAX {
        Some(f)
    } else {
        Some(f.max(by_steps))
    }
}

/// Runs `cfg.count` chains on `cfg.threads` threads and hands each result
/// to `on_puzzle` in chain order. `stop` ends the search early
/// ([`ClimbError::Interrupted`]); `progress` is updated as chains advance.
pub fn climb(
    cfg: &ClimbConfig,
    progress: &Progress,
    stop: &AtomicBool,
    mut on_puzzle: impl FnMut(HardPuzzle) + Send,
) -> Result<(), ClimbError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads)
        .build()
        .map_err(GenError::from)?;
    let threads = pool.current_num_threads();
    // Each chain's share of the time budget: the chains run `threads` at a
    // time, so each gets budget × threads / count (all of it when there are
    // fewer chains than threads).
    let slice = cfg.budget.or(cfg.cap).map(|b| {
        let rounds = u32::try_from(cfg.count.div_ceil(threads).max(1)).unwrap_or(u32::MAX);
        b / rounds
    });
    // Finished chains wait here until every earlier one is delivered.
    let pending = Mutex::new((0u64, std::collections::BTreeMap::new(), None));
    let deliver = Mutex::new(&mut on_puzzle);
    pool.install(|| {
        (0..cfg.count)
            .into_par_iter()
            .with_max_len(1)
            // The solver is made when a chain needs it: rayon makes one
            // init per piece of work (here, per chain), and a stopped search
            // goes through the chains not begun without making any.
            .for_each_init(
                || None,
                |solver: &mut Option<Solver>, k| {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let solver = solver.get_or_insert_with(Solver::new);
                    let k = k as u64;
                    let mut chain = Chain {
                        cfg,
                        solver,
                        rng: candidate_rng(cfg.seed, k),
                        progress,
                        cells: Vec::with_capacity(CELLS),
                        others: Vec::with_capacity(CELLS),
                        #[cfg(unix)]
                        board: crate::board::this_thread_slot().map(|s| (s, k)),
                    };
                    let r = chain.run(k, slice, stop);
                    let mut g = pending.lock().unwrap_or_else(|e| e.into_inner());
                    match r {
                        Ok(h) => {
                            progress.done.fetch_add(1, Ordering::Relaxed);
                            progress.sum.fetch_add(h.measure.value, Ordering::Relaxed);
                            g.1.insert(k, h);
                        }
                        Err(e) => {
                            stop.store(true, Ordering::Relaxed);
                            if g.2.is_none() || matches!(g.2, Some(ClimbError::Interrupted)) {
                                g.2 = Some(e);
                            }
                        }
                    }
                    let mut out = deliver.lock().unwrap_or_else(|e| e.into_inner());
                    while let Some(h) = {
                        let next = g.0;
                        g.1.remove(&next)
                    } {
                        g.0 += 1;
                        out(h);
                    }
                },
            );
    });
    let g = pending.into_inner().unwrap_or_else(|e| e.into_inner());
    match g.2 {
        Some(e) => Err(e),
        None if stop.load(Ordering::Relaxed) => Err(ClimbError::Interrupted),
        None => Ok(()),
    }
}
