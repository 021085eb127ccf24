//! The results directory that `run` and `merge` write and that `compare`,
//! `merge`, `export` and `report` read (its files are described in
//! results/README.md). This module owns the list of what such a directory
//! holds: a new output file is added to [`FILES`], and `--force` then
//! replaces it like every other. [`summary`] is the one type of
//! `summary.json` (written and read back), [`puzzles`] the columns of
//! `puzzles.csv` and its one reader. [`claim`] gives a directory one writer
//! at a time, and [`dest`] is the rule every user-named output follows.

pub mod claim;
pub mod dest;
pub mod puzzles;
pub mod recover;
pub mod summary;

use anyhow::Context;
use std::path::Path;

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
