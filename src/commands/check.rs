//! `bench-sudoku check FILE`: classify every puzzle by its number of solutions.

use super::args::EngineArgs;
use super::CmdResult;
use crate::dataset::{self, Format, Record};
use crate::rating::{self, Distribution};
use crate::solver::strategy::spec_help;
use crate::solver::{Answer, Limits, Solver, Status, Strategy};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// File of 81-character puzzle lines.
    pub file: PathBuf,
    /// Strategy used to count solutions.
    #[arg(short, long, default_value = "locked", long_help = spec_help())]
    pub strategy: String,
    /// Print each puzzle that is not unique, with its line number.
    #[arg(long)]
    pub list: bool,
    /// Exit with status 1 when any puzzle is not unique.
    #[arg(long)]
    pub strict: bool,
    /// Rate every puzzle (as `rate` does) and print the distribution of
    /// the ratings by class. Without it, a file with a rating column gets
    /// the distribution of the ratings it holds.
    #[arg(long)]
    pub rate: bool,
    #[command(flatten)]
    pub engine: EngineArgs,
}

pub fn run(args: &CheckArgs) -> CmdResult {
    // Printed on every line it is part of: control characters escaped.
    let name = args.file.display().to_string();
    let name = crate::support::text::printable(&name);
    #[cfg(unix)]
    if let Some(code) = supervised(args, &name)? {
        return Ok(code);
    }
    let strategy = args
        .engine
        .solvers
        .strategy(&args.strategy, args.engine.max_guesses)?;
    #[cfg(unix)]
    super::supervise::loaded();
    #[cfg(unix)]
    let slot = crate::board::this_thread_slot();
    let limits = Limits::uniqueness().with_max_guesses(args.engine.max_guesses);
    // The dataset reader: plain lines (or CSV, gzip), bounded lines, and
    // `file:line: what is wrong` errors.
    // `-`, a pipe or a FIFO is copied to a temporary file first (as `run`
    // does), so that every way of giving a dataset works alike.
    let spool = if dataset::is_stream(&args.file) {
        Some(dataset::spool(&args.file)?)
    } else {
        None
    };
    let source = spool.as_deref().unwrap_or(&args.file);
    let reader = dataset::open_as(source, &args.file, Format::Auto)?;
    let mut out = std::io::stdout().lock();
    let mut tally = Tally {
        counts: [0; Status::ALL.len()],
        total: 0,
        wrong: 0,
    };
    let mut solver = Solver::new();
    let mut ratings = Ratings {
        computed: args.rate,
        dist: Distribution::default(),
    };
    for item in reader {
        let rec = item?;
        let line_no = rec.line;
        tally.total += 1;
        ratings.add(&mut solver, &rec, (&name, line_no), &mut out)?;
        let cands = rec.candidates();
        #[cfg(unix)]
        if let Some(s) = &slot {
            s.chunk(std::iter::once((rec.index, line_no)));
        }
        let a = solver.answer_with(&rec.puzzle, cands, &strategy, &limits);
        // A wrong answer is not a classification: it is listed whatever
        // --list says, and the file's counts leave it out.
        if let Some(w) =
            super::solve::check_answer(&mut solver, &rec.puzzle, cands, &strategy, &limits, &a)
        {
            tally.wrong += 1;
            writeln!(
                out,
                "{name}:{line_no}: WRONG ({})",
                crate::support::text::printable(&w)
            )?;
            continue;
        }
        tally.counts[a.result.status as usize] += 1;
        print_puzzle(&mut out, (&name, line_no), &a, args.list)?;
    }
    tally.print(&mut out, &name, &strategy)?;
    ratings.print(&mut out)?;
    #[cfg(unix)]
    super::supervise::unloading();
    let code = tally.exit_code(args.strict);
    Ok(if ratings.dist.unsound > 0 {
        code.max(1)
    } else {
        code
    })
}

/// The ratings `check` counts: computed (`--rate`) or read from the file's
/// rating column.
struct Ratings {
    computed: bool,
    dist: Distribution,
}

