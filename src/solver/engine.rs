//! The generic, instrumented bitmask engine shared by every classic strategy.
//!
//! State ([`Board`]): a 9-bit candidate mask per empty cell (0 once filled),
//! the digits used in each of the 27 units, the cell values and a bitset of
//! empty cells. Placing a digit removes it from the 20 peers with a
//! branch-free loop that also notes new naked singles and emptied cells.
//!
//! Search: no recursion. An explicit stack of at most 81 frames, each a copy
//! of the board taken before a guess plus the untried candidates of its branch
//! cell. The stack lives in a [`Workspace`] allocated once per thread, so a
//! solve allocates nothing.
//!
//! Propagation is a const generic parameter so that each level compiles to its
//! own loop; the branch heuristic and value order are plain data.

use super::observer::{observe, Contradiction, Locked, Observer, Reason};
use super::strategy::{Branch, Config, Propagation, ValueOrder};
use super::techniques::{self, Elims, Technique, CHAINS, FISH, SUBSETS, WINGS};
use super::{Counters, Limits, SolveResult, Status};
use crate::grid::{Grid, CELLS, CELL_UNITS, PEERS, UNITS};

const ALL: u16 = 0x1FF;

const LVL_NONE: u8 = 0;
const LVL_FORWARD: u8 = 1;
const LVL_NAKED: u8 = 2;
const LVL_HIDDEN: u8 = 3;
const LVL_LOCKED: u8 = 4;
const LVL_SUBSETS: u8 = 5;
const LVL_FISH: u8 = 6;
const LVL_WINGS: u8 = 7;
const LVL_CHAINS: u8 = 8;

fn level(p: Propagation) -> u8 {
    match p {
        Propagation::None => LVL_NONE,
        Propagation::Forward => LVL_FORWARD,
        Propagation::Naked => LVL_NAKED,
        Propagation::Hidden => LVL_HIDDEN,
        Propagation::Locked => LVL_LOCKED,
        Propagation::Subsets => LVL_SUBSETS,
        Propagation::Fish => LVL_FISH,
        Propagation::Wings => LVL_WINGS,
        Propagation::Chains => LVL_CHAINS,
    }
}

/// Cells of the 54 triads (three cells where a row or column meets a box).
/// Triad `t < 27`: row `t / 3`, box column `t % 3`. Triad `27 + t`: column
/// `t / 3`, box row `t % 3`.
static TRIADS: [[u8; 3]; 54] = build_triads();

const fn build_triads() -> [[u8; 3]; 54] {
    let mut t = [[0u8; 3]; 54];
    let mut i = 0;
    while i < 27 {
        let (line, seg) = (i / 3, i % 3);
        let mut k = 0;
        while k < 3 {
            t[i][k] = (line * 9 + seg * 3 + k) as u8;
            t[27 + i][k] = ((seg * 3 + k) * 9 + line) as u8;
            k += 1;
        }
        i += 1;
    }
    t
}

#[derive(Clone, Copy)]
struct Board {
    /// Candidates of each empty cell; 0 for a filled cell.
    cand: [u16; CELLS],
    /// Digits placed in each unit.
    used: [u16; 27],
    /// Empty cells.
    empty: u128,
    /// Cell values, 0 for empty.
    val: [u8; CELLS],
}

impl Board {
    const fn new() -> Self {
        Board {
            cand: [ALL; CELLS],
            used: [0; 27],
            empty: (1u128 << CELLS) - 1,
            val: [0; CELLS],
        }
    }
}

#[derive(Clone, Copy)]
struct Frame {
    board: Board,
    cell: u8,
    /// Candidates of the branch cell not yet tried.
    remaining: u16,
}

/// Per-thread workspace: the search stack and the naked-single queue.
pub struct Workspace {
    stack: Box<[Frame]>,
    /// Cells that became naked singles, not yet processed (LIFO).
    queue: [u8; CELLS + 1],
    qlen: usize,
    /// Set when an elimination emptied a cell.
    zero: bool,
}

impl Default for Workspace {
    fn default() -> Self {
        Self::new()
    }
}

/// Search state shared by the engine's helpers for one solve.
struct Run<'a, O: Observer> {
    ws: &'a mut Workspace,
    counters: Counters,
    #[cfg_attr(feature = "strip-observer", allow(dead_code))]
    obs: &'a mut O,
    depth: u32,
}

