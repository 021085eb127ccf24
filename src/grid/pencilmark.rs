//! Pencilmark puzzles: for each of the 81 cells, in row-major order, nine
//! characters, one per digit 1..9: the digit when it is still a candidate
//! of the cell, `.` when it was eliminated (729 characters in all).
//!
//! A pencilmark puzzle is read as a [`Grid`] (the cells left with one
//! candidate are its givens) plus the candidate masks ([`Candidates`]); the
//! engines start from those masks, and an answer must put in every cell one
//! of its candidates as well as obey the rules.

use super::{cell_name, Grid, CELLS};

/// Characters of a pencilmark puzzle.
pub const PENCILMARK_LEN: usize = 9 * CELLS;

/// Candidate masks, one per cell: bit `d - 1` set when digit `d` is still
/// possible. All bits (`0x1ff`) for a cell nothing was eliminated from.
pub type Candidates = [u16; CELLS];

/// Why a 729-character line is not a pencilmark puzzle.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PencilmarkError {
    #[error("expected {PENCILMARK_LEN} characters (9 per cell), found {found}")]
    WrongLength { found: usize },
    #[error("{cell}: {ch:?} at position {position} stands where digit {digit} or '.' belongs")]
    Misplaced {
        cell: String,
        position: usize,
        ch: char,
        digit: u8,
    },
    #[error("{cell} has no candidate left")]
    NoCandidate { cell: String },
}

/// True when `line` (trimmed) has the length and alphabet of a pencilmark
/// puzzle: 729 characters, digits and dots.
pub fn looks_like(line: &[u8]) -> bool {
    let line = line.trim_ascii();
    line.len() == PENCILMARK_LEN && line.iter().all(|&b| b == b'.' || b.is_ascii_digit())
}

/// Parses a pencilmark line (surrounding whitespace ignored): the grid of
/// its single-candidate cells and its candidate masks.
pub fn parse(line: &[u8]) -> Result<(Grid, Candidates), PencilmarkError> {
    let line = line.trim_ascii();
    if line.len() != PENCILMARK_LEN {
        return Err(PencilmarkError::WrongLength {
            found: String::from_utf8_lossy(line).chars().count(),
        });
    }
    let mut grid = Grid::empty();
    let mut cands = [0u16; CELLS];
    for (cell, chunk) in line.chunks_exact(9).enumerate() {
        let mut mask = 0u16;
        for (k, &b) in chunk.iter().enumerate() {
            let digit = k as u8 + 1;
            if b == b'0' + digit {
                mask |= 1 << k;
            } else if b != b'.' {
                let position = 9 * cell + k + 1;
                return Err(PencilmarkError::Misplaced {
                    cell: cell_name(cell),
                    position,
                    ch: String::from_utf8_lossy(&line[position - 1..])
                        .chars()
                        .next()
                        .unwrap_or('?'),
                    digit,
                });
            }
        }
        if mask == 0 {
            return Err(PencilmarkError::NoCandidate {
                cell: cell_name(cell),
            });
        }
        if mask & (mask - 1) == 0 {
            grid.set(cell, mask.trailing_zeros() as u8 + 1);
        }
        cands[cell] = mask;
    }
    Ok((grid, cands))
}

/// The 729-character line of candidate masks.
pub fn format(cands: &Candidates) -> String {
    let mut s = String::with_capacity(PENCILMARK_LEN);
    for &m in cands {
        for k in 0..9 {
            s.push(if m & (1 << k) != 0 {
                char::from(b'1' + k as u8)
            } else {
                '.'
            });
        }
    }
    s
}

/// The first cell of `grid` whose digit is not among its candidates, with
/// that digit.
pub fn violation(grid: &Grid, cands: &Candidates) -> Option<(usize, u8)> {
    grid.cells()
        .iter()
        .zip(cands)
        .position(|(&v, &m)| v != 0 && m & (1 << (v - 1)) == 0)
        .map(|c| (c, grid.get(c)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_givens_and_errors() {
        let mut cands = [0x1ffu16; CELLS];
        cands[0] = 0b100; // r1c1 = 3
        cands[10] = 0b1_0000_0011; // {1,2,9}
        let line = format(&cands);
        assert_eq!(line.len(), PENCILMARK_LEN);
        assert!(line.starts_with("..3......123456789"));
        assert!(looks_like(line.as_bytes()));
        let (g, c) = parse(line.as_bytes()).unwrap();
        assert_eq!(c, cands);
        assert_eq!(g.get(0), 3);
        assert_eq!(g.givens(), 1);

        let mut bad = line.clone().into_bytes();
        bad[1] = b'3';
        let e = parse(&bad).unwrap_err();
        assert!(
            matches!(
                &e,
                PencilmarkError::Misplaced {
                    position: 2,
                    digit: 2,
                    ch: '3',
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().starts_with("r1c1:"), "{e}");
        let mut none = line.into_bytes();
        none[9..18].copy_from_slice(b".........");
        assert_eq!(
            parse(&none).unwrap_err(),
            PencilmarkError::NoCandidate {
                cell: "r1c2".into()
            }
        );
        assert!(matches!(
            parse(&none[..728]).unwrap_err(),
            PencilmarkError::WrongLength { found: 728 }
        ));
    }

    #[test]
    fn violations_name_the_cell() {
        let mut cands = [0x1ffu16; CELLS];
        cands[40] = 0b1; // r5c5 can only be 1
        let mut g = Grid::empty();
        g.set(40, 1);
        assert_eq!(violation(&g, &cands), None);
        g.set(40, 2);
        assert_eq!(violation(&g, &cands), Some((40, 2)));
    }
}
