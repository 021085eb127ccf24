//! The graded solver: the easiest technique that makes progress, again and
//! again, every removal checked against an [`Oracle`] as it is made.

use super::position::{bit, Pos, ALL};
use super::scale::{base, beyond_value, chain_value};
use super::{Oracle, Steps, Unsound};
use crate::grid::{CELLS, UNITS};
use crate::solver::techniques::{self, cells_of, cells_with, chains, Elims, Technique, UNIT_SET};

/// The techniques of the ladder above locked candidates, in the order they
/// are tried (the order of their values on the scale): the part of
/// [`Technique::ALL`] from naked pairs to chains.
const PATTERNS: &[Technique] = Technique::ALL.split_at(6).1.split_at(14).0;

/// How far the grader may go when the ladder stalls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Depth {
    /// The ladder only.
    Ladder,
    /// Trials whose singles reach a contradiction.
    Trial,
    /// Trials made inside trials.
    Nested,
    /// A guess (the oracle's value) when nothing else helps.
    Guess,
}

/// A solve in progress.
pub(super) struct Grader<'o, O: Oracle> {
    pub pos: Pos,
    pub oracle: &'o mut O,
    pub steps: Steps,
    /// The hardest ladder step so far (tenths) and its technique.
    pub top: u16,
    pub hardest: Option<Technique>,
    pub elims: Elims,
}

impl<'o, O: Oracle> Grader<'o, O> {
    pub fn new(pos: Pos, oracle: &'o mut O) -> Self {
        Grader {
            pos,
            oracle,
            steps: [0; Technique::ALL.len()],
            top: 0,
            hardest: None,
            elims: Elims::new(),
        }
    }

    /// Solves as far as `depth` allows. Ends with the grid solved, or
    /// stalled where nothing allowed helps.
    pub fn solve(&mut self, depth: Depth) -> Result<(), Unsound> {
        while !self.pos.solved() {
            if self.ladder_step()? {
                continue;
            }
            let progress = (depth >= Depth::Trial && self.trial_round()?)
                || (depth >= Depth::Nested && self.nested_trial()?)
                || (depth >= Depth::Guess && self.guess()?);
            if !progress {
                break;
            }
        }
        Ok(())
    }

    /// The puzzle's value and hardest technique: the hardest ladder step,
    /// or the deepest measure beyond the ladder it needed with its count.
    pub fn value(&self) -> (u16, Technique) {
        for t in [Technique::Guess, Technique::NestedTrial, Technique::Trial] {
            let n = self.steps[t as usize];
            if n > 0 {
                return (beyond_value(t, n), t);
            }
        }
        (self.top, self.hardest.unwrap_or(Technique::FullHouse))
    }

    /// Counts a step of `t` worth `value`.
    pub fn record(&mut self, t: Technique, value: u16) {
        self.steps[t as usize] += 1;
        if value > self.top {
            self.top = value;
            self.hardest = Some(t);
        }
    }

    /// One sweep of the easiest technique that applies. False when none
    /// does (the ladder stalls).
    fn ladder_step(&mut self) -> Result<bool, Unsound> {
        Ok(self.full_house()?
            || self.hidden_single(true)?
            || self.hidden_single(false)?
            || self.naked_single()?
            || self.locked(true)?
            || self.locked(false)?
            || self.pattern()?)
    }

    /// Places `d` in `c` (its other candidates checked first).
    pub fn place(&mut self, t: Technique, c: usize, d: u8) -> Result<(), Unsound> {
        self.check(t, c, self.pos.cand[c] & !bit(d))?;
        self.pos.place(c, d);
        self.record(t, base(t));
        Ok(())
    }

    /// Fails when the oracle says a solution has one of `removed` in `c`.
    pub fn check(&mut self, t: Technique, c: usize, removed: u16) -> Result<(), Unsound> {
        match self.oracle.contradicts(c, removed) {
            Some(digit) => Err(Unsound {
                technique: t,
                cell: c,
                digit,
            }),
            None => Ok(()),
        }
    }

    /// Applies the removals in `self.elims`, each checked, as one step of
    /// `t` worth `value`.
    pub fn apply(&mut self, t: Technique, value: u16) -> Result<(), Unsound> {
        let elims = std::mem::take(&mut self.elims);
        for (c, m) in elims.iter() {
            self.check(t, c, m)?;
            self.pos.cand[c] &= !m;
        }
        self.elims = elims;
        self.elims.clear();
        self.record(t, value);
        Ok(())
    }

