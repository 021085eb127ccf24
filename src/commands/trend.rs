//! `trend INPUT…`: a solver's revisions side by side, from results
//! directories and history files (`history add`). Per dataset and series,
//! one point per revision in commit order: the paired ratio to the
//! yardstick with its interval, the absolute times, and the revisions
//! where the ratio stepped ([`crate::history::steps`]). With `--out DIR`:
//! trend.csv, trend.html and charts/trend-<dataset>[-ratio].svg;
//! `--fail-on-step` makes a step at the newest revision fail a CI job.

use super::args::Undecided;
use super::CmdResult;
use crate::history::series::{self, Order, Series};
use crate::history::{self, Line};
use crate::judge::Weight;
use crate::report;
use crate::results::dest::Guard;
use crate::results::ResultsDir;
use anyhow::Context;
use clap::Args;
use std::path::{Path, PathBuf};

/// Options of `trend`.
#[derive(Debug, Clone, Args)]
pub struct TrendArgs {
    /// Results directories (of `run`, `merge` or a scan's value
    /// subdirectories) and history files (`history add`), in any order.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// Also write trend.csv, trend.html and charts/trend-<dataset>.svg
    /// (absolute times) and charts/trend-<dataset>-ratio.svg (the ratio to
    /// the yardstick) into DIR.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Order the revisions by their place in the history of the git
    /// repository at DIR (every branch, oldest first) rather than by their
    /// first run; revisions it does not hold come last.
    #[arg(long, value_name = "DIR")]
    pub repo: Option<PathBuf>,
    /// The strategy the ratios are to [default: each series' most common
    /// baseline, e.g. fast].
    #[arg(long, value_name = "LABEL")]
    pub yardstick: Option<String>,
    /// The smallest change of the ratio, in percent, that counts as a step
    /// (0 < PCT ≤ 1000); a step also needs the 95% intervals apart.
    #[arg(long, value_name = "PCT", default_value_t = 5.0, value_parser = super::args::parse_percent)]
    pub threshold: f64,
    /// Exit 1 when the ratio of a series stepped to slower at its newest
    /// revision (or at --since REV or later); exit 2 when that revision
    /// cannot be judged (no ratio with an interval, rejected answers,
    /// faults, an incomplete run); exit 3 when no step was found but the
    /// newest revision's move from the level before it is not shown within
    /// ±--threshold (its interval reaches past it: a step could not have
    /// been seen; see --undecided); else 0.
    #[arg(long)]
    pub fail_on_step: bool,
    /// With --fail-on-step: steps at REV or any later revision fail, not
    /// only a step at the newest.
    #[arg(long, value_name = "REV", requires = "fail_on_step")]
    pub since: Option<String>,
    /// With --fail-on-step: what a series exits with whose newest revision
    /// could not be told apart from the level before it by the threshold
    /// (the interval of its move neither wholly within ±PCT nor a step):
    /// fail (3, the default) or pass (0, still said).
    #[arg(long, value_enum, value_name = "WHAT", default_value_t = Undecided::Fail,
          requires = "fail_on_step")]
    pub undecided: Undecided,
    /// Print the table as GitHub-flavoured Markdown (for a job summary).
    #[arg(long)]
    pub markdown: bool,
    /// Include runs that stopped early (refused otherwise: exit 2); they are
    /// drawn and listed as not judged, and kept out of the steps.
    #[arg(long)]
    pub allow_incomplete: bool,
}

/// Runs `trend`.
pub fn run(args: &TrendArgs) -> CmdResult {
    let lines = load(&args.inputs, args.allow_incomplete)?;
    if lines.is_empty() {
        anyhow::bail!("no results to draw: the inputs hold no run");
    }
    let order = match &args.repo {
        Some(repo) => {
            let revs: Vec<String> = series::axis(&lines, &Order::FirstRun);
            Order::Git(series::git_order(repo, &revs)?)
        }
        None => Order::FirstRun,
    };
    let axis = series::axis(&lines, &order);
    let all = series::build(&lines, &axis, args.yardstick.as_deref(), args.threshold);
    if args.markdown {
        super::print_text(&report::trend::markdown(&all))?;
    } else {
        super::print_text(&report::trend::table(&all))?;
    }
    if let Some(out) = &args.out {
        let mut guard = Guard::new();
        for d in &args.inputs {
            if d.is_dir() {
                guard.reads_results(d);
            } else {
                guard.reads_file("the history file", d);
            }
        }
        guard.dir("--out", out, &["trend.csv", "trend.html", "charts"])?;
        write(out, &all, &axis, args.threshold)?;
        super::print_text(&format!("trend in {}\n", out.display()))?;
    }
    if args.fail_on_step {
        return verdict(
            &all,
            &axis,
            args.since.as_deref(),
            (args.threshold, args.undecided == Undecided::Pass),
        );
    }
    Ok(0)
}

