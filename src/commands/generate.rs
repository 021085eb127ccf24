//! The `generate` command: options and entry point. Three modes: puzzles
//! selected by effort (the default), puzzles searched to be hard for one
//! strategy (`--hard-for`), and complete grids (`--grids`).

use super::args::SolverArgs;
use super::CmdResult;
use crate::dataset::{self, Format};
use crate::generate::climb::{self, ClimbConfig, ClimbError, HardPuzzle, Objective};
use crate::generate::{generate_grids, generate_until, CsvWriter, GenConfig, Removal};
use crate::grid::Grid;
use crate::results::dest::{Guard, Pending};
use crate::solver::{strategy::spec_help, Counter, Limits, Solver, Status, Strategy};
use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// The text after `generate --help`'s options: the three modes and
/// examples.
pub const GENERATE_HELP: &str = "Default mode: each candidate is a random full grid (randomized
backtracking) from which clues are removed in random order while the
solution stays unique; it is kept when the effort strategy's guess count
is in the selected range, and with --rating when its technique rating (as `rate` gives it)
is in the band. CSV: puzzle,solution,clues,guesses,backtracks,max_depth (and with --rating:
rating,class,hardest).

--hard-for STRATEGY: N independent searches (simulated annealing over
unique puzzles: swap, remove, add or relabel a clue), each giving the
puzzle with the highest --objective it met. CSV after a `#` line with the
options: puzzle,solution,clues,objective,guesses,backtracks,max_depth,
nodes,start_objective.

--grids N: N complete grids, one 81-digit line each (a searched grid under
a uniformly random relabelling, band/stack/row/column order and
transposition: every digit equally likely in every cell).

The same seed and options give byte-identical output on every machine
and with any thread count (not with --budget or --objective time). Without
--budget or --max-steps, each search takes up to 250000 steps and the whole
search stops after 5 minutes at most: a search cut short by that stop is
named (its output then depends on the machine).

--out FILE appears only when every puzzle asked for was found (it may not
be an input, nor the library, program or script of a solver named). An
interrupt (Ctrl-C, SIGTERM) keeps what was found in FILE.partial, whose
last line is '# partial: … (interrupted)' (on standard output, that line
follows the rows), and exits 130. With a library loaded into the process
(lib= without isolate=yes), --hard-for runs in a supervised child: its
crash, exit() or hang is named with the puzzle and the search, and the
command exits 128+N (a signal; 159: the library tried to stop or signal
bench-sudoku), 125 (exit) or 124 (a call past --timeout), never 0.

Examples:
  bench-sudoku generate --count 1000 --seed 1 --min-clues 30 --max-guesses 0 --out easy.csv
      (30 clues, solved by `hidden` without guessing)
  bench-sudoku generate --count 1000 --seed 2 --minimal --min-guesses 20 --out hard.csv
      (minimal puzzles needing at least 20 guesses under `hidden`)
  bench-sudoku generate --count 100 --seed 3 --rating 3.0..5.5 --out hard-techniques.csv
      (puzzles whose hardest technique is a subset, fish or wing; --rating fiendish: chains)
  bench-sudoku generate --hard-for fast -n 100 --out adversarial.csv
      (100 puzzles searched to make `fast` guess as much as possible)
  bench-sudoku generate --hard-for mrv --objective time --budget 5m --from hard.csv
      (climb from existing puzzles for 5 minutes, maximising solve time)
  bench-sudoku generate --grids 1000000 --out grids.txt";

/// Options of `generate` (see [`GENERATE_HELP`]).
#[derive(Debug, Clone, Args)]
pub struct GenerateArgs {
    /// Number of puzzles to write, 1 to 1000000000.
    #[arg(short = 'n', long, value_name = "N", default_value_t = 100,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=super::args::MAX_PUZZLES))]
    pub count: usize,

    /// Random seed; the same seed and options give the same puzzles.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,

