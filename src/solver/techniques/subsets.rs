//! Naked and hidden subsets (pairs, triples, quads) inside one unit.
//!
//! Naked: k cells of a unit whose candidates together are exactly k digits
//! must hold those digits between them, so no other cell of the unit can.
//! Hidden: k digits whose places in a unit are together exactly k cells
//! must fill those cells, so those cells can hold nothing else.

use super::{first_subset, Cands, Elims};
use crate::grid::UNITS;

/// The first naked subset of `k` cells (2 to 4) that removes a candidate,
/// scanning rows, then columns, then boxes, and within a unit the cell
/// combinations in order.
pub fn naked(cand: &Cands, k: usize, out: &mut Elims) -> bool {
    UNITS.iter().any(|unit| naked_in(cand, unit, k, out))
}

/// The first naked subset of `k` cells inside `unit`.
fn naked_in(cand: &Cands, unit: &[u8; 9], k: usize, out: &mut Elims) -> bool {
    // The candidates of the unit's cells with 2..=k of them, and where they
    // are in the unit.
    let mut masks = [0u16; 9];
    let mut pos = [0u8; 9];
    let mut n = 0;
    for (i, &c) in unit.iter().enumerate() {
        let m = cand[c as usize];
        if (2..=k).contains(&(m.count_ones() as usize)) {
            masks[n] = m;
            pos[n] = i as u8;
            n += 1;
        }
    }
    first_subset(&masks[..n], k, &mut |pick, union| {
        let mut inside = 0u16;
        for (j, &p) in pos[..n].iter().enumerate() {
            if pick >> j & 1 != 0 {
                inside |= 1 << p;
            }
        }
        for (i, &c) in unit.iter().enumerate() {
            if inside >> i & 1 == 0 {
                out.add(c as usize, cand[c as usize] & union);
            }
        }
        !out.is_empty()
    })
}

/// The first hidden subset of `k` digits (2 to 4) that removes a
/// candidate, scanning rows, then columns, then boxes, and within a unit
/// the digit combinations in order.
pub fn hidden(cand: &Cands, k: usize, out: &mut Elims) -> bool {
    UNITS.iter().any(|unit| hidden_in(cand, unit, k, out))
}

