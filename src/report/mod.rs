//! Reports of a run: one exporter per format behind [`Exporter`], plus the
//! terminal table. Every file is written to a temporary name and renamed into
//! place, so a file that exists is a finished one.

pub mod bmf;
pub mod charts;
pub mod csv;
pub mod finish;
pub mod github;
pub mod headline;
pub mod hgrm;
pub mod html;
pub mod json;
pub mod markdown;
pub mod rank;
pub mod terminal;
pub mod trend;
pub mod worst;

use crate::bench::metrics::{ResultRecord, UnitStats};
use crate::bench::sysinfo::Meta;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Everything the exporters render.
pub struct Report<'a> {
    pub meta: &'a Meta,
    pub results: Vec<ResultRecord>,
    /// The aggregates behind `results` (histograms), same order.
    pub units: &'a [UnitStats],
    /// The scatter chart's per-puzzle points ([`Report::with_scatter`],
    /// [`Report::with_unit_scatter`]); `None` when the run has no
    /// puzzles.csv. Set only by those two, which also forget the charts
    /// drawn.
    scatter: Option<charts::Samples>,
    /// The slowest puzzles and the candidates' largest losses
    /// ([`Report::with_worst`]); `None` when the run has no puzzles.csv.
    worst: Option<worst::Worst>,
    /// The charts, drawn once for every exporter that shows them
    /// ([`Report::charts`]).
    charts: std::cell::OnceCell<Vec<charts::Chart>>,
    /// The verdict of `run --gate`, for summary.json.
    pub gate: Option<crate::results::gate::GateRecord>,
}

impl<'a> Report<'a> {
    pub fn new(meta: &'a Meta, units: &'a [UnitStats]) -> Self {
        let results = units.iter().map(|u| u.summary(meta.threads)).collect();
        Report::from_records(meta, results, units)
    }

    /// A report of summary records as they were written (`units` holds
    /// their histograms, or is empty for exporters that need none).
    pub fn from_records(
        meta: &'a Meta,
        results: Vec<ResultRecord>,
        units: &'a [UnitStats],
    ) -> Self {
        Report {
            meta,
            results,
            units,
            scatter: None,
            worst: None,
            charts: std::cell::OnceCell::new(),
            gate: None,
        }
    }

    /// The same report under another meta (e.g. one marked incomplete):
    /// the same records, units and scatter points; charts drawn anew.
    pub fn with_meta<'b>(&'b self, meta: &'b Meta) -> Report<'b> {
        Report {
            meta,
            results: self.results.clone(),
            units: self.units,
            scatter: self.scatter.clone(),
            worst: self.worst.clone(),
            charts: std::cell::OnceCell::new(),
            gate: self.gate.clone(),
        }
    }

    /// The scatter chart's points, `None` without a `puzzles.csv`.
    pub fn scatter(&self) -> Option<&charts::Samples> {
        self.scatter.as_ref()
    }

    /// Every chart of the report ([`charts::render_all`]), drawn on the
    /// first call: `charts/*.svg` and the page embed the same drawings.
    pub fn charts(&self) -> anyhow::Result<&[charts::Chart]> {
        if let Some(c) = self.charts.get() {
            return Ok(c);
        }
        let drawn = charts::render_all(self)?;
        Ok(self.charts.get_or_init(|| drawn))
    }

    /// Adds what `dir/puzzles.csv` holds, when there is one: the scatter
    /// chart's points and the tables of [`with_worst`](Self::with_worst).
    pub fn with_scatter(mut self, dir: &Path) -> anyhow::Result<Self> {
        self.scatter = charts::read_samples(&dir.join("puzzles.csv"))?;
        self.charts = std::cell::OnceCell::new();
        self.with_worst(dir)
    }

    /// The slowest puzzles and each candidate's largest losses, `None`
    /// without a `puzzles.csv`.
    pub fn worst(&self) -> Option<&worst::Worst> {
        self.worst.as_ref()
    }

    /// Adds the tables of slowest puzzles and of each paired candidate's
    /// largest losses to its baseline, read from `dir/puzzles.csv` when
    /// there is one.
    pub fn with_worst(mut self, dir: &Path) -> anyhow::Result<Self> {
        let pairs: Vec<(String, String, String)> = self
            .results
            .iter()
            .filter_map(|r| {
                let p = r.paired.as_ref().filter(|p| p.pairs > 0)?;
                Some((r.dataset.clone(), r.strategy.clone(), p.baseline.clone()))
            })
            .collect();
        self.worst = worst::Worst::read(&dir.join("puzzles.csv"), &pairs)?;
        if let Some(w) = &mut self.worst {
            w.locate(&self.meta.datasets);
        }
        Ok(self)
    }

