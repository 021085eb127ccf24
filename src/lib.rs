//! bench-sudoku: benchmark Sudoku solver strategies.
//!
//! The library holds the engine ([`solver`]), the puzzle model ([`grid`]) and
//! the command implementations the `bench-sudoku` binary dispatches to.

pub mod bench;
pub mod cli;
pub mod commands;
pub mod compare;
pub mod dataset;
pub mod generate;
pub mod grid;
pub mod report;
pub mod results;
pub mod solver;

pub use grid::Grid;
