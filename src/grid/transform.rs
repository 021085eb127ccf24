//! Validity-preserving rearrangements of a grid (isomorphs): a relabelling
//! of the digits, an order of the bands and of the stacks, an order of the
//! rows inside each band and of the columns inside each stack, and a
//! transposition. A puzzle and its solutions move together, so a solver's
//! work on an isomorph is the same problem in another orientation.
//!
//! Used by `generate --grids` (to spread a searched grid over its class)
//! and by `run --transform SEED` (so that no solver wins by a corpus's
//! orientation; answers are mapped back with [`Transform::invert`]).

use super::pencilmark::Candidates;
use super::{Grid, CELLS};
use crate::random::shuffle;
use rand::RngCore;

/// One rearrangement: output cell `(r, c)` takes input cell
/// `(rows[r], cols[c])` (or `(cols[c], rows[r])` when transposed), its digit
/// relabelled by `digits`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transform {
    rows: [u8; 9],
    cols: [u8; 9],
    transpose: bool,
    /// `digits[d]`: the new label of digit `d` (index 0, a blank, stays 0).
    digits: [u8; 10],
}

/// A uniformly random order of the three blocks (bands or stacks) and of
/// the three lines inside each: line `i` of the result is line `order[i]`.
fn line_order<R: RngCore + ?Sized>(rng: &mut R) -> [u8; 9] {
    let mut blocks = [0u8, 1, 2];
    shuffle(rng, &mut blocks);
    let mut order = [0u8; 9];
    for (i, &b) in blocks.iter().enumerate() {
        let mut inner = [0u8, 1, 2];
        shuffle(rng, &mut inner);
        for (j, &l) in inner.iter().enumerate() {
            order[3 * i + j] = 3 * b + l;
        }
    }
    order
}

impl Transform {
    /// The identity.
    pub const IDENTITY: Transform = Transform {
        rows: [0, 1, 2, 3, 4, 5, 6, 7, 8],
        cols: [0, 1, 2, 3, 4, 5, 6, 7, 8],
        transpose: false,
        digits: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    };

    /// A uniformly random member of the group (9! · 6⁸ · 2 members).
    pub fn random<R: RngCore + ?Sized>(rng: &mut R) -> Self {
        let rows = line_order(rng);
        let cols = line_order(rng);
        let transpose = rng.next_u32() & 1 == 1;
        let mut labels = [1u8, 2, 3, 4, 5, 6, 7, 8, 9];
        shuffle(rng, &mut labels);
        let mut digits = [0u8; 10];
        digits[1..].copy_from_slice(&labels);
        Transform {
            rows,
            cols,
            transpose,
            digits,
        }
    }

    /// The input cell that output cell `out` takes.
    #[inline]
    fn source(&self, out: usize) -> usize {
        let (sr, sc) = (self.rows[out / 9] as usize, self.cols[out % 9] as usize);
        if self.transpose {
            sc * 9 + sr
        } else {
            sr * 9 + sc
        }
    }

    /// The rearranged grid (blanks stay blank).
    pub fn apply(&self, g: &Grid) -> Grid {
        let src = g.cells();
        let mut out = [0u8; CELLS];
        for (i, v) in out.iter_mut().enumerate() {
            *v = self.digits[src[self.source(i)] as usize];
        }
        Grid::from_cells_unchecked(out)
    }

    /// The grid `g` was made from: `invert(apply(g)) == g`.
    pub fn invert(&self, g: &Grid) -> Grid {
        let mut back = [0u8; 10];
        for d in 0..10 {
            back[self.digits[d] as usize] = d as u8;
        }
        let src = g.cells();
        let mut out = [0u8; CELLS];
        for (i, &v) in src.iter().enumerate() {
            out[self.source(i)] = back[v as usize];
        }
        Grid::from_cells_unchecked(out)
    }

    /// Candidate masks rearranged like [`Transform::apply`] (bit `d - 1`
    /// moves to bit `digits[d] - 1`).
    pub fn apply_candidates(&self, c: &Candidates) -> Candidates {
        let mut out = [0u16; CELLS];
        for (i, m) in out.iter_mut().enumerate() {
            let from = c[self.source(i)];
            for d in 1..=9 {
                if from & (1 << (d - 1)) != 0 {
                    *m |= 1 << (self.digits[d] - 1);
                }
            }
        }
        out
    }

    /// The masks [`Transform::apply_candidates`] was given.
    pub fn invert_candidates(&self, c: &Candidates) -> Candidates {
        let mut out = [0u16; CELLS];
        for (i, &m) in c.iter().enumerate() {
            let mut back = 0u16;
            for d in 1..=9 {
                if m & (1 << (self.digits[d] - 1)) != 0 {
                    back |= 1 << (d - 1);
                }
            }
            out[self.source(i)] = back;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn line_orders_keep_lines_in_their_blocks() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        for _ in 0..100 {
            let o = line_order(&mut rng);
            let mut sorted = o;
            sorted.sort_unstable();
            assert_eq!(sorted, [0, 1, 2, 3, 4, 5, 6, 7, 8]);
            for block in o.chunks(3) {
                assert!(block.iter().all(|&l| l / 3 == block[0] / 3), "{o:?}");
            }
        }
    }

    #[test]
    fn inverses_undo_and_identity_changes_nothing() {
        let g = Grid::parse(
            "534678912672195348198342567859761423426853791713924856961537284287419635345286179",
        )
        .unwrap();
        assert_eq!(Transform::IDENTITY.apply(&g), g);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let mut cands = [0x1ffu16; CELLS];
        for (i, m) in cands.iter_mut().enumerate() {
            *m = (i as u16 * 37 + 5) & 0x1ff | 1;
        }
        for _ in 0..50 {
            let t = Transform::random(&mut rng);
            let h = t.apply(&g);
            assert!(h.is_solution_of(&Grid::empty()));
            assert_eq!(t.invert(&h), g);
            assert_eq!(t.invert_candidates(&t.apply_candidates(&cands)), cands);
        }
    }
}