impl Workspace {
    pub fn new() -> Self {
        let frame = Frame {
            board: Board::new(),
            cell: 0,
            remaining: 0,
        };
        Workspace {
            stack: vec![frame; CELLS].into_boxed_slice(),
            queue: [0; CELLS + 1],
            qlen: 0,
            zero: false,
        }
    }

    /// Solves `puzzle` under `config` and `limits`.
    pub fn solve<O: Observer>(
        &mut self,
        puzzle: &Grid,
        config: &Config,
        limits: &Limits,
        obs: &mut O,
    ) -> SolveResult {
        self.solve_restricted(puzzle, None, config, limits, obs)
    }

    /// Solves `puzzle` with, when `allowed` is given, digit `d` possible in
    /// blank cell `c` only when bit `d - 1` of `allowed[c]` is set (a
    /// pencilmark puzzle). A given whose own digit is not allowed leaves no
    /// solution.
    pub fn solve_restricted<O: Observer>(
        &mut self,
        puzzle: &Grid,
        allowed: Option<&[u16; CELLS]>,
        config: &Config,
        limits: &Limits,
        obs: &mut O,
    ) -> SolveResult {
        match level(config.node) {
            LVL_NONE => self.solve_at::<LVL_NONE, O>(puzzle, allowed, config, limits, obs),
            LVL_FORWARD => self.solve_at::<LVL_FORWARD, O>(puzzle, allowed, config, limits, obs),
            LVL_NAKED => self.solve_at::<LVL_NAKED, O>(puzzle, allowed, config, limits, obs),
            LVL_HIDDEN => self.solve_at::<LVL_HIDDEN, O>(puzzle, allowed, config, limits, obs),
            LVL_LOCKED => self.solve_at::<LVL_LOCKED, O>(puzzle, allowed, config, limits, obs),
            LVL_SUBSETS => self.solve_at::<LVL_SUBSETS, O>(puzzle, allowed, config, limits, obs),
            LVL_FISH => self.solve_at::<LVL_FISH, O>(puzzle, allowed, config, limits, obs),
            LVL_WINGS => self.solve_at::<LVL_WINGS, O>(puzzle, allowed, config, limits, obs),
            _ => self.solve_at::<LVL_CHAINS, O>(puzzle, allowed, config, limits, obs),
        }
    }

