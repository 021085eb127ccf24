//! Streaming dataset readers: one stream of [`Record`]s from a plain-lines
//! file or a CSV file with a header, optionally gzip-compressed.
//!
//! ```no_run
//! use bench_sudoku::dataset::{self, Format};
//! let mut reader = dataset::open("puzzles.csv.gz".as_ref(), Format::Auto)?;
//! let with_solutions = reader.has_solutions();
//! for item in &mut reader {
//!     match item {
//!         Ok(rec) => { /* rec.index, rec.puzzle, rec.solution, ... */ }
//!         Err(e) if e.is_row() => eprintln!("skipped: {e}"), // FILE:LINE: ...
//!         Err(e) => return Err(e.into()),                      // stream ended
//!     }
//! }
//! println!("{:?}", reader.stats());
//! # Ok::<(), anyhow::Error>(())
//! ```
//!
//! # Formats
//!
//! * **Plain lines** ([`Format::Lines`]): one puzzle per line, exactly 81 cells
//!   (`1`-`9` givens, `0` or `.` blanks) once surrounding whitespace is
//!   trimmed. Nothing else may follow the puzzle on its line (no
//!   `puzzle,solution` or trailing ratings; use CSV for those). Blank lines
//!   and lines whose first non-blank character is `#` are skipped.
//! * **Pencilmark lines** ([`Format::Pencilmark`]): one 729-character
//!   puzzle per line, nine characters per cell (row-major), one per digit
//!   1..9: the digit while it is a candidate, `.` once eliminated (see
//!   [`crate::grid::pencilmark`]). The record's [`Record::candidates`] hold
//!   the masks and its `puzzle` the cells left with one candidate. A file
//!   is all 81-cell or all pencilmark puzzles: a line of the other kind is
//!   a row error naming it. A CSV puzzle column may hold pencilmark puzzles
//!   too (decided by the first row, the same rule after it).
//! * **CSV** ([`Format::Csv`]): the first non-blank, non-comment line is a
//!   header. Column roles by header name, case-insensitive and trimmed:
//!   puzzle [`PUZZLE_COLUMNS`] (required), solution [`SOLUTION_COLUMNS`], id
//!   [`ID_COLUMNS`], rating [`RATING_COLUMNS`]; the left-most match wins,
//!   other columns are ignored. The delimiter is the first of `,` tab `;` `|`
//!   that makes the header name a puzzle column. Quoted fields (RFC 4180,
//!   `""` escapes, newlines inside quotes) are supported. Every row must have
//!   as many fields as the header. Blank and `#` lines between records are
//!   skipped. An empty solution/id/rating field reads as `None`; a non-empty
//!   solution must be 81 digits forming a valid solution of the puzzle.
//!
//! Both: LF, CRLF or mixed line ends; a UTF-8 byte-order mark at the start is
//! ignored; gzip input (detected by its magic bytes, not the file name) is
//! decompressed on the fly, including multi-member files.
//!
//! # Detection (`Format::Auto`)
//! Decided by content (never by file name) on the first non-blank,
//! non-comment line, in this order:
//! 1. a NUL byte: binary data, file-level error;
//! 2. it parses as an 81-cell puzzle: plain lines; it is 729 digits and
//!    dots: pencilmark lines;
//! 3. not UTF-8: file-level error;
//! 4. it contains `,` tab `;` or `|`: a CSV header, which must name a puzzle
//!    column (else a file-level error listing the header found; a headerless
//!    `puzzle,solution` row is called out as such);
//! 5. only digits, `.` and spaces (a puzzle of the wrong length): plain lines,
//!    so the row error says what is wrong with that row;
//! 6. anything else: file-level error quoting the line.
//!
//! # Index and line numbers
//! [`Record::index`] counts every puzzle row in file order, valid or not, from
//! 0: a bad row consumes an index, so the indices of good rows do not depend
//! on whether bad rows are skipped. Comments, blank lines and the CSV header
//! do not count. [`Record::line`] is the 1-based physical line where the row
//! starts (a quoted CSV field may continue over further lines).
//!
//! # Bounded memory
//! A line (or CSV record) over [`MAX_LINE_BYTES`] is not buffered: the rest of
//! it is read and dropped, and the row becomes a `line too long` error; the
//! stream goes on with the next line. Whole files are never held in memory.
//!
//! # Errors
//! [`DatasetError`] displays as `FILE:LINE: what is wrong` for a bad row and
//! `FILE: what is wrong` for the file. Row errors ([`DatasetError::is_row`])
//! let the iterator continue; after a file-level error (I/O, corrupt gzip)
//! it returns `None`.

mod csv;
mod detect;
mod error;
mod lines;
mod raw;

pub use self::csv::{ID_COLUMNS, PUZZLE_COLUMNS, RATING_COLUMNS, SOLUTION_COLUMNS};
pub use self::detect::estimate_count;
pub use self::error::{DatasetError, ErrorKind};
pub use self::raw::RawLines;

