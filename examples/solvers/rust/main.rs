//! A solver written in Rust, benchmarked by bench-sudoku beside its own
//! strategies: implement `SolverInstance` (one per thread: puzzle in,
//! answer out) and `ExternalSolver` (what it reports, how to make an
//! instance), and hand it to `bench_sudoku::cli::main_with`, which is the
//! whole `bench-sudoku` command with one more strategy.
//!
//! ```sh
//! cargo run --release --example rust_solver -- run datasets/hard.csv -s fast -s rust-example
//! cargo run --release --example rust_solver -- solve -s rust-example 800000000070090200003600000050007000000045700000100030001000068008500010090000400
//! ```
//!
//! The harness times every call, verifies every answer and checks every
//! count, as for any external solver. The algorithm here is the plainest
//! that is not slow: bitmasks of the digits each row, column and box
//! already holds, no propagation, and a search that branches on the empty
//! cell with the fewest candidates.

use bench_sudoku::grid::{Grid, CELLS};
use bench_sudoku::solver::{
    Answer, Capabilities, Clock, Counter, CounterSet, Counters, ExternalSolver, Limits,
    SolverInstance,
};
use std::sync::Arc;

/// What the whole run shares: the description of the solver.
#[derive(Debug)]
struct Example;

impl ExternalSolver for Example {
    fn default_label(&self) -> String {
        "rust-example".into()
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            counters: CounterSet::of(&[Counter::Guesses, Counter::Backtracks, Counter::MaxDepth]),
            clock: Clock::Harness,
            trace: false,
            budget: true,
        }
    }

    fn spec(&self) -> String {
        "rust=examples/solvers/rust/main.rs".into()
    }

    fn description(&self) -> String {
        "example Rust solver: digit bitmasks, fewest-candidate cell, no propagation".into()
    }

    fn instance(&self) -> anyhow::Result<Box<dyn SolverInstance>> {
        Ok(Box::new(Search::new(&Limits::default())))
    }
}

/// One thread's solver: the grid being filled and what the search counts.
struct Search {
    cells: [u8; CELLS],
    /// Digits used in each row, column and box, as bits 1..=9.
    rows: [u16; 9],
    cols: [u16; 9],
    boxes: [u16; 9],
    limit: u32,
    budget: u64,
    found: u32,
    first: Option<[u8; CELLS]>,
    counters: Counters,
    gave_up: bool,
}

fn box_of(cell: usize) -> usize {
    (cell / 27) * 3 + (cell % 9) / 3
}

impl Search {
    fn new(limits: &Limits) -> Search {
        Search {
            cells: [0; CELLS],
            rows: [0; 9],
            cols: [0; 9],
            boxes: [0; 9],
            limit: limits.solutions.max(1),
            budget: limits.max_guesses,
            found: 0,
            first: None,
            counters: Counters::default(),
            gave_up: false,
        }
    }

    fn candidates(&self, cell: usize) -> u16 {
        !(self.rows[cell / 9] | self.cols[cell % 9] | self.boxes[box_of(cell)]) & 0x3FE
    }

    fn set(&mut self, cell: usize, digit: u8) {
        let bit = 1u16 << digit;
        self.cells[cell] = digit;
        self.rows[cell / 9] |= bit;
        self.cols[cell % 9] |= bit;
        self.boxes[box_of(cell)] |= bit;
    }

    fn clear(&mut self, cell: usize, digit: u8) {
        let bit = !(1u16 << digit);
        self.cells[cell] = 0;
        self.rows[cell / 9] &= bit;
        self.cols[cell % 9] &= bit;
        self.boxes[box_of(cell)] &= bit;
    }

    /// Counts solutions below this node; stops at the limit or the budget.
    fn search(&mut self, depth: u32) {
        // The empty cell with the fewest candidates.
        let mut best: Option<(usize, u16)> = None;
        for cell in 0..CELLS {
            if self.cells[cell] != 0 {
                continue;
            }
            let c = self.candidates(cell);
            if best.is_none_or(|(_, b)| c.count_ones() < b.count_ones()) {
                best = Some((cell, c));
                if c.count_ones() <= 1 {
                    break;
                }
            }
        }
        let Some((cell, mut cands)) = best else {
            self.found += 1;
            if self.first.is_none() {
                self.first = Some(self.cells);
            }
            return;
        };
        let branching = cands.count_ones() >= 2;
        let depth = depth + branching as u32;
        while cands != 0 {
            let digit = cands.trailing_zeros() as u8;
            cands &= cands - 1;
            if branching {
                if self.counters.guesses >= self.budget {
                    self.gave_up = true;
                    return;
                }
                self.counters.guesses += 1;
                self.counters.max_depth = self.counters.max_depth.max(depth);
            }
            self.set(cell, digit);
            self.search(depth);
            self.clear(cell, digit);
            if self.found >= self.limit || self.gave_up {
                return;
            }
            if branching {
                self.counters.backtracks += 1;
            }
        }
    }
}

impl SolverInstance for Search {
    fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Answer {
        *self = Search::new(limits);
        let mut valid = true;
        for (cell, &d) in puzzle.cells().iter().enumerate() {
            if d != 0 {
                valid &= self.candidates(cell) & (1 << d) != 0;
                self.set(cell, d);
            }
        }
        if valid {
            self.search(0);
        }
        let first = self.first.and_then(Grid::from_cells).unwrap_or(*puzzle);
        let mut answer = Answer::counted(puzzle, self.found, first, self.counters);
        if self.gave_up {
            answer.result.status = bench_sudoku::solver::Status::GaveUp;
        }
        answer
    }
}

fn main() {
    std::process::exit(bench_sudoku::cli::main_with(vec![(
        "rust-example".into(),
        Arc::new(Example),
    )]));
}