/// The first hidden subset of `k` digits inside `unit`.
fn hidden_in(cand: &Cands, unit: &[u8; 9], k: usize, out: &mut Elims) -> bool {
    // Each digit's places in the unit, as positions 0..9.
    let mut places = [0u16; 9];
    for (i, &c) in unit.iter().enumerate() {
        let mut m = cand[c as usize];
        while m != 0 {
            places[m.trailing_zeros() as usize] |= 1 << i;
            m &= m - 1;
        }
    }
    // The places of the digits with 2..=k of them, and those digits.
    let mut masks = [0u16; 9];
    let mut digits = [0u8; 9];
    let mut n = 0;
    for (d, &p) in places.iter().enumerate() {
        if (2..=k).contains(&(p.count_ones() as usize)) {
            masks[n] = p;
            digits[n] = d as u8;
            n += 1;
        }
    }
    first_subset(&masks[..n], k, &mut |pick, cells| {
        let mut keep = 0u16;
        for (j, &d) in digits[..n].iter().enumerate() {
            if pick >> j & 1 != 0 {
                keep |= 1 << d;
            }
        }
        for (i, &c) in unit.iter().enumerate() {
            if cells >> i & 1 != 0 {
                out.add(c as usize, cand[c as usize] & !keep);
            }
        }
        !out.is_empty()
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{m, rc, sparse};
    use super::*;

    const ROW1: usize = 0;
    const ROW2: usize = 1;
    const ROW5: usize = 4;
    const COL4: usize = 9 + 3;
    const BOX1: usize = 18;
    const BOX9: usize = 26;

    #[test]
    fn naked_pair_clears_the_rest_of_its_row() {
        // Row 1: r1c1 and r1c5 hold {2,7}; r1c3 and r1c9 lose 2 and 7.
        let cand = sparse(&[
            (rc(1, 1), "27"),
            (rc(1, 5), "27"),
            (rc(1, 3), "1257"),
            (rc(1, 9), "789"),
            (rc(1, 7), "13"),
        ]);
        let mut e = Elims::new();
        assert!(naked_in(&cand, &UNITS[ROW1], 2, &mut e));
        assert_eq!(e.of(rc(1, 3)), m("27"));
        assert_eq!(e.of(rc(1, 9)), m("7"));
        assert_eq!(e.count(), 3);
        // The whole-position scan finds the same pair first.
        let mut w = Elims::new();
        assert!(naked(&cand, 2, &mut w));
        assert_eq!(w, e);
    }

    #[test]
    fn naked_triple_need_not_have_every_digit_in_every_cell() {
        // Column 4: {1,2}, {2,3}, {1,3}; r9c4 loses 1 and 3.
        let cand = sparse(&[
            (rc(1, 4), "12"),
            (rc(5, 4), "23"),
            (rc(6, 4), "13"),
            (rc(9, 4), "1349"),
        ]);
        let mut e = Elims::new();
        assert!(!naked_in(&cand, &UNITS[COL4], 2, &mut e));
        assert!(naked_in(&cand, &UNITS[COL4], 3, &mut e));
        assert_eq!(e.of(rc(9, 4)), m("13"));
        assert_eq!(e.count(), 2);
    }

    #[test]
    fn naked_quad_in_a_box() {
        let cand = sparse(&[
            (rc(1, 1), "12"),
            (rc(1, 2), "34"),
            (rc(2, 1), "1234"),
            (rc(2, 2), "24"),
            (rc(3, 3), "4589"),
        ]);
        let mut e = Elims::new();
        assert!(!naked_in(&cand, &UNITS[BOX1], 3, &mut e));
        assert!(naked_in(&cand, &UNITS[BOX1], 4, &mut e));
        assert_eq!(e.of(rc(3, 3)), m("4"));
        assert_eq!(e.count(), 1);
    }

    #[test]
    fn hidden_pair_strips_its_two_cells() {
        // Row 5: 4 and 8 go only in r5c2 and r5c7.
        let cand = sparse(&[
            (rc(5, 2), "1348"),
            (rc(5, 7), "4589"),
            (rc(5, 1), "139"),
            (rc(5, 3), "159"),
        ]);
        let mut e = Elims::new();
        assert!(!naked_in(&cand, &UNITS[ROW5], 2, &mut e));
        assert!(hidden_in(&cand, &UNITS[ROW5], 2, &mut e));
        assert_eq!(e.of(rc(5, 2)), m("13"));
        assert_eq!(e.of(rc(5, 7)), m("59"));
        assert_eq!(e.count(), 4);
    }

    #[test]
    fn hidden_triple_and_quad() {
        // Box 9: 1, 2, 3 only in r7c7, r8c8, r9c9.
        let cand = sparse(&[
            (rc(7, 7), "1256"),
            (rc(8, 8), "2367"),
            (rc(9, 9), "1378"),
            (rc(7, 8), "5678"),
            (rc(9, 7), "56"),
        ]);
        let mut e = Elims::new();
        assert!(!hidden_in(&cand, &UNITS[BOX9], 2, &mut e));
        assert!(hidden_in(&cand, &UNITS[BOX9], 3, &mut e));
        assert_eq!(e.of(rc(7, 7)), m("56"));
        assert_eq!(e.of(rc(8, 8)), m("67"));
        assert_eq!(e.of(rc(9, 9)), m("78"));
        assert_eq!(e.count(), 6);
        // Row 2: 1, 2, 3, 4 only in four cells.
        let cand = sparse(&[
            (rc(2, 1), "1256"),
            (rc(2, 3), "23"),
            (rc(2, 5), "34"),
            (rc(2, 8), "1478"),
            (rc(2, 9), "5678"),
            (rc(2, 6), "5679"),
        ]);
        let mut e = Elims::new();
        assert!(!hidden_in(&cand, &UNITS[ROW2], 3, &mut e));
        assert!(hidden_in(&cand, &UNITS[ROW2], 4, &mut e));
        assert_eq!(e.of(rc(2, 1)), m("56"));
        assert_eq!(e.of(rc(2, 8)), m("78"));
        assert_eq!(e.count(), 4);
    }

    #[test]
    fn nothing_to_remove_is_not_a_find() {
        // A naked pair alone in its units removes nothing.
        let cand = sparse(&[(rc(1, 1), "27"), (rc(1, 2), "27")]);
        let mut e = Elims::new();
        assert!(!naked(&cand, 2, &mut e));
        assert!(!hidden(&cand, 2, &mut e));
        assert!(e.is_empty());
    }
}
