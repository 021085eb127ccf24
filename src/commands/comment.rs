//! `bench-sudoku comment DIR`: the body of a pull-request comment for a
//! results directory (the gate's verdict, the results tables), marked so
//! that a CI job finds its earlier comment and updates it in place
//! ([`crate::report::comment`]).

use super::CmdResult;
use crate::report::comment;
use crate::results::dest::Guard;
use crate::results::Summary;
use anyhow::Context;
use clap::Args;
use std::path::PathBuf;

pub const COMMENT_HELP: &str = "Examples:
  bench-sudoku comment results/gate                         (the body on standard output)
  bench-sudoku comment results/gate --key mysolver --out comment.md
  bench-sudoku comment results/gate --link \"$RUN_URL\" | gh pr comment 12 --body-file -

The body starts with the marker <!-- bench-sudoku-comment: KEY --> (KEY: --key, default
bench-sudoku): a CI script looks for a comment of the pull request that starts with it and
edits that one instead of adding another (scripts/ci/bench-action.sh does, with `gh api`).
Then the gate's verdict, when the run had --gate: one row per dataset (its time verdict, the
paired ratio with its 95% interval, the smallest change the run could detect, pairs, rounds),
the reasons, the threshold and the budget; and the results tables, folded. A body that would be
too long for GitHub (over 60,000 characters) leaves the tables out and says so.

Exit status: 0 when the body was written (an incomplete run's body says so); 2 when DIR is not
a results directory (its summary.json and meta.json) or FILE cannot be written.";

#[derive(Debug, Args)]
pub struct CommentArgs {
    /// A results directory written by `run` (with --gate for a verdict).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// What the marker names, so that each solver (or job) keeps a comment
    /// of its own.
    #[arg(long, value_name = "KEY", default_value = "bench-sudoku")]
    pub key: String,
    /// A link to the whole results (e.g. the CI run's page), shown last.
    #[arg(long, value_name = "URL")]
    pub link: Option<String>,
    /// Write the body to FILE (replaced whole) instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub out: Option<PathBuf>,
}

pub fn run(args: &CommentArgs) -> CmdResult {
    let dest = match &args.out {
        Some(file) => {
            let mut guard = Guard::new();
            guard.reads_results(&args.dir);
            Some(guard.file("--out", file)?)
        }
        None => None,
    };
    let summary = Summary::read(&args.dir)?;
    let loaded = super::report::load(&args.dir)?;
    let report = loaded.report();
    let body = comment::render(
        &report,
        summary.gate.as_ref(),
        &args.key,
        args.link.as_deref(),
    );
    match dest {
        Some(d) => d
            .write(body.as_bytes())
            .with_context(|| format!("--out {}: cannot write", d.path().display()))?,
        None => super::print_out(&body)?,
    }
    Ok(0)
}
