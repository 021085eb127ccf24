//! Technique rating: how hard a puzzle is for a person solving by logic.
//!
//! A graded solver applies, again and again, the easiest technique of a
//! fixed ladder that places a digit or removes a candidate (singles,
//! locked candidates, subsets, fish, wings, chains: the finders of
//! [`crate::solver::techniques`]), going back to the bottom after every
//! step. The puzzle's rating is the value of its hardest step on the scale
//! of [`scale`] (modelled on Sudoku Explainer's), and each technique's step
//! count is kept. A puzzle the ladder does not finish is *beyond the
//! ladder*: the search it needs is measured in trials, nested trials and
//! guesses ([`trial`]) and rated above every technique.
//!
//! Every removal, a placement's included, is checked as it is made
//! against the puzzle's unique solution (found by the `fast` engine); one
//! that would remove the solution's digit stops the rating with
//! [`Unsound`], a bug to report. The rating is deterministic: the same on
//! every run and machine.
//!
//! ```
//! use bench_sudoku::{Grid, rating::{self, Class, Outcome}};
//! let p = Grid::parse(
//!     "530070000600195000098000060800060003400803001700020006060000280000419005000080079",
//! ).unwrap();
//! let Outcome::Rated(r) = rating::rate(&p).unwrap() else { panic!() };
//! assert_eq!(r.class, Class::Easy);
//! assert!(r.solution.is_solution_of(&p));
//! ```

mod ladder;
mod position;
pub mod scale;
mod trial;

pub use crate::solver::techniques::Technique;
pub use ladder::Depth;
pub use scale::{Class, Value};

use crate::dataset::Record;
use crate::grid::pencilmark::Candidates;
use crate::grid::{cell_name, Grid};
use crate::solver::{Builtin, Limits, NoopObserver, Solver, Status};
use position::Pos;

/// Steps per technique, indexed by `Technique as usize`.
pub type Steps = [u32; Technique::ALL.len()];

/// What a rater is told about the truth: which removals are wrong.
pub trait Oracle {
    /// A digit of `removed` that some solution has in `cell`, if any (the
    /// removal is then unsound).
    fn contradicts(&mut self, cell: usize, removed: u16) -> Option<u8>;
    /// The digit of `cell` in the one solution, when there is one.
    fn value(&self, cell: usize) -> Option<u8>;
}

/// The oracle of a puzzle with one solution.
pub struct Solution(pub Grid);

impl Oracle for Solution {
    fn contradicts(&mut self, cell: usize, removed: u16) -> Option<u8> {
        let d = self.0.get(cell);
        (d != 0 && removed & position::bit(d) != 0).then_some(d)
    }
    fn value(&self, cell: usize) -> Option<u8> {
        Some(self.0.get(cell)).filter(|&d| d != 0)
    }
}

/// A removal that contradicts the solution: a bug of the technique named.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("unsound {technique} step: it removed {digit} from {}, where a solution has it", cell_name(*cell))]
pub struct Unsound {
    pub technique: Technique,
    pub cell: usize,
    pub digit: u8,
}

/// A puzzle's rating.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rating {
    /// The value on the scale.
    pub value: Value,
    /// The technique (or measure beyond the ladder) that set the value.
    pub hardest: Technique,
    pub class: Class,
    /// Steps of each technique along the solution path.
    pub steps: Steps,
    /// The unique solution.
    pub solution: Grid,
}

impl Rating {
    /// Steps of technique `t`.
    pub fn steps_of(&self, t: Technique) -> u32 {
        self.steps[t as usize]
    }

    /// Steps of every kind.
    pub fn total_steps(&self) -> u32 {
        self.steps.iter().sum()
    }

    /// True when the ladder alone did not finish the puzzle.
    pub fn beyond_ladder(&self) -> bool {
        self.hardest.family().is_none()
    }
}

/// What rating a puzzle gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A puzzle with one solution, rated.
    Rated(Rating),
    /// Not rated: the puzzle has several solutions, none, conflicting
    /// givens, or its solutions could not be counted.
    Unrated(Status),
}

/// A graded solve without the uniqueness check, for any oracle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graded {
    pub steps: Steps,
    pub value: Value,
    pub hardest: Technique,
    /// The grid where the solve ended (solved, or stalled).
    pub grid: Grid,
    pub solved: bool,
}

/// Solves `puzzle` (with a pencilmark puzzle's `cands`) by the ladder, as
/// far as `depth`, checking every removal with `oracle`. `None` when the
/// givens break a rule.
pub fn grade<O: Oracle>(
    puzzle: &Grid,
    cands: Option<&Candidates>,
    oracle: &mut O,
    depth: Depth,
) -> Result<Option<Graded>, Unsound> {
    let Some(pos) = Pos::new(puzzle, cands) else {
        return Ok(None);
    };
    let mut g = ladder::Grader::new(pos, oracle);
    g.solve(depth)?;
    let (value, hardest) = g.value();
    Ok(Some(Graded {
        steps: g.steps,
        value: Value(value),
        hardest,
        grid: g.pos.grid(),
        solved: g.pos.solved(),
    }))
}

/// Rates puzzles, reusing one solver workspace (one per thread).
#[derive(Default)]
pub struct Rater {
    solver: Solver,
}

