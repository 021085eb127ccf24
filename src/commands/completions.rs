//! `completions SHELL` and `man`: shell completion scripts and manual pages
//! generated from the clap definitions (clap_complete, clap_mangen), so
//! they always match the options the binary takes.

use super::CmdResult;
use anyhow::Context;
use clap::Args;
use std::path::PathBuf;

/// Options of `completions`.
#[derive(Debug, Clone, Args)]
pub struct CompletionsArgs {
    /// The shell to write the completion script for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Options of `man`.
#[derive(Debug, Clone, Args)]
pub struct ManArgs {
    /// Write one page per command (bench-sudoku.1, bench-sudoku-run.1, …)
    /// into DIR instead of printing bench-sudoku(1) to standard output.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Prints the completion script of `cmd` (the whole command line) for the
/// chosen shell.
pub fn completions(args: &CompletionsArgs, mut cmd: clap::Command) -> CmdResult {
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "bench-sudoku", &mut out);
    super::print_out(&String::from_utf8_lossy(&out)).context("cannot write the script")?;
    Ok(0)
}

/// Prints bench-sudoku(1), or writes every command's page into `--out`.
pub fn man(args: &ManArgs, cmd: clap::Command) -> CmdResult {
    match &args.out {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            clap_mangen::generate_to(cmd, dir)
                .with_context(|| format!("cannot write the pages into {}", dir.display()))?;
            eprintln!("manual pages written to {}", dir.display());
        }
        None => {
            let mut out = Vec::new();
            clap_mangen::Man::new(cmd)
                .render(&mut out)
                .context("cannot render the page")?;
            super::print_out(&String::from_utf8_lossy(&out)).context("cannot write the page")?;
        }
    }
    Ok(0)
}
