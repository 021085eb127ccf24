//! XY-wing and XYZ-wing: a pivot cell and two pincer cells it sees.
//!
//! XY-wing: pivot {x,y}, pincers {x,z} and {y,z}. Whichever digit the pivot
//! takes, one pincer is left with z; so z cannot go in a cell that sees both
//! pincers.
//!
//! XYZ-wing: pivot {x,y,z}, pincers {x,z} and {y,z}. Of the three cells one
//! is z whatever happens (the pivot is x, y or z; x or y leaves a pincer z);
//! so z cannot go in a cell that sees all three.

use super::{cells_of, cells_with, seeing_all, Cands, CellSet, Elims, PEER_SET};

/// The empty cells with exactly `n` candidates.
fn with_count(cand: &Cands, n: u32) -> CellSet {
    let mut set = 0u128;
    for (c, &k) in cand.iter().enumerate() {
        if k.count_ones() == n {
            set |= 1u128 << c;
        }
    }
    set
}

/// The first XY-wing that removes a candidate: pivots in cell order, then
/// pincer pairs in cell order.
pub fn xy(cand: &Cands, out: &mut Elims) -> bool {
    let bival = with_count(cand, 2);
    for p in cells_of(bival) {
        let pm = cand[p];
        // Pincers: bivalue peers sharing exactly one digit with the pivot.
        let near = PEER_SET[p] & bival;
        for a in cells_of(near) {
            let am = cand[a];
            if (am & pm).count_ones() != 1 {
                continue;
            }
            let z = am & !pm;
            for b in cells_of(near & !((2u128 << a) - 1)) {
                let bm = cand[b];
                // The other pivot digit, and the same z.
                if bm & pm != pm & !am || bm & !pm != z {
                    continue;
                }
                let targets = seeing_all(1u128 << a | 1u128 << b) & cells_with(cand, z);
                out.add_all(targets, z);
                if !out.is_empty() {
                    return true;
                }
            }
        }
    }
    false
}

/// The first XYZ-wing that removes a candidate: pivots in cell order, then
/// pincer pairs in cell order.
pub fn xyz(cand: &Cands, out: &mut Elims) -> bool {
    let bival = with_count(cand, 2);
    for p in cells_of(with_count(cand, 3)) {
        let pm = cand[p];
        // Pincers: bivalue peers whose digits are the pivot's.
        let near = PEER_SET[p] & bival;
        for a in cells_of(near) {
            let am = cand[a];
            if am & !pm != 0 {
                continue;
            }
            for b in cells_of(near & !((2u128 << a) - 1)) {
                let bm = cand[b];
                if bm & !pm != 0 || am | bm != pm {
                    continue;
                }
                let z = am & bm;
                let targets =
                    seeing_all(1u128 << p | 1u128 << a | 1u128 << b) & cells_with(cand, z);
                out.add_all(targets, z);
                if !out.is_empty() {
                    return true;
                }
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{m, rc, sparse};
    use super::*;

    #[test]
    fn xy_wing_clears_what_both_pincers_see() {
        // Pivot r1c1 {1,2}; pincers r1c7 {1,9} (row) and r5c1 {2,9}
        // (column); r5c7 sees both and loses 9.
        let cand = sparse(&[
            (rc(1, 1), "12"),
            (rc(1, 7), "19"),
            (rc(5, 1), "29"),
            (rc(5, 7), "39"),
            (rc(5, 5), "9"),
        ]);
        let mut e = Elims::new();
        assert!(xy(&cand, &mut e));
        assert_eq!(e.of(rc(5, 7)), m("9"));
        assert_eq!(e.count(), 1);
    }

    #[test]
    fn xy_wing_with_a_pincer_in_the_pivots_box() {
        // Pivot r2c2 {4,6}; pincers r1c3 {4,8} (box) and r2c8 {6,8} (row):
        // the cells seeing both are r1c7..r1c9 and r2c1..r2c3 ∖ pivot.
        let cand = sparse(&[
            (rc(2, 2), "46"),
            (rc(1, 3), "48"),
            (rc(2, 8), "68"),
            (rc(1, 9), "18"),
            (rc(2, 1), "78"),
            (rc(3, 9), "18"),
        ]);
        let mut e = Elims::new();
        assert!(xy(&cand, &mut e));
        assert_eq!(e.of(rc(1, 9)), m("8"));
        assert_eq!(e.of(rc(2, 1)), m("8"));
        assert_eq!(e.of(rc(3, 9)), 0);
        assert_eq!(e.count(), 2);
    }

    #[test]
    fn xyz_wing_clears_what_all_three_see() {
        // Pivot r5c5 {1,2,3}; pincers r5c2 {1,3} (row), r4c6 {2,3} (box);
        // r5c4 and r5c6 see all three: they lose 3.
        let cand = sparse(&[
            (rc(5, 5), "123"),
            (rc(5, 2), "13"),
            (rc(4, 6), "23"),
            (rc(5, 4), "378"),
            (rc(5, 6), "39"),
            (rc(4, 4), "3"),
            (rc(5, 9), "37"),
        ]);
        let mut e = Elims::new();
        assert!(!xy(&cand, &mut e));
        assert!(xyz(&cand, &mut e));
        assert_eq!(e.of(rc(5, 4)), m("3"));
        assert_eq!(e.of(rc(5, 6)), m("3"));
        assert_eq!(e.of(rc(5, 9)), 0);
        assert_eq!(e.count(), 2);
    }
}
