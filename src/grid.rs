//! The puzzle model: 81 cells, parsing from and formatting to the standard
//! 81-character line, and validation of finished grids.

use std::fmt;
use std::str::FromStr;

pub mod pencilmark;
pub mod transform;
mod verify;

/// Number of cells in a grid.
pub const CELLS: usize = 81;

/// A 9×9 Sudoku grid. Each cell holds `0` (blank) or a digit `1..=9`.
///
/// Cells are numbered 0..81 in row-major order; `row = cell / 9`, `col = cell % 9`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Grid {
    cells: [u8; CELLS],
}

/// Why an 81-character line could not be read as a grid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The trimmed line does not hold exactly 81 characters.
    #[error("expected 81 cells, found {found} characters")]
    WrongLength { found: usize },
    /// A character other than `1`-`9`, `0` or `.`; `position` is 1-based.
    #[error("invalid character {ch:?} at position {position} (expected 1-9, 0 or .)")]
    BadChar { position: usize, ch: char },
}

/// Two givens that break a rule: the same digit twice in one row, column or box.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Conflict {
    pub a: u8,
    pub b: u8,
    pub digit: u8,
}

impl fmt::Display for Conflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} and {} are both {}",
            cell_name(self.a as usize),
            cell_name(self.b as usize),
            self.digit
        )
    }
}

/// Why a grid is not a valid solution of a puzzle.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SolutionError {
    #[error("cell {0} is blank")]
    Blank(String),
    #[error("{0}")]
    Rule(String),
    #[error("given {cell}={given} was changed to {found}")]
    GivenChanged { cell: String, given: u8, found: u8 },
}

/// `r{row}c{col}` with 1-based row and column, the usual Sudoku cell name.
pub fn cell_name(cell: usize) -> String {
    format!("r{}c{}", cell / 9 + 1, cell % 9 + 1)
}

/// Row, column and box index of a cell.
#[inline]
pub const fn row_col_box(cell: usize) -> (usize, usize, usize) {
    let r = cell / 9;
    let c = cell % 9;
    (r, c, (r / 3) * 3 + c / 3)
}

/// The 27 units: rows 0..9, columns 9..18, boxes 18..27, each as its 9 cells.
pub const UNITS: [[u8; 9]; 27] = build_units();

/// The three units of every cell, numbered as [`UNITS`]: row, 9 + column,
/// 18 + box.
pub const CELL_UNITS: [[u8; 3]; CELLS] = build_cell_units();

/// The 20 peers of every cell (the other cells of its row, column and box),
/// in increasing order.
pub static PEERS: [[u8; 20]; CELLS] = build_peers();

const fn build_cell_units() -> [[u8; 3]; CELLS] {
    let mut t = [[0u8; 3]; CELLS];
    let mut c = 0;
    while c < CELLS {
        let (r, col, b) = row_col_box(c);
        t[c] = [r as u8, (9 + col) as u8, (18 + b) as u8];
        c += 1;
    }
    t
}

const fn build_peers() -> [[u8; 20]; CELLS] {
    let mut t = [[0u8; 20]; CELLS];
    let mut c = 0;
    while c < CELLS {
        let (r, col, b) = row_col_box(c);
        let mut n = 0;
        let mut p = 0;
        while p < CELLS {
            let (pr, pc, pb) = row_col_box(p);
            if p != c && (pr == r || pc == col || pb == b) {
                t[c][n] = p as u8;
                n += 1;
            }
            p += 1;
        }
        c += 1;
    }
    t
}

const fn build_units() -> [[u8; 9]; 27] {
    let mut u = [[0u8; 9]; 27];
    let mut i = 0;
    while i < 9 {
        let mut j = 0;
        while j < 9 {
            u[i][j] = (i * 9 + j) as u8;
            u[9 + i][j] = (j * 9 + i) as u8;
            let br = (i / 3) * 3;
            let bc = (i % 3) * 3;
            u[18 + i][j] = ((br + j / 3) * 9 + bc + j % 3) as u8;
            j += 1;
        }
        i += 1;
    }
    u
}

impl Grid {
    /// The empty grid.
    pub const fn empty() -> Self {
        Grid { cells: [0; CELLS] }
    }

