//! Beyond the ladder: the search a puzzle needs once no technique of the
//! ladder applies, measured in steps of three depths.
//!
//! - A **trial** round assumes each candidate in turn and places the
//!   singles that follow; every candidate whose singles reach a
//!   contradiction goes (all of one round's together, found on the same
//!   position). Trial and error one level deep, with singles only.
//! - A **nested trial** assumes a candidate and, inside that assumption,
//!   makes trial rounds until they reach a contradiction (the candidate
//!   goes) or stop helping. The first candidate, in cell then digit order,
//!   that fails so goes: one step.
//! - A **guess** places the solution's digit in the first cell with the
//!   fewest candidates: what a search would have to branch on.
//!
//! After each step the grader goes back to the bottom of the ladder.

use super::ladder::Grader;
use super::position::{bit, Pos};
use super::scale::base;
use super::{Oracle, Unsound};
use crate::grid::CELLS;
use crate::solver::techniques::Technique;

/// True when assuming `d` in `c` leads, by singles, to a contradiction.
fn fails(pos: &Pos, c: usize, d: u8) -> bool {
    let mut w = pos.clone();
    w.place(c, d);
    !w.singles()
}

/// Trial rounds inside `w` until a contradiction (true) or a round that
/// removes nothing (false).
fn fails_by_trials(w: &mut Pos) -> bool {
    loop {
        let mut progress = false;
        for c in 0..CELLS {
            for d in 1..=9u8 {
                if w.val[c] != 0 || w.cand[c] & bit(d) == 0 || !fails(w, c, d) {
                    continue;
                }
                w.cand[c] &= !bit(d);
                if !w.singles() {
                    return true;
                }
                progress = true;
            }
        }
        if !progress || w.solved() {
            return false;
        }
    }
}

impl<O: Oracle> Grader<'_, O> {
    /// One trial round; false when no candidate fails.
    pub(super) fn trial_round(&mut self) -> Result<bool, Unsound> {
        self.elims.clear();
        for (c, d) in Self::candidates(&self.pos) {
            if fails(&self.pos, c, d) {
                self.elims.add(c, bit(d));
            }
        }
        if self.elims.is_empty() {
            return Ok(false);
        }
        self.apply(Technique::Trial, base(Technique::Trial))?;
        Ok(true)
    }

    /// One nested trial: the first candidate whose trials fail goes.
    pub(super) fn nested_trial(&mut self) -> Result<bool, Unsound> {
        let found = Self::candidates(&self.pos).find(|&(c, d)| {
            let mut w = self.pos.clone();
            w.place(c, d);
            !w.singles() || fails_by_trials(&mut w)
        });
        let Some((c, d)) = found else {
            return Ok(false);
        };
        self.elims.clear();
        self.elims.add(c, bit(d));
        self.apply(Technique::NestedTrial, base(Technique::NestedTrial))?;
        Ok(true)
    }

    /// Places the oracle's digit in the first cell with the fewest
    /// candidates; false when the oracle knows no single solution.
    pub(super) fn guess(&mut self) -> Result<bool, Unsound> {
        let Some(c) = (0..CELLS)
            .filter(|&c| self.pos.val[c] == 0)
            .min_by_key(|&c| self.pos.cand[c].count_ones())
        else {
            return Ok(false);
        };
        match self.oracle.value(c) {
            Some(d) if self.pos.cand[c] & bit(d) != 0 => {
                self.place(Technique::Guess, c, d)?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}