/// The history lines of every input: a history file's lines as they are,
/// a results directory's made as `history add` makes them, each
/// measurement once. One input given twice (under any spelling) is
/// refused, and so is an incomplete run unless `allow_incomplete`.
fn load(inputs: &[PathBuf], allow_incomplete: bool) -> anyhow::Result<Vec<Line>> {
    let mut seen: Vec<(PathBuf, &PathBuf)> = Vec::new();
    let mut lines = Vec::new();
    for p in inputs {
        let c = crate::results::dest::canonical_lenient(p);
        if let Some((_, first)) = seen.iter().find(|(x, _)| *x == c) {
            anyhow::bail!(
                "{} and {}: the same input given twice",
                first.display(),
                p.display()
            );
        }
        seen.push((c, p));
        if p.is_file() {
            let mut read = history::read(p)?;
            if !allow_incomplete {
                if let Some(l) = read.iter().find(|l| !l.complete) {
                    anyhow::bail!(
                        "{}: holds an incomplete run ({} {} of {}); --allow-incomplete to include it, not judged",
                        p.display(),
                        l.series,
                        l.revision.as_deref().unwrap_or(series::UNKNOWN),
                        l.started
                    );
                }
            }
            lines.append(&mut read);
        } else {
            let dir =
                ResultsDir::load(p).with_context(|| format!("{}: cannot load", p.display()))?;
            dir.require_rows_agree()?;
            if !allow_incomplete {
                dir.require_complete("--allow-incomplete to include it, not judged")?;
            }
            lines.extend(
                dir.results
                    .iter()
                    .map(|r| Line::of(&dir.meta, &dir.results, r, &r.strategy)),
            );
        }
    }
    Ok(once_each(lines))
}

/// The lines with each measurement once: the same run can reach `trend`
/// twice (a results directory already added to the history file beside
/// it, a copy of a directory, two history files that share lines), and
/// counted twice it would look like two runs that agree. Says on stderr
/// how many were left out.
fn once_each(lines: Vec<Line>) -> Vec<Line> {
    let mut seen = std::collections::HashSet::new();
    let keys: Vec<bool> = lines
        .iter()
        .map(|l| {
            let (a, b, c, d) = l.key();
            seen.insert((a.to_string(), b.to_string(), c.to_string(), d.to_string()))
        })
        .collect();
    let repeated = keys.iter().filter(|k| !**k).count();
    if repeated > 0 {
        super::print_err(&format!(
            "note: [{}] {repeated} measurement{} reached trend twice (the same run, series and \
             dataset: a directory already in a history file, or a copy of one); each is counted once",
            crate::judge::Rule::SameRun.name(),
            if repeated == 1 { "" } else { "s" }
        ));
    }
    lines
        .into_iter()
        .zip(keys)
        .filter_map(|(l, first)| first.then_some(l))
        .collect()
}

/// trend.csv, the charts and trend.html.
fn write(out: &Path, all: &[Series], axis: &[String], threshold: f64) -> anyhow::Result<()> {
    let charts = out.join("charts");
    std::fs::create_dir_all(&charts)
        .with_context(|| format!("cannot create {}", charts.display()))?;
    crate::support::files::write_atomic(&out.join("trend.csv"), &report::trend::csv(all)?)?;
    let mut datasets: Vec<&str> = Vec::new();
    for s in all {
        if !datasets.contains(&s.dataset.as_str()) {
            datasets.push(&s.dataset);
        }
    }
    let mut figures = Vec::new();
    for ds in datasets {
        let made = report::trend::charts(ds, axis, all)?;
        for (stem, svg) in &made {
            crate::support::files::write_atomic(
                &charts.join(format!("{stem}.svg")),
                svg.as_bytes(),
            )?;
        }
        figures.push((ds.to_string(), made));
    }
    let page = report::trend::page(all, axis, &figures, threshold);
    crate::support::files::write_atomic(&out.join("trend.html"), page.as_bytes())?;
    Ok(())
}