    /// Adds the scatter chart's points the units sampled while they ran
    /// (the points [`with_scatter`](Self::with_scatter) would read back
    /// from the `puzzles.csv` they wrote), when there is a `puzzles.csv`.
    pub fn with_unit_scatter(mut self, wrote_puzzles_csv: bool) -> Self {
        self.scatter = wrote_puzzles_csv.then(|| charts::unit_samples(self.units));
        self.charts = std::cell::OnceCell::new();
        self
    }
}

/// A file an exporter renders: where it goes (relative to the results
/// directory, or absolute) and its bytes.
pub struct Output {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

impl Output {
    pub fn new(path: impl Into<PathBuf>, bytes: impl Into<Vec<u8>>) -> Self {
        Output {
            path: path.into(),
            bytes: bytes.into(),
        }
    }
}

/// One output format: it turns a report into bytes and writes nothing
/// itself; [`write`] puts the files in place.
pub trait Exporter {
    /// A short name for messages.
    fn name(&self) -> &'static str;
    /// The format's file(s).
    fn render(&self, report: &Report) -> anyhow::Result<Vec<Output>>;
    /// Renders and writes the files into `dir`; returns the paths written.
    fn export(&self, report: &Report, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
        write(&self.render(report)?, dir)
    }
}

/// Writes rendered files under `dir` (each atomically, parent directories
/// created); returns their paths. The one place exporters' files reach the
/// disk.
pub fn write(outputs: &[Output], dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    use anyhow::Context;
    let mut written = Vec::with_capacity(outputs.len());
    for o in outputs {
        let path = dir.join(&o.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("{}: cannot create", parent.display()))?;
        }
        write_atomic(&path, &o.bytes)
            .with_context(|| format!("{}: cannot write", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

/// Every file exporter, in the order they are written.
pub fn exporters() -> Vec<Box<dyn Exporter>> {
    vec![
        Box::new(hgrm::Histograms),
        Box::new(csv::SummaryCsv),
        Box::new(json::SummaryJson),
        Box::new(markdown::SummaryMarkdown),
        Box::new(charts::Charts),
        Box::new(html::HtmlReport),
    ]
}

/// Formats of `--export FORMAT FILE` (benchmark trackers).
pub const TRACKER_FORMATS: [&str; 2] = ["bmf", "github-benchmark"];

/// The exporter of a benchmark-tracker format writing to `path`.
///
/// The file is the user's, named from the working directory: its path is
/// made absolute here, so that [`write`] does not put it in the results
/// directory.
pub fn tracker_exporter(format: &str, path: &Path) -> anyhow::Result<Box<dyn Exporter>> {
    use anyhow::Context;
    let path = std::path::absolute(path)
        .with_context(|| format!("--export {}: not a usable path", path.display()))?;
    Ok(match format {
        "bmf" => Box::new(bmf::Bmf { path }),
        "github-benchmark" => Box::new(github::GithubBenchmark { path }),
        other => anyhow::bail!(
            "--export {other}: unknown format (expected one of: {})",
            TRACKER_FORMATS.join(", ")
        ),
    })
}

/// Writes `bytes` to `path` through a temporary file beside it (a name
/// unique to this process and call) and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let (mut file, tmp) = crate::results::dest::temp_file(path)?;
    let written = file.write_all(bytes).and_then(|()| file.sync_all());
    drop(file);
    match written.and_then(|()| std::fs::rename(&tmp, path)) {
        Ok(()) => Ok(()),
        Err(e) => {
            // Nothing half-written is left behind.
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// A table cell of GitHub-flavoured Markdown: `|` and `\` escaped, line
/// breaks and other control characters as spaces, `<` as `&lt;` (no
/// inline HTML), so that a dataset or label of any text stays one cell of
/// one row.
pub fn md_cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '|' => out.push_str("\\|"),
            '\\' => out.push_str("\\\\"),
            '<' => out.push_str("&lt;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Text as a terminal or a log shows it: every control character (C0,
/// DEL, C1) and every Unicode bidirectional control escaped (`\n`, `\r`,
/// `\t`, `\x1b`, `\u{9b}`, `\u{202e}`), so that a dataset name, a label,
/// an id or a message quoting a dataset can neither move the cursor,
/// change colours, end a line nor reorder one. The one escaping of
/// everything printed: table cells go through it, and so does every line
/// printed ([`printable_lines`]).
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    escape_for_terminal(text, false)
}

/// [`printable`], but line breaks stay: for a message or a table of
/// several lines (whose cells are already [`printable`]).
pub fn printable_lines(text: &str) -> std::borrow::Cow<'_, str> {
    escape_for_terminal(text, true)
}

fn escape_for_terminal(text: &str, keep_lines: bool) -> std::borrow::Cow<'_, str> {
    // Unicode's bidirectional formatting characters: they reorder what
    // follows them on the line (U+061C, U+200E–F, U+202A–E, U+2066–9).
    let bidi = |c: char| matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    let escaped = |c: char| (c.is_control() && !(keep_lines && c == '\n')) || bidi(c);
    if !text.chars().any(escaped) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if !escaped(c) => out.push(c),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x80 => {
                let _ = std::fmt::Write::write_fmt(&mut out, format_args!("\\x{:02x}", c as u32));
            }
            c => {
                let _ = std::fmt::Write::write_fmt(&mut out, format_args!("\\u{{{:x}}}", c as u32));
            }
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A dataset or strategy name as one part of a file name, injectively:
/// two different names never give the same part, also on a file system
/// that ignores case, and the part never contains `-` (which joins a
/// dataset's part and a strategy's: `histograms/<dataset>-<strategy>.hgrm`).
///
/// Lowercase ASCII letters, digits, `_`, `.` and `+` stay; an uppercase
/// letter becomes `^` and its lowercase (`Hard` → `^hard`); every other byte
/// of the name's UTF-8 becomes `~` and two uppercase hex digits (`a/b` →
/// `a~2Fb`, `a-b` → `a~2Db`). The two escapes are told apart by their
/// first character, which nothing else produces, and every letter that is
/// not escaped is lowercase, so folding case changes nothing that could
/// make two parts equal. A part longer than [`FILE_PART_MAX`] bytes is cut
/// and ends with `~~` and the 64-bit XXH3 hash of the whole name in hex
/// (a file name stays within the usual 255-byte limit; two long names that
/// share their first 80 encoded bytes then differ by their hash).
pub fn file_part(name: &str) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        match b {
            b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' | b'+' => out.push(b as char),
            b'A'..=b'Z' => {
                out.push('^');
                out.push(b.to_ascii_lowercase() as char);
            }
            b => {
                let _ = write!(out, "~{b:02X}");
            }
        }
    }
    if out.len() > FILE_PART_MAX {
        out.truncate(FILE_PART_CUT);
        let _ = write!(
            out,
            "~~{:016x}",
            xxhash_rust::xxh3::xxh3_64(name.as_bytes())
        );
    }
    out
}

/// The longest [`file_part`] kept whole, in bytes.
pub const FILE_PART_MAX: usize = 96;
/// Where a longer one is cut (then `~~` and 16 hex digits follow).
const FILE_PART_CUT: usize = 80;

/// The file name (without suffix) of a (dataset, strategy) unit's
/// histograms: `<dataset part>-<strategy part>` ([`file_part`]).
pub fn unit_file_base(dataset: &str, strategy: &str) -> String {
    format!("{}-{}", file_part(dataset), file_part(strategy))
}

/// The base name to read a unit's histograms by in `hist_dir`: the one
/// [`unit_file_base`] gives, or, in a results directory written before
/// names were escaped injectively (it has no time histogram under that
/// name, but one under the older [`file_safe`] name), the older one.
pub fn unit_file_base_in(hist_dir: &Path, dataset: &str, strategy: &str) -> String {
    let base = unit_file_base(dataset, strategy);
    let legacy = format!("{}-{}", file_safe(dataset), file_safe(strategy));
    let has = |b: &str| hist_dir.join(format!("{b}.hdr")).is_file();
    if legacy != base && !has(&base) && has(&legacy) {
        legacy
    } else {
        base
    }
}

/// A readable, file-name-safe form of a name, for the stem of a results
/// directory (`results/<stem>-<time>`): not injective (`a/b` and `a_b`
/// give one stem); never used where two names must stay apart.
pub fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+') {
                c
            } else {
                '_'
            }
        })
        .collect()
}
