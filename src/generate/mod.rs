//! Puzzle generation: random full grids, clue removal under uniqueness, and
//! selection by the search effort a strategy needs.
//!
//! Three separate steps, each usable on its own:
//!
//! 1. [`full_grid`]: a random solution grid, by classic randomized
//!    backtracking (first empty cell, digits in random order).
//! 2. [`remove_clues`]: clues removed in random order while the solution
//!    stays unique (to a clue target, or until the puzzle is minimal).
//! 3. [`measure`] + [`GenConfig::selects`]: the puzzle is solved with the
//!    effort strategy and kept when its guess count is in range, and (with
//!    [`GenConfig::rating`]) when its technique rating ([`crate::rating`])
//!    is in the band.
//!
//! [`generate`] drives them. Candidate `k` draws all its randomness from a
//! ChaCha8 generator seeded with [`GenConfig::seed`] on stream `k`, and the
//! output is the first [`GenConfig::count`] accepted candidates in order of
//! `k`, so a seed gives the same puzzles on every machine and with any
//! number of threads.
//!
//! ```
//! use bench_sudoku::generate::{generate, GenConfig};
//! let cfg = GenConfig { count: 2, seed: 7, ..GenConfig::default() };
//! let mut puzzles = Vec::new();
//! generate(&cfg, |p| puzzles.push(p)).unwrap();
//! assert_eq!(puzzles.len(), 2);
//! assert!(puzzles[0].solution.is_solution_of(&puzzles[0].puzzle));
//! ```

pub mod climb;
mod dig;
mod fill;
pub mod grids;
mod output;

pub use dig::{
    is_minimal, is_unique, remove_clues, unique_after_removing, uniqueness_strategy, Removal,
};
pub use fill::full_grid;
pub use output::{CsvWriter, CSV_HEADER, RATING_HEADER};

use crate::grid::Grid;
use crate::rating::{self, Band, Brief, Outcome, Unsound};
use crate::solver::{Limits, SolveResult, Solver, Status, Strategy};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// Everything that decides which puzzles [`generate`] produces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenConfig {
    /// The seed. Same seed and options: same puzzles, byte for byte.
    pub seed: u64,
    /// Number of puzzles to produce.
    pub count: usize,
    /// How far clue removal goes (clue target or minimal; symmetry).
    pub removal: Removal,
    /// The strategy whose search effort is measured and selected on.
    pub effort_strategy: Strategy,
    /// Limits of the effort measurement. The default,
    /// [`Limits::uniqueness`], counts the guesses of finding the solution
    /// and proving it unique (as `solve` does by default). A candidate whose
    /// measurement does not end `solved` (guess budget exhausted) is rejected.
    pub effort_limits: Limits,
    /// Keep puzzles needing at least this many guesses under the effort strategy.
    pub min_guesses: u64,
    /// Keep puzzles needing at most this many guesses (`None`: no bound).
    pub max_guesses: Option<u64>,
    /// Give up after this many candidates (`None`: `1000 × count + 1000`).
    /// Raise it for strict selections with a low acceptance rate.
    pub max_attempts: Option<u64>,
    /// Keep puzzles whose technique rating is in this band (`None`: any;
    /// puzzles are then not rated).
    pub rating: Option<Band>,
    /// Worker threads (0: one per core). Does not change the output.
    pub threads: usize,
}

impl Default for GenConfig {
    /// 100 minimal puzzles, seed 0, no symmetry, any effort under `hidden`.
    fn default() -> Self {
        GenConfig {
            seed: 0,
            count: 100,
            removal: Removal::default(),
            effort_strategy: Strategy::named("hidden")
                .unwrap_or_else(|| Strategy::generic(default_config())),
            effort_limits: Limits::uniqueness(),
            min_guesses: 0,
            max_guesses: None,
            max_attempts: None,
            rating: None,
            threads: 0,
        }
    }
}

fn default_config() -> crate::solver::Config {
    use crate::solver::{Branch, Config, Propagation, ValueOrder};
    Config::new(Propagation::Hidden, Branch::Mrv, ValueOrder::Asc)
}

