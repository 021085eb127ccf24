//! The `dlx` engine: Sudoku as exact cover, solved by Algorithm X with
//! dancing links (Knuth), the column with the fewest rows first.
//!
//! The matrix has 729 rows (a digit in a cell) and 324 columns (each cell
//! filled once; each digit once per row, per column and per box); every row
//! has four 1s. It is built once per [`Workspace`] as circular doubly linked
//! lists (index arrays, no pointers) and every solve leaves it exactly as it
//! found it: givens and ruled-out candidates are applied by covering columns
//! and unlinking rows, and undone in reverse order at the end, so the hot
//! path never allocates or copies the matrix.
//!
//! Counters, in exact-cover terms (same names and meaning as the other
//! engines, so the columns compare):
//! * `guesses`: rows tried at a column that had two or more rows left (a
//!   real choice); a column with one row is forced, not a guess;
//! * `backtracks`: guesses undone (equal to `guesses` when the search runs
//!   to completion);
//! * `max_depth`: the deepest nesting of open choices;
//! * `nodes`: the root plus one per guess (forced rows are the singles
//!   below, as propagation is in the other engines);
//! * `naked_singles`: forced rows of a cell column (a cell with one digit
//!   left); `hidden_singles`: forced rows of a row/column/box column (a
//!   digit with one place left in a unit).

use super::observer::{observe, Contradiction, Observer, Reason};
use super::{Counters, Limits, SolveResult, Status};
use crate::grid::{Grid, CELLS};

/// Header 0 is the root; column `k` (0..324) has header `1 + k`.
const ROOT: usize = 0;
const COLUMNS: usize = 324;
/// First row node: row `x` (0..729, `x = 9 * cell + digit - 1`) has nodes
/// `FIRST + 4 * x + 0..4` (its cell, row, column and box columns).
const FIRST: usize = 1 + COLUMNS;
const NODES: usize = FIRST + 4 * 729;

/// The four column headers of row `x`.
fn columns_of(x: usize) -> [usize; 4] {
    let (cell, d) = (x / 9, x % 9);
    let (r, c) = (cell / 9, cell % 9);
    let b = r / 3 * 3 + c / 3;
    [
        1 + cell,
        1 + 81 + 9 * r + d,
        1 + 162 + 9 * c + d,
        1 + 243 + 9 * b + d,
    ]
}

/// One open level of the search: the column chosen and the row being tried.
#[derive(Clone, Copy, Default)]
struct Frame {
    col: u16,
    node: u16,
    /// The column had two or more rows: its rows are guesses.
    choice: bool,
}

/// Per-thread workspace of the `dlx` engine: the linked matrix and the
/// search stack, allocated once.
pub struct Workspace {
    l: Box<[u16]>,
    r: Box<[u16]>,
    u: Box<[u16]>,
    d: Box<[u16]>,
    /// Column header of every node.
    col: Box<[u16]>,
    /// Rows left in each column (index: header).
    size: Box<[u16]>,
    frames: Box<[Frame]>,
    /// Rows unlinked for ruled-out candidates in this solve, in order.
    removed: Vec<u16>,
}

impl Default for Workspace {
    fn default() -> Self {
        Self::new()
    }
}

impl Workspace {
    /// Builds the full matrix (the engine's only allocation).
    pub fn new() -> Self {
        let mut w = Workspace {
            l: vec![0; NODES].into_boxed_slice(),
            r: vec![0; NODES].into_boxed_slice(),
            u: vec![0; NODES].into_boxed_slice(),
            d: vec![0; NODES].into_boxed_slice(),
            col: vec![0; NODES].into_boxed_slice(),
            size: vec![0; FIRST].into_boxed_slice(),
            frames: vec![Frame::default(); CELLS].into_boxed_slice(),
            removed: Vec::with_capacity(729),
        };
        // Headers: a ring through the root; each column's vertical ring
        // starts empty.
        for h in 0..FIRST {
            w.l[h] = ((h + FIRST - 1) % FIRST) as u16;
            w.r[h] = ((h + 1) % FIRST) as u16;
            w.u[h] = h as u16;
            w.d[h] = h as u16;
            w.col[h] = h as u16;
        }
        for x in 0..729 {
            let base = FIRST + 4 * x;
            for (k, &h) in columns_of(x).iter().enumerate() {
                let n = base + k;
                w.l[n] = (base + (k + 3) % 4) as u16;
                w.r[n] = (base + (k + 1) % 4) as u16;
                // Append at the bottom of column h.
                let last = w.u[h] as usize;
                w.u[n] = last as u16;
                w.d[n] = h as u16;
                w.d[last] = n as u16;
                w.u[h] = n as u16;
                w.col[n] = h as u16;
                w.size[h] += 1;
            }
        }
        w
    }