    /// Stop removing clues at N clues (puzzles keep N or, when no further
    /// clue can go, slightly more). Without it puzzles are minimal.
    #[arg(long, value_name = "N", conflicts_with_all = ["minimal", "hard_for"],
          value_parser = clap::value_parser!(u8).range(0..=81))]
    pub min_clues: Option<u8>,

    /// Remove clues until none can be removed: every clue is needed for a
    /// unique solution (the default when --min-clues is not given). With
    /// --hard-for: every state of the search is kept minimal.
    #[arg(long)]
    pub minimal: bool,

    /// Remove clues in pairs symmetric under 180° rotation (with --minimal:
    /// no symmetric pair can be removed). With --hard-for: every move acts
    /// on symmetric pairs.
    #[arg(long)]
    pub symmetric: bool,

    /// Strategy whose search effort is measured and selected on.
    #[arg(short, long, value_name = "STRATEGY", default_value = "hidden", long_help = spec_help(),
          conflicts_with = "hard_for")]
    pub strategy: String,

    /// Keep puzzles the strategy solves with at least N guesses (found and
    /// proven unique, solution limit 2).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 0,
        conflicts_with = "hard_for"
    )]
    pub min_guesses: u64,

    /// Keep puzzles the strategy solves with at most N guesses
    /// (0: no guessing at all).
    #[arg(long, value_name = "N", conflicts_with = "hard_for")]
    pub max_guesses: Option<u64>,

    /// Keep puzzles whose technique rating is in BAND: LOW..HIGH on the
    /// rating scale (either end may be left out: 7.5.., ..2.0) or a class
    /// (easy, medium, hard, fiendish, diabolical, extreme). Puzzles beyond
    /// the ladder are rare among random ones: raise --max-attempts for
    /// them.
    #[arg(long, value_name = "BAND", conflicts_with_all = ["hard_for", "grids"])]
    pub rating: Option<crate::rating::Band>,

    /// Give up after N candidates, N ≥ 1 [default: 1000 × count + 1000].
    #[arg(long, value_name = "N", value_parser = super::args::positive_u64(),
          conflicts_with = "hard_for")]
    pub max_attempts: Option<u64>,

    /// Search for puzzles this strategy finds hardest (any strategy spec,
    /// external solvers included): one simulated-annealing search per
    /// puzzle, maximising --objective.
    #[arg(long, value_name = "STRATEGY", conflicts_with = "grids")]
    pub hard_for: Option<String>,

    /// What --hard-for maximises: the strategy's guesses, nodes,
    /// backtracks, or solve time (median of --time-samples solves; the
    /// output then depends on the machine).
    #[arg(long, value_enum, value_name = "WHAT", default_value_t = Objective::Guesses,
          requires = "hard_for")]
    pub objective: Objective,

    /// With --hard-for: solutions counted up to N while measuring (1: first
    /// solution, as `run` does by default; 2: also prove uniqueness).
    #[arg(long, value_name = "N", default_value_t = 1, requires = "hard_for",
          value_parser = clap::value_parser!(u32).range(1..=2))]
    pub solutions: u32,

    /// With --hard-for: steps of each search, N ≥ 1 [default: 250000, or
    /// none with --budget; without either, the whole search also stops
    /// after 5 minutes].
    #[arg(long, value_name = "N", value_parser = super::args::positive_u64(),
          requires = "hard_for")]
    pub max_steps: Option<u64>,

    /// With --hard-for: wall-clock time for the whole search, 1ms to 365d
    /// (e.g. 90s, 10m), shared evenly by the puzzles; each search also
    /// stops at --max-steps if given. The output then depends on the
    /// machine.
    #[arg(long, value_name = "DURATION", value_parser = super::args::parse_budget,
          requires = "hard_for")]
    pub budget: Option<Duration>,

    /// With --hard-for: refuse puzzles with more than N clues.
    #[arg(long, value_name = "N", requires = "hard_for",
          value_parser = clap::value_parser!(u8).range(17..=81))]
    pub max_clues: Option<u8>,

    /// With --hard-for: start the searches from this file's puzzles (each
    /// must have exactly one solution; search k starts from puzzle k mod
    /// the file's count) instead of random minimal puzzles.
    #[arg(long, value_name = "FILE", requires = "hard_for")]
    pub from: Option<PathBuf>,

    /// With --objective time: solves per measurement (the median is used).
    #[arg(long, value_name = "N", default_value_t = 5, requires = "hard_for",
          value_parser = clap::value_parser!(u32).range(1..=63))]
    pub time_samples: u32,

    /// Write N complete grids (81 digits per line) instead of puzzles.
    #[arg(long, value_name = "N", value_parser = super::args::positive_u64(),
          conflicts_with_all = ["count", "minimal", "symmetric", "min_clues", "strategy", "min_guesses",
                                "max_guesses", "max_attempts"])]
    pub grids: Option<u64>,

    #[command(flatten)]
    pub solvers: SolverArgs,

    /// Output file [default: standard output].
    #[arg(short, long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// Worker threads, 0 to 4096 (0: one per core); the output does not
    /// depend on it.
    #[arg(short = 'j', long, value_name = "N", default_value_t = 0,
          value_parser = super::args::threads_parser())]
    pub threads: usize,

    /// Do not print the summary line to standard error.
    #[arg(short, long)]
    pub quiet: bool,
}

