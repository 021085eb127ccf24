//! Logical techniques on candidate masks, shared by the generic engine's
//! inference levels above `locked` (`prop=subsets|fish|wings|chains`) and by
//! the rater (`crate::rating`).
//!
//! A position is 81 candidate masks ([`Cands`]): bit `d - 1` of an empty
//! cell's mask is set while digit `d` may still go there; a filled cell's
//! mask is 0. Each finder looks, in a fixed scan order, for the first
//! instance of its pattern that removes at least one candidate, writes those
//! removals into an [`Elims`] and returns; the caller applies them (and goes
//! back to the easier techniques). A finder never changes the position,
//! never allocates and never panics, whatever the masks.
//!
//! Every removal is implied by the rules and the candidates: no solution of
//! the position has a removed digit in that cell. On a position that
//! already has no solution (a wrong guess of the search) a finder may
//! report removals that lead the caller to the contradiction, which is what
//! the search wants. The tests check each finder on hand-made positions and
//! against the solutions of generated puzzles.
//!
//! Files: [`subsets`] (naked and hidden pairs, triples, quads), [`fish`]
//! (X-wing, swordfish, jellyfish), [`wings`] (XY-wing, XYZ-wing), [`chains`]
//! (single-digit chains, bivalue chains, alternating inference chains).

pub mod chains;
pub mod fish;
pub mod subsets;
pub mod wings;

use crate::grid::{CELLS, CELL_UNITS, PEERS, UNITS};

/// The candidate masks of a position: bit `d - 1` set while `d` may go in
/// the cell; 0 for a filled cell.
pub type Cands = [u16; CELLS];

/// Cell sets as bits of a `u128` (bit `c` for cell `c`).
pub type CellSet = u128;

/// The 20 peers of each cell as a cell set.
pub static PEER_SET: [CellSet; CELLS] = build_peer_sets();

/// The 9 cells of each unit (rows 0..9, columns 9..18, boxes 18..27) as a
/// cell set.
pub static UNIT_SET: [CellSet; 27] = build_unit_sets();

const fn build_peer_sets() -> [CellSet; CELLS] {
    let mut t = [0u128; CELLS];
    let mut c = 0;
    while c < CELLS {
        let mut k = 0;
        while k < 20 {
            t[c] |= 1u128 << PEERS[c][k];
            k += 1;
        }
        c += 1;
    }
    t
}

const fn build_unit_sets() -> [CellSet; 27] {
    let mut t = [0u128; 27];
    let mut u = 0;
    while u < 27 {
        let mut k = 0;
        while k < 9 {
            t[u] |= 1u128 << UNITS[u][k];
            k += 1;
        }
        u += 1;
    }
    t
}

/// The cells of `set`, lowest first.
#[inline]
pub fn cells_of(mut set: CellSet) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let c = set.trailing_zeros() as usize;
            set &= set - 1;
            c
        })
    })
}

/// The empty cells having digit mask `m` among their candidates.
#[inline]
pub fn cells_with(cand: &Cands, m: u16) -> CellSet {
    let mut set = 0u128;
    for (c, &k) in cand.iter().enumerate() {
        if k & m != 0 {
            set |= 1u128 << c;
        }
    }
    set
}

/// The cells that see every cell of `set` (peers of all of them), `set`
/// itself excluded.
#[inline]
pub fn seeing_all(set: CellSet) -> CellSet {
    let mut common = !0u128 >> (128 - CELLS);
    for c in cells_of(set) {
        common &= PEER_SET[c];
    }
    common & !set
}

/// True when `a` and `b` share a row, column or box (and differ).
#[inline]
pub fn sees(a: usize, b: usize) -> bool {
    PEER_SET[a] >> b & 1 != 0
}

/// The unit index shared by two different cells of the same row (0..9),
/// column (9..18) or box (18..27), preferring a line; `None` when they
/// share none.
pub fn common_unit(a: usize, b: usize) -> Option<usize> {
    let [ra, ca, ba] = CELL_UNITS[a];
    let [rb, cb, bb] = CELL_UNITS[b];
    if a == b {
        return None;
    }
    [(ra, rb), (ca, cb), (ba, bb)]
        .into_iter()
        .find(|(x, y)| x == y)
        .map(|(x, _)| x as usize)
}

