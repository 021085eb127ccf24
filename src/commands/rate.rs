//! `bench-sudoku rate FILE…`: every puzzle's technique rating (see
//! [`crate::rating`]), written as a CSV dataset that `run`, `check` and
//! every other reader of this tool accept as it is.

use super::interrupt;
use super::output::Output;
use super::CmdResult;
use crate::dataset::{self, Format, Record};
use crate::rating::{self, Distribution, Outcome, Rater, Unsound};
use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// The text after `rate --help`'s options.
pub const RATE_HELP: &str =
    "Each puzzle is solved by a graded logical solver that applies, again and again, the
easiest technique that places a digit or removes a candidate: full house, hidden and naked
singles, pointing and claiming, naked and hidden pairs/triples/quads, X-wing, swordfish,
jellyfish, XY-wing, XYZ-wing, single-digit chains, bivalue chains, alternating inference
chains. The rating is the value of the hardest step on a scale modelled on Sudoku
Explainer's (1.0 to 7.4 for the techniques); a puzzle they do not finish is beyond the
ladder, rated by the search it needs: trials (7.5-8.9), nested trials (9.0-10.9), guesses
(11.0 and up). Classes: easy, medium, hard, fiendish, diabolical, extreme (docs/RATING.md).
Every removal is checked against the puzzle's unique solution as it is made.

Output: CSV with the columns id, puzzle, solution, rating, class, hardest, outcome, steps,
one step count per technique, file, line. `run`, `check` and `generate --from` read it as
a dataset (its rating column is `rating`). A puzzle without exactly one solution is not
rated (outcome multiple, no_solution or invalid). A summary with the classes' counts goes to
standard error.

Examples:
  bench-sudoku rate puzzles.txt --out rated.csv
  bench-sudoku rate ../corpora/puzzles3_magictour_top1465 -j 2 > top1465-rated.csv
  bench-sudoku run rated.csv -s fast -s locked        (the rated file is an ordinary dataset)

Exit status: 0 when every puzzle was read and rated or found not to have one solution; 1
when a step was unsound (a bug of the rater, named on standard error with its puzzle); 2 on
a malformed puzzle (named by file and line), an unreadable file or an output that cannot be
written; 130 when interrupted (no output file is kept).";

/// Puzzles handed to the threads at a time.
const BATCH: usize = 512;

/// Options of `rate` (see [`RATE_HELP`]).
#[derive(Debug, Clone, Args)]
pub struct RateArgs {
    /// Dataset files: plain lines, CSV, pencilmark puzzles, gzip; `-` for
    /// standard input.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Output file [default: standard output].
    #[arg(short, long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// Worker threads, 0 to 4096 (0: one per core); the output does not
    /// depend on it.
    #[arg(short = 'j', long, value_name = "N", default_value_t = 0,
          value_parser = super::args::threads_parser())]
    pub threads: usize,

    /// No progress bar and no summary.
    #[arg(short, long)]
    pub quiet: bool,
}

/// The header row: the puzzle's columns, the rating's, where it came from.
fn header() -> Vec<String> {
    let mut h = vec!["id".to_string(), "puzzle".into(), "solution".into()];
    h.extend(rating::columns());
    h.extend(["file".to_string(), "line".into()]);
    h
}

/// One output row.
fn row(name: &str, rec: &Record, result: &Result<Outcome, Unsound>) -> Vec<String> {
    let puzzle = match rec.candidates() {
        Some(c) => crate::grid::pencilmark::format(c),
        None => rec.puzzle.to_line_zeros(),
    };
    let solution = match result {
        Ok(Outcome::Rated(r)) => Some(r.solution),
        _ => rec.solution,
    };
    let mut f = vec![
        rec.id().unwrap_or("").to_string(),
        puzzle,
        solution.map_or(String::new(), |s| s.to_line_zeros()),
    ];
    f.extend(rating::fields(result));
    f.extend([name.to_string(), rec.line.to_string()]);
    f
}

/// What a run of `rate` has seen so far.
struct Tally {
    dist: Distribution,
    start: Instant,
}

