//! Chains of implications between candidates.
//!
//! A candidate is "digit d in cell c". Two candidates are *strongly* linked
//! when at least one of them is true: the only two places of a digit in a
//! unit (a conjugate pair), or the only two digits of a cell (a bivalue
//! cell). They are *weakly* linked when at most one is true: the same digit
//! in two cells sharing a unit, or two digits of one cell. A chain starts
//! from a candidate assumed false and alternates strong links (false ⇒ the
//! other true) and weak links (true ⇒ the other false). Reaching candidate
//! E true from start S false proves "S or E": a candidate that contradicts
//! both can go.
//!
//! Three kinds, by the links they may use:
//! - [`Kind::X`], a single-digit chain: conjugate pairs and shared units,
//!   one digit throughout (its shortest forms are the skyscraper, the
//!   two-string kite and the turbot fish);
//! - [`Kind::Xy`], a bivalue chain: bivalue cells joined by shared units
//!   (its shortest form of three cells is the XY-wing);
//! - [`Kind::Aic`], an alternating inference chain: every link above, and
//!   the weak link between two digits of one cell.
//!
//! The search is breadth first from every start, one layer of links at a
//! time over bit sets of cells per digit, so the chain found for a start is
//! one of the shortest it has; the shortest over all starts is kept (the
//! first start in cell order, then digit order, among equals). A chain may
//! pass a cell twice: every step is still a valid implication.

use super::{cells_of, cells_with, sees, Cands, CellSet, Elims, PEER_SET, UNIT_SET};

/// Which links a chain may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Single-digit chains.
    X,
    /// Bivalue-cell chains.
    Xy,
    /// Alternating inference chains (both, and weak links inside cells).
    Aic,
}

impl Kind {
    fn unit_strong(self) -> bool {
        matches!(self, Kind::X | Kind::Aic)
    }
    fn cell_strong(self) -> bool {
        matches!(self, Kind::Xy | Kind::Aic)
    }
    fn cell_weak(self) -> bool {
        self == Kind::Aic
    }
}

/// The links of a position: each digit's cells, conjugate partners and the
/// bivalue cells.
struct Links {
    digit_cells: [CellSet; 9],
    /// `conj[d][c]`: the cells that form a conjugate pair with `c` for
    /// digit `d + 1` (one per unit at most).
    conj: [[CellSet; 81]; 9],
    bival: CellSet,
}

impl Links {
    fn new(cand: &Cands, kind: Kind) -> Links {
        let mut l = Links {
            digit_cells: [0; 9],
            conj: [[0; 81]; 9],
            bival: 0,
        };
        for d in 0..9 {
            l.digit_cells[d] = cells_with(cand, 1 << d);
        }
        for (c, &m) in cand.iter().enumerate() {
            if m.count_ones() == 2 {
                l.bival |= 1u128 << c;
            }
        }
        if kind.unit_strong() {
            for unit in UNIT_SET {
                for d in 0..9 {
                    let places = unit & l.digit_cells[d];
                    if places.count_ones() == 2 {
                        let a = places.trailing_zeros() as usize;
                        let b = 127 - places.leading_zeros() as usize;
                        l.conj[d][a] |= 1u128 << b;
                        l.conj[d][b] |= 1u128 << a;
                    }
                }
            }
        }
        l
    }

    /// True when candidate (`c`, `d`) has a strong link of `kind`.
    fn has_strong(&self, cand: &Cands, c: usize, d: usize, kind: Kind) -> bool {
        (kind.unit_strong() && self.conj[d][c] != 0)
            || (kind.cell_strong() && cand[c].count_ones() == 2)
    }
}

/// The shortest chain of `kind` that removes a candidate, its removals in
/// `out`; returns its number of links (`None`: no chain of that kind
/// removes anything).
pub fn find(cand: &Cands, kind: Kind, out: &mut Elims) -> Option<u32> {
    out.clear();
    let links = Links::new(cand, kind);
    let mut best: Option<u32> = None;
    let mut found = Elims::new();
    for s in 0..81 {
        let mut digits = cand[s];
        while digits != 0 {
            let a = digits.trailing_zeros() as usize;
            digits &= digits - 1;
            if !links.has_strong(cand, s, a, kind) {
                continue;
            }
            // Only a strictly shorter chain replaces the best so far.
            let limit = best.map_or(u32::MAX, |b| b - 1);
            found.clear();
            if let Some(n) = from_start(cand, &links, kind, (s, a), limit, &mut found) {
                best = Some(n);
                out.clone_from(&found);
                if n <= 1 {
                    return best;
                }
            }
        }
    }
    best
}

