//! Basic fish: X-wing (2), swordfish (3), jellyfish (4).
//!
//! When a digit's places in k rows all lie in the same k columns, those k
//! rows put the digit in each of those columns once; so the digit cannot go
//! anywhere else in those columns. The same with rows and columns swapped.

use super::{first_subset, Cands, Elims};

/// The first fish of size `k` (2 to 4) that removes a candidate: digits 1
/// to 9, for each rows as the base lines, then columns; within them the
/// line combinations in order.
pub fn basic(cand: &Cands, k: usize, out: &mut Elims) -> bool {
    (0..9u8).any(|d| on_digit(cand, d, k, true, out) || on_digit(cand, d, k, false, out))
}

/// The first fish of digit `d + 1` with rows (`by_rows`) or columns as its
/// base lines.
fn on_digit(cand: &Cands, d: u8, k: usize, by_rows: bool, out: &mut Elims) -> bool {
    let m = 1u16 << d;
    let cell = |line: usize, cross: usize| {
        if by_rows {
            line * 9 + cross
        } else {
            cross * 9 + line
        }
    };
    // Each line's places for the digit, as crossing-line positions.
    let mut places = [0u16; 9];
    for (line, p) in places.iter_mut().enumerate() {
        for cross in 0..9 {
            if cand[cell(line, cross)] & m != 0 {
                *p |= 1 << cross;
            }
        }
    }
    // The places of the lines with 2..=k of them, and those lines.
    let mut masks = [0u16; 9];
    let mut lines = [0u8; 9];
    let mut n = 0;
    for (line, &p) in places.iter().enumerate() {
        if (2..=k).contains(&(p.count_ones() as usize)) {
            masks[n] = p;
            lines[n] = line as u8;
            n += 1;
        }
    }
    first_subset(&masks[..n], k, &mut |pick, cover| {
        let mut base = 0u16;
        for (j, &line) in lines[..n].iter().enumerate() {
            if pick >> j & 1 != 0 {
                base |= 1 << line;
            }
        }
        for line in (0..9).filter(|l| base >> l & 1 == 0) {
            for cross in (0..9).filter(|x| cover >> x & 1 != 0) {
                let c = cell(line, cross);
                out.add(c, cand[c] & m);
            }
        }
        !out.is_empty()
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{m, rc, sparse};
    use super::*;

    #[test]
    fn x_wing_on_rows_clears_its_columns() {
        // 5 in rows 2 and 7 only in columns 3 and 8.
        let cand = sparse(&[
            (rc(2, 3), "15"),
            (rc(2, 8), "35"),
            (rc(7, 3), "57"),
            (rc(7, 8), "59"),
            (rc(4, 3), "56"),
            (rc(9, 8), "258"),
            (rc(5, 5), "5"),
        ]);
        let mut e = Elims::new();
        assert!(on_digit(&cand, 4, 2, true, &mut e));
        assert_eq!(e.of(rc(4, 3)), m("5"));
        assert_eq!(e.of(rc(9, 8)), m("5"));
        assert_eq!(e.count(), 2);
    }

    #[test]
    fn swordfish_on_columns_clears_its_rows() {
        // 3 in columns 1, 5, 9 only in rows 2, 4, 8 (not every corner).
        let cand = sparse(&[
            (rc(2, 1), "34"),
            (rc(8, 1), "36"),
            (rc(4, 5), "13"),
            (rc(8, 5), "38"),
            (rc(2, 9), "35"),
            (rc(4, 9), "23"),
            (rc(2, 6), "39"),
            (rc(4, 2), "37"),
        ]);
        let mut e = Elims::new();
        assert!(!on_digit(&cand, 2, 2, false, &mut e));
        assert!(on_digit(&cand, 2, 3, false, &mut e));
        assert_eq!(e.of(rc(2, 6)), m("3"));
        assert_eq!(e.of(rc(4, 2)), m("3"));
        assert_eq!(e.count(), 2);
    }

    #[test]
    fn jellyfish_on_rows() {
        // 9 in rows 1, 3, 5, 7 only in columns 2, 4, 6, 8.
        let cand = sparse(&[
            (rc(1, 2), "19"),
            (rc(1, 4), "29"),
            (rc(3, 4), "39"),
            (rc(3, 6), "49"),
            (rc(5, 6), "59"),
            (rc(5, 8), "69"),
            (rc(7, 8), "79"),
            (rc(7, 2), "89"),
            (rc(9, 6), "19"),
        ]);
        let mut e = Elims::new();
        assert!(!on_digit(&cand, 8, 3, true, &mut e));
        assert!(on_digit(&cand, 8, 4, true, &mut e));
        assert_eq!(e.of(rc(9, 6)), m("9"));
        assert_eq!(e.count(), 1);
        let mut w = Elims::new();
        assert!(basic(&cand, 4, &mut w));
        assert_eq!(w, e);
    }
}