impl GenConfig {
    /// The candidate budget actually applied.
    pub fn attempt_limit(&self) -> u64 {
        self.max_attempts.unwrap_or_else(|| {
            (self.count as u64)
                .saturating_mul(1000)
                .saturating_add(1000)
        })
    }

    /// True when a measurement is in the selected effort range.
    pub fn selects(&self, effort: &SolveResult) -> bool {
        effort.status == Status::Solved
            && effort.counters.guesses >= self.min_guesses
            && !matches!(self.max_guesses, Some(m) if effort.counters.guesses > m)
    }

    /// Checks the options for contradictions.
    pub fn validate(&self) -> Result<(), GenError> {
        if let Some(max) = self.max_guesses {
            if max < self.min_guesses {
                return Err(GenError::EmptyRange {
                    min: self.min_guesses,
                    max,
                });
            }
        }
        if let Some(n) = self.removal.min_clues {
            if n > crate::grid::CELLS {
                return Err(GenError::BadClueTarget(n));
            }
        }
        Ok(())
    }
}

/// One generated puzzle with its solution and measured effort.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GeneratedPuzzle {
    /// The candidate number `k` that produced it (its RNG stream).
    pub candidate: u64,
    pub puzzle: Grid,
    /// The unique solution.
    pub solution: Grid,
    /// Number of givens.
    pub clues: usize,
    /// Counters of the effort strategy on `puzzle` (see
    /// [`Counters`](crate::solver::Counters)).
    pub guesses: u64,
    pub backtracks: u64,
    pub max_depth: u32,
    /// The technique rating, when the selection was on one.
    pub rating: Option<Brief>,
}

/// Totals of one [`generate`] run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GenStats {
    /// Candidates built, including the rest of the last parallel batch
    /// after the final accepted puzzle (so, unlike the puzzles, this count
    /// depends on the thread count).
    pub candidates: u64,
    /// Puzzles delivered.
    pub accepted: usize,
}

/// Why generation failed.
#[derive(Debug, thiserror::Error)]
pub enum GenError {
    #[error("empty guess range: --min-guesses {min} is above --max-guesses {max}")]
    EmptyRange { min: u64, max: u64 },
    #[error("clue target {0} is above 81")]
    BadClueTarget(usize),
    #[error(
        "only {found} of {count} puzzles met the selection after {attempts} candidates \
         (raise --max-attempts, or widen the guess range or the rating band)"
    )]
    AttemptsExhausted {
        found: usize,
        count: usize,
        attempts: u64,
    },
    #[error("cannot start worker threads: {0}")]
    Threads(#[from] rayon::ThreadPoolBuildError),
    #[error("rating candidate {candidate}: {error} (a bug of the rater)")]
    Unsound { candidate: u64, error: Unsound },
}

/// The RNG of candidate `k`: ChaCha8 keyed by `seed`, stream `k`.
pub fn candidate_rng(seed: u64, k: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(k);
    rng
}

/// Solves `puzzle` with the effort strategy and limits of `cfg`.
pub fn measure(cfg: &GenConfig, solver: &mut Solver, puzzle: &Grid) -> SolveResult {
    solver.solve(puzzle, &cfg.effort_strategy, &cfg.effort_limits)
}

/// Builds candidate `k` (full grid, clue removal, effort measurement,
/// rating); `Some` when it meets the selection of `cfg`. An unsound step of
/// the rater is an error.
pub fn candidate(
    cfg: &GenConfig,
    k: u64,
    solver: &mut Solver,
) -> Result<Option<GeneratedPuzzle>, GenError> {
    let mut rng = candidate_rng(cfg.seed, k);
    let solution = full_grid(&mut rng);
    let puzzle = remove_clues(&solution, &cfg.removal, &mut rng, solver);
    let effort = measure(cfg, solver, &puzzle);
    if !cfg.selects(&effort) || effort.grid != solution {
        return Ok(None);
    }
    let rating = match cfg.rating {
        None => None,
        Some(band) => match rating::rate_using(solver, &puzzle, None) {
            Ok(Outcome::Rated(r)) if band.contains(r.value) => Some(r.brief()),
            Ok(_) => return Ok(None),
            Err(error) => {
                return Err(GenError::Unsound {
                    candidate: k,
                    error,
                })
            }
        },
    };
    Ok(Some(GeneratedPuzzle {
        candidate: k,
        puzzle,
        solution,
        clues: puzzle.givens(),
        guesses: effort.counters.guesses,
        backtracks: effort.counters.backtracks,
        max_depth: effort.counters.max_depth,
        rating,
    }))
}

