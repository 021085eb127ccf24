//! The `fast` engine: band bitboards, band-level locked candidates by table
//! lookup, cheap singles, bivalue branching. See docs/FAST.md for the design.
//!
//! Representation ([`Board`]): for every digit `d` and band `b` (three rows),
//! one `u32` holds the 27 cells of the band where `d` is still possible
//! (`cand[3 * d + b]`); `unsolved[b]` holds the band's cells without a value.
//! A placed cell keeps exactly its own digit's bit, so a finished board reads
//! off as a grid directly.
//!
//! Propagation works on a dirty set of the 27 digit-bands:
//! * band update: the minirow mask of the digit in the band is looked up in
//!   [`tables::PERM`], which keeps only minirows taking part in some way of
//!   placing the digit once per row and once per box of the band (locked
//!   candidates, both directions, inside the band); a row left with a single
//!   unsolved cell is a hidden single; a column that is its box's only
//!   possible column is removed from the two other bands;
//! * once no band is dirty: naked singles (and empty cells) of all bands by
//!   bit-sliced counting over the nine digits, then hidden singles in columns.
//!
//! Search: an explicit stack of boards (no recursion); the branch cell is the
//! first bivalue cell (else a fewest-candidate cell), values ascending. The
//! last value of a branch cell reuses its parent board instead of copying it.

mod tables;

use super::observer::{observe, Contradiction, Observer, Reason};
use super::{Counters, Limits, SolveResult, Status};
use crate::grid::{Grid, CELLS};
use tables::{BAND, BAND_PEERS, COLUMN, KEEP_COLS, PERM, ROW_MINIROWS};

/// The search state: per digit-band candidates and unsolved cells.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Board {
    /// `cand[3 * d + b]`: cells of band `b` where digit `d + 1` may go.
    cand: [u32; 27],
    /// Cells of each band without a value yet.
    unsolved: [u32; 3],
}

impl Board {
    const FULL: Board = Board {
        cand: [BAND; 27],
        unsolved: [BAND; 3],
    };
}

/// One open branch: the board it started from and the values left to try.
#[derive(Clone, Copy, Default)]
struct Frame {
    /// Index in the board stack of the board before the guess.
    board: u8,
    cell: u8,
    /// The branch cell's candidates when the branch opened (9-bit digit mask).
    cands: u16,
    /// Candidates not tried yet.
    remaining: u16,
}

/// Boards on the stack: the root, plus at most one per open frame.
const STACK: usize = CELLS + 2;

/// Per-thread workspace of the `fast` engine. Allocated once by
/// [`Workspace::new`]; a solve allocates nothing.
pub struct Workspace {
    boards: Box<[Board]>,
    frames: Box<[Frame]>,
}

impl Default for Workspace {
    fn default() -> Self {
        Self::new()
    }
}

/// The other two bands of each band.
const OTHER: [[usize; 2]; 3] = [[1, 2], [0, 2], [0, 1]];

/// Per-solve bookkeeping shared by the propagation helpers.
struct Run<'o, O: Observer> {
    counters: Counters,
    obs: &'o mut O,
    /// Open branch frames (for observer events).
    depth: u32,
    /// Digit-bands (`3 * d + b`) changed since they were last updated.
    dirty: u32,
}

/// 9-bit minirow mask of a band (bit `3 * row + box`).
#[inline(always)]
fn minirows(a: u32) -> usize {
    ROW_MINIROWS[(a & 511) as usize] as usize
        | (ROW_MINIROWS[((a >> 9) & 511) as usize] as usize) << 3
        | (ROW_MINIROWS[(a >> 18) as usize & 511] as usize) << 6
}

/// The cells of `a` that are alone in their band row. Every row of `a` must
/// be non-empty.
#[inline(always)]
fn row_singles(a: u32) -> u32 {
    // Lowest bit of each row: no borrow crosses a row because none is empty.
    let low = a & !(a.wrapping_sub(1 | (1 << 9) | (1 << 18)));
    let rest = a ^ low;
    let mut keep = 0;
    if rest & 511 == 0 {
        keep |= 511;
    }
    if rest & (511 << 9) == 0 {
        keep |= 511 << 9;
    }
    if rest & (511 << 18) == 0 {
        keep |= 511 << 18;
    }
    low & keep
}