    fn solve_at<const L: u8, O: Observer>(
        &mut self,
        puzzle: &Grid,
        allowed: Option<&[u16; CELLS]>,
        config: &Config,
        limits: &Limits,
        obs: &mut O,
    ) -> SolveResult {
        let mut run = Run {
            ws: self,
            counters: Counters::default(),
            obs,
            depth: 0,
        };
        run.ws.qlen = 0;
        run.ws.zero = false;

        // Givens: a given that is no longer a candidate conflicts with a peer.
        let mut b = Board::new();
        for (cell, &v) in puzzle.cells().iter().enumerate() {
            if v != 0 {
                if b.cand[cell] & bit(v) == 0 {
                    return SolveResult::invalid(puzzle);
                }
                run.place(&mut b, cell, v);
            }
        }
        if let Some(allowed) = allowed {
            for (cell, (&mask, &v)) in allowed.iter().zip(puzzle.cells()).enumerate() {
                if v != 0 {
                    if mask & bit(v) == 0 {
                        return SolveResult::given_ruled_out(puzzle);
                    }
                } else if mask & ALL != ALL {
                    // Queues the singles and notes an emptied cell for the
                    // root propagation, like a placement would.
                    run.remove(&mut b, cell, !mask & ALL);
                }
            }
        }
        let givens = CELLS as u32 - b.empty.count_ones();
        let result = |status: Status, solutions: u32, grid: Grid, counters: Counters| {
            let filled = CELLS as u32 - givens - grid_empty(&grid);
            SolveResult {
                status,
                solutions,
                grid,
                counters,
                filled: filled as u8,
                conflict: None,
            }
        };

        run.counters.nodes = 1;
        let root_ok = match level(config.root_level()) {
            LVL_NONE => run.propagate::<LVL_NONE>(&mut b),
            LVL_FORWARD => run.propagate::<LVL_FORWARD>(&mut b),
            LVL_NAKED => run.propagate::<LVL_NAKED>(&mut b),
            LVL_HIDDEN => run.propagate::<LVL_HIDDEN>(&mut b),
            LVL_LOCKED => run.propagate::<LVL_LOCKED>(&mut b),
            LVL_SUBSETS => run.propagate::<LVL_SUBSETS>(&mut b),
            LVL_FISH => run.propagate::<LVL_FISH>(&mut b),
            LVL_WINGS => run.propagate::<LVL_WINGS>(&mut b),
            _ => run.propagate::<LVL_CHAINS>(&mut b),
        };

        let mut solutions = 0u32;
        let mut first = *puzzle;
        let mut sp = 0usize; // frames on the stack
        let mut ok = root_ok;
        'search: loop {
            if ok {
                if b.empty == 0 {
                    solutions += 1;
                    observe!(O, run.obs.solution(solutions));
                    if solutions == 1 {
                        first = to_grid(&b);
                    }
                    if solutions >= limits.solutions {
                        break 'search;
                    }
                    // Count on: treat as a dead end and backtrack.
                } else if !config.guess {
                    let grid = to_grid(&b);
                    return result(Status::Stalled, 0, grid, run.counters);
                } else {
                    let cell = choose(&b, config.branch);
                    let cands = b.cand[cell];
                    if cands == 0 {
                        observe!(
                            O,
                            run.obs.contradiction(
                                Contradiction::NoCandidates { cell: cell as u8 },
                                run.depth
                            )
                        );
                    } else if cands & (cands - 1) == 0 {
                        // One legal value (only without propagation): forced.
                        let v = cands.trailing_zeros() as u8 + 1;
                        run.counters.nodes += 1;
                        observe!(O, run.obs.placed(cell as u8, v, Reason::Forced, run.depth));
                        run.place(&mut b, cell, v);
                        ok = run.propagate::<L>(&mut b);
                        continue 'search;
                    } else {
                        if run.counters.guesses >= limits.max_guesses {
                            return result(Status::GaveUp, solutions, first, run.counters);
                        }
                        let v = pick(cands, config.order);
                        run.ws.stack[sp] = Frame {
                            board: b,
                            cell: cell as u8,
                            remaining: cands & !bit(v),
                        };
                        sp += 1;
                        run.depth = sp as u32;
                        if run.depth > run.counters.max_depth {
                            run.counters.max_depth = run.depth;
                        }
                        run.counters.guesses += 1;
                        run.counters.nodes += 1;
                        observe!(O, run.obs.guess(cell as u8, v, cands, run.depth));
                        run.place(&mut b, cell, v);
                        ok = run.propagate::<L>(&mut b);
                        continue 'search;
                    }
                }
            }
            // Backtrack: undo the newest guess and try the next value of the
            // newest frame that still has one.
            loop {
                if sp == 0 {
                    break 'search;
                }
                run.counters.backtracks += 1;
                let frame = &mut run.ws.stack[sp - 1];
                if frame.remaining == 0 {
                    sp -= 1;
                    run.depth = sp as u32;
                    observe!(O, run.obs.backtrack(run.depth));
                    continue;
                }
                if run.counters.guesses >= limits.max_guesses {
                    return result(Status::GaveUp, solutions, first, run.counters);
                }
                let v = pick(frame.remaining, config.order);
                frame.remaining &= !bit(v);
                let cell = frame.cell as usize;
                b = frame.board;
                let cands = b.cand[cell];
                run.ws.qlen = 0;
                run.ws.zero = false;
                observe!(O, run.obs.backtrack(run.depth - 1));
                run.counters.guesses += 1;
                run.counters.nodes += 1;
                observe!(O, run.obs.guess(cell as u8, v, cands, run.depth));
                run.place(&mut b, cell, v);
                ok = run.propagate::<L>(&mut b);
                continue 'search;
            }
        }

        result(
            Status::of_completed_search(solutions),
            solutions,
            first,
            run.counters,
        )
    }
}

#[inline(always)]
fn bit(v: u8) -> u16 {
    1 << (v - 1)
}

#[inline(always)]
fn pick(mask: u16, order: ValueOrder) -> u8 {
    match order {
        ValueOrder::Asc => mask.trailing_zeros() as u8 + 1,
        ValueOrder::Desc => 16 - mask.leading_zeros() as u8,
    }
}

fn to_grid(b: &Board) -> Grid {
    // Values are 0..=9 by construction.
    Grid::from_cells(b.val).unwrap_or_default()
}

fn grid_empty(g: &Grid) -> u32 {
    g.cells().iter().filter(|&&v| v == 0).count() as u32
}