    /// Builds a grid from cell values (`0` blank, `1..=9` digit).
    ///
    /// Returns `None` when a value is above 9.
    pub fn from_cells(cells: [u8; CELLS]) -> Option<Self> {
        if cells.iter().all(|&v| v <= 9) {
            Some(Grid { cells })
        } else {
            None
        }
    }

    /// Builds a grid from cell values the caller guarantees to be `0..=9`
    /// (checked in debug builds only): for engines that produce the values
    /// themselves.
    pub(crate) fn from_cells_unchecked(cells: [u8; CELLS]) -> Self {
        debug_assert!(cells.iter().all(|&v| v <= 9));
        Grid { cells }
    }

    /// Parses an 81-character line: `1`-`9` a given, `.` or `0` a blank.
    /// Surrounding whitespace (including a trailing `\r`) is ignored.
    pub fn parse(line: &str) -> Result<Self, ParseError> {
        Self::parse_bytes(line.as_bytes())
    }

    /// Exactly 81 cell characters (`1`-`9`, `0` or `.`), nothing else; `None`
    /// for any other byte (so never for bytes holding a newline or blank).
    #[inline]
    pub fn parse_exact(bytes: &[u8; CELLS]) -> Option<Grid> {
        // Branch-free over a fixed-size array (vectorizes); any byte other
        // than 0-9 or '.' sets `bad`.
        let mut cells = [0u8; CELLS];
        let mut bad = false;
        for (cell, &b) in cells.iter_mut().zip(bytes) {
            let d = b.wrapping_sub(b'0');
            let dot = b == b'.';
            bad |= (d > 9) & !dot;
            *cell = if dot { 0 } else { d };
        }
        (!bad).then_some(Grid { cells })
    }

    /// Like [`Grid::parse`], on raw bytes (no UTF-8 requirement up front).
    pub fn parse_bytes(line: &[u8]) -> Result<Self, ParseError> {
        let line = line.trim_ascii();
        if let Some(grid) = <&[u8; CELLS]>::try_from(line)
            .ok()
            .and_then(Grid::parse_exact)
        {
            return Ok(grid);
        }
        // Slow path: say exactly what is wrong.
        let mut n = 0usize;
        for (i, &b) in line.iter().enumerate() {
            if CELL_VALUE[b as usize] & 0x80 != 0 {
                return Err(ParseError::BadChar {
                    position: i + 1,
                    ch: char_at(line, i),
                });
            }
            n += 1;
        }
        Err(ParseError::WrongLength { found: n })
    }

    /// The cell values, row-major, `0` for blank.
    #[inline]
    pub fn cells(&self) -> &[u8; CELLS] {
        &self.cells
    }

    #[inline]
    pub fn get(&self, cell: usize) -> u8 {
        self.cells[cell]
    }

    /// Sets a cell; `value` must be `0..=9`.
    #[inline]
    pub fn set(&mut self, cell: usize, value: u8) {
        debug_assert!(value <= 9);
        self.cells[cell] = value;
    }

    /// Number of givens (non-blank cells).
    pub fn givens(&self) -> usize {
        // A byte-wide sum (at most 81) vectorizes; `filter().count()` does not.
        let mut n = 0u8;
        for &v in &self.cells {
            n += (v != 0) as u8;
        }
        n as usize
    }

    /// True when no cell is blank.
    pub fn is_full(&self) -> bool {
        self.cells.iter().all(|&v| v != 0)
    }

    /// The 81-character line, `.` for blanks.
    pub fn to_line(&self) -> String {
        self.line_with(b'.')
    }

    /// The 81-character line, `0` for blanks (the Kaggle CSV convention).
    pub fn to_line_zeros(&self) -> String {
        self.line_with(b'0')
    }

    fn line_with(&self, blank: u8) -> String {
        let bytes: Vec<u8> = self
            .cells
            .iter()
            .map(|&v| if v == 0 { blank } else { b'0' + v })
            .collect();
        // Every byte is ASCII.
        String::from_utf8(bytes).expect("ASCII")
    }

