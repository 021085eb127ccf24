//! `completions SHELL` and `man`: shell completion scripts and manual pages
//! generated from the clap definitions (clap_complete, clap_mangen), so
//! they always match the options the binary takes.

use super::CmdResult;
use crate::results::dest::Guard;
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
            let mut guard = Guard::new();
            guard.dir("--out", dir, &[])?;
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            let mut pages = Vec::new();
            let mut cmd = cmd.disable_help_subcommand(true);
            cmd.build();
            pages_of(cmd, &mut pages)?;
            // Every page through the output rule: a page that is a link
            // stays one, a FIFO is written through.
            for (name, bytes) in pages {
                let path = dir.join(&name);
                guard
                    .file("--out", &path)?
                    .write(&bytes)
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
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

/// The manual page of `cmd` and of each of its visible subcommands, as
/// clap_mangen names them (`bench-sudoku.1`, `bench-sudoku-run.1`, …).
fn pages_of(cmd: clap::Command, pages: &mut Vec<(String, Vec<u8>)>) -> anyhow::Result<()> {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned() {
        pages_of(sub, pages)?;
    }
    let man = clap_mangen::Man::new(cmd);
    let mut bytes = Vec::new();
    man.render(&mut bytes).context("cannot render the page")?;
    pages.push((man.get_filename(), bytes));
    Ok(())
}