/// Candidate digits (9-bit mask) of band cell `p` in band `band`.
#[inline(always)]
fn cell_cands(b: &Board, band: usize, p: u32) -> u16 {
    let mut m = 0u16;
    for d in 0..9 {
        m |= (((b.cand[3 * d + band] >> p) & 1) as u16) << d;
    }
    m
}

impl<O: Observer> Run<'_, O> {
    /// Places digit `d` (0-based) in cell `p` of band `band`, which must
    /// still have it as a candidate: the cell loses its other digits, the
    /// digit leaves the cell's row, box and column. Marks changed digit-bands
    /// dirty.
    #[inline(always)]
    fn place(&mut self, b: &mut Board, d: usize, band: usize, p: u32) {
        let bit = 1u32 << p;
        b.unsolved[band] &= !bit;
        let i = 3 * d + band;
        let own = b.cand[i];
        let mut dirty = self.dirty;
        for d2 in 0..9 {
            let j = 3 * d2 + band;
            let x = b.cand[j];
            b.cand[j] = x & !bit;
            dirty |= (((x & bit) != 0) as u32) << j;
        }
        let new_own = own & !BAND_PEERS[p as usize];
        b.cand[i] = new_own;
        dirty = (dirty & !(1 << i)) | (((new_own != own) as u32) << i);
        let col = COLUMN[(p % 9) as usize];
        for o in OTHER[band] {
            let j = 3 * d + o;
            let x = b.cand[j];
            b.cand[j] = x & !col;
            dirty |= (((x & col) != 0) as u32) << j;
        }
        self.dirty = dirty;
    }

    /// Brings digit-band `i` up to date. False on a contradiction.
    #[inline(always)]
    fn update_band(&mut self, b: &mut Board, i: usize) -> bool {
        let d = i / 3;
        let band = i % 3;
        loop {
            let a = b.cand[i];
            let a2 = a & PERM[minirows(a)];
            if a2 == 0 {
                observe!(O, self.report_band(a, d, band));
                return false;
            }
            b.cand[i] = a2;
            let mut s = row_singles(a2) & b.unsolved[band];
            if s == 0 {
                let cols = (a2 | (a2 >> 9) | (a2 >> 18)) & 511;
                let keep = KEEP_COLS[cols as usize];
                let mut dirty = self.dirty;
                for o in OTHER[band] {
                    let j = 3 * d + o;
                    let x = b.cand[j];
                    let y = x & keep;
                    b.cand[j] = y;
                    dirty |= ((x != y) as u32) << j;
                }
                self.dirty = dirty;
                return true;
            }
            while s != 0 {
                let p = s.trailing_zeros();
                s &= s - 1;
                // An earlier single of this batch may have taken the place;
                // the emptied row is caught on the next round.
                if b.cand[i] & (1 << p) != 0 {
                    self.counters.hidden_singles += 1;
                    observe!(
                        O,
                        self.obs.placed(
                            (27 * band as u32 + p) as u8,
                            d as u8 + 1,
                            Reason::HiddenSingle,
                            self.depth
                        )
                    );
                    self.place(b, d, band, p);
                }
            }
            self.dirty &= !(1 << i);
        }
    }

    /// Observer only: names a unit where digit `d` has no place after the
    /// band update of `a` failed.
    fn report_band(&mut self, a: u32, d: usize, band: usize) {
        let mut unit = 3 * band as u8; // default: the band's first row
        for r in 0..3 {
            if (a >> (9 * r)) & 511 == 0 {
                unit = (3 * band + r) as u8;
                break;
            }
        }
        for k in 0..3 {
            let boxm = (7 << (3 * k)) * ((1 << 18) | (1 << 9) | 1);
            if a & boxm == 0 {
                unit = (18 + 3 * band + k) as u8;
                break;
            }
        }
        self.obs.contradiction(
            Contradiction::NoPlace {
                unit,
                digit: d as u8 + 1,
            },
            self.depth,
        );
    }

    /// Propagates to a fixpoint. False on a contradiction.
    fn propagate(&mut self, b: &mut Board) -> bool {
        loop {
            while self.dirty != 0 {
                let i = self.dirty.trailing_zeros() as usize;
                self.dirty &= self.dirty - 1;
                if !self.update_band(b, i) {
                    self.dirty = 0;
                    return false;
                }
            }
            // Naked singles and empty cells, band by band.
            for band in 0..3 {
                let u = b.unsolved[band];
                if u == 0 {
                    continue;
                }
                let (mut one, mut two) = (0u32, 0u32);
                for d in 0..9 {
                    let x = b.cand[3 * d + band];
                    two |= one & x;
                    one |= x;
                }
                if u & !one != 0 {
                    observe!(
                        O,
                        self.obs.contradiction(
                            Contradiction::NoCandidates {
                                cell: (27 * band as u32 + (u & !one).trailing_zeros()) as u8
                            },
                            self.depth
                        )
                    );
                    self.dirty = 0;
                    return false;
                }
                let mut s = one & !two & u;
                while s != 0 {
                    let p = s.trailing_zeros();
                    s &= s - 1;
                    let bit = 1 << p;
                    let mut d = 0;
                    while d < 9 && b.cand[3 * d + band] & bit == 0 {
                        d += 1;
                    }
                    if d == 9 {
                        // Its last digit went to an earlier single's peer.
                        observe!(
                            O,
                            self.obs.contradiction(
                                Contradiction::NoCandidates {
                                    cell: (27 * band as u32 + p) as u8
                                },
                                self.depth
                            )
                        );
                        self.dirty = 0;
                        return false;
                    }
                    self.counters.naked_singles += 1;
                    observe!(
                        O,
                        self.obs.placed(
                            (27 * band as u32 + p) as u8,
                            d as u8 + 1,
                            Reason::NakedSingle,
                            self.depth
                        )
                    );
                    self.place(b, d, band, p);
                }
            }
            if self.dirty != 0 {
                continue;
            }
            return true;
        }
    }
}

