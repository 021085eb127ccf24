//! Implementations of the subcommands. Each returns the process exit status
//! or an error; [`exit_code`] turns errors into a message and status 2.

pub mod check;
pub mod compare;
pub mod export;
pub mod merge;
pub mod report;
pub mod run;
pub mod solve;
pub mod strategies;

use crate::solver::Strategy;

/// What a command returns: its exit status, or an error (printed, status 2).
pub type CmdResult = anyhow::Result<i32>;

/// Prints an error (if any) and maps the result to an exit status.
/// A closed stdout (`| head`) is not an error.
pub fn exit_code(result: CmdResult) -> i32 {
    match result {
        Ok(code) => code,
        Err(e) => {
            if is_broken_pipe(&e) {
                return 0;
            }
            eprintln!("bench-sudoku: error: {e:#}");
            2
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Parses a strategy name or spec into a usable error.
pub fn parse_strategy(spec: &str) -> anyhow::Result<Strategy> {
    Ok(Strategy::parse(spec)?)
}

/// `bench-sudoku generate`.
pub fn generate(args: &crate::generate::cli::GenerateArgs) -> CmdResult {
    crate::generate::cli::run(args)?;
    Ok(0)
}