impl Rater {
    pub fn new() -> Self {
        Rater {
            solver: Solver::new(),
        }
    }

    /// The rating of `puzzle` (with a pencilmark puzzle's `cands`), or why
    /// it has none. An [`Unsound`] error is a bug of the rater.
    pub fn rate(&mut self, puzzle: &Grid, cands: Option<&Candidates>) -> Result<Outcome, Unsound> {
        let r = self.solver.solve_builtin_with(
            puzzle,
            cands,
            &Builtin::Fast,
            &Limits::uniqueness(),
            &mut NoopObserver,
        );
        if r.status != Status::Solved {
            return Ok(Outcome::Unrated(r.status));
        }
        let solution = r.grid;
        let Some(g) = grade(puzzle, cands, &mut Solution(solution), Depth::Guess)? else {
            return Ok(Outcome::Unrated(Status::Invalid));
        };
        // A guess always progresses: the solve ends solved, on the solution
        // (every removal having been checked against it).
        debug_assert!(g.solved && g.grid == solution);
        Ok(Outcome::Rated(Rating {
            value: g.value,
            hardest: g.hardest,
            class: Class::of(g.value),
            steps: g.steps,
            solution,
        }))
    }
}

/// The rating of one puzzle (a fresh workspace; use a [`Rater`] for many).
pub fn rate(puzzle: &Grid) -> Result<Outcome, Unsound> {
    Rater::new().rate(puzzle, None)
}

/// The rating in a dataset record's rating column (`rating`, `difficulty`,
/// … — see [`crate::dataset::RATING_COLUMNS`]) as a value on this scale:
/// `None` without one, an error naming the text when it is not a number
/// such as `4.2`.
pub fn value_of(rec: &Record) -> Option<Result<Value, String>> {
    rec.rating().map(str::parse)
}

/// The columns a rated dataset adds after its puzzle and solution.
pub fn columns() -> Vec<String> {
    let mut c: Vec<String> = ["rating", "class", "hardest", "outcome", "steps"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    c.extend(Technique::ALL.iter().map(|t| t.name().to_string()));
    c
}

/// The fields of [`columns`] for a rating, an unrated puzzle (`outcome`
/// says why: `multiple`, `no_solution`, `invalid`) or a rating stopped by
/// an unsound step (`outcome` is `unsound`).
pub fn fields(result: &Result<Outcome, Unsound>) -> Vec<String> {
    let rating = match result {
        Ok(Outcome::Rated(r)) => r,
        Ok(Outcome::Unrated(_)) | Err(_) => {
            let why = match result {
                Ok(Outcome::Unrated(status)) => status.as_str(),
                _ => "unsound",
            };
            let mut f = vec![String::new(); columns().len()];
            f[3] = why.to_string();
            return f;
        }
    };
    let mut f = vec![
        rating.value.to_string(),
        rating.class.label().to_string(),
        rating.hardest.name().to_string(),
        "rated".to_string(),
        rating.total_steps().to_string(),
    ];
    f.extend(rating.steps.iter().map(u32::to_string));
    f
}

/// How many puzzles of each class, and of each reason not to rate one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Distribution {
    /// Rated puzzles per class, in [`Class::ALL`] order.
    pub classes: [u64; Class::ALL.len()],
    /// Puzzles not rated, per status (multiple, no_solution, invalid, …).
    pub unrated: [u64; Status::ALL.len()],
    /// Ratings stopped by an unsound step.
    pub unsound: u64,
    /// Lowest and highest rating seen.
    pub range: Option<(Value, Value)>,
}

impl Distribution {
    pub fn add(&mut self, result: &Result<Outcome, Unsound>) {
        match result {
            Ok(Outcome::Rated(r)) => {
                self.classes[r.class as usize] += 1;
                self.range = Some(match self.range {
                    None => (r.value, r.value),
                    Some((lo, hi)) => (lo.min(r.value), hi.max(r.value)),
                });
            }
            Ok(Outcome::Unrated(status)) => self.unrated[*status as usize] += 1,
            Err(_) => self.unsound += 1,
        }
    }

    /// Puzzles counted.
    pub fn total(&self) -> u64 {
        self.classes.iter().sum::<u64>() + self.unrated.iter().sum::<u64>() + self.unsound
    }

    /// One line per class (count and share of the rated puzzles), then
    /// the puzzles not rated, each line indented by `indent`.
    pub fn render(&self, indent: &str) -> String {
        let rated: u64 = self.classes.iter().sum();
        let mut s = String::new();
        for c in Class::ALL {
            let n = self.classes[c as usize];
            let share = if rated == 0 {
                0.0
            } else {
                n as f64 * 100.0 / rated as f64
            };
            s.push_str(&format!(
                "{indent}{:<11}{n:>9}  {share:>5.1}%  (from {})\n",
                c.label(),
                c.floor()
            ));
        }
        for st in Status::ALL {
            let n = self.unrated[st as usize];
            if n > 0 {
                s.push_str(&format!("{indent}{:<11}{n:>9}  not rated\n", st.as_str()));
            }
        }
        if self.unsound > 0 {
            s.push_str(&format!(
                "{indent}{:<11}{:>9}  UNSOUND STEP (a bug)\n",
                "unsound", self.unsound
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests;