    #[inline(always)]
    fn cover(&mut self, c: usize) {
        let (l, r) = (self.l[c] as usize, self.r[c] as usize);
        self.r[l] = r as u16;
        self.l[r] = l as u16;
        let mut i = self.d[c] as usize;
        while i != c {
            let mut j = self.r[i] as usize;
            while j != i {
                let (u, d) = (self.u[j] as usize, self.d[j] as usize);
                self.d[u] = d as u16;
                self.u[d] = u as u16;
                self.size[self.col[j] as usize] -= 1;
                j = self.r[j] as usize;
            }
            i = self.d[i] as usize;
        }
    }

    #[inline(always)]
    fn uncover(&mut self, c: usize) {
        let mut i = self.u[c] as usize;
        while i != c {
            let mut j = self.l[i] as usize;
            while j != i {
                let (u, d) = (self.u[j] as usize, self.d[j] as usize);
                self.size[self.col[j] as usize] += 1;
                self.d[u] = j as u16;
                self.u[d] = j as u16;
                j = self.l[j] as usize;
            }
            i = self.u[i] as usize;
        }
        let (l, r) = (self.l[c] as usize, self.r[c] as usize);
        self.r[l] = c as u16;
        self.l[r] = c as u16;
    }

    /// Selects the row of node `n`, whose own column is already covered:
    /// covers its three other columns.
    #[inline(always)]
    fn select(&mut self, n: usize) {
        let mut j = self.r[n] as usize;
        while j != n {
            self.cover(self.col[j] as usize);
            j = self.r[j] as usize;
        }
    }

    #[inline(always)]
    fn unselect(&mut self, n: usize) {
        let mut j = self.l[n] as usize;
        while j != n {
            self.uncover(self.col[j] as usize);
            j = self.l[j] as usize;
        }
    }

    /// Takes row `x` out of its four columns (a ruled-out candidate).
    fn unlink_row(&mut self, x: usize) {
        for n in FIRST + 4 * x..FIRST + 4 * x + 4 {
            let (u, d) = (self.u[n] as usize, self.d[n] as usize);
            self.d[u] = d as u16;
            self.u[d] = u as u16;
            self.size[self.col[n] as usize] -= 1;
        }
    }

    fn relink_row(&mut self, x: usize) {
        for n in (FIRST + 4 * x..FIRST + 4 * x + 4).rev() {
            let (u, d) = (self.u[n] as usize, self.d[n] as usize);
            self.size[self.col[n] as usize] += 1;
            self.d[u] = n as u16;
            self.u[d] = n as u16;
        }
    }

    /// The digits (9-bit mask) still possible in `cell`: the rows left in
    /// its column (for traces only).
    fn cell_candidates(&self, cell: usize) -> u16 {
        let h = 1 + cell;
        let mut m = 0u16;
        let mut i = self.d[h] as usize;
        while i != h {
            m |= 1 << ((i - FIRST) / 4 % 9);
            i = self.d[i] as usize;
        }
        m
    }

    /// Solves `puzzle` within `limits`, reporting events to `obs`.
    pub fn solve<O: Observer>(
        &mut self,
        puzzle: &Grid,
        limits: &Limits,
        obs: &mut O,
    ) -> SolveResult {
        self.solve_restricted(puzzle, None, limits, obs)
    }