impl Ratings {
    /// Counts `rec`'s rating; an unsound step of the rater is named.
    fn add(
        &mut self,
        solver: &mut Solver,
        rec: &Record,
        (name, line_no): (&str, u64),
        out: &mut impl Write,
    ) -> std::io::Result<()> {
        if self.computed {
            let r = rating::rate_using(solver, &rec.puzzle, rec.candidates());
            if let Err(e) = &r {
                writeln!(out, "{name}:{line_no}: {e} (a bug of the rater)")?;
            }
            self.dist.add(&r);
        } else {
            match rating::value_of(rec) {
                Some(Ok(v)) => self.dist.add_value(v),
                Some(Err(_)) => self.dist.unreadable += 1,
                None => {}
            }
        }
        Ok(())
    }

    fn print(&self, out: &mut impl Write) -> std::io::Result<()> {
        if self.dist.total() == 0 {
            return Ok(());
        }
        let range = self
            .dist
            .range
            .map_or(String::new(), |(lo, hi)| format!(", {lo} to {hi}"));
        let from = if self.computed {
            "rated"
        } else {
            "from the file's rating column"
        };
        writeln!(out, "ratings ({from}{range}):")?;
        write!(out, "{}", self.dist.render("  "))
    }
}

/// A library loaded into the process runs in a supervised child, which its
/// crash, exit or hang cannot take down unnoticed: in the supervisor, the
/// child's exit status (or its fault's); `None` in the child, or where the
/// strategy does not run in the process.
#[cfg(unix)]
fn supervised(args: &CheckArgs, name: &str) -> anyhow::Result<Option<i32>> {
    let puzzle = |c: &crate::board::Call| match c.puzzle {
        Some((_, line)) => format!("the puzzle at {name}:{line}"),
        None => format!("a puzzle of {name}"),
    };
    super::supervise::one_thread("check", &args.strategy, &args.engine, &puzzle)
}

/// The puzzle at line `line_no` of file `name` when it has something to
/// say: a fault always, a puzzle that is not unique with `--list`.
fn print_puzzle(
    out: &mut impl Write,
    (name, line_no): (&str, u64),
    a: &Answer,
    list: bool,
) -> std::io::Result<()> {
    let r = &a.result;
    if r.status.is_fault() {
        let note = a.note.as_deref().unwrap_or("");
        writeln!(
            out,
            "{name}:{line_no}: {} ({})",
            r.status,
            crate::support::text::printable(note)
        )
    } else if list && r.status != Status::Solved {
        let label = label(r.status);
        match r.conflict {
            Some(c) => writeln!(out, "{name}:{line_no}: {label} ({c})"),
            None => writeln!(out, "{name}:{line_no}: {label}"),
        }
    } else {
        Ok(())
    }
}

/// What `check` counted over the file.
struct Tally {
    /// Puzzles per outcome, wrong answers left out.
    counts: [u64; Status::ALL.len()],
    total: u64,
    /// Answers the check refused.
    wrong: u64,
}

impl Tally {
    /// The counts under the file's name: the usual outcomes always, the
    /// others when they happened, wrong answers last.
    fn print(&self, out: &mut impl Write, name: &str, strategy: &Strategy) -> std::io::Result<()> {
        writeln!(
            out,
            "{name}: {} puzzles (strategy {})",
            self.total,
            strategy.name()
        )?;
        for st in Status::ALL {
            let n = self.counts[st as usize];
            if n > 0
                || matches!(
                    st,
                    Status::Solved | Status::Multiple | Status::NoSolution | Status::Invalid
                )
            {
                writeln!(out, "  {:12} {n:>9}", label(st))?;
            }
        }
        if self.wrong > 0 {
            writeln!(out, "  {:12} {:>9}", "WRONG", self.wrong)?;
        }
        Ok(())
    }

    /// 1 on a wrong answer, a solver fault, or (`strict`) a puzzle that is
    /// not unique; else 0.
    fn exit_code(&self, strict: bool) -> i32 {
        let faults: u64 = Status::FAULTS
            .iter()
            .map(|&s| self.counts[s as usize])
            .sum();
        let not_unique = self.total - self.counts[Status::Solved as usize];
        if self.wrong > 0 || faults > 0 || (strict && not_unique > 0) {
            1
        } else {
            0
        }
    }
}

/// `check` speaks of unique puzzles rather than solved ones.
fn label(st: Status) -> &'static str {
    match st {
        Status::Solved => "unique",
        other => other.as_str(),
    }
}