use self::csv::Layout;
use self::detect::{Detected, Source};
use self::lines::LineReader;
use crate::grid::pencilmark::{self, Candidates, PENCILMARK_LEN};
use crate::grid::transform::Transform;
use crate::grid::{Grid, CELLS};
use std::fs::File;
use std::io::{self, Read};
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

/// Longest line or CSV record held in memory, in bytes; longer rows are a
/// `line too long` row error.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// One puzzle row of a dataset.
///
/// Every puzzle solved is copied from the thread that reads it to the one
/// that solves it and on to the one that verifies it, so a record keeps
/// inline only what most rows have (192 bytes); the fields few rows have
/// are in one box, [`More`], read through [`Record::id`],
/// [`Record::rating`], [`Record::candidates`] and [`Record::transformed`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// 0-based position among the file's puzzle rows, valid or not.
    pub index: u64,
    /// 1-based physical line where the row starts.
    pub line: u64,
    /// The givens (for a pencilmark puzzle: its cells with one candidate).
    pub puzzle: Grid,
    /// From a solution column, checked to solve `puzzle`.
    pub solution: Option<Grid>,
    /// What few rows have; `None` when the row has none of it.
    pub more: Option<Box<More>>,
}

/// The parts of a [`Record`] that few rows have.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct More {
    /// From an `id` column; `None` without one or when the field is empty.
    pub id: Option<Box<str>>,
    /// From a rating/difficulty column, as written (trimmed).
    pub rating: Option<Box<str>>,
    /// A pencilmark puzzle's candidate masks; `None` for an 81-cell puzzle.
    pub candidates: Option<Candidates>,
    /// Set by [`Record::transform`]: the isomorph this record was turned
    /// into (its puzzle, candidates and solution are the rearranged ones).
    pub transform: Option<Transform>,
}

impl More {
    /// `None` when there is nothing in it (so that a record only has a box
    /// when it needs one).
    fn boxed(self) -> Option<Box<More>> {
        (self != More::default()).then(|| Box::new(self))
    }
}

impl Record {
    /// A row with nothing but its puzzle (a plain-lines file's row).
    #[inline]
    pub fn plain(index: u64, line: u64, puzzle: Grid) -> Record {
        Record {
            index,
            line,
            puzzle,
            solution: None,
            more: None,
        }
    }

    /// The row's `id` field, if it has one.
    pub fn id(&self) -> Option<&str> {
        self.more.as_deref()?.id.as_deref()
    }

    /// The row's rating/difficulty field, if it has one.
    pub fn rating(&self) -> Option<&str> {
        self.more.as_deref()?.rating.as_deref()
    }

    /// A pencilmark puzzle's candidate masks; `None` for an 81-cell puzzle.
    pub fn candidates(&self) -> Option<&Candidates> {
        self.more.as_deref()?.candidates.as_ref()
    }

    /// The isomorph this record was turned into by [`Record::transform`].
    pub fn transformed(&self) -> Option<&Transform> {
        self.more.as_deref()?.transform.as_ref()
    }

    /// The record with `more`'s fields (an empty [`More`] leaves no box).
    pub fn with_more(mut self, more: More) -> Record {
        self.more = more.boxed();
        self
    }

    /// Replaces the puzzle (with its candidates and solution) by its image
    /// under `t`, remembering `t` so that answers can be mapped back.
    pub fn transform(&mut self, t: Transform) {
        self.puzzle = t.apply(&self.puzzle);
        if let Some(s) = &mut self.solution {
            *s = t.apply(s);
        }
        let more = self.more.get_or_insert_with(Default::default);
        if let Some(c) = &mut more.candidates {
            *c = t.apply_candidates(c);
        }
        more.transform = Some(t);
    }

    /// The record as read: the transform undone.
    pub fn original(&self) -> Record {
        let Some(t) = self.transformed() else {
            return self.clone();
        };
        let more = self.more.as_deref().map(|m| More {
            candidates: m.candidates.as_ref().map(|c| t.invert_candidates(c)),
            transform: None,
            ..m.clone()
        });
        Record {
            index: self.index,
            line: self.line,
            puzzle: t.invert(&self.puzzle),
            solution: self.solution.map(|s| t.invert(&s)),
            more: more.and_then(More::boxed),
        }
    }
}

/// Dataset file format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Format {
    /// Decide from the content (see the module docs).
    #[default]
    Auto,
    /// CSV with a header row naming the puzzle column.
    Csv,
    /// One 81-character puzzle per line.
    Lines,
    /// One 729-character pencilmark puzzle per line (nine characters per
    /// cell: the digit if still a candidate, `.` if eliminated).
    Pencilmark,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::Csv => "csv",
            Format::Lines => "lines",
            Format::Pencilmark => "pencilmark",
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Running totals of what a [`Reader`] has returned so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Puzzle rows seen (valid + invalid); the next row's index.
    pub rows: u64,
    /// Rows returned as records.
    pub valid: u64,
    /// Rows returned as row errors.
    pub invalid: u64,
    /// Records that carried a (checked) solution.
    pub with_solution: u64,
}