    /// Solves `puzzle` with, when `allowed` is given, digit `d` possible in
    /// blank cell `c` only when bit `d - 1` of `allowed[c]` is set. A given
    /// whose own digit is not allowed leaves no solution.
    pub fn solve_restricted<O: Observer>(
        &mut self,
        puzzle: &Grid,
        allowed: Option<&[u16; CELLS]>,
        limits: &Limits,
        obs: &mut O,
    ) -> SolveResult {
        if puzzle.find_conflict().is_some() {
            return SolveResult::invalid(puzzle);
        }
        self.removed.clear();
        if let Some(allowed) = allowed {
            for (cell, (&mask, &v)) in allowed.iter().zip(puzzle.cells()).enumerate() {
                if v != 0 {
                    if mask & (1 << (v - 1)) == 0 {
                        self.restore_removed();
                        return SolveResult::given_ruled_out(puzzle);
                    }
                    continue;
                }
                let mut gone = !mask & 0x1ff;
                while gone != 0 {
                    let d = gone.trailing_zeros() as usize;
                    gone &= gone - 1;
                    let x = 9 * cell + d;
                    self.unlink_row(x);
                    self.removed.push(x as u16);
                }
            }
        }
        // Givens: select their rows. Conflict-free givens share no column,
        // and no given's row was unlinked above (only blank cells' rows are).
        for (cell, &v) in puzzle.cells().iter().enumerate() {
            if v != 0 {
                let n = FIRST + 4 * (9 * cell + v as usize - 1);
                self.cover(self.col[n] as usize);
                self.select(n);
            }
        }
        let result = self.search(puzzle, limits, obs);
        for cell in (0..CELLS).rev() {
            let v = puzzle.get(cell);
            if v != 0 {
                let n = FIRST + 4 * (9 * cell + v as usize - 1);
                self.unselect(n);
                self.uncover(self.col[n] as usize);
            }
        }
        self.restore_removed();
        result
    }

    fn restore_removed(&mut self) {
        while let Some(x) = self.removed.pop() {
            self.relink_row(x as usize);
        }
    }

    /// Algorithm X from the state the givens left, with an explicit stack;
    /// returns with every frame undone.
    fn search<O: Observer>(&mut self, puzzle: &Grid, limits: &Limits, obs: &mut O) -> SolveResult {
        let mut counters = Counters {
            nodes: 1,
            ..Counters::default()
        };
        let mut sp = 0usize;
        let mut depth = 0u32;
        let mut solutions = 0u32;
        let mut first = *puzzle;
        let mut status = None;
        let givens = puzzle.givens() as u32;
        'search: loop {
            let backtrack = if self.r[ROOT] as usize == ROOT {
                // Every column covered: a solution.
                solutions += 1;
                observe!(O, obs.solution(solutions));
                if solutions == 1 {
                    let mut g = *puzzle;
                    for f in &self.frames[..sp] {
                        let x = (f.node as usize - FIRST) / 4;
                        g.set(x / 9, (x % 9) as u8 + 1);
                    }
                    first = g;
                }
                if solutions >= limits.solutions {
                    break 'search;
                }
                true
            } else {
                // The column with the fewest rows (stop at one).
                let mut c = self.r[ROOT] as usize;
                let (mut best, mut fewest) = (c, u16::MAX);
                while c != ROOT {
                    let s = self.size[c];
                    if s < fewest {
                        best = c;
                        fewest = s;
                        if s <= 1 {
                            break;
                        }
                    }
                    c = self.r[c] as usize;
                }
                if fewest == 0 {
                    observe!(O, obs.contradiction(dead_end(best), depth));
                    true
                } else {
                    let choice = fewest >= 2;
                    if choice && counters.guesses >= limits.max_guesses {
                        status = Some(Status::GaveUp);
                        break 'search;
                    }
                    let n = self.d[best] as usize;
                    let x = (n - FIRST) / 4;
                    let (cell, digit) = (x / 9, (x % 9) as u8 + 1);
                    if choice {
                        depth += 1;
                        counters.max_depth = counters.max_depth.max(depth);
                        counters.guesses += 1;
                        observe!(
                            O,
                            obs.guess(cell as u8, digit, self.cell_candidates(cell), depth)
                        );
                    } else if best <= CELLS {
                        counters.naked_singles += 1;
                        observe!(O, obs.placed(cell as u8, digit, Reason::NakedSingle, depth));
                    } else {
                        counters.hidden_singles += 1;
                        observe!(
                            O,
                            obs.placed(cell as u8, digit, Reason::HiddenSingle, depth)
                        );
                    }
                    counters.nodes += choice as u64;
                    self.cover(best);
                    self.select(n);
                    self.frames[sp] = Frame {
                        col: best as u16,
                        node: n as u16,
                        choice,
                    };
                    sp += 1;
                    false
                }
            };
            if !backtrack {
                continue;
            }
            // Undo the newest row and try the next one of its column; pop
            // columns with none left.
            loop {
                if sp == 0 {
                    break 'search;
                }
                let f = self.frames[sp - 1];
                let n = f.node as usize;
                self.unselect(n);
                if f.choice {
                    counters.backtracks += 1;
                }
                let next = self.d[n] as usize;
                if next != f.col as usize {
                    // Only a choice column has a next row.
                    if counters.guesses >= limits.max_guesses {
                        self.uncover(f.col as usize);
                        sp -= 1;
                        status = Some(Status::GaveUp);
                        break 'search;
                    }
                    observe!(O, obs.backtrack(depth - 1));
                    let x = (next - FIRST) / 4;
                    counters.guesses += 1;
                    counters.nodes += 1;
                    observe!(
                        O,
                        obs.guess(
                            (x / 9) as u8,
                            (x % 9) as u8 + 1,
                            self.cell_candidates(x / 9),
                            depth
                        )
                    );
                    self.select(next);
                    self.frames[sp - 1].node = next as u16;
                    continue 'search;
                }
                self.uncover(f.col as usize);
                sp -= 1;
                if f.choice {
                    depth -= 1;
                    observe!(O, obs.backtrack(depth));
                }
            }
        }
        // Undo what is still selected (a solution limit or the budget ended
        // the search early).
        while sp > 0 {
            let f = self.frames[sp - 1];
            self.unselect(f.node as usize);
            self.uncover(f.col as usize);
            sp -= 1;
        }
        let status = status.unwrap_or(Status::of_completed_search(solutions));
        SolveResult {
            status,
            solutions,
            grid: first,
            counters,
            filled: if solutions > 0 {
                (CELLS as u32 - givens) as u8
            } else {
                0
            },
            conflict: None,
        }
    }
}

