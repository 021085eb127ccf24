//! `puzzles.csv`: its columns ([`HEADER`]), and one reader for every
//! command that needs the per-puzzle rows back (compare's samples, the
//! charts' scatter, merge); every error names the file and the line.

use crate::solver::Status;
use anyhow::{anyhow, Context};
use csv::StringRecord;
use std::fs::File;
use std::path::{Path, PathBuf};

/// The columns of `puzzles.csv`, in order (what `run` writes:
/// `bench::row`).
pub use crate::bench::PUZZLE_CSV_HEADER as HEADER;

/// The rows of a `puzzles.csv`, read one at a time.
pub struct PuzzleRows {
    file: PathBuf,
    rdr: csv::Reader<File>,
    header: StringRecord,
    cols: Cols,
    rec: StringRecord,
}

/// Positions of the columns the readers use.
struct Cols {
    dataset: usize,
    index: usize,
    strategy: usize,
    time_ns: usize,
    guesses: usize,
    backtracks: Option<usize>,
    max_depth: Option<usize>,
    /// Absent in files written before answers were marked.
    answer: Option<usize>,
    status: Option<usize>,
}

/// One row: the fields the readers use, parsed, and the whole record.
pub struct Row<'a> {
    /// 1-based line of the row in the file.
    pub line: u64,
    pub dataset: &'a str,
    pub strategy: &'a str,
    pub index: u64,
    /// `None` for a puzzle without a kept time: an external solver's
    /// fault, or an answer the harness rejected (its `answer` cell names
    /// why; the row still shows the time the solver took).
    pub time_ns: Option<u64>,
    /// `None` where the strategy does not report guesses, or on a fault.
    pub guesses: Option<u64>,
    /// The same for backtracks and the maximum depth of the search.
    pub backtracks: Option<u64>,
    pub max_depth: Option<u64>,
    /// The outcome (`None` in files written before the column existed or
    /// with a status this build does not know).
    pub status: Option<Status>,
    /// The harness rejected the answer.
    pub rejected: bool,
    pub record: &'a StringRecord,
}

/// A reader that takes `puzzles.csv`'s rows one at a time, in file order,
/// so that several readers share one pass over the file
/// ([`PuzzleRows::feed`]).
pub trait RowSink {
    /// The header, before the first row.
    fn header(&mut self, _header: &StringRecord) {}
    /// One row.
    fn row(&mut self, row: &Row<'_>);
}

impl PuzzleRows {
    /// Reads `path` once, giving its header and then every row to each of
    /// `sinks` in turn. An unreadable file or a malformed row is an error,
    /// as [`next_row`](Self::next_row) gives it, and the sinks have then
    /// seen only the rows before it.
    pub fn feed(path: &Path, sinks: &mut [&mut dyn RowSink]) -> anyhow::Result<()> {
        let mut rows = PuzzleRows::open(path)?;
        for s in sinks.iter_mut() {
            s.header(&rows.header);
        }
        while let Some(r) = rows.next_row()? {
            for s in sinks.iter_mut() {
                s.row(&r);
            }
        }
        Ok(())
    }
}

impl PuzzleRows {
    /// Opens `path` and checks its header names the columns read.
    pub fn open(path: &Path) -> anyhow::Result<Self> {
        let ctx = || format!("{}: cannot read", path.display());
        crate::support::files::require_regular(path).with_context(ctx)?;
        let mut rdr = csv::Reader::from_path(path).with_context(ctx)?;
        let header = rdr.headers().with_context(ctx)?.clone();
        let col = |name: &str| {
            header
                .iter()
                .position(|h| h == name)
                .ok_or_else(|| anyhow!("{}: no `{name}` column", path.display()))
        };
        let cols = Cols {
            dataset: col("dataset")?,
            index: col("index")?,
            strategy: col("strategy")?,
            time_ns: col("time_ns")?,
            guesses: col("guesses")?,
            backtracks: header.iter().position(|h| h == "backtracks"),
            max_depth: header.iter().position(|h| h == "max_depth"),
            answer: header.iter().position(|h| h == "answer"),
            status: header.iter().position(|h| h == "status"),
        };
        Ok(PuzzleRows {
            file: path.to_path_buf(),
            rdr,
            header,
            cols,
            rec: StringRecord::new(),
        })
    }

    /// The header record.
    pub fn header(&self) -> &StringRecord {
        &self.header
    }

    /// The file read.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// The next row, `None` at the end.
    pub fn next_row(&mut self) -> anyhow::Result<Option<Row<'_>>> {
        let file = &self.file;
        if !self
            .rdr
            .read_record(&mut self.rec)
            .with_context(|| format!("{}: malformed row", file.display()))?
        {
            return Ok(None);
        }
        let rec = &self.rec;
        let line = rec.position().map_or(0, |p| p.line());
        let field = |i: usize| rec.get(i).unwrap_or("");
        let num = |i: usize, what: &str| -> anyhow::Result<Option<u64>> {
            match field(i) {
                "" => Ok(None),
                f => f
                    .parse::<u64>()
                    .map(Some)
                    .map_err(|_| anyhow!("{}:{line}: bad {what} `{f}`", file.display())),
            }
        };
        let c = &self.cols;
        let index =
            num(c.index, "index")?.ok_or_else(|| anyhow!("{}:{line}: no index", file.display()))?;
        let rejected = c.answer.is_some_and(|i| !matches!(field(i), "ok" | ""));
        // Text cells a spreadsheet would run as formulas were written with
        // a `'` first (report::csv::neutral): the names are without it.
        let text = |i: usize| crate::support::cells::unneutral(field(i));
        Ok(Some(Row {
            line,
            dataset: text(c.dataset),
            strategy: text(c.strategy),
            index,
            time_ns: num(c.time_ns, "time_ns")?.filter(|_| !rejected),
            guesses: num(c.guesses, "guesses")?,
            backtracks: c.backtracks.map_or(Ok(None), |i| num(i, "backtracks"))?,
            max_depth: c.max_depth.map_or(Ok(None), |i| num(i, "max_depth"))?,
            status: c.status.and_then(|i| Status::parse(field(i))),
            rejected,
            record: rec,
        }))
    }
}