/// Opens a dataset file. Gzip is detected by magic bytes; `format` may be
/// [`Format::Auto`]. Fails (file-level error) on an unreadable path, a
/// directory, an empty file, a file without puzzle rows, a CSV header without
/// a puzzle column, or content that is not recognisable.
pub fn open(path: &Path, format: Format) -> Result<Reader, DatasetError> {
    open_as(path, path, format)
}

/// Like [`open`], reading `path` but naming `name` in every error (a
/// stream's temporary copy is read under the name it was given as).
pub fn open_as(path: &Path, name: &Path, format: Format) -> Result<Reader, DatasetError> {
    let meta = std::fs::metadata(path).map_err(|e| DatasetError::file(name, ErrorKind::Open(e)))?;
    if meta.is_dir() {
        return Err(DatasetError::file(name, ErrorKind::IsDirectory));
    }
    let file = File::open(path).map_err(|e| DatasetError::file(name, ErrorKind::Open(e)))?;
    Reader::from_reader(name, file, format)
}

/// Whether `path` names a stream rather than a file that can be read
/// again: `-` (standard input), a pipe or FIFO (`<(zcat x.gz)`, `mkfifo`),
/// a character device or a socket.
pub fn is_stream(path: &Path) -> bool {
    if path.as_os_str() == "-" {
        return true;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if let Ok(m) = std::fs::metadata(path) {
            let t = m.file_type();
            return t.is_fifo() || t.is_char_device() || t.is_socket();
        }
    }
    false
}

/// Copies a stream dataset ([`is_stream`]) into a temporary file, read
/// once and to its end, so that it can be inspected and read like any
/// file (its format detected, its size estimated, each group of strategies
/// reading it in turn). The file is removed when the returned path is
/// dropped. Memory stays bounded: the copy goes through a fixed buffer.
pub fn spool(path: &Path) -> Result<tempfile::TempPath, DatasetError> {
    let err = |e: io::Error| DatasetError::file(path, ErrorKind::Read(e));
    let mut tmp = tempfile::Builder::new()
        .prefix("bench-sudoku-input.")
        .tempfile()
        .map_err(err)?;
    let copied = if path.as_os_str() == "-" {
        io::copy(&mut io::stdin().lock(), tmp.as_file_mut())
    } else {
        File::open(path)
            .map_err(|e| DatasetError::file(path, ErrorKind::Open(e)))
            .map(|mut f| io::copy(&mut f, tmp.as_file_mut()))?
    };
    copied.map_err(err)?;
    Ok(tmp.into_temp_path())
}

/// A hash of a dataset file's bytes as stored (`xxh3:` and 16 hex
/// digits): the identity of the file the shards of one run read.
pub fn source_hash(path: &Path) -> io::Result<String> {
    let mut file = File::open(path)?;
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match io::Read::read(&mut file, &mut buf)? {
            0 => break,
            n => hasher.update(&buf[..n]),
        }
    }
    Ok(format!("xxh3:{:016x}", hasher.digest()))
}