impl GenerateArgs {
    /// The library configuration these options describe.
    pub fn config(&self) -> anyhow::Result<GenConfig> {
        let effort_strategy = Strategy::parse(&self.strategy)?;
        // Selection is on exact guess counts, and every kept puzzle's
        // counters are written: a built-in engine reports them all.
        if effort_strategy.builtin().is_none() {
            anyhow::bail!(
                "--strategy {}: generate measures effort with a built-in strategy (an external solver's counters are its own and may be absent)",
                effort_strategy.name()
            );
        }
        let cfg = GenConfig {
            seed: self.seed,
            count: self.count,
            removal: Removal {
                min_clues: self.min_clues.map(usize::from),
                symmetric: self.symmetric,
            },
            effort_strategy,
            effort_limits: Limits::uniqueness(),
            min_guesses: self.min_guesses,
            max_guesses: self.max_guesses,
            max_attempts: self.max_attempts,
            rating: self.rating,
            threads: self.threads,
        };
        cfg.validate()?;
        Ok(cfg)
    }
}

/// The output file or standard output. `--out FILE` goes through the
/// output rule (`results::dest`): it may not be the `--from` or a
/// `--solvers` file, nor a file of the solver under test; a regular file is
/// written under a temporary name beside it and renamed only by
/// [`Output::commit`], when everything asked for was written, so that a
/// failure (a full disk, too few puzzles found) leaves no half file under
/// the final name; after an interrupt, what was found is renamed to
/// `FILE.partial` instead ([`Output::keep_partial`]). A FIFO or a device is
/// written through.
struct Output {
    pending: Option<(Pending, PathBuf)>,
}

impl Output {
    fn open(args: &GenerateArgs) -> anyhow::Result<(Output, Box<dyn Write + Send>)> {
        let Some(path) = args.out.as_deref() else {
            return Ok((
                Output { pending: None },
                Box::new(BufWriter::new(std::io::stdout())),
            ));
        };
        let mut guard = Guard::new();
        if let Some(f) = &args.from {
            guard.reads_file("the --from file", f);
        }
        // Nor the solver under test (its library, program or script).
        let specs = [Some(args.strategy.as_str()), args.hard_for.as_deref()];
        args.solvers.guard(
            specs.into_iter().flatten(),
            crate::solver::DEFAULT_MAX_GUESSES,
            &mut guard,
        )?;
        let pending = guard
            .file("--out", path)?
            .create()
            .with_context(|| format!("cannot create {}", path.display()))?;
        if pending.replaces() {
            // Where an interrupted command keeps what it found.
            guard.file("--out", &partial_name(path))?;
        }
        let handle = pending
            .file()
            .try_clone()
            .with_context(|| format!("cannot create {}", path.display()))?;
        Ok((
            Output {
                pending: Some((pending, path.to_path_buf())),
            },
            Box::new(BufWriter::new(handle)),
        ))
    }