    fn full_house(&mut self) -> Result<bool, Unsound> {
        let mut any = false;
        for (u, unit) in UNITS.iter().enumerate() {
            let mut open = unit.iter().filter(|&&c| self.pos.val[c as usize] == 0);
            let (Some(&c), None) = (open.next(), open.next()) else {
                continue;
            };
            let missing = ALL & !self.pos.used[u];
            if missing.count_ones() == 1 && self.pos.cand[c as usize] & missing != 0 {
                let d = missing.trailing_zeros() as u8 + 1;
                self.place(Technique::FullHouse, c as usize, d)?;
                any = true;
            }
        }
        Ok(any)
    }

    /// Hidden singles in boxes (`boxes`) or in rows and columns.
    fn hidden_single(&mut self, boxes: bool) -> Result<bool, Unsound> {
        let (t, units) = if boxes {
            (Technique::HiddenSingleBox, 18..27)
        } else {
            (Technique::HiddenSingleLine, 0..18)
        };
        let mut any = false;
        for u in units {
            while let Some((c, d)) = self.hidden_in(u) {
                self.place(t, c, d)?;
                any = true;
            }
        }
        Ok(any)
    }

    /// The first digit with one place left in unit `u`.
    fn hidden_in(&self, u: usize) -> Option<(usize, u8)> {
        let (mut once, mut twice) = (0u16, 0u16);
        for &c in &UNITS[u] {
            let m = self.pos.cand[c as usize];
            twice |= once & m;
            once |= m;
        }
        let single = once & !twice & !self.pos.used[u];
        if single == 0 {
            return None;
        }
        let m = single & single.wrapping_neg();
        let c = UNITS[u]
            .iter()
            .find(|&&c| self.pos.cand[c as usize] & m != 0)?;
        Some((*c as usize, m.trailing_zeros() as u8 + 1))
    }

    fn naked_single(&mut self) -> Result<bool, Unsound> {
        let mut any = false;
        for c in 0..CELLS {
            let m = self.pos.cand[c];
            if self.pos.val[c] == 0 && m != 0 && m & (m - 1) == 0 {
                self.place(Technique::NakedSingle, c, m.trailing_zeros() as u8 + 1)?;
                any = true;
            }
        }
        Ok(any)
    }

    /// Pointing (`pointing`: a digit's places in a box all on one line) or
    /// claiming (a digit's places in a line all in one box): one step per
    /// box or line and digit that removes something.
    fn locked(&mut self, pointing: bool) -> Result<bool, Unsound> {
        let t = if pointing {
            Technique::Pointing
        } else {
            Technique::Claiming
        };
        let (from, across) = if pointing {
            (18..27, 0..18)
        } else {
            (0..18, 18..27)
        };
        let mut any = false;
        for u in from {
            for d in 0..9 {
                let places = UNIT_SET[u] & cells_with(&self.pos.cand, 1 << d);
                if places.count_ones() < 2 {
                    continue;
                }
                for v in across.clone() {
                    if places & !UNIT_SET[v] == 0 {
                        let targets =
                            UNIT_SET[v] & !UNIT_SET[u] & cells_with(&self.pos.cand, 1 << d);
                        if targets != 0 {
                            self.elims.add_all(targets, 1 << d);
                            self.apply(t, base(t))?;
                            any = true;
                        }
                    }
                }
            }
        }
        Ok(any)
    }

    /// The first pattern of [`PATTERNS`] that removes something.
    fn pattern(&mut self) -> Result<bool, Unsound> {
        for &t in PATTERNS {
            let value = match t {
                Technique::XChain | Technique::XyChain | Technique::Aic => {
                    let kind = match t {
                        Technique::XChain => chains::Kind::X,
                        Technique::XyChain => chains::Kind::Xy,
                        _ => chains::Kind::Aic,
                    };
                    match chains::find(&self.pos.cand, kind, &mut self.elims) {
                        Some(links) => chain_value(t, links),
                        None => continue,
                    }
                }
                _ => {
                    if !techniques::find(t, &self.pos.cand, &mut self.elims) {
                        continue;
                    }
                    base(t)
                }
            };
            self.apply(t, value)?;
            return Ok(true);
        }
        Ok(false)
    }

    /// The empty cells' candidates in order: (cell, digit).
    pub fn candidates(pos: &Pos) -> impl Iterator<Item = (usize, u8)> + '_ {
        cells_of(
            (0..CELLS)
                .filter(|&c| pos.val[c] == 0)
                .fold(0u128, |s, c| s | 1u128 << c),
        )
        .flat_map(move |c| {
            (1..=9u8)
                .filter(move |&d| pos.cand[c] & bit(d) != 0)
                .map(move |d| (c, d))
        })
    }
}

#[cfg(test)]
mod patterns_tests {
    use super::*;

    #[test]
    fn the_patterns_run_from_naked_pairs_to_chains() {
        assert_eq!(PATTERNS.first(), Some(&Technique::NakedPair));
        assert_eq!(PATTERNS.last(), Some(&Technique::Aic));
        assert_eq!(PATTERNS.len(), 14);
    }
}
