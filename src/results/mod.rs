//! The results directory that `run` and `merge` write and that `compare`,
//! `merge`, `export` and `report` read (its files are described in
//! results/README.md). This module owns the list of what such a directory
//! holds: a new output file is added to [`FILES`], and `--force` then
//! replaces it like every other. [`summary`] is the one type of
//! `summary.json` (written and read back), [`puzzles`] the columns of
//! `puzzles.csv` and its one reader. [`claim`] gives a directory one writer
//! at a time.

pub mod claim;
pub mod dest;
pub mod puzzles;
pub mod summary;

use anyhow::Context;
use std::path::{Path, PathBuf};

pub use summary::Summary;

/// Every file and directory a run or a merge writes in a results directory,
/// including the temporary name `puzzles.csv` has while a run goes (a fixed
/// name: the directory's [`claim`] gives it one writer). The lock file
/// ([`claim::LOCK`]) is not among them: a directory that holds only a lock
/// file left by a killed process holds no results.
pub const FILES: &[&str] = &[
    "puzzles.csv",
    "puzzles.csv.partial",
    "summary.csv",
    "summary.json",
    "summary.md",
    "meta.json",
    "histograms",
    "charts",
    "report.html",
    "gate.md",
];

/// True when `dir` holds any file of a results directory.
pub fn holds_results(dir: &Path) -> bool {
    FILES.iter().any(|f| dir.join(f).exists())
}

/// The first of `inputs` that writing a results directory into `dir`
/// would overwrite or remove (an input named like one of [`FILES`] inside
/// `dir`, or inside one of its folders, or `dir` itself), with the results
/// file it collides with.
pub fn overwritten_input<'a>(
    dir: &Path,
    inputs: &'a [PathBuf],
) -> Option<(&'a Path, &'static str)> {
    let canonical = |p: &Path| std::fs::canonicalize(p).ok();
    let dir_c = canonical(dir)?;
    inputs.iter().find_map(|input| {
        let input_c = canonical(input)?;
        if input_c == dir_c {
            return Some((input.as_path(), "the results directory itself"));
        }
        FILES.iter().find_map(|f| {
            let target = dir_c.join(f);
            (input_c == target || input_c.starts_with(&target)).then_some((input.as_path(), *f))
        })
    })
}

/// Removes every file of a results directory from `dir` (what `--force`
/// replaces); other files are left alone.
pub fn remove(dir: &Path) -> anyhow::Result<()> {
    for f in FILES {
        let p = dir.join(f);
        if p.is_dir() {
            std::fs::remove_dir_all(&p)
        } else if p.exists() {
            std::fs::remove_file(&p)
        } else {
            Ok(())
        }
        .with_context(|| format!("--force: cannot remove {}", p.display()))?;
    }
    Ok(())
}