    /// Gives the finished file its final name (after the writer was
    /// flushed).
    fn commit(self) -> anyhow::Result<()> {
        if let Some((pending, path)) = self.pending {
            pending
                .commit()
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        Ok(())
    }

    /// After an interrupt: ends what was written with a `#` line saying it
    /// is partial (`# partial: …`, a comment to every reader of datasets),
    /// and keeps it, atomically, as `FILE.partial` (the output asked for
    /// appears only when everything was found); on standard output, a FIFO
    /// or a device the rows are already there and the line follows them.
    /// Says where, and returns the status of an interrupt.
    fn keep_partial(self, mut out: Box<dyn Write + Send>, note: &str) -> CmdResult {
        writeln!(out, "# partial: {note} (interrupted)")
            .and_then(|()| out.flush())
            .context("cannot write the output")?;
        drop(out);
        let kept = match self.pending {
            Some((pending, path)) if pending.replaces() => {
                let partial = partial_name(&path);
                pending
                    .commit_as(&partial)
                    .with_context(|| format!("cannot write {}", partial.display()))?;
                format!("in {}", partial.display())
            }
            Some((pending, path)) => {
                pending
                    .commit()
                    .with_context(|| format!("cannot write {}", path.display()))?;
                format!("written to {}", path.display())
            }
            None => "written above".to_string(),
        };
        super::print_err(&format!(
            "bench-sudoku: interrupted: {note}, kept {kept} (marked \"# partial\")"
        ));
        Ok(super::interrupt::EXIT_INTERRUPTED)
    }
}

/// `FILE.partial`: where an interrupted `generate -o FILE` keeps what it
/// found.
fn partial_name(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".partial");
    path.with_file_name(name)
}

/// Runs `generate` in the mode its options select.
pub fn run(args: &GenerateArgs) -> CmdResult {
    if let Some(n) = args.grids {
        return run_grids(args, n);
    }
    if args.hard_for.is_some() {
        return run_hard_for(args);
    }
    run_select(args)
}

/// The default mode: writes the CSV to `--out` or standard output and a
/// one-line summary to standard error.
fn run_select(args: &GenerateArgs) -> CmdResult {
    let cfg = args.config()?;
    let stop = super::interrupt::flag("stopping; the puzzles found are kept, marked partial");
    let (output, out) = Output::open(args)?;
    let mut writer = CsvWriter::with_ratings(out, cfg.rating.is_some())?;
    let start = Instant::now();
    let (mut guesses, mut max_guesses, mut min_clues, mut max_clues) = (0u64, 0u64, 81, 0);
    let mut write_err = None;
    let result = generate_until(&cfg, &stop, |p| {
        guesses += p.guesses;
        max_guesses = max_guesses.max(p.guesses);
        min_clues = min_clues.min(p.clues);
        max_clues = max_clues.max(p.clues);
        if write_err.is_none() {
            write_err = writer.write(&p).err();
        }
    });
    if let Some(e) = write_err {
        return Err(e).context("cannot write CSV output");
    }
    let mut out = writer.finish()?;
    out.flush().context("cannot write CSV output")?;
    let stats = result?;
    if stats.accepted < cfg.count {
        let note = format!("{} of {} puzzles", stats.accepted, cfg.count);
        return output.keep_partial(out, &note);
    }
    drop(out);
    output.commit()?;
    if !args.quiet {
        let n = stats.accepted.max(1) as f64;
        eprintln!(
            "generated {} puzzles from {} candidates in {:.1}s: clues {}-{}, guesses under {} mean {:.2} max {}",
            stats.accepted,
            stats.candidates,
            start.elapsed().as_secs_f64(),
            min_clues,
            max_clues,
            cfg.effort_strategy,
            guesses as f64 / n,
            max_guesses,
        );
        if let Some(band) = cfg.rating {
            eprintln!("every puzzle's technique rating is in {band}");
        }
    }
    Ok(0)
}