/// The branch cell; `b` has at least one empty cell.
#[inline]
fn choose(b: &Board, branch: Branch) -> usize {
    match branch {
        Branch::First => b.empty.trailing_zeros() as usize,
        Branch::Mrv => {
            let mut best = b.empty.trailing_zeros() as usize;
            let mut best_n = 10;
            let mut rest = b.empty;
            while rest != 0 {
                let c = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let n = b.cand[c].count_ones();
                if n < best_n {
                    best = c;
                    best_n = n;
                    if n <= 2 {
                        break;
                    }
                }
            }
            best
        }
        Branch::Max => {
            let mut best = b.empty.trailing_zeros() as usize;
            let mut best_n = 0;
            let mut rest = b.empty;
            while rest != 0 {
                let c = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let n = b.cand[c].count_ones();
                if n > best_n {
                    best = c;
                    best_n = n;
                }
            }
            best
        }
    }
}

impl<O: Observer> Run<'_, O> {
    /// Places `v` in empty `cell` (which must have it as a candidate) and
    /// removes it from the peers, queueing new naked singles and noting any
    /// peer left without candidates.
    #[inline(always)]
    fn place(&mut self, b: &mut Board, cell: usize, v: u8) {
        let m = bit(v);
        b.val[cell] = v;
        b.cand[cell] = 0;
        b.empty &= !(1u128 << cell);
        let [r, c, x] = CELL_UNITS[cell];
        b.used[r as usize] |= m;
        b.used[c as usize] |= m;
        b.used[x as usize] |= m;
        let ws = &mut *self.ws;
        let mut qlen = ws.qlen;
        let mut zero = false;
        for &p in PEERS[cell].iter() {
            let p = p as usize;
            let old = b.cand[p];
            let new = old & !m;
            b.cand[p] = new;
            let changed = old != new;
            // A cell whose last two candidates became one is a new naked single.
            let single = changed & (new & new.wrapping_sub(1) == 0) & (new != 0);
            zero |= changed & (new == 0);
            ws.queue[qlen] = p as u8;
            qlen += single as usize;
        }
        ws.qlen = qlen;
        ws.zero |= zero;
    }

    /// Removes `mask` from empty `cell`; queues a new single, notes a zero.
    #[inline(always)]
    fn remove(&mut self, b: &mut Board, cell: usize, mask: u16) {
        let old = b.cand[cell];
        let new = old & !mask;
        if new != old {
            b.cand[cell] = new;
            if new & new.wrapping_sub(1) == 0 {
                if new == 0 {
                    self.ws.zero = true;
                } else {
                    self.ws.queue[self.ws.qlen] = cell as u8;
                    self.ws.qlen += 1;
                }
            }
        }
    }

    /// Reports the first empty cell without candidates (trace only).
    fn report_zero(&mut self, b: &Board) {
        observe!(O, {
            let mut rest = b.empty;
            while rest != 0 {
                let c = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                if b.cand[c] == 0 {
                    self.obs
                        .contradiction(Contradiction::NoCandidates { cell: c as u8 }, self.depth);
                    break;
                }
            }
        });
        let _ = b;
    }

    /// Runs propagation level `LV` to its fixpoint. Returns false on a
    /// contradiction.
    #[inline(always)]
    fn propagate<const LV: u8>(&mut self, b: &mut Board) -> bool {
        if LV == LVL_NONE {
            self.ws.qlen = 0;
            self.ws.zero = false;
            return true;
        }
        if LV == LVL_FORWARD {
            self.ws.qlen = 0;
            let z = self.ws.zero;
            self.ws.zero = false;
            if z {
                self.report_zero(b);
            }
            return !z;
        }
        loop {
            if self.ws.zero {
                self.report_zero(b);
                self.ws.zero = false;
                self.ws.qlen = 0;
                return false;
            }
            // Naked singles.
            while self.ws.qlen > 0 {
                self.ws.qlen -= 1;
                let cell = self.ws.queue[self.ws.qlen] as usize;
                let c = b.cand[cell];
                if c == 0 {
                    continue; // filled meanwhile (a zero would have been flagged)
                }
                let v = c.trailing_zeros() as u8 + 1;
                self.counters.naked_singles += 1;
                observe!(
                    O,
                    self.obs
                        .placed(cell as u8, v, Reason::NakedSingle, self.depth)
                );
                self.place(b, cell, v);
                if self.ws.zero {
                    self.report_zero(b);
                    self.ws.zero = false;
                    self.ws.qlen = 0;
                    return false;
                }
            }
            if LV >= LVL_HIDDEN {
                match self.hidden_pass(b) {
                    Pass::Contradiction => {
                        self.ws.zero = false;
                        self.ws.qlen = 0;
                        return false;
                    }
                    Pass::Progress => continue,
                    Pass::Nothing => {}
                }
            }
            if LV >= LVL_LOCKED && self.locked_pass(b) {
                continue;
            }
            if LV >= LVL_SUBSETS && self.pattern_step(b, &SUBSETS) {
                continue;
            }
            if LV >= LVL_FISH && self.pattern_step(b, &FISH) {
                continue;
            }
            if LV >= LVL_WINGS && self.pattern_step(b, &WINGS) {
                continue;
            }
            if LV >= LVL_CHAINS && self.pattern_step(b, &CHAINS) {
                continue;
            }
            return true;
        }
    }

    /// The first of `ladder`'s techniques that removes a candidate, applied
    /// (new singles queued, an emptied cell flagged) and counted. Returns
    /// false when none applies.
    #[inline(never)]
    fn pattern_step(&mut self, b: &mut Board, ladder: &[Technique]) -> bool {
        let mut found = Elims::new();
        for &t in ladder {
            if !techniques::find(t, &b.cand, &mut found) {
                continue;
            }
            let n = u64::from(found.count());
            match t.family() {
                Some(techniques::Family::Subsets) => self.counters.subset_eliminations += n,
                Some(techniques::Family::Fish) => self.counters.fish_eliminations += n,
                Some(techniques::Family::Wings) => self.counters.wing_eliminations += n,
                _ => self.counters.chain_eliminations += n,
            }
            for (c, m) in found.iter() {
                observe!(O, self.obs.inferred(c as u8, m, t));
                self.remove(b, c, m);
            }
            return true;
        }
        false
    }

    /// One sweep over the 27 units placing every hidden single found.
    fn hidden_pass(&mut self, b: &mut Board) -> Pass {
        if b.empty == 0 {
            return Pass::Nothing;
        }
        let mut progress = false;
        for (u, unit) in UNITS.iter().enumerate() {
            let mut once = 0u16;
            let mut twice = 0u16;
            for &c in unit {
                let m = b.cand[c as usize];
                twice |= once & m;
                once |= m;
            }
            if (once | b.used[u]) != ALL {
                observe!(O, {
                    let missing = ALL & !(once | b.used[u]);
                    self.obs.contradiction(
                        Contradiction::NoPlace {
                            unit: u as u8,
                            digit: missing.trailing_zeros() as u8 + 1,
                        },
                        self.depth,
                    )
                });
                return Pass::Contradiction;
            }
            let mut hidden = once & !twice;
            while hidden != 0 {
                let m = hidden & hidden.wrapping_neg();
                hidden &= hidden - 1;
                // The unit's only cell that can hold the digit.
                let mut cell = usize::MAX;
                for &c in unit {
                    if b.cand[c as usize] & m != 0 {
                        cell = c as usize;
                        break;
                    }
                }
                if cell == usize::MAX {
                    // An earlier placement of this pass took the digit's last place.
                    observe!(
                        O,
                        self.obs.contradiction(
                            Contradiction::NoPlace {
                                unit: u as u8,
                                digit: m.trailing_zeros() as u8 + 1
                            },
                            self.depth
                        )
                    );
                    return Pass::Contradiction;
                }
                let v = m.trailing_zeros() as u8 + 1;
                self.counters.hidden_singles += 1;
                observe!(
                    O,
                    self.obs
                        .placed(cell as u8, v, Reason::HiddenSingle, self.depth)
                );
                self.place(b, cell, v);
                progress = true;
                if self.ws.zero {
                    self.report_zero(b);
                    return Pass::Contradiction;
                }
            }
        }
        if progress {
            Pass::Progress
        } else {
            Pass::Nothing
        }
    }

    /// One sweep of locked candidates over the 54 triads. Returns true when a
    /// candidate was removed (a zero, if any, is flagged for the caller).
    fn locked_pass(&mut self, b: &mut Board) -> bool {
        let mut tri = [0u16; 54];
        for (t, cells) in TRIADS.iter().enumerate() {
            tri[t] =
                b.cand[cells[0] as usize] | b.cand[cells[1] as usize] | b.cand[cells[2] as usize];
        }
        let mut changed = false;
        // Horizontal triads (base 0) then vertical (base 27): a triad is
        // (line, seg); its line-siblings are the other segs of the line, its
        // box-siblings the other lines of the same band at the same seg.
        for base in [0usize, 27] {
            for line in 0..9usize {
                for seg in 0..3usize {
                    let t = base + line * 3 + seg;
                    let mine = tri[t];
                    if mine == 0 {
                        continue;
                    }
                    let l1 = base + line * 3 + (seg + 1) % 3;
                    let l2 = base + line * 3 + (seg + 2) % 3;
                    let band = line / 3 * 3;
                    let b1 = base + (band + (line + 1) % 3) * 3 + seg;
                    let b2 = base + (band + (line + 2) % 3) * 3 + seg;
                    // Pointing: confined to this triad within the box.
                    let pointing = mine & !(tri[b1] | tri[b2]) & (tri[l1] | tri[l2]);
                    if pointing != 0 {
                        let boxx = if base == 0 {
                            band + seg
                        } else {
                            seg * 3 + line / 3
                        };
                        let why = Locked::Pointing {
                            boxx: boxx as u8,
                            unit: if base == 0 {
                                line as u8
                            } else {
                                9 + line as u8
                            },
                        };
                        for s in [l1, l2] {
                            self.remove_from_triad(b, &mut tri, s, pointing, why);
                        }
                        changed = true;
                    }
                    // Claiming: confined to this triad within the line.
                    let claiming = mine & !(tri[l1] | tri[l2]) & (tri[b1] | tri[b2]);
                    if claiming != 0 {
                        let boxx = if base == 0 {
                            band + seg
                        } else {
                            seg * 3 + line / 3
                        };
                        let why = Locked::Claiming {
                            unit: if base == 0 {
                                line as u8
                            } else {
                                9 + line as u8
                            },
                            boxx: boxx as u8,
                        };
                        for s in [b1, b2] {
                            self.remove_from_triad(b, &mut tri, s, claiming, why);
                        }
                        changed = true;
                    }
                    if self.ws.zero {
                        return true;
                    }
                }
            }
        }
        changed
    }

    #[inline]
    fn remove_from_triad(
        &mut self,
        b: &mut Board,
        tri: &mut [u16; 54],
        t: usize,
        mask: u16,
        why: Locked,
    ) {
        let cells = TRIADS[t];
        let mut acc = 0;
        for &c in &cells {
            let c = c as usize;
            let gone = b.cand[c] & mask;
            self.counters.locked_eliminations += u64::from(gone.count_ones());
            observe!(O, {
                if gone != 0 {
                    self.obs.eliminated(c as u8, gone, why);
                }
            });
            self.remove(b, c, mask);
            acc |= b.cand[c];
        }
        tri[t] = acc;
        // The crossing triads of the other orientation are now stale (only
        // larger); refresh the ones these cells belong to.
        let other = if t < 27 { 27 } else { 0 };
        for &c in &cells {
            let (r, col) = (c as usize / 9, c as usize % 9);
            let o = if other == 27 {
                27 + col * 3 + r / 3
            } else {
                r * 3 + col / 3
            };
            let oc = TRIADS[o];
            tri[o] = b.cand[oc[0] as usize] | b.cand[oc[1] as usize] | b.cand[oc[2] as usize];
        }
        let _ = why;
    }
}

enum Pass {
    Contradiction,
    Progress,
    Nothing,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peers_are_the_twenty_cells_sharing_a_unit() {
        for (c, peers) in PEERS.iter().enumerate() {
            let mut seen = [false; 81];
            for &p in peers {
                assert_ne!(p as usize, c);
                assert!(!seen[p as usize]);
                seen[p as usize] = true;
            }
        }
        assert_eq!(PEERS[0][..8], [1, 2, 3, 4, 5, 6, 7, 8]);
    }

    #[test]
    fn triads_are_row_and_column_segments() {
        assert_eq!(TRIADS[0], [0, 1, 2]);
        assert_eq!(TRIADS[5], [15, 16, 17]);
        assert_eq!(TRIADS[27], [0, 9, 18]);
        assert_eq!(TRIADS[27 + 3 * 4 + 2], [58, 67, 76]);
    }
}