/// Candidates removed by one step: per cell, the digits that go.
#[derive(Clone, PartialEq, Eq)]
pub struct Elims {
    cells: CellSet,
    masks: [u16; CELLS],
}

impl Default for Elims {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Elims {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.iter().map(|(c, m)| (crate::grid::cell_name(c), m)))
            .finish()
    }
}

impl Elims {
    pub const fn new() -> Self {
        Elims {
            cells: 0,
            masks: [0; CELLS],
        }
    }

    /// Forgets every removal.
    #[inline]
    pub fn clear(&mut self) {
        for c in cells_of(self.cells) {
            self.masks[c] = 0;
        }
        self.cells = 0;
    }

    /// Notes that `digits` go from `cell` (nothing when `digits` is 0).
    #[inline]
    pub fn add(&mut self, cell: usize, digits: u16) {
        if digits != 0 {
            self.masks[cell] |= digits;
            self.cells |= 1u128 << cell;
        }
    }

    /// Notes that digit mask `m` goes from every cell of `set`.
    #[inline]
    pub fn add_all(&mut self, set: CellSet, m: u16) {
        for c in cells_of(set) {
            self.add(c, m);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.cells == 0
    }

    /// The cells with removals and their digits, lowest cell first.
    pub fn iter(&self) -> impl Iterator<Item = (usize, u16)> + '_ {
        cells_of(self.cells).map(|c| (c, self.masks[c]))
    }

    /// The digits removed from `cell`.
    pub fn of(&self, cell: usize) -> u16 {
        self.masks[cell]
    }

    /// The number of candidates removed.
    pub fn count(&self) -> u32 {
        self.iter().map(|(_, m)| m.count_ones()).sum()
    }
}

/// Every technique the rater names, in ladder order (easiest first). The
/// engine's inference levels use the ones from `NakedPair` to `Aic`; the
/// last three are the rater's measures of what lies beyond the ladder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Technique {
    /// The last empty cell of a row, column or box.
    FullHouse,
    /// A digit with one place left in a box.
    HiddenSingleBox,
    /// A digit with one place left in a row or column.
    HiddenSingleLine,
    /// A cell with one candidate left.
    NakedSingle,
    /// A digit confined to one row or column inside a box, removed from the
    /// rest of that line.
    Pointing,
    /// A digit confined to one box inside a row or column, removed from the
    /// rest of that box.
    Claiming,
    NakedPair,
    XWing,
    HiddenPair,
    NakedTriple,
    Swordfish,
    HiddenTriple,
    XyWing,
    XyzWing,
    NakedQuad,
    Jellyfish,
    HiddenQuad,
    /// A chain of one digit alternating conjugate pairs and shared units.
    XChain,
    /// A chain of bivalue cells.
    XyChain,
    /// An alternating inference chain mixing both kinds of link.
    Aic,
    /// Beyond the ladder: a candidate whose assumption leads, by singles
    /// alone, to a contradiction.
    Trial,
    /// Beyond the ladder: a candidate whose assumption leads to a
    /// contradiction through trials made inside it.
    NestedTrial,
    /// Beyond the ladder: a branch of a search (the rater takes the
    /// solution's value).
    Guess,
}

impl Technique {
    /// Every technique, in ladder order.
    pub const ALL: [Technique; 23] = [
        Technique::FullHouse,
        Technique::HiddenSingleBox,
        Technique::HiddenSingleLine,
        Technique::NakedSingle,
        Technique::Pointing,
        Technique::Claiming,
        Technique::NakedPair,
        Technique::XWing,
        Technique::HiddenPair,
        Technique::NakedTriple,
        Technique::Swordfish,
        Technique::HiddenTriple,
        Technique::XyWing,
        Technique::XyzWing,
        Technique::NakedQuad,
        Technique::Jellyfish,
        Technique::HiddenQuad,
        Technique::XChain,
        Technique::XyChain,
        Technique::Aic,
        Technique::Trial,
        Technique::NestedTrial,
        Technique::Guess,
    ];

