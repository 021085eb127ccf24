//! The rater's position: candidate masks, values and the digits placed in
//! each unit, with placement, removal and the singles fixpoint that trials
//! use.

use crate::grid::pencilmark::Candidates;
use crate::grid::{Grid, CELLS, CELL_UNITS, PEERS, UNITS};
use crate::solver::techniques::Cands;

pub(crate) const ALL: u16 = 0x1ff;

#[inline]
pub(crate) fn bit(d: u8) -> u16 {
    1 << (d - 1)
}

/// A partly solved grid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Pos {
    /// Candidates of each empty cell; 0 once filled.
    pub cand: Cands,
    /// Values, 0 for empty.
    pub val: [u8; CELLS],
    /// Digits placed in each unit.
    pub used: [u16; 27],
    /// Empty cells left.
    pub empty: u32,
}

impl Pos {
    /// The position of `puzzle` (its givens placed; with `cands`, a
    /// pencilmark puzzle's candidates as well). `None` when two givens
    /// break a rule, or a given is not among its cell's candidates.
    pub fn new(puzzle: &Grid, cands: Option<&Candidates>) -> Option<Pos> {
        let mut p = Pos {
            cand: [ALL; CELLS],
            val: [0; CELLS],
            used: [0; 27],
            empty: CELLS as u32,
        };
        for (c, &v) in puzzle.cells().iter().enumerate() {
            if v != 0 {
                if p.cand[c] & bit(v) == 0 {
                    return None;
                }
                p.place(c, v);
            }
        }
        if let Some(masks) = cands {
            for (c, &m) in masks.iter().enumerate() {
                if p.val[c] != 0 {
                    if m & bit(p.val[c]) == 0 {
                        return None;
                    }
                } else {
                    p.cand[c] &= m;
                }
            }
        }
        Some(p)
    }

    /// Puts `d` in empty cell `c` and removes it from the peers.
    pub fn place(&mut self, c: usize, d: u8) {
        let m = bit(d);
        self.val[c] = d;
        self.cand[c] = 0;
        self.empty -= 1;
        for &u in &CELL_UNITS[c] {
            self.used[u as usize] |= m;
        }
        for &p in &PEERS[c] {
            self.cand[p as usize] &= !m;
        }
    }

    pub fn solved(&self) -> bool {
        self.empty == 0
    }

    /// The grid of the values placed so far.
    pub fn grid(&self) -> Grid {
        Grid::from_cells(self.val).unwrap_or_default()
    }

    /// True when an empty cell has no candidate, or a digit not yet placed
    /// in a unit has no place left there.
    pub fn broken(&self) -> bool {
        for c in 0..CELLS {
            if self.val[c] == 0 && self.cand[c] == 0 {
                return true;
            }
        }
        for (u, unit) in UNITS.iter().enumerate() {
            let mut seen = self.used[u];
            for &c in unit {
                seen |= self.cand[c as usize];
            }
            if seen != ALL {
                return true;
            }
        }
        false
    }

    /// Places naked and hidden singles until none is left. Returns false
    /// on a contradiction (a cell without candidates, a digit without a
    /// place in a unit, or a digit placed twice in a unit).
    pub fn singles(&mut self) -> bool {
        loop {
            let mut progress = false;
            for c in 0..CELLS {
                if self.val[c] != 0 {
                    continue;
                }
                let m = self.cand[c];
                if m == 0 {
                    return false;
                }
                if m & (m - 1) == 0 {
                    self.place(c, m.trailing_zeros() as u8 + 1);
                    progress = true;
                }
            }
            for (u, unit) in UNITS.iter().enumerate() {
                let (mut once, mut twice) = (0u16, 0u16);
                for &c in unit {
                    let m = self.cand[c as usize];
                    twice |= once & m;
                    once |= m;
                }
                if (once | self.used[u]) != ALL || once & self.used[u] != 0 {
                    return false;
                }
                let mut hidden = once & !twice;
                while hidden != 0 {
                    let m = hidden & hidden.wrapping_neg();
                    hidden &= hidden - 1;
                    let Some(&c) = unit.iter().find(|&&c| self.cand[c as usize] & m != 0) else {
                        // Taken by a placement of this sweep: the digit has
                        // no place left.
                        return false;
                    };
                    self.place(c as usize, m.trailing_zeros() as u8 + 1);
                    progress = true;
                }
            }
            if !progress {
                return !self.broken();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EASY: &str =
        "530070000600195000098000060800060003400803001700020006060000280000419005000080079";

    #[test]
    fn singles_solve_an_easy_puzzle() {
        let g = Grid::parse(EASY).unwrap();
        let mut p = Pos::new(&g, None).unwrap();
        assert!(!p.broken());
        assert!(p.singles());
        assert!(p.solved());
        assert!(p.grid().is_solution_of(&g));
    }

    #[test]
    fn a_wrong_digit_is_a_contradiction() {
        let g = Grid::parse(EASY).unwrap();
        let mut p = Pos::new(&g, None).unwrap();
        // r1c3 is 4 in the solution; 1 is a candidate that fails.
        assert!(p.cand[2] & bit(1) != 0);
        p.place(2, 1);
        assert!(!p.singles());
    }

    #[test]
    fn conflicting_givens_have_no_position() {
        let mut cells = [0u8; CELLS];
        cells[0] = 5;
        cells[1] = 5;
        assert!(Pos::new(&Grid::from_cells(cells).unwrap(), None).is_none());
    }
}