    /// A readable 9×9 block with box separators, one row per line.
    pub fn to_block(&self) -> String {
        let mut s = String::with_capacity(260);
        for r in 0..9 {
            if r == 3 || r == 6 {
                s.push_str("------+-------+------\n");
            }
            for c in 0..9 {
                if c == 3 || c == 6 {
                    s.push_str("| ");
                }
                let v = self.cells[r * 9 + c];
                s.push(if v == 0 { '.' } else { (b'0' + v) as char });
                if c != 8 {
                    s.push(' ');
                }
            }
            s.push('\n');
        }
        s
    }

    /// The first pair of givens that conflict, if any (row, then column, then box).
    pub fn find_conflict(&self) -> Option<Conflict> {
        for unit in UNITS.iter() {
            let mut seen = [u8::MAX; 10];
            for &cell in unit {
                let v = self.cells[cell as usize];
                if v == 0 {
                    continue;
                }
                if seen[v as usize] != u8::MAX {
                    return Some(Conflict {
                        a: seen[v as usize],
                        b: cell,
                        digit: v,
                    });
                }
                seen[v as usize] = cell;
            }
        }
        None
    }

    /// Checks that `self` is a complete grid obeying every rule and keeping
    /// every given of `puzzle`.
    pub fn check_solution_of(&self, puzzle: &Grid) -> Result<(), SolutionError> {
        if let Some(cell) = self.cells.iter().position(|&v| v == 0) {
            return Err(SolutionError::Blank(cell_name(cell)));
        }
        if let Some(c) = self.find_conflict() {
            return Err(SolutionError::Rule(c.to_string()));
        }
        for (i, (&g, &v)) in puzzle.cells.iter().zip(self.cells.iter()).enumerate() {
            if g != 0 && g != v {
                return Err(SolutionError::GivenChanged {
                    cell: cell_name(i),
                    given: g,
                    found: v,
                });
            }
        }
        Ok(())
    }

    /// True when `self` is a valid solution of `puzzle`: every row, column
    /// and box holds the nine digits, and every given is kept. Cheap enough
    /// to verify every answer of a benchmark run (`grid/verify.rs`).
    #[inline]
    pub fn is_solution_of(&self, puzzle: &Grid) -> bool {
        verify::is_solution(&self.cells, &puzzle.cells)
    }

    /// [`is_solution_of`](Self::is_solution_of) without CPU-specific code:
    /// always the same answer, usually slower (for comparisons;
    /// `examples/answer_check.rs` times both).
    pub fn is_solution_of_portable(&self, puzzle: &Grid) -> bool {
        verify::is_solution_portable(&self.cells, &puzzle.cells)
    }
}

/// Cell value of each byte: `1`-`9` → 1..9, `0`/`.` → 0, anything else 0x80.
static CELL_VALUE: [u8; 256] = {
    let mut t = [0x80u8; 256];
    let mut d = 1;
    while d <= 9 {
        t[b'0' as usize + d] = d as u8;
        d += 1;
    }
    t[b'0' as usize] = 0;
    t[b'.' as usize] = 0;
    t
};

fn char_at(line: &[u8], i: usize) -> char {
    // Decode the (possibly multi-byte) character starting at byte i for the message.
    match std::str::from_utf8(&line[i..]) {
        Ok(s) => s.chars().next().unwrap_or('\u{FFFD}'),
        Err(e) if e.valid_up_to() > 0 => std::str::from_utf8(&line[i..i + e.valid_up_to()])
            .ok()
            .and_then(|s| s.chars().next())
            .unwrap_or('\u{FFFD}'),
        Err(_) => '\u{FFFD}',
    }
}

impl Default for Grid {
    fn default() -> Self {
        Grid::empty()
    }
}

impl FromStr for Grid {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Grid::parse(s)
    }
}

impl fmt::Display for Grid {
    /// The 81-character line; `{:#}` gives the 9×9 block.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            f.write_str(&self.to_block())
        } else {
            f.write_str(&self.to_line())
        }
    }
}