    /// The stable snake-case name (CSV columns, `--trace`).
    pub fn name(self) -> &'static str {
        use Technique::*;
        match self {
            FullHouse => "full_house",
            HiddenSingleBox => "hidden_single_box",
            HiddenSingleLine => "hidden_single_line",
            NakedSingle => "naked_single",
            Pointing => "pointing",
            Claiming => "claiming",
            NakedPair => "naked_pair",
            XWing => "x_wing",
            HiddenPair => "hidden_pair",
            NakedTriple => "naked_triple",
            Swordfish => "swordfish",
            HiddenTriple => "hidden_triple",
            XyWing => "xy_wing",
            XyzWing => "xyz_wing",
            NakedQuad => "naked_quad",
            Jellyfish => "jellyfish",
            HiddenQuad => "hidden_quad",
            XChain => "x_chain",
            XyChain => "xy_chain",
            Aic => "aic",
            Trial => "trial",
            NestedTrial => "nested_trial",
            Guess => "guess",
        }
    }

    /// The technique named `name` ([`Technique::name`]).
    pub fn parse(name: &str) -> Option<Technique> {
        Technique::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The engine's inference level that includes this technique
    /// (`None` for the rater's measures beyond the ladder).
    pub fn family(self) -> Option<Family> {
        use Technique::*;
        Some(match self {
            FullHouse | HiddenSingleBox | HiddenSingleLine | NakedSingle => Family::Singles,
            Pointing | Claiming => Family::Locked,
            NakedPair | HiddenPair | NakedTriple | HiddenTriple | NakedQuad | HiddenQuad => {
                Family::Subsets
            }
            XWing | Swordfish | Jellyfish => Family::Fish,
            XyWing | XyzWing => Family::Wings,
            XChain | XyChain | Aic => Family::Chains,
            Trial | NestedTrial | Guess => return None,
        })
    }
}

impl std::fmt::Display for Technique {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name().replace('_', " "))
    }
}

/// The groups of techniques the engine's inference levels add one at a
/// time (`prop=locked`, `subsets`, `fish`, `wings`, `chains`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    Singles,
    Locked,
    Subsets,
    Fish,
    Wings,
    Chains,
}

/// The techniques of the subsets, fish, wings and chains levels, each in
/// its level's order of application.
pub const SUBSETS: [Technique; 6] = [
    Technique::NakedPair,
    Technique::HiddenPair,
    Technique::NakedTriple,
    Technique::HiddenTriple,
    Technique::NakedQuad,
    Technique::HiddenQuad,
];
pub const FISH: [Technique; 3] = [Technique::XWing, Technique::Swordfish, Technique::Jellyfish];
pub const WINGS: [Technique; 2] = [Technique::XyWing, Technique::XyzWing];
pub const CHAINS: [Technique; 3] = [Technique::XChain, Technique::XyChain, Technique::Aic];

/// Runs the finder of technique `t` (one of the subsets, fish, wings or
/// chains techniques) on `cand`. Returns false, with `out` empty, when the
/// pattern removes nothing anywhere; the singles, locked candidates and the
/// rater's measures have no finder here and return false.
pub fn find(t: Technique, cand: &Cands, out: &mut Elims) -> bool {
    use Technique::*;
    out.clear();
    match t {
        NakedPair => subsets::naked(cand, 2, out),
        NakedTriple => subsets::naked(cand, 3, out),
        NakedQuad => subsets::naked(cand, 4, out),
        HiddenPair => subsets::hidden(cand, 2, out),
        HiddenTriple => subsets::hidden(cand, 3, out),
        HiddenQuad => subsets::hidden(cand, 4, out),
        XWing => fish::basic(cand, 2, out),
        Swordfish => fish::basic(cand, 3, out),
        Jellyfish => fish::basic(cand, 4, out),
        XyWing => wings::xy(cand, out),
        XyzWing => wings::xyz(cand, out),
        XChain => chains::find(cand, chains::Kind::X, out).is_some(),
        XyChain => chains::find(cand, chains::Kind::Xy, out).is_some(),
        Aic => chains::find(cand, chains::Kind::Aic, out).is_some(),
        FullHouse | HiddenSingleBox | HiddenSingleLine | NakedSingle | Pointing | Claiming
        | Trial | NestedTrial | Guess => false,
    }
}