/// `--fail-on-step`: 1 when a series stepped to slower at a revision that
/// counts (the series' newest, or `since` and later), 2 when such a revision of a
/// series with ratios cannot be judged, 0 otherwise. Says why on stderr.
/// `(threshold, undecided_passes)`: the step threshold in percent, and
/// whether an undecided newest revision passes.
fn verdict(
    all: &[Series],
    axis: &[String],
    since: Option<&str>,
    (threshold, undecided_passes): (f64, bool),
) -> CmdResult {
    // `--since REV`: from REV's place on the axis; else each series' own
    // newest revision.
    let since = match since {
        Some(rev) => Some(axis.iter().position(|r| r == rev).ok_or_else(|| {
            anyhow::anyhow!(
                "--since {rev}: no such revision in the inputs (revisions: {})",
                axis.join(", ")
            )
        })?),
        None => None,
    };
    let mut failed = Vec::new();
    let mut unjudged = Vec::new();
    let mut undecided = Vec::new();
    let judged: Vec<&Series> = all
        .iter()
        .filter(|s| s.points.iter().any(|p| p.ratio.is_some()))
        .collect();
    for s in all {
        judge_series(s, (all, &judged), since, (&mut failed, &mut unjudged));
        undecided.extend(undecided_newest(s, since, threshold));
    }
    let code = if !failed.is_empty() {
        for f in &failed {
            super::print_err(&format!("FAIL: {f}"));
        }
        1
    } else if judged.is_empty() {
        super::print_err("NOT JUDGED: no series has a paired ratio to a yardstick");
        2
    } else if !unjudged.is_empty() {
        for u in &unjudged {
            super::print_err(&format!("NOT JUDGED: {u}"));
        }
        2
    } else if !undecided.is_empty() {
        for u in &undecided {
            super::print_err(&format!("UNDECIDED: {u}"));
        }
        if undecided_passes {
            super::print_err("PASS: no step to slower at the revisions judged (undecided ones passing: --undecided pass)");
            0
        } else {
            crate::support::exit::EXIT_UNDECIDED
        }
    } else {
        super::print_err("PASS: no step to slower at the revisions judged");
        0
    };
    Ok(code)
}

/// Why series `s`'s newest revision, when it counts (from `since`'s place on
/// the axis, else always), cannot be said to hold its level: the interval
/// of its move from the level before it is neither wholly within
/// ±`threshold` nor a step. No step found there is then no evidence of none.
fn undecided_newest(s: &Series, since: Option<usize>, threshold: f64) -> Option<String> {
    let (i, n) = s.newest?;
    let p = &s.points[i];
    if since.is_some_and(|from| p.x < from) || n.within(threshold) {
        return None;
    }
    let (r, lo, hi) = n.ratio();
    let pct = |x: f64| format!("{:+.1}%", (x - 1.0) * 100.0);
    Some(format!(
        "{}/{} at {}: its ratio moved {} [{}, {}] from the level before it: a step of {threshold}% \
         could not be told from none (more runs of the revision narrow it)",
        s.dataset,
        s.name,
        p.revision,
        pct(r),
        pct(lo),
        pct(hi)
    ))
}

/// What `--fail-on-step` finds in series `s` at the revisions that count
/// (from `since`'s place on the axis, else the series' newest): steps to
/// slower and the judge's failures into `failed`, what cannot be judged
/// into `unjudged`. `judged` are the series with a ratio.
fn judge_series(
    s: &Series,
    (all, judged): (&[Series], &[&Series]),
    since: Option<usize>,
    (failed, unjudged): (&mut Vec<String>, &mut Vec<String>),
) {
    let newest = s.points.last().map_or(0, |p| p.x);
    let from = since.unwrap_or(newest);
    let counts = |i: usize| s.points[i].x >= from;
    for st in s
        .steps
        .iter()
        .filter(|st| counts(st.at) && st.change_pct() > 0.0)
    {
        failed.push(report::trend::step_text(s, st));
    }
    // The judge's findings at the revisions that count: a failure
    // (rejected answers, faults, giving up, a lying clock) fails the
    // job whatever the ratio says.
    for (i, f) in s.findings.iter().filter(|(i, _)| counts(*i)) {
        let at = format!("{}/{} at {}", s.dataset, s.name, s.points[*i].revision);
        match f.weight {
            Weight::Fail => failed.push(format!("{at}: {}", f.line())),
            Weight::Unjudged => unjudged.push(format!("{at}: {}", f.line())),
            Weight::Note => {}
        }
    }
    // A series with no ratio at any revision that is not a yardstick
    // of another series has nothing to be judged by.
    let yardstick_of_others = all
        .iter()
        .any(|o| o.dataset == s.dataset && o.yardstick.as_deref() == Some(s.name.as_str()));
    let unpaired = !judged.iter().any(|j| std::ptr::eq(*j, s));
    let counted = !s.points.is_empty() && counts(s.points.len() - 1);
    if unpaired && !yardstick_of_others && !judged.is_empty() && counted {
        unjudged.push(format!(
            "{}/{}: no revision has a ratio to a yardstick",
            s.dataset, s.name
        ));
    }
    if judged.iter().any(|j| std::ptr::eq(*j, s)) {
        for &i in s.unjudged.iter().filter(|&&i| counts(i)) {
            let why = s
                .findings
                .iter()
                .any(|(at, f)| *at == i && f.weight != Weight::Note);
            if !why {
                unjudged.push(format!(
                    "{}/{} at {}: no ratio with an interval",
                    s.dataset, s.name, s.points[i].revision
                ));
            }
        }
    }
}