/// Generates `cfg.count` puzzles, handing each to `on_puzzle` in order.
///
/// Candidates are built in parallel batches on `cfg.threads` threads; the
/// accepted ones are delivered in candidate order, so the output does not
/// depend on the thread count. Fails (after delivering the puzzles found)
/// when the candidate budget runs out first.
pub fn generate(
    cfg: &GenConfig,
    on_puzzle: impl FnMut(GeneratedPuzzle),
) -> Result<GenStats, GenError> {
    generate_until(cfg, &std::sync::atomic::AtomicBool::new(false), on_puzzle)
}

/// [`generate`], stopping early (between batches of candidates) once
/// `stop` is raised: the puzzles handed over until then are all there is,
/// and the statistics say how many.
pub fn generate_until(
    cfg: &GenConfig,
    stop: &std::sync::atomic::AtomicBool,
    mut on_puzzle: impl FnMut(GeneratedPuzzle),
) -> Result<GenStats, GenError> {
    cfg.validate()?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads)
        .build()?;
    let limit = cfg.attempt_limit();
    let batch = (pool.current_num_threads() as u64 * 16).max(16);
    let mut stats = GenStats::default();
    let mut next = 0u64;
    while stats.accepted < cfg.count {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
        if next >= limit {
            return Err(GenError::AttemptsExhausted {
                found: stats.accepted,
                count: cfg.count,
                attempts: next,
            });
        }
        let end = next.saturating_add(batch).min(limit);
        let found: Vec<Result<Option<GeneratedPuzzle>, GenError>> = pool.install(|| {
            (next..end)
                .into_par_iter()
                .map_init(Solver::new, |solver, k| candidate(cfg, k, solver))
                .collect()
        });
        let found = found
            .into_iter()
            .filter_map(Result::transpose)
            .collect::<Result<Vec<_>, _>>()?;
        stats.candidates = end;
        next = end;
        for p in found {
            if stats.accepted == cfg.count {
                break;
            }
            on_puzzle(p);
            stats.accepted += 1;
        }
    }
    Ok(stats)
}

/// Makes `count` complete grids (see [`grids`] for the method and its
/// distribution), handing each to `on_grid` in order. Grid `k` uses the
/// random stream `k` of `seed`: the output does not depend on `threads`
/// (0: one per core). `on_grid` returns false to stop early.
pub fn generate_grids(
    seed: u64,
    count: u64,
    threads: usize,
    mut on_grid: impl FnMut(&Grid) -> bool,
) -> Result<(), GenError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    // Large enough that the threads rarely wait for each other, small
    // enough to keep memory flat (a grid is 81 bytes).
    let batch = (pool.current_num_threads() as u64 * 2048).max(2048);
    let mut next = 0;
    while next < count {
        let end = next.saturating_add(batch).min(count);
        let made: Vec<Grid> = pool.install(|| {
            (next..end)
                .into_par_iter()
                .map_init(Solver::new, |solver, k| {
                    grids::shuffled_grid(&mut candidate_rng(seed, k), solver)
                })
                .collect()
        });
        for g in &made {
            if !on_grid(g) {
                return Ok(());
            }
        }
        next = end;
    }
    Ok(())
}

/// Generates into a vector (see [`generate`]).
pub fn generate_vec(cfg: &GenConfig) -> Result<Vec<GeneratedPuzzle>, GenError> {
    let mut v = Vec::with_capacity(cfg.count);
    generate(cfg, |p| v.push(p))?;
    Ok(v)
}
