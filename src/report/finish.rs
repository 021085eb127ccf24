//! Writing a results directory's report files (what `run` and `merge` write
//! once the measuring is done) so that nothing half-written looks finished.
//!
//! `meta.json` is the one file whose `complete` counts: every reader of a
//! results directory refuses one without it, and goes by what it says
//! (`crate::results::Summary::read`). The files are written in three steps:
//!
//! 1. `meta.json` saying `"complete": false` ("the command stopped while it
//!    wrote the results") is put in place first;
//! 2. every file is rendered in memory and written whole to a temporary file
//!    beside its final name (a full disk or a file size limit stops the
//!    writing here, before anything is renamed);
//! 3. the temporary files are renamed into place: the others first, then
//!    `summary.json` and `meta.json` (the real one) back to back.
//!
//! When any step fails, `summary.json` is removed if it was placed, the
//! temporary files are removed, and the files are written again, one by one
//! and as far as they can be, from a report whose meta and every record say
//! `"complete": false` (the meta says why: [`write`]); a file that cannot be
//! written is removed, so that no earlier version of it says more. No file
//! of the directory then says `"complete": true`.
//!
//! A process killed (SIGKILL) between the last two renames leaves a
//! `summary.json` of the finished run beside the `meta.json` of step 1,
//! which says `"complete": false`: readers go by `meta.json`. Killed at any
//! other moment, it leaves either no `meta.json` (before step 1: nothing
//! else of the report is there either) or one that says incomplete.
//! Temporary files (`.NAME.PID.N.tmp`) of a killed process stay behind;
//! nothing reads them.

use super::{exporters, json, Output, Report};
use anyhow::Context;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What `meta.json` says between steps 1 and 3.
pub const WRITING: &str = "the command stopped while it wrote the results";

/// Writes every report file of `report` into the results directory `dir`
/// (see the module documentation). On failure the directory is left marked
/// incomplete as far as the disk allows, and the error says so.
pub fn write(report: &Report, dir: &Path) -> anyhow::Result<()> {
    let Err(e) = place(report, dir) else {
        return Ok(());
    };
    let mut meta = report.meta.clone();
    meta.complete = false;
    meta.stopped = Some(with_reason(
        meta.stopped.take(),
        &format!("the results could not be written: {e:#}"),
    ));
    let _ = std::fs::remove_file(dir.join("summary.json"));
    // Each record says incomplete too: a reader of one record alone (a
    // tracker export, `jq '.results[0]'`) is not told otherwise.
    let mut incomplete = report.with_meta(&meta);
    for r in &mut incomplete.results {
        r.complete = false;
    }
    let marked = write_each(&incomplete, dir);
    Err(e.context(if marked {
        format!(
            "writing the results in {} (what was written is marked incomplete: meta.json has \"complete\": false)",
            dir.display()
        )
    } else {
        format!(
            "writing the results in {} (meta.json could not be written either: the directory will be refused as unfinished)",
            dir.display()
        )
    }))
}

fn with_reason(before: Option<String>, why: &str) -> String {
    match before {
        Some(s) => format!("{s}; {why}"),
        None => why.to_string(),
    }
}

/// Steps 1 to 3.
fn place(report: &Report, dir: &Path) -> anyhow::Result<()> {
    let mut writing = report.meta.clone();
    writing.complete = false;
    writing.stopped = Some(with_reason(writing.stopped.take(), WRITING));
    json::write_meta(&writing, dir)
        .with_context(|| format!("{}: cannot write", dir.join("meta.json").display()))?;
    let mut outputs = render(report)?;
    outputs.push(Output::new("meta.json", json::meta_bytes(report.meta)?));
    // The sort is stable: the others in the exporters' order, then
    // summary.json, then meta.json.
    outputs.sort_by_key(|o| last(&o.path));
    let mut staged = Staged::default();
    for o in &outputs {
        staged.add(&dir.join(&o.path), &o.bytes)?;
    }
    staged.place()
}

/// 0 for most files, 1 for summary.json, 2 for meta.json.
fn last(path: &Path) -> u8 {
    match path.to_str() {
        Some("summary.json") => 1,
        Some("meta.json") => 2,
        _ => 0,
    }
}

/// Every exporter's files, rendered.
fn render(report: &Report) -> anyhow::Result<Vec<Output>> {
    let mut outputs = Vec::new();
    for e in exporters() {
        outputs.extend(
            e.render(report)
                .with_context(|| format!("rendering {}", e.name()))?,
        );
    }
    Ok(outputs)
}

/// Writes the report's files one by one (summary.json, then meta.json,
/// last), each atomically; a file that cannot be written is removed.
/// Whether meta.json was written.
fn write_each(report: &Report, dir: &Path) -> bool {
    let mut outputs = Vec::new();
    for e in exporters() {
        if let Ok(o) = e.render(report) {
            outputs.extend(o);
        }
    }
    outputs.sort_by_key(|o| last(&o.path));
    for o in &outputs {
        let path = dir.join(&o.path);
        let written = match path.parent() {
            Some(p) => std::fs::create_dir_all(p),
            None => Ok(()),
        }
        .and_then(|()| crate::support::files::write_atomic(&path, &o.bytes));
        if written.is_err() {
            let _ = std::fs::remove_file(&path);
        }
    }
    json::write_meta(report.meta, dir).is_ok()
}

/// Files written to temporary names, waiting to be renamed into place.
/// Those not renamed are removed when it is dropped.
#[derive(Default)]
struct Staged {
    /// (temporary, final) names, in the order of placing.
    files: Vec<(PathBuf, PathBuf)>,
    placed: usize,
}

impl Staged {
    fn add(&mut self, path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("{}: cannot create", parent.display()))?;
        }
        let (mut file, temp) = crate::support::files::temp_file(path)
            .with_context(|| format!("{}: cannot write", path.display()))?;
        self.files.push((temp, path.to_path_buf()));
        file.write_all(bytes)
            .and_then(|()| file.sync_all())
            .with_context(|| format!("{}: cannot write", path.display()))
    }

    fn place(mut self) -> anyhow::Result<()> {
        while let Some((temp, path)) = self.files.get(self.placed) {
            std::fs::rename(temp, path)
                .with_context(|| format!("{}: cannot put in place", path.display()))?;
            self.placed += 1;
        }
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        for (temp, _) in &self.files[self.placed..] {
            let _ = std::fs::remove_file(temp);
        }
    }
}

/// Rebuilds the results in `dir` from the rows its measuring process wrote
/// ([`crate::results::recover::rebuild`]) and writes their reports, marked
/// incomplete with `stopped` as the reason.
pub fn recover(dir: &Path, stopped: &str) -> anyhow::Result<crate::results::recover::Recovered> {
    let r = crate::results::recover::rebuild(dir, stopped)?;
    let report = Report::new(&r.meta, &r.units);
    let report = if r.wanted_rows {
        report.with_scatter(dir)?
    } else {
        // The run was asked for no puzzles.csv: the rows served only to
        // rebuild the statistics.
        let _ = std::fs::remove_file(dir.join("puzzles.csv"));
        report
    };
    write(&report, dir)?;
    drop(r.claim);
    Ok(r.recovered)
}