/// The dataset's short name for report files (`stdin` for `-`): the file
/// name without a `.gz`/`.gzip` and then a `.csv`/`.tsv`/`.txt` extension
/// (`data/sudoku-3m.csv.gz` → `sudoku-3m`).
pub fn stem(path: &Path) -> String {
    if path.as_os_str() == "-" {
        return "stdin".to_string();
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let strip = |s: &str, exts: &[&str]| -> Option<String> {
        let (base, ext) = s.rsplit_once('.')?;
        (!base.is_empty() && exts.iter().any(|e| ext.eq_ignore_ascii_case(e)))
            .then(|| base.to_string())
    };
    let name = strip(&name, &["gz", "gzip"]).unwrap_or(name);
    strip(&name, &["csv", "tsv", "txt"]).unwrap_or(name)
}

/// The record stream of one dataset; see the [module docs](self).
///
/// `Reader` is `Send`: a reader thread can iterate and batch records, e.g.
/// `reader.by_ref().take(4096).collect::<Vec<_>>()`.
pub struct Reader {
    path: Arc<Path>,
    src: LineReader<Source>,
    gzip: bool,
    layout: Option<Arc<Layout>>,
    /// Plain lines of pencilmark puzzles; for CSV, whether the puzzle
    /// column holds them (decided by the first row).
    pencil: Option<bool>,
    done: bool,
    stats: Stats,
    // CSV scratch space, reused across rows.
    record: Vec<u8>,
    unquoted: Vec<u8>,
    fields: Vec<Range<usize>>,
}

impl Reader {
    /// Reads a dataset from any byte stream; `name` is used in messages.
    /// Gzip is detected by magic bytes as for files.
    pub fn from_reader<R: Read + Send + 'static>(
        name: impl AsRef<Path>,
        raw: R,
        format: Format,
    ) -> Result<Reader, DatasetError> {
        let path: Arc<Path> = Arc::from(name.as_ref());
        let (src, gzip) =
            detect::sniff(raw).map_err(|e| DatasetError::file(&path, ErrorKind::Read(e)))?;
        let mut reader = Reader {
            src: LineReader::new(src, MAX_LINE_BYTES),
            gzip,
            layout: None,
            pencil: None,
            done: false,
            stats: Stats::default(),
            record: Vec::new(),
            unquoted: Vec::new(),
            fields: Vec::new(),
            path,
        };
        reader.start(format)?;
        Ok(reader)
    }

    /// Reads up to the first row: detects the format, reads the CSV header,
    /// and makes sure at least one puzzle row follows.
    fn start(&mut self, format: Format) -> Result<(), DatasetError> {
        if !self.next_content_line()? {
            let kind = if self.src.bytes_read() == 0 {
                ErrorKind::Empty
            } else {
                ErrorKind::NoPuzzles("only comments and blank lines")
            };
            return Err(DatasetError::file(&self.path, kind));
        }
        let line = self.src.number();
        if self.src.too_long() && !matches!(format, Format::Lines | Format::Pencilmark) {
            let what = format!("the first line is over {MAX_LINE_BYTES} bytes");
            let kind = match format {
                Format::Csv => ErrorKind::BadHeader(what),
                _ => ErrorKind::UnknownFormat { reason: what },
            };
            return Err(DatasetError::at_line(&self.path, line, kind));
        }
        let detected = match format {
            Format::Lines => Detected::Lines,
            Format::Pencilmark => Detected::Pencilmark,
            Format::Csv => {
                Detected::Csv(detect::csv_header(self.src.line()).map_err(|k| self.file_error(k))?)
            }
            Format::Auto => detect::detect(self.src.line()).map_err(|k| self.file_error(k))?,
        };
        match detected {
            Detected::Lines => {
                self.pencil = Some(false);
                self.src.unread()
            }
            Detected::Pencilmark => {
                self.pencil = Some(true);
                self.src.unread()
            }
            Detected::Csv(layout) => {
                self.layout = Some(Arc::new(layout));
                if !self.next_content_line()? {
                    return Err(DatasetError::file(
                        &self.path,
                        ErrorKind::NoPuzzles("only a CSV header"),
                    ));
                }
                self.src.unread();
            }
        }
        Ok(())
    }

    /// Binary-data and header errors (a missing puzzle column among them)
    /// point at the line; the rest name the file.
    fn file_error(&self, kind: ErrorKind) -> DatasetError {
        match kind {
            ErrorKind::Binary { .. }
            | ErrorKind::BadHeader(_)
            | ErrorKind::MissingPuzzleColumn { .. }
            | ErrorKind::UnknownFormat { .. } => {
                DatasetError::at_line(&self.path, self.src.number(), kind)
            }
            _ => DatasetError::file(&self.path, kind),
        }
    }

    fn io_error(&self, e: io::Error) -> DatasetError {
        let kind = if self.gzip {
            ErrorKind::Gzip(e)
        } else {
            ErrorKind::Read(e)
        };
        DatasetError::file(&self.path, kind)
    }

    /// Advances to the next line that is neither blank nor a comment.
    fn next_content_line(&mut self) -> Result<bool, DatasetError> {
        loop {
            match self.src.advance() {
                Ok(false) => return Ok(false),
                Ok(true) if self.src.is_skippable() => continue,
                Ok(true) => return Ok(true),
                Err(e) => return Err(self.io_error(e)),
            }
        }
    }

    /// The resolved format: [`Format::Csv`], [`Format::Lines`] or
    /// [`Format::Pencilmark`].
    pub fn format(&self) -> Format {
        if self.layout.is_some() {
            Format::Csv
        } else if self.pencil == Some(true) {
            Format::Pencilmark
        } else {
            Format::Lines
        }
    }

    /// The dataset path (or the name given to [`Reader::from_reader`]).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// True when the input was gzip-compressed.
    pub fn is_gzip(&self) -> bool {
        self.gzip
    }

    /// True when the CSV header has a solution column (rows may still leave it empty).
    pub fn has_solutions(&self) -> bool {
        self.layout.as_ref().is_some_and(|l| l.solution.is_some())
    }

    /// True when the CSV header has an id column.
    pub fn has_ids(&self) -> bool {
        self.layout.as_ref().is_some_and(|l| l.id.is_some())
    }

    /// True when the CSV header has a rating column.
    pub fn has_ratings(&self) -> bool {
        self.layout.as_ref().is_some_and(|l| l.rating.is_some())
    }

    /// The CSV header's column names as written (trimmed); empty for plain lines.
    pub fn columns(&self) -> &[String] {
        self.layout.as_ref().map_or(&[], |l| &l.header)
    }

    /// Totals so far; complete once the iterator has returned `None`.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    fn row_error(&self, line: u64, index: u64, kind: ErrorKind) -> DatasetError {
        DatasetError::row(&self.path, line, index, kind)
    }

    /// The fast path of plain lines: the next line, when it is exactly 81
    /// cell characters, as a record (counted as a row, not yet as valid).
    #[inline(always)]
    fn fast_line(&mut self) -> Option<Record> {
        if self.layout.is_some() || self.pencil == Some(true) {
            return None;
        }
        let puzzle = self.src.advance_fixed(Grid::parse_exact)?;
        let index = self.stats.rows;
        self.stats.rows += 1;
        Some(Record::plain(index, self.src.number(), puzzle))
    }

    /// The next row, `Ok(None)` at the end.
    fn read_row(&mut self) -> Result<Option<Record>, DatasetError> {
        if let Some(rec) = self.fast_line() {
            return Ok(Some(rec));
        }
        if !self.next_content_line()? {
            return Ok(None);
        }
        let line = self.src.number();
        let index = self.stats.rows;
        self.stats.rows += 1;
        if self.src.too_long() {
            let kind = ErrorKind::LineTooLong {
                limit: MAX_LINE_BYTES,
            };
            return Err(self.row_error(line, index, kind));
        }
        if self.layout.is_none() {
            let (puzzle, candidates) = plain_row(self.src.line(), self.pencil == Some(true))
                .map_err(|k| self.row_error(line, index, k))?;
            let more = More {
                candidates,
                ..More::default()
            };
            return Ok(Some(Record::plain(index, line, puzzle).with_more(more)));
        }
        let rec = self.read_csv_row(line, index)?;
        // The first row decides whether the puzzle column holds pencilmark
        // puzzles; later rows must agree.
        match self.pencil {
            None => self.pencil = Some(rec.candidates().is_some()),
            Some(p) => agrees(p, &rec).map_err(|k| self.row_error(line, index, k))?,
        }
        Ok(Some(rec))
    }

    /// Gathers the CSV record starting on the current line (continuing over
    /// lines while a quoted field is open) and reads it.
    fn read_csv_row(&mut self, line: u64, index: u64) -> Result<Record, DatasetError> {
        let Some(layout) = self.layout.as_ref() else {
            return Err(self.row_error(line, index, ErrorKind::BadHeader("no header".into())));
        };
        let row = |kind| DatasetError::row(&self.path, line, index, kind);
        self.record.clear();
        self.record.extend_from_slice(self.src.line());
        let delim = layout.delimiter;
        while !csv::split(&self.record, delim, &mut self.unquoted, &mut self.fields) {
            // Inside a quoted field: the record continues on the next line.
            match self.src.advance() {
                Ok(true) => {}
                Ok(false) => return Err(row(ErrorKind::UnterminatedQuote)),
                Err(e) => {
                    let kind = if self.gzip {
                        ErrorKind::Gzip(e)
                    } else {
                        ErrorKind::Read(e)
                    };
                    return Err(DatasetError::file(&self.path, kind));
                }
            }
            let more = self.src.line();
            if self.src.too_long() || self.record.len() + 1 + more.len() > MAX_LINE_BYTES {
                return Err(row(ErrorKind::LineTooLong {
                    limit: MAX_LINE_BYTES,
                }));
            }
            self.record.push(b'\n');
            self.record.extend_from_slice(more);
        }
        check_text(&self.record)
            .and_then(|()| csv_record(layout, &self.unquoted, &self.fields, line, index))
            .map_err(row)
    }
}