/// `--grids N`: complete grids, one 81-digit line each.
fn run_grids(args: &GenerateArgs, n: u64) -> CmdResult {
    let stop = super::interrupt::flag("stopping; the grids made are kept, marked partial");
    let (output, mut out) = Output::open(args)?;
    let start = Instant::now();
    let mut line = [b'\n'; crate::grid::CELLS + 1];
    let mut err = None;
    let mut written = 0u64;
    generate_grids(args.seed, n, args.threads, |g| {
        for (b, &v) in line.iter_mut().zip(g.cells()) {
            *b = b'0' + v;
        }
        if let Err(e) = out.write_all(&line) {
            err = Some(e);
            return false;
        }
        written += 1;
        !stop.load(Ordering::Relaxed)
    })?;
    if let Some(e) = err {
        return Err(e).context("cannot write the grids");
    }
    out.flush().context("cannot write the grids")?;
    if written < n {
        return output.keep_partial(out, &format!("{written} of {n} grids"));
    }
    drop(out);
    output.commit()?;
    if !args.quiet {
        let secs = start.elapsed().as_secs_f64();
        eprintln!(
            "generated {n} grids in {secs:.2}s ({:.2} us per grid)",
            secs * 1e6 / n as f64
        );
    }
    Ok(0)
}

impl GenerateArgs {
    /// The `--hard-for` configuration these options describe (reads
    /// `--from`).
    pub fn climb_config(&self) -> anyhow::Result<ClimbConfig> {
        let spec = self.hard_for.as_deref().unwrap_or("fast");
        let strategy = self
            .solvers
            .strategy(spec, crate::solver::DEFAULT_MAX_GUESSES)?;
        // Tells a supervisor that loading is over and the searches begin.
        #[cfg(unix)]
        super::supervise::loaded();
        if let Some(c) = self.objective.counter() {
            if !strategy.capabilities().counters.has(c) {
                anyhow::bail!(
                    "--hard-for {}: it does not report {} (its counters: {}); use --objective time",
                    strategy.name(),
                    c.name(),
                    strategy.capabilities().counters.names().join(", ")
                );
            }
        }
        let starts = match &self.from {
            Some(path) => read_starts(path)?,
            None => Vec::new(),
        };
        Ok(ClimbConfig {
            strategy,
            objective: self.objective,
            limits: Limits::first().with_solutions(self.solutions),
            count: self.count,
            seed: self.seed,
            steps: self.max_steps,
            budget: self.budget,
            // Without either limit, the default steps and a stated stop.
            cap: (self.budget.is_none() && self.max_steps.is_none()).then_some(climb::DEFAULT_CAP),
            minimal: self.minimal,
            symmetric: self.symmetric,
            max_clues: self.max_clues.map(usize::from),
            starts,
            time_samples: self.time_samples as usize,
            threads: self.threads,
        })
    }

    /// The `#` line heading a `--hard-for` file: every option that decides
    /// its content, in a fixed order (not -j, --out or --quiet, which do
    /// not), so the line is the command that makes the file again.
    pub fn climb_header(&self, cfg: &ClimbConfig) -> String {
        let mut h = format!(
            "# bench-sudoku {} generate --hard-for {} --objective {} --solutions {} -n {} --seed {}",
            env!("CARGO_PKG_VERSION"),
            // The spec as given (a library's path and keys), quoted, so the
            // line runs again as written; a label alone would not.
            shlex::try_quote(self.hard_for.as_deref().unwrap_or(cfg.strategy.name()))
                .unwrap_or_default(),
            cfg.objective.as_str(),
            cfg.limits.solutions,
            cfg.count,
            cfg.seed
        );
        if cfg.budget.is_none() || cfg.steps.is_some() {
            h.push_str(&format!(" --max-steps {}", cfg.step_limit()));
        }
        if let Some(b) = cfg.budget {
            h.push_str(&format!(" --budget {}", humantime::format_duration(b)));
        }
        if cfg.minimal {
            h.push_str(" --minimal");
        }
        if cfg.symmetric {
            h.push_str(" --symmetric");
        }
        if let Some(m) = cfg.max_clues {
            h.push_str(&format!(" --max-clues {m}"));
        }
        if let Some(f) = &self.from {
            h.push_str(&format!(
                " --from {}",
                shlex::try_quote(&f.to_string_lossy()).unwrap_or_default()
            ));
        }
        if cfg.objective == Objective::Time {
            h.push_str(&format!(" --time-samples {}", cfg.time_samples));
        }
        h
    }
}