impl fmt::Debug for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Grid({})", self.to_line())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: &str =
        "009020034070008006600500000003900080700040002050002700000001007200300090480060500";

    #[test]
    fn parse_roundtrip_and_formats() {
        let g = Grid::parse(P).unwrap();
        assert_eq!(g.to_line_zeros(), P);
        assert_eq!(g.to_line(), P.replace('0', "."));
        assert_eq!(Grid::parse(&g.to_line()).unwrap(), g);
        assert_eq!(g.givens(), 27);
        let block = g.to_block();
        assert_eq!(block.lines().count(), 11);
        assert_eq!(block.lines().next().unwrap(), ". . 9 | . 2 . | . 3 4");
        assert_eq!(block.lines().nth(3).unwrap(), "------+-------+------");
    }

    #[test]
    fn tolerates_whitespace_and_cr() {
        let line = format!("  {P}\r\n");
        assert_eq!(Grid::parse(&line).unwrap(), Grid::parse(P).unwrap());
    }

    #[test]
    fn wrong_length_is_an_error() {
        assert_eq!(
            Grid::parse(&P[..80]),
            Err(ParseError::WrongLength { found: 80 })
        );
        assert_eq!(
            Grid::parse(&format!("{P}1")),
            Err(ParseError::WrongLength { found: 82 })
        );
        assert_eq!(Grid::parse(""), Err(ParseError::WrongLength { found: 0 }));
    }

    #[test]
    fn bad_character_names_position_and_char() {
        let mut s = P.to_string();
        s.replace_range(4..5, "x");
        let e = Grid::parse(&s).unwrap_err();
        assert_eq!(
            e,
            ParseError::BadChar {
                position: 5,
                ch: 'x'
            }
        );
        assert!(e.to_string().contains("position 5"));
        let mut s = P.to_string();
        s.replace_range(10..11, "é");
        assert_eq!(
            Grid::parse(&s).unwrap_err(),
            ParseError::BadChar {
                position: 11,
                ch: 'é'
            }
        );
    }

    #[test]
    fn units_cover_every_cell_three_times() {
        let mut count = [0; 81];
        for u in UNITS.iter() {
            for &c in u {
                count[c as usize] += 1;
            }
        }
        assert!(count.iter().all(|&n| n == 3));
        assert_eq!(UNITS[18 + 4], [30, 31, 32, 39, 40, 41, 48, 49, 50]);
    }

    #[test]
    fn fast_and_detailed_solution_checks_agree() {
        let sol = Grid::parse(
            "812753649943682175675491283154237896369845721287169534521974368438526917796318452",
        )
        .unwrap();
        let puzzle = Grid::parse(
            "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4..",
        )
        .unwrap();
        assert!(sol.is_solution_of(&puzzle));
        assert!(sol.check_solution_of(&puzzle).is_ok());
        // A changed given, a duplicate, a blank: both checks reject.
        let mut other = Grid::empty();
        other.set(1, 2); // the solution has 1 there
        assert!(!sol.is_solution_of(&other));
        let mut dup = sol;
        dup.set(0, 9);
        let mut blank = sol;
        blank.set(40, 0);
        // Swapping two cells of a row keeps rows and givens-free puzzles valid
        // only if columns still hold; here they do not.
        let mut swapped = sol;
        swapped.set(0, sol.get(1));
        swapped.set(1, sol.get(0));
        for g in [dup, blank, swapped] {
            assert!(!g.is_solution_of(&Grid::empty()), "{g}");
            assert!(g.check_solution_of(&Grid::empty()).is_err(), "{g}");
        }
        // Out-of-range cell values (which no public constructor makes) are
        // never taken for a digit, including 16 + d, which a 4-bit index
        // would alias to d.
        for (cell, v) in [(0, 10u8), (40, 17), (80, 255), (3, 24)] {
            let mut cells = *sol.cells();
            cells[cell] = v;
            let g = Grid { cells };
            assert!(!g.is_solution_of(&Grid::empty()), "{cell} {v}");
        }
    }

    #[test]
    fn conflicts_are_found_and_named() {
        let mut g = Grid::empty();
        g.set(0, 5);
        g.set(8, 5);
        let c = g.find_conflict().unwrap();
        assert_eq!(c.to_string(), "r1c1 and r1c9 are both 5");
        let mut g = Grid::empty();
        g.set(0, 3);
        g.set(20, 3);
        assert_eq!(
            g.find_conflict().unwrap().to_string(),
            "r1c1 and r3c3 are both 3"
        );
    }
}