/// A CSV row's puzzle is of the kind (`pencil` or not) the file's first
/// row decided.
fn agrees(pencil: bool, rec: &Record) -> Result<(), ErrorKind> {
    if rec.candidates().is_some() == pencil {
        return Ok(());
    }
    let (expected, found) = if pencil {
        (PENCILMARK_LEN, CELLS)
    } else {
        (CELLS, PENCILMARK_LEN)
    };
    Err(ErrorKind::MixedLengths { expected, found })
}

/// One CSV row that is one line without quotes (what [`RawLines`] holds),
/// read as [`Reader::read_csv_row`] and the pencilmark agreement read it.
fn csv_line(
    layout: &Layout,
    pencil: bool,
    text: &[u8],
    scratch: &mut (Vec<u8>, Vec<Range<usize>>),
    line: u64,
    index: u64,
) -> Result<Record, ErrorKind> {
    let (unquoted, fields) = scratch;
    let complete = csv::split(text, layout.delimiter, unquoted, fields);
    debug_assert!(complete, "a line without quotes is a whole record");
    check_text(text)?;
    let rec = csv_record(layout, unquoted, fields, line, index)?;
    agrees(pencil, &rec)?;
    Ok(rec)
}

/// Builds a record from the fields of one CSV row (already checked as UTF-8).
fn csv_record(
    layout: &Layout,
    unquoted: &[u8],
    fields: &[Range<usize>],
    line: u64,
    index: u64,
) -> Result<Record, ErrorKind> {
    if fields.len() != layout.header.len() {
        return Err(ErrorKind::Ragged {
            expected: layout.header.len(),
            found: fields.len(),
        });
    }
    let field = |i: usize| -> &[u8] { unquoted[fields[i].clone()].trim_ascii() };
    let text = |i: Option<usize>| -> Option<Box<str>> {
        let f = field(i?);
        (!f.is_empty()).then(|| String::from_utf8_lossy(f).into())
    };
    let cell = field(layout.puzzle);
    let pencil = pencilmark::looks_like(cell);
    let (puzzle, candidates) = puzzle_text(cell, pencil, ErrorKind::PuzzleColumn)?;
    let solution = match layout.solution.map(field) {
        Some(f) if !f.is_empty() => {
            let s = Grid::parse_bytes(f).map_err(ErrorKind::SolutionColumn)?;
            // The quick check passes exactly when the thorough one does;
            // the thorough one says what is wrong.
            if !s.is_solution_of(&puzzle) {
                s.check_solution_of(&puzzle)
                    .map_err(ErrorKind::NotASolution)?;
            }
            if let Some((c, d)) = candidates
                .as_ref()
                .and_then(|m| pencilmark::violation(&s, m))
            {
                return Err(ErrorKind::NotASolution(crate::grid::SolutionError::Rule(
                    format!(
                        "{}={d} is not among the cell's candidates",
                        crate::grid::cell_name(c)
                    ),
                )));
            }
            Some(s)
        }
        _ => None,
    };
    let more = More {
        id: text(layout.id),
        rating: text(layout.rating),
        candidates,
        transform: None,
    };
    Ok(Record {
        solution,
        ..Record::plain(index, line, puzzle)
    }
    .with_more(more))
}