/// The puzzles of `--from` with their unique solutions (`fast`, counted to
/// two). A puzzle without exactly one solution is an error naming its line.
fn read_starts(path: &Path) -> anyhow::Result<Vec<(Grid, Grid)>> {
    let reader = dataset::open(path, Format::Auto)?;
    let mut solver = Solver::new();
    let fast = Strategy::named("fast").context("the fast strategy")?;
    let mut starts = Vec::new();
    for item in reader {
        let rec = item?;
        if rec.candidates().is_some() {
            anyhow::bail!(
                "{}:{}: a search starts from 81-cell puzzles; this is a pencilmark puzzle",
                path.display(),
                rec.line
            );
        }
        let r = solver.solve(&rec.puzzle, &fast, &Limits::uniqueness());
        if r.status != Status::Solved {
            anyhow::bail!(
                "{}:{}: a start puzzle must have exactly one solution ({})",
                path.display(),
                rec.line,
                match r.status {
                    Status::Multiple => "it has several",
                    Status::NoSolution => "it has none",
                    Status::Invalid => "its givens break a rule",
                    _ => "it could not be solved",
                }
            );
        }
        starts.push((rec.puzzle, r.grid));
    }
    Ok(starts)
}

/// One `--hard-for` CSV row.
fn hard_row(cfg: &ClimbConfig, h: &HardPuzzle) -> String {
    let caps = cfg.strategy.capabilities();
    let c = &h.measure.counters;
    let field = |k: Counter| {
        caps.counters
            .value(k, c)
            .map_or(String::new(), |v| v.to_string())
    };
    format!(
        "{},{},{},{},{},{},{},{},{}\n",
        h.puzzle.to_line_zeros(),
        h.solution.to_line_zeros(),
        h.clues,
        h.measure.value,
        field(Counter::Guesses),
        field(Counter::Backtracks),
        field(Counter::MaxDepth),
        field(Counter::Nodes),
        h.start_value
    )
}

/// The header row of `--hard-for` files.
pub const HARD_HEADER: &str =
    "puzzle,solution,clues,objective,guesses,backtracks,max_depth,nodes,start_objective";

/// `--hard-for`: the searches, a progress bar, the CSV.
fn run_hard_for(args: &GenerateArgs) -> CmdResult {
    #[cfg(unix)]
    if let Some(code) = supervised(args)? {
        return Ok(code);
    }
    let cfg = args.climb_config()?;
    let stop =
        super::interrupt::flag("stopping the searches; the puzzles found are kept, marked partial");
    let (output, mut out) = Output::open(args)?;
    writeln!(out, "{}", args.climb_header(&cfg))
        .and_then(|()| writeln!(out, "{HARD_HEADER}"))
        .context("cannot write the CSV")?;
    let progress = climb::Progress::default();
    let start = Instant::now();
    let bar = (!args.quiet && std::io::stderr().is_terminal()).then(|| hard_bar(&cfg));
    let mut err = None;
    let mut stats = HardStats::default();
    // The searches on a thread of their own, each puzzle written as it
    // comes; this thread shows the progress meanwhile.
    let result = std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            climb::climb(&cfg, &progress, &stop, |h| {
                stats.add(&h, &cfg);
                if err.is_none() {
                    if let Err(e) = out.write_all(hard_row(&cfg, &h).as_bytes()) {
                        err = Some(e);
                        stop.store(true, Ordering::Relaxed);
                    }
                }
            })
        });
        while !worker.is_finished() {
            if let Some(bar) = &bar {
                show_progress(bar, &progress, &cfg);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        worker.join()
    });
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let result = match result {
        Ok(r) => r,
        // A solve given up on an interrupt (a solver process stopped where
        // it was) ends the searches like the interrupt itself.
        Err(panic) => match panic.downcast::<crate::solver::external::Abandon>() {
            Ok(a) if !a.environment => Err(ClimbError::Interrupted),
            Ok(a) => std::panic::resume_unwind(a),
            Err(panic) => std::panic::resume_unwind(panic),
        },
    };
    if let Some(e) = err {
        return Err(e).context("cannot write the CSV");
    }
    match result {
        Err(ClimbError::Interrupted) => {
            let note = format!(
                "the puzzles of the first {} of {} searches",
                stats.puzzles, cfg.count
            );
            return output.keep_partial(out, &note);
        }
        Err(e) => return Err(e.into()),
        Ok(()) => {}
    }
    out.flush().context("cannot write the CSV")?;
    drop(out);
    output.commit()?;
    if !args.quiet {
        eprintln!("{}", stats.summary(&cfg, &progress, start.elapsed()));
    }
    #[cfg(unix)]
    super::supervise::unloading();
    Ok(0)
}

