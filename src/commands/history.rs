//! `history add DIR… --file FILE`: appends the runs of results directories
//! to a history file, one line per run, dataset and strategy
//! ([`crate::history::Line`]), for `trend` to follow a solver's revisions.

use super::CmdResult;
use crate::history::{self, Line};
use crate::results::dest::Guard;
use crate::results::ResultsDir;
use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use std::path::PathBuf;

/// Options of `history`.
#[derive(Debug, Clone, Args)]
pub struct HistoryArgs {
    #[command(subcommand)]
    pub action: HistoryAction,
}

/// What `history` does.
#[derive(Debug, Clone, Subcommand)]
pub enum HistoryAction {
    /// Append the runs of results directories to a history file (created
    /// when missing; a run already in it is not added twice).
    Add(AddArgs),
}

/// Options of `history add`.
#[derive(Debug, Clone, Args)]
pub struct AddArgs {
    /// Results directories (of `run` or `merge`).
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// The history file (JSON Lines).
    #[arg(long, value_name = "FILE")]
    pub file: PathBuf,
    /// Only this strategy (repeatable) [default: every strategy of the run].
    #[arg(short = 's', long = "strategy", value_name = "LABEL")]
    pub strategies: Vec<String>,
    /// The name the history follows the chosen strategies under (with -s):
    /// e.g. the solver's name for a run that labelled its two builds `head`
    /// and `base` — each line keeps its own revision, so a base build
    /// measured again beside its successor is one more run of its revision.
    #[arg(long, value_name = "NAME", value_parser = label)]
    pub series: Option<String>,
    /// Add runs that stopped early (refused otherwise: exit 2); `trend`
    /// draws them as not judged.
    #[arg(long)]
    pub allow_incomplete: bool,
    /// The strategy the history's ratios are to: every other strategy added
    /// must have been paired with it in its run (refused otherwise: exit
    /// 2), so that one history never mixes yardsticks.
    #[arg(long, value_name = "LABEL", default_value = "fast")]
    pub yardstick: String,
    /// Follow one difficulty class instead of the whole dataset: `effort
    /// 256+` (fast's guesses: 0, 1-3, 4-15, 16-63, 64-255, 256+) or
    /// `rating hard` (a rating column's class); its lines form a series
    /// of their own, `NAME [effort 256+]` (needs puzzles.csv).
    #[arg(long, value_name = "CLASS")]
    pub class: Option<String>,
}

fn label(s: &str) -> Result<String, String> {
    crate::solver::external::check_label(s).map_err(|e| e.to_string().replace("name=", "--series "))
}

/// Runs `history`.
pub fn run(args: &HistoryArgs) -> CmdResult {
    match &args.action {
        HistoryAction::Add(a) => add(a),
    }
}

fn add(args: &AddArgs) -> CmdResult {
    if args.series.is_some() && args.strategies.is_empty() {
        bail!("--series names the strategies given with -s LABEL: give at least one");
    }
    let mut guard = Guard::new();
    for d in &args.dirs {
        guard.reads_results(d);
    }
    guard.file("--file", &args.file)?;
    let mut lines = Vec::new();
    for d in &args.dirs {
        let dir = ResultsDir::load(d).with_context(|| format!("{}: cannot load", d.display()))?;
        dir.require_rows_agree()?;
        if !args.allow_incomplete {
            dir.require_complete("--allow-incomplete to add it (trend does not judge it)")?;
        }
        lines.extend(lines_of(&dir, args)?);
    }
    let mut failed = false;
    for l in &lines {
        for f in l.findings() {
            failed |= f.weight == crate::judge::Weight::Fail;
            super::print_err(&format!(
                "bench-sudoku: warning: {} of {} ({}): {}: trend shows it and judges it by this",
                l.series,
                l.dataset,
                l.started,
                f.line()
            ));
        }
    }
    let done = history::append(&args.file, &lines)?;
    super::print_text(&format!(
        "{}: {} line(s) added{}\n",
        args.file.display(),
        done.added,
        match done.already {
            0 => String::new(),
            k => format!(", {k} already there"),
        }
    ))?;
    if failed {
        // Recorded (trend shows a failed point as failed), but a run the
        // judge fails is never a silent success.
        super::print_err("bench-sudoku: the judge fails a run just added (above): exit status 1");
        return Ok(1);
    }
    Ok(0)
}