/// A plain line's puzzle (81 cells, or with `pencil` a pencilmark puzzle),
/// blanks around it ignored.
pub(crate) fn plain_row(
    text: &[u8],
    pencil: bool,
) -> Result<(Grid, Option<Candidates>), ErrorKind> {
    let text = text.trim_ascii();
    // A line that parses is ASCII digits or dots: no NUL, valid UTF-8, so
    // the text checks are needed only to explain a failure (and then come
    // first, as for CSV rows).
    puzzle_text(text, pencil, ErrorKind::Puzzle).map_err(|e| check_text(text).err().unwrap_or(e))
}

/// A puzzle's text: 81 cells, or with `pencil` a 729-character pencilmark
/// puzzle. A line of the other kind is a [`ErrorKind::MixedLengths`]
/// error; an 81-cell parse error is wrapped by `wrap`.
fn puzzle_text(
    text: &[u8],
    pencil: bool,
    wrap: fn(crate::grid::ParseError) -> ErrorKind,
) -> Result<(Grid, Option<Candidates>), ErrorKind> {
    if pencil {
        if Grid::parse_bytes(text).is_ok() {
            return Err(ErrorKind::MixedLengths {
                expected: PENCILMARK_LEN,
                found: CELLS,
            });
        }
        return pencilmark::parse(text)
            .map(|(g, c)| (g, Some(c)))
            .map_err(ErrorKind::Pencilmark);
    }
    match Grid::parse_bytes(text) {
        Ok(g) => Ok((g, None)),
        Err(_) if pencilmark::looks_like(text) => Err(ErrorKind::MixedLengths {
            expected: CELLS,
            found: PENCILMARK_LEN,
        }),
        Err(e) => Err(wrap(e)),
    }
}

/// Rejects NUL bytes and invalid UTF-8 in a row, naming the 1-based column.
fn check_text(bytes: &[u8]) -> Result<(), ErrorKind> {
    if let Some(i) = memchr::memchr(0, bytes) {
        return Err(ErrorKind::NulByte { column: i + 1 });
    }
    if let Err(e) = std::str::from_utf8(bytes) {
        return Err(ErrorKind::InvalidUtf8 {
            column: e.valid_up_to() + 1,
        });
    }
    Ok(())
}

impl Reader {
    /// Like [`Iterator::next`], but a record is pushed onto `out` instead of
    /// returned (`Some(Ok(()))`): a record is then built in place, which
    /// matters when reading is part of what a benchmark measures.
    pub fn next_into(&mut self, out: &mut Vec<Record>) -> Option<Result<(), DatasetError>> {
        if !self.done {
            if let Some(rec) = self.fast_line() {
                self.stats.valid += 1;
                out.push(rec);
                return Some(Ok(()));
            }
        }
        Some(self.next()?.map(|rec| out.push(rec)))
    }
}

impl Iterator for Reader {
    type Item = Result<Record, DatasetError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.read_row() {
            Ok(Some(rec)) => {
                self.stats.valid += 1;
                self.stats.with_solution += u64::from(rec.solution.is_some());
                Some(Ok(rec))
            }
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                if e.is_row() {
                    self.stats.invalid += 1;
                } else {
                    self.done = true;
                }
                Some(Err(e))
            }
        }
    }
}

impl std::iter::FusedIterator for Reader {}

#[cfg(test)]
mod tests {
    use super::*;

    /// A puzzle and its solution, shared with the other readers' tests.
    pub(super) const P1: &str =
        "009020034070008006600500000003900080700040002050002700000001007200300090480060500";
    pub(super) const S1: &str =
        "519627834372418956648593271123976485796845312854132769935281647267354198481769523";
    const P2: &str =
        "000007308200000007097805600070100906005903700901008030002304560800000001504200000";

