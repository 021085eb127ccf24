//! The `generate` command: options and entry point.

use crate::generate::{generate, CsvWriter, GenConfig, Removal};
use crate::solver::{strategy::spec_help, Limits, Strategy};
use anyhow::Context;
use clap::Args;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::Instant;

/// Generate unique-solution puzzles, selected by the search effort a
/// strategy needs, as CSV (puzzle,solution,clues,guesses,backtracks,max_depth).
///
/// Each candidate is a random full grid (randomized backtracking) from which
/// clues are removed in random order while the solution stays unique; it is
/// kept when the effort strategy's guess count is in the selected range.
/// The same seed and options give byte-identical output on every machine
/// and with any thread count.
///
/// Examples:
///   bench-sudoku generate --count 1000 --seed 1 --min-clues 30 --max-guesses 0 --out easy.csv
///       (30 clues, solved by `hidden` without guessing)
///   bench-sudoku generate --count 1000 --seed 2 --minimal --min-guesses 20 --out hard.csv
///       (minimal puzzles needing at least 20 guesses under `hidden`)
///   bench-sudoku generate --count 50 --minimal --symmetric --strategy mrv --max-guesses 10
#[derive(Debug, Clone, Args)]
#[command(verbatim_doc_comment)]
pub struct GenerateArgs {
    /// Number of puzzles to write (N ≥ 1).
    #[arg(short = 'n', long, value_name = "N", default_value_t = 100,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub count: usize,

    /// Random seed; the same seed and options give the same puzzles.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,

    /// Stop removing clues at N clues (puzzles keep N or, when no further
    /// clue can go, slightly more). Without it puzzles are minimal.
    #[arg(long, value_name = "N", conflicts_with = "minimal",
          value_parser = clap::value_parser!(u8).range(0..=81))]
    pub min_clues: Option<u8>,

    /// Remove clues until none can be removed: every clue is needed for a
    /// unique solution (the default when --min-clues is not given).
    #[arg(long)]
    pub minimal: bool,

    /// Remove clues in pairs symmetric under 180° rotation (with --minimal:
    /// no symmetric pair can be removed).
    #[arg(long)]
    pub symmetric: bool,

    /// Strategy whose search effort is measured and selected on.
    #[arg(short, long, value_name = "STRATEGY", default_value = "hidden", long_help = spec_help())]
    pub strategy: String,

    /// Keep puzzles the strategy solves with at least N guesses (found and
    /// proven unique, solution limit 2).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub min_guesses: u64,

    /// Keep puzzles the strategy solves with at most N guesses
    /// (0: no guessing at all).
    #[arg(long, value_name = "N")]
    pub max_guesses: Option<u64>,

    /// Give up after N candidates, N ≥ 1 [default: 1000 × count + 1000].
    #[arg(long, value_name = "N", value_parser = super::args::positive_u64())]
    pub max_attempts: Option<u64>,

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
            threads: self.threads,
        };
        cfg.validate()?;
        Ok(cfg)
    }
}

/// Runs `generate`: writes the CSV to `--out` or standard output and a
/// one-line summary to standard error.
///
/// `--out FILE` is written under a temporary name beside it and renamed
/// only when every puzzle asked for was written: a failure (a full disk,
/// too few puzzles found) leaves no half file under the final name.
pub fn run(args: &GenerateArgs) -> anyhow::Result<()> {
    let cfg = args.config()?;
    let mut temp = None;
    let out: Box<dyn Write> = match &args.out {
        Some(path) => {
            let dir = match path.parent() {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => std::path::Path::new("."),
            };
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            let prefix = format!(".{name}.");
            let mut builder = tempfile::Builder::new();
            builder.prefix(&prefix).suffix(".partial");
            // The file the user gets has the usual permissions (a temporary
            // file would be private).
            #[cfg(unix)]
            builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
            let file = builder
                .tempfile_in(dir)
                .with_context(|| format!("cannot create {}", path.display()))?;
            let handle = file
                .reopen()
                .with_context(|| format!("cannot create {}", path.display()))?;
            temp = Some(file);
            Box::new(BufWriter::new(handle))
        }
        None => Box::new(BufWriter::new(std::io::stdout().lock())),
    };
    let mut writer = CsvWriter::new(out)?;
    let start = Instant::now();
    let (mut guesses, mut max_guesses, mut min_clues, mut max_clues) = (0u64, 0u64, 81, 0);
    let mut write_err = None;
    let result = generate(&cfg, |p| {
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
    writer
        .finish()?
        .flush()
        .context("cannot write CSV output")?;
    let stats = result?;
    if let (Some(temp), Some(path)) = (temp, &args.out) {
        temp.as_file()
            .sync_all()
            .with_context(|| format!("cannot write {}", path.display()))?;
        temp.persist(path)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
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
    }
    Ok(())
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
