//! Temporary runner for the generator until `bench-sudoku generate` exists:
//!
//! ```text
//! cargo run --release --example generate -- --count 1000 --seed 1 --max-guesses 0 --out easy.csv
//! ```
//!
//! Takes exactly the flags of `bench-sudoku generate`.

use bench_sudoku::generate::cli::{run, GenerateArgs};
use clap::Parser;

#[derive(Parser)]
#[command(name = "generate")]
struct Cli {
    #[command(flatten)]
    args: GenerateArgs,
}

fn main() -> anyhow::Result<()> {
    run(&Cli::parse().args)
}
