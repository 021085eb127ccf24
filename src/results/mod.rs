//! The results directory that `run` and `merge` write and that `compare`,
//! `merge`, `export` and `report` read (its files are described in
//! results/README.md). This module owns the list of what such a directory
//! holds: a new output file is added to [`FILES`], and `--force` then
//! replaces it like every other. [`summary`] is the one type of
//! `summary.json` (written and read back), [`puzzles`] the columns of
//! `puzzles.csv` and its one reader. [`claim`] gives a directory one writer
//! at a time, and [`dest`] is the rule every user-named output follows.

pub mod claim;
pub mod classes;
pub mod dest;
pub mod dir;
pub mod gate;
pub mod merge;
pub mod meta;
pub mod puzzles;
pub mod record;
pub mod recover;
pub mod scan;
pub mod summary;

use anyhow::Context;
use std::path::Path;

pub use dir::ResultsDir;
pub use meta::Meta;
pub use record::ResultRecord;
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

/// What bench-sudoku writes inside the folders of [`FILES`]: files ending
/// so, one level down.
const FOLDER_FILES: &[(&str, &[&str])] =
    &[("histograms", &[".hgrm", ".hdr"]), ("charts", &[".svg"])];

/// Removes every file of a results directory from `dir` (what `--force`
/// replaces), and the temporary row files of a run that stopped
/// (`puzzles.csv.partial.<k>`); other files are left alone, also inside
/// `histograms/` and `charts/` (a folder is removed only when nothing else
/// is left in it).
pub fn remove(dir: &Path) -> anyhow::Result<()> {
    let gone = |p: &Path, r: std::io::Result<()>| {
        r.with_context(|| format!("--force: cannot remove {}", p.display()))
    };
    for f in FILES {
        let p = dir.join(f);
        if let Some((_, endings)) = FOLDER_FILES.iter().find(|(name, _)| name == f) {
            if p.is_dir() {
                for entry in std::fs::read_dir(&p).with_context(|| format!("{}", p.display()))? {
                    let e = entry?.path();
                    let ours = e.is_file()
                        && e.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| endings.iter().any(|end| n.ends_with(end)));
                    if ours {
                        gone(&e, std::fs::remove_file(&e))?;
                    }
                }
                // Only when nothing of the user's is left in it.
                let _ = std::fs::remove_dir(&p);
            }
        } else if p.is_file() {
            gone(&p, std::fs::remove_file(&p))?;
        }
    }
    for k in 1.. {
        let spill = crate::bench::spill_path(&dir.join("puzzles.csv.partial"), k);
        if !spill.is_file() {
            break;
        }
        gone(&spill, std::fs::remove_file(&spill))?;
    }
    Ok(())
}