/// Breadth-first search from "digit `a + 1` is not in cell `s`", at most
/// `limit` links; the first productive end of the shortest layer fills
/// `out` and gives the layer's link count.
fn from_start(
    cand: &Cands,
    l: &Links,
    kind: Kind,
    (s, a): (usize, usize),
    limit: u32,
    out: &mut Elims,
) -> Option<u32> {
    let mut on = [0u128; 9];
    let mut off = [0u128; 9];
    let mut front_off = [0u128; 9];
    off[a] = 1u128 << s;
    front_off[a] = 1u128 << s;
    let mut n = 0u32;
    loop {
        let mut front_on = strong_layer(cand, l, kind, &front_off);
        n += 1;
        if n > limit {
            return None;
        }
        let mut any = false;
        for d in 0..9 {
            front_on[d] &= !on[d];
            on[d] |= front_on[d];
            any |= front_on[d] != 0;
        }
        if !any {
            return None;
        }
        for (d, &set) in front_on.iter().enumerate() {
            for e in cells_of(set) {
                if conclude(cand, l, kind, (s, a), (e, d), out) {
                    return Some(n);
                }
            }
        }
        front_off = weak_layer(cand, l, kind, &front_on);
        n += 1;
        // The next strong layer would pass the limit.
        if n >= limit {
            return None;
        }
        let mut any = false;
        for d in 0..9 {
            if kind == Kind::Xy {
                // Only bivalue cells continue a bivalue chain.
                front_off[d] &= l.bival;
            }
            front_off[d] &= !off[d];
            off[d] |= front_off[d];
            any |= front_off[d] != 0;
        }
        if !any {
            return None;
        }
    }
}

/// The candidates a layer of false candidates makes true through strong
/// links (a unit's two places for a digit, a bivalue cell's two digits).
#[inline]
fn strong_layer(cand: &Cands, l: &Links, kind: Kind, front_off: &[u128; 9]) -> [u128; 9] {
    let mut front_on = [0u128; 9];
    for d in 0..9 {
        for c in cells_of(front_off[d]) {
            if kind.unit_strong() {
                front_on[d] |= l.conj[d][c];
            }
            if kind.cell_strong() && l.bival >> c & 1 != 0 && cand[c] >> d & 1 != 0 {
                let other = (cand[c] & !(1 << d)).trailing_zeros() as usize;
                front_on[other] |= 1u128 << c;
            }
        }
    }
    front_on
}

/// The candidates a layer of true candidates makes false through weak
/// links (the digit's peers, the cell's other digits).
#[inline]
fn weak_layer(cand: &Cands, l: &Links, kind: Kind, front_on: &[u128; 9]) -> [u128; 9] {
    let mut front_off = [0u128; 9];
    for (d, &set) in front_on.iter().enumerate() {
        for c in cells_of(set) {
            front_off[d] |= PEER_SET[c] & l.digit_cells[d];
            if kind.cell_weak() {
                let mut others = cand[c] & !(1 << d);
                while others != 0 {
                    front_off[others.trailing_zeros() as usize] |= 1u128 << c;
                    others &= others - 1;
                }
            }
        }
    }
    front_off
}