/// The dead end an empty column means.
fn dead_end(header: usize) -> Contradiction {
    let k = header - 1;
    match k / 81 {
        0 => Contradiction::NoCandidates { cell: k as u8 },
        kind => {
            let (unit, digit) = ((k % 81) / 9, (k % 9) as u8 + 1);
            // Units: rows 0..9, columns 9..18, boxes 18..27.
            Contradiction::NoPlace {
                unit: (9 * (kind - 1) + unit) as u8,
                digit,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::NoopObserver;

    /// The matrix as a comparable snapshot.
    fn snapshot(w: &Workspace) -> Vec<u16> {
        [&w.l, &w.r, &w.u, &w.d, &w.size]
            .iter()
            .flat_map(|a| a.iter().copied())
            .collect()
    }

    #[test]
    fn the_matrix_has_four_ones_per_row_and_nine_rows_per_column() {
        let w = Workspace::new();
        assert!(w.size[1..].iter().all(|&s| s == 9));
        for x in 0..729 {
            let n = FIRST + 4 * x;
            assert_eq!(w.r[w.r[w.r[w.r[n] as usize] as usize] as usize] as usize, n);
        }
    }

    #[test]
    fn every_solve_leaves_the_matrix_as_it_found_it() {
        let mut w = Workspace::new();
        let before = snapshot(&w);
        let puzzle = Grid::parse(
            "000000010400000000020000000000050407008000300001090000300400200050100000000806000",
        )
        .unwrap();
        for limits in [
            Limits::first(),
            Limits::uniqueness(),
            Limits::uniqueness().with_max_guesses(3),
            Limits::first().with_solutions(50),
        ] {
            w.solve(&puzzle, &limits, &mut NoopObserver);
            assert!(snapshot(&w) == before, "{limits:?}");
        }
        let mut allowed = [0x1ffu16; CELLS];
        allowed[0] = 0b101;
        allowed[5] = 0;
        w.solve_restricted(
            &puzzle,
            Some(&allowed),
            &Limits::uniqueness(),
            &mut NoopObserver,
        );
        assert!(snapshot(&w) == before);
        w.solve(
            &Grid::empty(),
            &Limits::first().with_solutions(10),
            &mut NoopObserver,
        );
        assert!(snapshot(&w) == before);
    }
}