    #[test]
    fn a_record_without_rare_fields_is_small_and_has_no_box() {
        // The pipeline copies every record between threads; see `Record`.
        assert!(std::mem::size_of::<Record>() <= 192);
        let plain = Record::plain(0, 1, Grid::empty());
        assert!(plain.clone().with_more(More::default()).more.is_none());
        let puzzle = Grid::parse(P1).unwrap();
        let read = Record::plain(0, 1, puzzle);
        let mut t = read.clone();
        let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(7);
        t.transform(crate::grid::transform::Transform::random(&mut rng));
        assert!(t.transformed().is_some());
        assert_eq!(t.original(), read);
    }

    fn read(text: &str, format: Format) -> Result<Reader, DatasetError> {
        Reader::from_reader("mem.txt", io::Cursor::new(text.as_bytes().to_vec()), format)
    }

    impl Reader {
        /// Reads to the end with `next`; the final stats.
        fn fold_stats(mut self) -> Stats {
            for _ in self.by_ref() {}
            self.stats()
        }
    }

    fn all(text: &str, format: Format) -> Vec<Result<Record, String>> {
        read(text, format)
            .unwrap()
            .map(|r| r.map_err(|e| e.to_string()))
            .collect()
    }

    #[test]
    fn lines_with_comments_blank_crlf_and_bom() {
        let text = format!(
            "\u{feff}# header comment\r\n\r\n  {P1}  \r\n#x\n{}\n",
            P2.replace('0', ".")
        );
        let mut r = read(&text, Format::Auto).unwrap();
        assert_eq!(r.format(), Format::Lines);
        assert!(!r.has_solutions());
        let a = r.next().unwrap().unwrap();
        assert_eq!(
            (a.index, a.line, a.puzzle.to_line_zeros().as_str()),
            (0, 3, P1)
        );
        let b = r.next().unwrap().unwrap();
        assert_eq!(
            (b.index, b.line, b.puzzle.to_line_zeros().as_str()),
            (1, 5, P2)
        );
        assert!(r.next().is_none());
        assert!(r.next().is_none());
        assert_eq!(
            r.stats(),
            Stats {
                rows: 2,
                valid: 2,
                invalid: 0,
                with_solution: 0
            }
        );
    }

    #[test]
    fn bad_lines_are_row_errors_and_reading_continues() {
        let text = format!("{P1}\n{}\n{P1}x\n{P2}\n", &P1[..80]);
        let got = all(&text, Format::Auto);
        assert_eq!(got.len(), 4);
        assert_eq!(
            got[1].as_ref().unwrap_err(),
            "mem.txt:2: puzzle: expected 81 cells, found 80 characters"
        );
        assert_eq!(
            got[2].as_ref().unwrap_err(),
            "mem.txt:3: puzzle: invalid character 'x' at position 82 (expected 1-9, 0 or .)"
        );
        let last = got[3].as_ref().unwrap();
        assert_eq!((last.index, last.line), (3, 4));
    }

    #[test]
    fn next_into_reads_what_next_reads() {
        let texts = [
            format!(
                "\u{feff}{P1}\r\n# c\n\n{P2}\n{}\n{P1}x\n {P2}\n{P1}",
                &P1[..80]
            ),
            format!("puzzle,solution\n{P1},{S1}\n{P2},\nbad,\n"),
        ];
        for text in &texts {
            let expected = all(text, Format::Auto);
            let mut r = read(text, Format::Auto).unwrap();
            let mut got = Vec::new();
            let mut out = Vec::new();
            while let Some(item) = r.next_into(&mut out) {
                got.push(match item {
                    Ok(()) => Ok(out.pop().unwrap()),
                    Err(e) => Err(e.to_string()),
                });
            }
            assert_eq!(got, expected);
            assert_eq!(r.stats(), read(text, Format::Auto).unwrap().fold_stats());
        }
    }

    #[test]
    fn csv_rows_with_solution_id_and_rating() {
        let text =
            format!("id,puzzle,solution,clues,difficulty\n7,{P1},{S1},27,2.5\n8,{P2},,32,\n");
        let mut r = read(&text, Format::Auto).unwrap();
        assert_eq!(r.format(), Format::Csv);
        assert!(r.has_solutions() && r.has_ids() && r.has_ratings());
        assert_eq!(
            r.columns(),
            ["id", "puzzle", "solution", "clues", "difficulty"]
        );
        let a = r.next().unwrap().unwrap();
        assert_eq!(a.id(), Some("7"));
        assert_eq!(a.rating(), Some("2.5"));
        assert_eq!(a.solution.unwrap().to_line(), S1);
        assert_eq!((a.index, a.line), (0, 2));
        let b = r.next().unwrap().unwrap();
        assert_eq!(
            (b.solution, b.rating(), b.index, b.line),
            (None, None, 1, 3)
        );
        assert!(r.next().is_none());
        assert_eq!(r.stats().with_solution, 1);
    }