/// A yardstick named like a built-in strategy (`fast`, the default) must
/// be that built-in strategy: another solver labelled `fast` would make
/// every ratio in the history a ratio to something else.
fn check_yardstick(dir: &ResultsDir, yardstick: &str) -> anyhow::Result<()> {
    let Some(builtin) = crate::solver::Strategy::named(yardstick) else {
        return Ok(());
    };
    let detail = dir
        .meta
        .options
        .strategy_details
        .iter()
        .find(|d| d.name == yardstick);
    let Some(d) = detail else {
        return Ok(());
    };
    let expected = builtin.axes();
    if d.kind != "builtin" || d.spec != expected {
        bail!(
            "{}: the run's {yardstick:?} is {} {}, not the built-in {yardstick} ({expected}): \
             a ratio to it is not a ratio to the yardstick; follow it with --yardstick and \
             another label",
            dir.path.display(),
            d.kind,
            d.spec
        );
    }
    Ok(())
}

/// The lines of one results directory: the chosen strategies (all by
/// default), renamed by `--series`.
fn lines_of(dir: &ResultsDir, args: &AddArgs) -> anyhow::Result<Vec<Line>> {
    let labels: Vec<&str> = dir
        .meta
        .options
        .strategies
        .iter()
        .map(String::as_str)
        .collect();
    for s in &args.strategies {
        if !labels.contains(&s.as_str()) {
            bail!(
                "{}: no strategy {s:?} in this run (its strategies: {})",
                dir.path.display(),
                labels.join(", ")
            );
        }
    }
    check_yardstick(dir, &args.yardstick)?;
    let chosen = dir
        .results
        .iter()
        .filter(|r| args.strategies.is_empty() || args.strategies.contains(&r.strategy));
    let mut out = Vec::new();
    for r in chosen {
        let paired_with = r.paired.as_ref().map(|p| p.baseline.as_str());
        if r.strategy != args.yardstick && paired_with != Some(args.yardstick.as_str()) {
            bail!(
                "{}: {}/{} is {}, not with the yardstick {y}: its ratio would not follow \
                 {y}, and a history that mixed yardsticks would compare what cannot be \
                 compared; run it beside {y} (-s {y} --baseline {y}), or follow another \
                 yardstick with --yardstick LABEL",
                dir.path.display(),
                r.dataset,
                r.strategy,
                paired_with.map_or("paired with nothing".to_string(), |b| format!(
                    "paired with {b}"
                )),
                y = args.yardstick
            );
        }
        let series = args.series.as_deref().unwrap_or(&r.strategy);
        out.push(Line::of(&dir.meta, &dir.results, r, series));
    }
    match &args.class {
        Some(c) => of_class(dir, out, c, &args.yardstick),
        None => Ok(out),
    }
}

/// The lines of one difficulty class (`effort 256+`, `rating hard`):
/// each unit's line with the class's times and ratio.
fn of_class(
    dir: &ResultsDir,
    lines: Vec<Line>,
    class: &str,
    yardstick: &str,
) -> anyhow::Result<Vec<Line>> {
    let Some((scheme, label)) = class.trim().split_once(' ') else {
        bail!(
            "--class {class:?}: give the scheme and the class, e.g. 'effort 256+' or 'rating hard'"
        );
    };
    let by_class = crate::results::classes::ByClass::of_dir(&dir.path, &dir.meta)?
        .with_context(|| format!("{}: --class needs puzzles.csv", dir.path.display()))?;
    let row = |ds: &str, st: &str| {
        by_class
            .rows
            .iter()
            .find(|r| r.dataset == ds && r.strategy == st && r.scheme == scheme && r.class == label)
    };
    let mut out = Vec::new();
    for l in lines {
        let Some(r) = row(&l.dataset, &l.strategy) else {
            bail!(
                "{}: {}/{} has no puzzle of class {class:?}",
                dir.path.display(),
                l.dataset,
                l.strategy
            );
        };
        let y = row(&l.dataset, yardstick);
        out.push(l.clone().of_class(r, y));
    }
    Ok(out)
}
