//! Implementations of the subcommands. Each returns the process exit status
//! or an error; [`exit_code`] turns errors into a message and status 2.

pub mod args;
pub mod check;
pub mod comment;
pub mod compare;
pub mod completions;
pub mod corpora;
pub mod environment;
pub mod export;
pub mod generate;
pub mod history;
pub mod interrupt;
pub mod merge;
pub mod output;
pub mod rate;
pub mod report;
pub mod run;
pub mod serve;
pub mod solve;
pub mod strategies;
#[cfg(unix)]
pub mod supervise;
pub mod trend;

use std::io::Write;

/// What a command returns: its exit status, or an error (printed, status 2).
pub type CmdResult = anyhow::Result<i32>;

/// Writes `text` to stdout. A closed stdout (`bench-sudoku run … | head`)
/// is not an error: what was cut off was only a summary of files already
/// written, and the command's exit status still says how it went (where
/// `print!` would panic). Other write errors are returned.
pub fn print_out(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r,
    }
}

/// Writes text meant for a person to stdout (tables, verdicts, paths), each
/// line [`printable`](crate::support::text::printable_lines): a dataset name, a
/// label or an id cannot reach the terminal as a control sequence. (Files
/// printed as they are, such as completion scripts or manual pages, use
/// [`print_out`].)
pub fn print_text(text: &str) -> std::io::Result<()> {
    print_out(&crate::support::text::printable_lines(text))
}

/// Writes a message (a warning, an error, a note) and a line break to
/// stderr, each line [`printable`](crate::support::text::printable_lines).
pub fn print_err(text: &str) {
    eprintln!("{}", crate::support::text::printable_lines(text));
}

/// Prints an error (if any) and maps the result to an exit status.
/// A closed stdout (`| head`) is not an error.
pub fn exit_code(result: CmdResult) -> i32 {
    match result {
        Ok(code) => code,
        Err(e) => {
            if is_broken_pipe(&e) {
                return 0;
            }
            print_err(&format!("bench-sudoku: error: {e:#}"));
            2
        }
    }
}

/// Whether the error is a write to a closed pipe, also when it comes
/// wrapped in a JSON or CSV writer's error.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    use std::io::ErrorKind::BrokenPipe;
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == BrokenPipe)
            || c.downcast_ref::<serde_json::Error>()
                .is_some_and(|j| j.io_error_kind() == Some(BrokenPipe))
            || c.downcast_ref::<csv::Error>().is_some_and(
                |c| matches!(c.kind(), csv::ErrorKind::Io(io) if io.kind() == BrokenPipe),
            )
    })
}