/// A library loaded into the process runs in a supervised child, which its
/// crash, exit or hang cannot take down unnoticed: in the supervisor, the
/// child's exit status (or its fault's); `None` in the child, or where the
/// strategy does not run in the process.
#[cfg(unix)]
fn supervised(args: &GenerateArgs) -> anyhow::Result<Option<i32>> {
    let puzzle = |c: &crate::board::Call| match (c.puzzle, &c.text) {
        (Some((k, _)), Some(text)) => format!("a puzzle of search {} ({text})", k + 1),
        _ => "a puzzle of a search".to_string(),
    };
    let watched = super::supervise::Plain {
        command: "generate",
        spec: args.hard_for.as_deref().unwrap_or_default(),
        solvers: &args.solvers,
        max_guesses: crate::solver::DEFAULT_MAX_GUESSES,
        threads: args.threads,
        puzzle: &puzzle,
        writes: args.out.as_deref(),
    };
    super::supervise::plain(&watched)
}

/// The progress bar of `--hard-for`: steps of all searches (no length
/// when they have no step limit).
fn hard_bar(cfg: &ClimbConfig) -> ProgressBar {
    let steps = cfg.step_limit();
    let len = if steps == u64::MAX {
        None
    } else {
        Some(steps.saturating_mul(cfg.count as u64))
    };
    let bar = ProgressBar::with_draw_target(len, ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "[{elapsed_precise}] [{bar:30}] {human_pos}/{human_len} steps  {msg}  ETA {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar
}

/// The bar's position and message: steps so far, the best objective and
/// the finished searches' mean.
fn show_progress(bar: &ProgressBar, progress: &climb::Progress, cfg: &ClimbConfig) {
    bar.set_position(progress.steps.load(Ordering::Relaxed));
    let done = progress.done.load(Ordering::Relaxed);
    let mean = if done > 0 {
        format!(
            "{:.1}",
            progress.sum.load(Ordering::Relaxed) as f64 / done as f64
        )
    } else {
        "-".into()
    };
    bar.set_message(format!(
        "{} best {} mean {mean} ({done}/{} done)",
        cfg.objective.as_str(),
        progress.best.load(Ordering::Relaxed),
        cfg.count
    ));
}

/// What the searches found, for the closing line.
struct HardStats {
    puzzles: u64,
    /// Sum and largest of the puzzles' objectives.
    sum: u64,
    max: u64,
    /// Fewest and most clues of a puzzle.
    clues_min: usize,
    clues_max: usize,
    /// Sum of the objectives of the searches' starting puzzles.
    start_sum: u64,
    /// Searches the default time stop cut short.
    cut: usize,
}

impl Default for HardStats {
    fn default() -> Self {
        HardStats {
            puzzles: 0,
            sum: 0,
            max: 0,
            clues_min: 81,
            clues_max: 0,
            start_sum: 0,
            cut: 0,
        }
    }
}

impl HardStats {
    fn add(&mut self, h: &HardPuzzle, cfg: &ClimbConfig) {
        self.puzzles += 1;
        if cfg.cap.is_some() && h.steps < cfg.step_limit() {
            self.cut += 1;
        }
        self.sum += h.measure.value;
        self.max = self.max.max(h.measure.value);
        self.clues_max = self.clues_max.max(h.clues);
        self.clues_min = self.clues_min.min(h.clues);
        self.start_sum += h.start_value;
    }

    /// `generated N puzzles hard for S in T (steps): objective mean, max
    /// (and the starts' mean), clues`, and the strategy's refused answers.
    fn summary(&self, cfg: &ClimbConfig, progress: &climb::Progress, took: Duration) -> String {
        let n = self.puzzles.max(1) as f64;
        let faults = progress.faults.load(Ordering::Relaxed);
        format!(
            "generated {} puzzles hard for {} in {:.1}s ({} steps): {} mean {:.1} max {} (starts: mean {:.1}), clues {}-{}{}",
            self.puzzles,
            cfg.strategy.name(),
            took.as_secs_f64(),
            progress.steps.load(Ordering::Relaxed),
            cfg.objective.as_str(),
            self.sum as f64 / n,
            self.max,
            self.start_sum as f64 / n,
            self.clues_min,
            self.clues_max,
            if faults > 0 {
                format!("; {faults} wrong answers from the strategy were refused")
            } else {
                String::new()
            }
        ) + &if self.cut > 0 {
            format!(
                "\n{} of the searches were cut short by the default stop ({} for the whole \
                 search, no --budget or --max-steps given): their puzzles depend on the machine",
                self.cut,
                humantime::format_duration(climb::DEFAULT_CAP)
            )
        } else {
            String::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: GenerateArgs,
    }

    fn parse(args: &[&str]) -> Result<GenerateArgs, clap::Error> {
        Cli::try_parse_from(std::iter::once("generate").chain(args.iter().copied())).map(|c| c.args)
    }

    #[test]
    fn flags_map_to_the_config() {
        let a = parse(&[
            "--count",
            "7",
            "--seed",
            "9",
            "--min-clues",
            "30",
            "--symmetric",
            "-s",
            "mrv",
            "--min-guesses",
            "2",
            "--max-guesses",
            "5",
            "--max-attempts",
            "99",
            "-j",
            "1",
        ])
        .unwrap();
        let c = a.config().unwrap();
        assert_eq!((c.count, c.seed, c.threads), (7, 9, 1));
        assert_eq!(c.removal.min_clues, Some(30));
        assert!(c.removal.symmetric);
        assert_eq!(c.effort_strategy.name(), "mrv");
        assert_eq!(
            (c.min_guesses, c.max_guesses, c.max_attempts),
            (2, Some(5), Some(99))
        );
        let d = parse(&["--minimal"]).unwrap().config().unwrap();
        assert_eq!(d.removal.min_clues, None);
        assert_eq!(d.effort_strategy.name(), "hidden");
    }

    #[test]
    fn bad_flags_are_rejected() {
        assert!(parse(&["--minimal", "--min-clues", "30"]).is_err());
        assert!(parse(&["--min-clues", "82"]).is_err());
        assert!(parse(&["-s", "fastest"]).unwrap().config().is_err());
        let e = parse(&["--min-guesses", "3", "--max-guesses", "2"])
            .unwrap()
            .config()
            .unwrap_err();
        assert!(e.to_string().contains("empty guess range"), "{e}");
    }

    #[test]
    fn run_writes_the_csv_file() {
        let path =
            std::env::temp_dir().join(format!("bench-sudoku-gen-{}.csv", std::process::id()));
        let out = path.to_string_lossy().into_owned();
        let a = parse(&["-n", "3", "--seed", "4", "-j", "1", "-q", "--out", &out]).unwrap();
        run(&a).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(
            lines[0],
            "puzzle,solution,clues,guesses,backtracks,max_depth"
        );
        let cfg = a.config().unwrap();
        let expected = crate::generate::generate_vec(&cfg).unwrap();
        for (line, p) in lines[1..].iter().zip(&expected) {
            assert!(line.starts_with(&p.puzzle.to_line_zeros()), "{line}");
        }
    }
}