/// What "(`s`, `a`) false ⇒ (`e`, `b`) true" removes, added to `out`;
/// true when it removes something.
fn conclude(
    cand: &Cands,
    l: &Links,
    kind: Kind,
    (s, a): (usize, usize),
    (e, b): (usize, usize),
    out: &mut Elims,
) -> bool {
    let (ma, mb) = (1u16 << a, 1u16 << b);
    if a == b && e != s {
        // One of the two ends holds the digit: cells seeing both cannot.
        out.add_all(PEER_SET[s] & PEER_SET[e] & l.digit_cells[a], ma);
    } else if kind == Kind::Aic {
        if e == s {
            // "s is not a ⇒ s is b": s is a or b (a itself when b == a).
            out.add(s, cand[s] & !(ma | mb));
        } else if sees(s, e) {
            // s is a or e is b, and they see each other: e = a would force
            // s ≠ a, so e = b, a contradiction; likewise s = b.
            out.add(e, cand[e] & ma);
            out.add(s, cand[s] & mb);
        }
    }
    !out.is_empty()
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{m, rc, sparse};
    use super::*;

    #[test]
    fn skyscraper_is_a_three_link_x_chain() {
        // 4 in columns 1 and 5 only in rows 1 and 7, and 2 and 7: r1c1 ≠ 4
        // ⇒ r7c1 = 4 ⇒ r7c5 ≠ 4 ⇒ r2c5 = 4. One of the tops r1c1, r2c5 is
        // 4, so r1c6 and r2c2, which see both, lose it (r7c8 keeps row 7
        // from being a conjugate pair).
        let cand = sparse(&[
            (rc(1, 1), "4"),
            (rc(7, 1), "4"),
            (rc(2, 5), "4"),
            (rc(7, 5), "4"),
            (rc(7, 8), "4"),
            (rc(1, 6), "34"),
            (rc(2, 2), "14"),
            (rc(5, 5), "15"),
        ]);
        let mut e = Elims::new();
        let n = find(&cand, Kind::X, &mut e).expect("a chain");
        assert_eq!(n, 3);
        assert_eq!(e.of(rc(1, 6)), m("4"));
        assert_eq!(e.of(rc(2, 2)), m("4"));
        assert_eq!(e.count(), 2);
    }

    #[test]
    fn xy_chain_of_four_cells() {
        // r1c1 {1,2} - r1c5 {2,3} - r5c5 {3,4} - r5c9 {1,4}: r1c1 or r5c9
        // is 1, so r1c9 (seeing both) loses 1.
        let cand = sparse(&[
            (rc(1, 1), "12"),
            (rc(1, 5), "23"),
            (rc(5, 5), "34"),
            (rc(5, 9), "14"),
            (rc(1, 9), "17"),
        ]);
        let mut e = Elims::new();
        let n = find(&cand, Kind::Xy, &mut e).expect("a chain");
        assert_eq!(n, 7);
        assert_eq!(e.of(rc(1, 9)), m("1"));
        assert_eq!(e.count(), 1);
        // No single-digit chain here.
        assert_eq!(find(&cand, Kind::X, &mut e), None);
        assert!(e.is_empty());
    }

    #[test]
    fn aic_mixes_cell_and_unit_links() {
        // r1c1 ≠ 1 ⇒ r1c5 = 1 (row 1) ⇒ r1c5 ≠ 2 (same cell) ⇒ r6c5 = 2
        // (column 5) ⇒ r6c2 ≠ 2 (row 6) ⇒ r6c2 = 1 (bivalue cell): r1c1 or
        // r6c2 is 1, and r5c1 sees both. Neither a single-digit chain nor a
        // bivalue chain shows it.
        let cand = sparse(&[
            (rc(1, 1), "169"),
            (rc(1, 5), "123"),
            (rc(6, 5), "245"),
            (rc(6, 2), "12"),
            (rc(5, 1), "18"),
        ]);
        let mut e = Elims::new();
        assert_eq!(find(&cand, Kind::X, &mut e), None);
        assert_eq!(find(&cand, Kind::Xy, &mut e), None);
        assert_eq!(find(&cand, Kind::Aic, &mut e), Some(5));
        assert_eq!(e.of(rc(5, 1)), m("1"));
        assert_eq!(e.count(), 1);
    }

    #[test]
    fn nothing_to_remove_is_none() {
        let cand = sparse(&[(rc(1, 1), "12"), (rc(1, 2), "12")]);
        let mut e = Elims::new();
        for kind in [Kind::X, Kind::Xy, Kind::Aic] {
            assert_eq!(find(&cand, kind, &mut e), None);
            assert!(e.is_empty());
        }
    }
}
