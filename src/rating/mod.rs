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
pub use scale::{Band, Class, Value};

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

/// The oracle of a puzzle with any number of solutions: a removal is
/// unsound when some solution has the removed digit in that cell (asked of
/// the `fast` engine, each cell and digit once).
pub struct Solutions<'s> {
    puzzle: Grid,
    cands: Option<Candidates>,
    solver: &'s mut Solver,
    /// Per cell, the digits known to be in some solution there, and the
    /// digits known to be in none.
    some: [u16; crate::grid::CELLS],
    none: [u16; crate::grid::CELLS],
}

impl<'s> Solutions<'s> {
    pub fn new(puzzle: &Grid, cands: Option<&Candidates>, solver: &'s mut Solver) -> Self {
        Solutions {
            puzzle: *puzzle,
            cands: cands.copied(),
            solver,
            some: [0; crate::grid::CELLS],
            none: [0; crate::grid::CELLS],
        }
    }

    /// True when a solution has `d` in `cell`.
    fn possible(&mut self, cell: usize, d: u8) -> bool {
        let m = position::bit(d);
        if self.some[cell] & m != 0 {
            return true;
        }
        if self.none[cell] & m != 0 {
            return false;
        }
        let mut allowed = self.cands.unwrap_or([position::ALL; crate::grid::CELLS]);
        allowed[cell] &= m;
        let r = self
            .solver
            .fast_restricted(&self.puzzle, &allowed, &Limits::first());
        // A search that gave up proves nothing: counted as possible, so
        // that a removal is never passed on a guess.
        let yes = r.solutions > 0 || r.status == Status::GaveUp;
        if r.solutions > 0 {
            // The solution found says the same of every cell.
            for (c, &v) in r.grid.cells().iter().enumerate() {
                if v != 0 {
                    self.some[c] |= position::bit(v);
                }
            }
        } else {
            self.none[cell] |= m;
        }
        yes
    }
}

impl Oracle for Solutions<'_> {
    fn contradicts(&mut self, cell: usize, removed: u16) -> Option<u8> {
        (1..=9u8).find(|&d| removed & position::bit(d) != 0 && self.possible(cell, d))
    }
    fn value(&self, _cell: usize) -> Option<u8> {
        None
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

    /// The value, class and hardest technique.
    pub fn brief(&self) -> Brief {
        Brief {
            value: self.value,
            class: self.class,
            hardest: self.hardest,
        }
    }
}

/// A rating without its steps and solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Brief {
    pub value: Value,
    pub class: Class,
    pub hardest: Technique,
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
        rate_using(&mut self.solver, puzzle, cands)
    }
}

/// [`Rater::rate`] with the caller's solver workspace (it finds the
/// solution).
pub fn rate_using(
    solver: &mut Solver,
    puzzle: &Grid,
    cands: Option<&Candidates>,
) -> Result<Outcome, Unsound> {
    let r = solver.solve_builtin_with(
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
    /// Rating fields read from a dataset that are not a value of this
    /// scale.
    pub unreadable: u64,
}

impl Distribution {
    pub fn add(&mut self, result: &Result<Outcome, Unsound>) {
        match result {
            Ok(Outcome::Rated(r)) => self.add_value(r.value),
            Ok(Outcome::Unrated(status)) => self.unrated[*status as usize] += 1,
            Err(_) => self.unsound += 1,
        }
    }

    /// Counts a rating read back (a dataset's rating column).
    pub fn add_value(&mut self, v: Value) {
        self.classes[Class::of(v) as usize] += 1;
        self.range = Some(match self.range {
            None => (v, v),
            Some((lo, hi)) => (lo.min(v), hi.max(v)),
        });
    }

    /// Puzzles counted.
    pub fn total(&self) -> u64 {
        self.classes.iter().sum::<u64>()
            + self.unrated.iter().sum::<u64>()
            + self.unsound
            + self.unreadable
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
        if self.unreadable > 0 {
            s.push_str(&format!(
                "{indent}{:<11}{:>9}  not a rating of this scale\n",
                "other", self.unreadable
            ));
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