/// True when every cell has a value.
#[inline(always)]
fn complete(b: &Board) -> bool {
    (b.unsolved[0] | b.unsolved[1] | b.unsolved[2]) == 0
}

/// The grid of a board (placed cells only).
fn to_grid(b: &Board) -> Grid {
    let mut cells = [0u8; CELLS];
    for band in 0..3 {
        let solved = BAND & !b.unsolved[band];
        for d in 0..9 {
            let mut m = b.cand[3 * d + band] & solved;
            while m != 0 {
                let p = m.trailing_zeros() as usize;
                m &= m - 1;
                cells[27 * band + p] = d as u8 + 1;
            }
        }
    }
    // Values are 0..=9 by construction.
    Grid::from_cells(cells).unwrap_or_default()
}

/// The branch cell (band, position) of a propagated, unfinished board: the
/// first cell with two candidates, else the first with the fewest.
#[inline(always)]
fn choose(b: &Board) -> (usize, u32) {
    for band in 0..3 {
        let u = b.unsolved[band];
        if u == 0 {
            continue;
        }
        let (mut one, mut two, mut three) = (0u32, 0u32, 0u32);
        for d in 0..9 {
            let x = b.cand[3 * d + band];
            three |= two & x;
            two |= one & x;
            one |= x;
        }
        let bival = two & !three & u;
        if bival != 0 {
            return (band, bival.trailing_zeros());
        }
    }
    choose_fewest(b)
}

/// The first cell with the fewest candidates (no cell has two).
#[cold]
fn choose_fewest(b: &Board) -> (usize, u32) {
    let mut best = (0usize, 0u32);
    let mut best_n = u32::MAX;
    for band in 0..3 {
        let mut rest = b.unsolved[band];
        while rest != 0 {
            let p = rest.trailing_zeros();
            rest &= rest - 1;
            let n = cell_cands(b, band, p).count_ones();
            if n < best_n {
                best = (band, p);
                best_n = n;
            }
        }
    }
    best
}

impl Workspace {
    /// Allocates the board and frame stacks (the engine's only allocation).
    pub fn new() -> Self {
        Workspace {
            boards: vec![Board::FULL; STACK].into_boxed_slice(),
            frames: vec![Frame::default(); CELLS].into_boxed_slice(),
        }
    }