/// Runs `rate`.
pub fn run(args: &RateArgs) -> CmdResult {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build()?;
    let inputs: Vec<(&str, &Path)> = args
        .files
        .iter()
        .map(|f| ("the dataset", f.as_path()))
        .collect();
    let (output, out) = Output::open(args.out.as_deref(), &inputs)?;
    let mut w = csv::Writer::from_writer(out);
    w.write_record(header()).context("cannot write the CSV")?;
    let stop = interrupt::flag("stopping; no output file is kept");
    let bar = (!args.quiet && std::io::stderr().is_terminal()).then(new_bar);
    let mut tally = Tally {
        dist: Distribution::default(),
        start: Instant::now(),
    };
    for file in &args.files {
        let done = rate_file(file, &pool, &mut w, &mut tally, bar.as_ref(), &stop)?;
        if !done {
            if let Some(b) = &bar {
                b.finish_and_clear();
            }
            eprintln!("bench-sudoku: interrupted; no output file written");
            return Ok(interrupt::EXIT_INTERRUPTED);
        }
    }
    let mut out = w
        .into_inner()
        .map_err(|e| anyhow::anyhow!("cannot write the CSV: {}", e.error()))?;
    out.flush().context("cannot write the CSV")?;
    drop(out);
    output.commit()?;
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    if !args.quiet {
        eprint!("{}", summary(&tally, &args.files));
    }
    Ok(if tally.dist.unsound > 0 { 1 } else { 0 })
}

/// Rates one file into `w`; false when interrupted.
fn rate_file(
    path: &Path,
    pool: &rayon::ThreadPool,
    w: &mut csv::Writer<Box<dyn Write + Send>>,
    tally: &mut Tally,
    bar: Option<&ProgressBar>,
    stop: &AtomicBool,
) -> anyhow::Result<bool> {
    let spool = if dataset::is_stream(path) {
        Some(dataset::spool(path)?)
    } else {
        None
    };
    let source = spool.as_deref().unwrap_or(path);
    let mut reader = dataset::open_as(source, path, Format::Auto)?;
    let name = path.display().to_string();
    let mut batch: Vec<Record> = Vec::with_capacity(BATCH);
    loop {
        batch.clear();
        for item in reader.by_ref().take(BATCH) {
            batch.push(item?);
        }
        if batch.is_empty() {
            return Ok(true);
        }
        let results: Vec<Result<Outcome, Unsound>> = pool.install(|| {
            batch
                .par_iter()
                .map_init(Rater::new, |r, rec| r.rate(&rec.puzzle, rec.candidates()))
                .collect()
        });
        for (rec, result) in batch.iter().zip(&results) {
            if let Err(e) = result {
                super::print_err(&format!(
                    "bench-sudoku: {name}:{}: {e} (a bug of the rater: please report it with this puzzle)",
                    rec.line
                ));
            }
            w.write_record(row(&name, rec, result))
                .context("cannot write the CSV")?;
            tally.dist.add(result);
        }
        if let Some(b) = bar {
            b.inc(batch.len() as u64);
        }
        if stop.load(Ordering::Relaxed) {
            return Ok(false);
        }
    }
}

/// The progress bar: puzzles rated and the rate (the total is not known
/// before the files are read).
fn new_bar() -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("[{elapsed_precise}] {human_pos} puzzles rated  {per_sec}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar
}

/// The closing summary: how many, how fast, the classes.
fn summary(tally: &Tally, files: &[PathBuf]) -> String {
    let n = tally.dist.total();
    let secs = tally.start.elapsed().as_secs_f64();
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let range = tally
        .dist
        .range
        .map_or(String::new(), |(lo, hi)| format!(", ratings {lo} to {hi}"));
    crate::support::text::printable_lines(&format!(
        "rated {n} puzzles of {} in {secs:.2}s ({:.0} puzzles/s){range}\n{}",
        names.join(", "),
        n as f64 / secs.max(1e-9),
        tally.dist.render("  ")
    ))
    .into_owned()
}