/// The first `k` of `masks` (by their positions, in increasing
/// lexicographic order) whose union has exactly `k` bits and for which `f`
/// (given the positions picked, as bits, and the union) returns true.
/// A partial pick whose union already has more than `k` bits is not
/// extended, which leaves the order of the rest, and so the first pick
/// found, as a plain enumeration of every combination would have them.
pub(crate) fn first_subset(masks: &[u16], k: usize, f: &mut impl FnMut(u16, u16) -> bool) -> bool {
    extend(masks, k, 0, 0, 0, f)
}

fn extend(
    masks: &[u16],
    k: usize,
    from: usize,
    pick: u16,
    union: u16,
    f: &mut impl FnMut(u16, u16) -> bool,
) -> bool {
    let depth = pick.count_ones() as usize;
    if depth == k {
        return union.count_ones() as usize == k && f(pick, union);
    }
    for i in from..masks.len() {
        if masks.len() - i < k - depth {
            break;
        }
        let u = union | masks[i];
        if u.count_ones() as usize <= k && extend(masks, k, i + 1, pick | 1 << i, u, f) {
            return true;
        }
    }
    false
}

#[cfg(test)]
pub(crate) mod test_util {
    //! Positions for the finders' tests.
    use super::*;

    /// A mask from digits given as text (`"147"`).
    pub fn m(digits: &str) -> u16 {
        digits.bytes().fold(0, |a, b| a | 1 << (b - b'1'))
    }

    /// Cell index from `r1c1`-style 1-based row and column.
    pub fn rc(r: usize, c: usize) -> usize {
        (r - 1) * 9 + (c - 1)
    }

    /// A position where every cell is empty with no candidates except the
    /// ones set by `cells` (cell, digits) — for patterns shown in isolation.
    pub fn sparse(cells: &[(usize, &str)]) -> Cands {
        let mut cand = [0u16; CELLS];
        for &(c, d) in cells {
            cand[c] = m(d);
        }
        cand
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subsets_are_found_in_order_and_pruning_skips_none() {
        // Every pick whose union has k bits, in order, against a plain
        // enumeration of all combinations.
        let masks = [0b011, 0b110, 0b101, 0b1000, 0b011, 0b1001];
        for k in 1..=4 {
            let mut seen = Vec::new();
            first_subset(&masks, k, &mut |pick, union| {
                seen.push((pick, union));
                false
            });
            let mut want = Vec::new();
            for pick in 0u16..1 << masks.len() {
                if pick.count_ones() as usize == k {
                    let union = (0..masks.len())
                        .filter(|&i| pick >> i & 1 != 0)
                        .fold(0, |u, i| u | masks[i]);
                    if union.count_ones() as usize == k {
                        want.push((pick, union));
                    }
                }
            }
            // Lexicographic order of the positions picked.
            want.sort_by_key(|&(pick, _)| {
                (0..16).filter(|&i| pick >> i & 1 != 0).collect::<Vec<_>>()
            });
            assert_eq!(seen, want, "k = {k}");
        }
        assert!(!first_subset(&masks, 5, &mut |_, _| true));
    }

    #[test]
    fn peer_and_unit_sets_match_the_grid_tables() {
        assert_eq!(PEER_SET[0].count_ones(), 20);
        assert!(!sees(0, 80) && sees(0, 8) && sees(0, 72) && sees(0, 20));
        assert_eq!(UNIT_SET[18].count_ones(), 9);
        assert_eq!(seeing_all(1 | 1 << 8), UNIT_SET[0] & !(1 | 1 << 8));
        assert_eq!(common_unit(0, 10), Some(18));
        assert_eq!(common_unit(0, 9), Some(9));
        assert_eq!(common_unit(0, 40), None);
    }

    #[test]
    fn elims_merge_and_count() {
        let mut e = Elims::new();
        e.add(3, 0b101);
        e.add(3, 0b010);
        e.add(7, 0);
        e.add_all(1 << 10 | 1 << 11, 0b1);
        assert_eq!(e.count(), 5);
        assert_eq!(
            e.iter().map(|(c, _)| c).collect::<Vec<_>>(),
            vec![3, 10, 11]
        );
        e.clear();
        assert!(e.is_empty() && e.count() == 0 && e.of(3) == 0);
    }

    #[test]
    fn names_round_trip() {
        for t in Technique::ALL {
            assert_eq!(Technique::parse(t.name()), Some(t));
        }
        let mut sorted = Technique::ALL;
        sorted.sort();
        assert_eq!(sorted, Technique::ALL);
    }
}
