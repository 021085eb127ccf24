//! bench-sudoku: benchmark Sudoku solver strategies.
//!
//! The library holds the engine ([`solver`]), the puzzle model ([`grid`]) and
//! the command implementations the `bench-sudoku` binary dispatches to.
//!
//! Where things go:
//! - a new **command**: its options and work in a file of [`commands`], one
//!   line in [`cli`]'s `Command` and dispatch (`cli` imports `commands`,
//!   never the other way);
//! - a new **strategy**: a line of [`solver::strategy::NAMED`] (a
//!   configuration of an engine), or an external solver behind
//!   [`solver::ExternalSolver`];
//! - a new **dataset format**: a reader in [`dataset`];
//! - a new **output file**: an exporter in [`report`] (it renders bytes;
//!   [`report::write`] writes them) and its name in [`results::FILES`];
//! - a new **field** of a result: [`bench::metrics::ResultRecord`] (it
//!   reaches summary.json through [`results::Summary`], summary.csv as a
//!   column);
//! - how a run is **timed and scheduled**: [`bench`] (the pipeline, one role
//!   per file).

pub mod bench;
#[cfg(unix)]
pub mod board;
pub mod cli;
pub mod commands;
pub mod compare;
pub mod corpora;
pub mod dataset;
pub mod generate;
pub mod grid;
pub mod history;
pub mod judge;
pub mod random;
pub mod rating;
pub mod report;
pub mod results;
#[cfg(unix)]
pub mod shield;
pub mod solver;
#[cfg(unix)]
pub mod supervise;
pub mod support;

pub use grid::Grid;