    /// Solves `puzzle` within `limits`, reporting events to `obs`.
    pub fn solve<O: Observer>(
        &mut self,
        puzzle: &Grid,
        limits: &Limits,
        obs: &mut O,
    ) -> SolveResult {
        let boards = &mut self.boards[..];
        let frames = &mut self.frames[..];
        let mut run = Run {
            counters: Counters::default(),
            obs,
            depth: 0,
            dirty: 0,
        };

        // Givens. A given whose digit is no longer a candidate of its cell
        // repeats the digit of a peer given (placing only removes the digit
        // from peers), so the puzzle is invalid.
        boards[0] = Board::FULL;
        let mut givens = 0u32;
        for (cell, &v) in puzzle.cells().iter().enumerate() {
            if v == 0 {
                continue;
            }
            let (d, band, p) = (v as usize - 1, cell / 27, (cell % 27) as u32);
            if d >= 9 || boards[0].cand[3 * d + band] & (1 << p) == 0 {
                return SolveResult::invalid(puzzle);
            }
            run.place(&mut boards[0], d, band, p);
            givens += 1;
        }
        let result = |status: Status, solutions: u32, grid: Grid, counters: Counters| {
            let empty = grid.cells().iter().filter(|&&v| v == 0).count() as u32;
            SolveResult {
                status,
                solutions,
                grid,
                counters,
                filled: (CELLS as u32 - givens - empty) as u8,
                conflict: None,
            }
        };

        run.counters.nodes = 1;
        let mut w = 0usize; // the working board
        let mut sp = 0usize; // open frames
        let mut solutions = 0u32;
        let mut first = *puzzle;
        let mut ok = run.propagate(&mut boards[0]);
        'search: loop {
            if ok {
                if complete(&boards[w]) {
                    solutions += 1;
                    observe!(O, run.obs.solution(solutions));
                    if solutions == 1 {
                        first = to_grid(&boards[w]);
                    }
                    if solutions >= limits.solutions {
                        break 'search;
                    }
                    // Count on: treat as a dead end and backtrack.
                } else {
                    if run.counters.guesses >= limits.max_guesses {
                        return result(Status::GaveUp, solutions, first, run.counters);
                    }
                    let (band, p) = choose(&boards[w]);
                    let cands = cell_cands(&boards[w], band, p);
                    let d = cands.trailing_zeros() as usize;
                    let cell = 27 * band as u32 + p;
                    frames[sp] = Frame {
                        board: w as u8,
                        cell: cell as u8,
                        cands,
                        remaining: cands & !(1 << d),
                    };
                    sp += 1;
                    run.depth = sp as u32;
                    if run.depth > run.counters.max_depth {
                        run.counters.max_depth = run.depth;
                    }
                    let (lo, hi) = boards.split_at_mut(w + 1);
                    hi[0] = lo[w];
                    w += 1;
                    run.counters.guesses += 1;
                    run.counters.nodes += 1;
                    observe!(O, run.obs.guess(cell as u8, d as u8 + 1, cands, run.depth));
                    run.place(&mut boards[w], d, band, p);
                    ok = run.propagate(&mut boards[w]);
                    continue 'search;
                }
            }
            // Backtrack: undo the newest guess and try the next value of the
            // newest frame that still has one.
            loop {
                if sp == 0 {
                    break 'search;
                }
                run.counters.backtracks += 1;
                let frame = &mut frames[sp - 1];
                if frame.remaining == 0 {
                    sp -= 1;
                    run.depth = sp as u32;
                    observe!(O, run.obs.backtrack(run.depth));
                    continue;
                }
                if run.counters.guesses >= limits.max_guesses {
                    return result(Status::GaveUp, solutions, first, run.counters);
                }
                let d = frame.remaining.trailing_zeros() as usize;
                frame.remaining &= !(1 << d);
                let base = frame.board as usize;
                let cell = frame.cell as u32;
                let cands = frame.cands;
                if frame.remaining != 0 {
                    let (lo, hi) = boards.split_at_mut(base + 1);
                    hi[0] = lo[base];
                    w = base + 1;
                } else {
                    // The last value: the parent board is not needed again.
                    w = base;
                }
                observe!(O, run.obs.backtrack(run.depth - 1));
                run.counters.guesses += 1;
                run.counters.nodes += 1;
                observe!(O, run.obs.guess(cell as u8, d as u8 + 1, cands, run.depth));
                run.dirty = 0;
                run.place(&mut boards[w], d, (cell / 27) as usize, cell % 27);
                ok = run.propagate(&mut boards[w]);
                continue 'search;
            }
        }

        let status = match solutions {
            0 => Status::NoSolution,
            1 => Status::Solved,
            _ => Status::Multiple,
        };
        result(status, solutions, first, run.counters)
    }
}