    #[test]
    fn csv_multiline_quoted_record_keeps_start_line() {
        let text = format!("puzzle,note\n\"{P1}\",\"two\nlines\"\n{P2},x\n");
        let got = all(&text, Format::Csv);
        let a = got[0].as_ref().unwrap();
        let b = got[1].as_ref().unwrap();
        assert_eq!((a.line, b.line, b.index), (2, 4, 1));
        let text = format!("puzzle,note\n{P1},\"never closed\n{P2},x\n");
        let got = all(&text, Format::Csv);
        assert_eq!(
            got,
            vec![Err("mem.txt:2: unterminated quoted field".to_string())]
        );
    }

    #[test]
    fn other_delimiters() {
        for d in ["\t", ";", "|"] {
            let text = format!("Rating{d}Puzzle\nhard{d}{P1}\n");
            let got = all(&text, Format::Auto);
            let r = got[0].as_ref().unwrap();
            assert_eq!(
                (r.rating(), r.puzzle.to_line_zeros().as_str()),
                (Some("hard"), P1)
            );
        }
    }

    #[test]
    fn empty_and_comment_only_and_header_only() {
        let e = read("", Format::Auto).err().unwrap();
        assert_eq!(e.to_string(), "mem.txt: empty file");
        assert!(e.is_fatal() && e.line().is_none());
        let e = read("# c\n\n  \n", Format::Lines).err().unwrap();
        assert_eq!(
            e.to_string(),
            "mem.txt: no puzzles (only comments and blank lines)"
        );
        let e = read("quizzes,solutions\n\n", Format::Auto).err().unwrap();
        assert_eq!(e.to_string(), "mem.txt: no puzzles (only a CSV header)");
        assert_eq!(e.kind().name(), "no_puzzles");
    }

    #[test]
    fn nul_and_invalid_utf8_rows() {
        let mut bytes = format!("{P1}\n").into_bytes();
        bytes.extend_from_slice(b"00\x0012\n\xff\xfe\n");
        bytes.extend_from_slice(P2.as_bytes());
        let r = Reader::from_reader("m", io::Cursor::new(bytes), Format::Auto).unwrap();
        let got: Vec<_> = r.map(|r| r.map_err(|e| e.to_string())).collect();
        assert_eq!(got.len(), 4);
        assert_eq!(
            got[1].as_ref().unwrap_err(),
            "m:2: NUL byte at column 3 (binary data?)"
        );
        assert_eq!(
            got[2].as_ref().unwrap_err(),
            "m:3: invalid UTF-8 at column 1"
        );
        assert!(got[3].is_ok());
    }

    #[test]
    fn stem_strips_compression_and_text_extensions() {
        assert_eq!(stem(Path::new("data/sudoku-3m.csv.gz")), "sudoku-3m");
        assert_eq!(stem(Path::new("x/top95.txt")), "top95");
        assert_eq!(stem(Path::new("hardest.TXT")), "hardest");
        assert_eq!(stem(Path::new("a.b.csv")), "a.b");
        assert_eq!(stem(Path::new("plain")), "plain");
        assert_eq!(stem(Path::new(".gz")), ".gz");
        assert_eq!(stem(Path::new("p.sdm")), "p.sdm");
    }

    proptest::proptest! {
        /// Any bytes, any format, plain or gzip: errors at worst, never a
        /// panic; indices are consecutive and lines increase.
        #[test]
        fn arbitrary_input_never_panics(
            body in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(b"0123456789.,;\t|\"#\r\n \0\xff".to_vec()),
                    proptest::num::u8::ANY,
                ],
                0..600,
            ),
            header in proptest::sample::select(vec!["", "quizzes,solutions\n", "id,puzzle,solution,difficulty\n", "\"puzzle\"\n"]),
            format in proptest::sample::select(vec![Format::Auto, Format::Csv, Format::Lines]),
            rows in 0usize..4,
            gzip in proptest::bool::ANY,
            cut in 0usize..2000,
        ) {
            let mut data = header.as_bytes().to_vec();
            for _ in 0..rows {
                data.extend_from_slice(P1.as_bytes());
                data.push(b'\n');
            }
            data.extend_from_slice(&body);
            if gzip {
                // Compressed, and truncated at a random point.
                use std::io::Write;
                let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                enc.write_all(&data).unwrap();
                data = enc.finish().unwrap();
                data.truncate(cut.max(2));
            }
            if let Ok(reader) = Reader::from_reader("p", io::Cursor::new(data), format) {
                let mut next_index = 0;
                let mut last_line = 0;
                for item in reader {
                    let (index, line) = match &item {
                        Ok(r) => (Some(r.index), r.line),
                        Err(e) => (e.index(), e.line().unwrap_or(u64::MAX)),
                    };
                    if let Some(i) = index {
                        proptest::prop_assert_eq!(i, next_index);
                        next_index += 1;
                        proptest::prop_assert!(line > last_line);
                        last_line = line;
                    }
                }
            }
        }
    }

    #[test]
    fn reader_is_send() {
        fn send<T: Send>() {}
        send::<Reader>();
        send::<DatasetError>();
        send::<Record>();
    }
}
