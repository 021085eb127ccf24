//! [`DatasetError`]: what went wrong, where (`FILE:LINE:` or `FILE:`), and
//! whether the stream can go on.

use crate::grid::pencilmark::PencilmarkError;
use crate::grid::{ParseError, SolutionError};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Every way reading a dataset can fail.
///
/// Row-level kinds ([`ErrorKind::is_row`]) concern one puzzle row; the reader
/// continues with the next row after returning one. All other kinds are
/// file-level and end the stream.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    // ---- file-level -------------------------------------------------------
    /// The path could not be opened (missing, no permission, ...).
    #[error("cannot open: {0}")]
    Open(#[source] io::Error),
    /// The path is a directory.
    #[error("is a directory, expected a dataset file")]
    IsDirectory,
    /// A read failed part-way; the stream ends.
    #[error("read error: {0}")]
    Read(#[source] io::Error),
    /// The gzip stream is corrupt or truncated; the stream ends.
    #[error("corrupt gzip data: {0}")]
    Gzip(#[source] io::Error),
    /// Zero bytes (after decompression).
    #[error("empty file")]
    Empty,
    /// Only comments and blank lines, or a CSV header without rows.
    #[error("no puzzles ({0})")]
    NoPuzzles(&'static str),
    /// A NUL byte where the format is decided: not a text file.
    #[error("binary data (NUL byte at column {column}), expected a text dataset")]
    Binary { column: usize },
    /// The CSV header names no puzzle column.
    #[error(
        "no puzzle column in the CSV header (expected one of: {}); found: {}",
        super::csv::PUZZLE_COLUMNS.join(", "),
        list_header(.header)
    )]
    MissingPuzzleColumn { header: Vec<String> },
    /// `--format auto` could not tell the format from the first line.
    #[error("cannot detect the format: {reason}")]
    UnknownFormat { reason: String },
    /// The CSV header itself cannot be read.
    #[error("bad CSV header: {0}")]
    BadHeader(String),

    // ---- row-level --------------------------------------------------------
    /// The line (or CSV record) exceeds [`super::MAX_LINE_BYTES`].
    #[error("line too long (over {limit} bytes)")]
    LineTooLong { limit: usize },
    /// A NUL byte inside a row; `column` is the 1-based byte position.
    #[error("NUL byte at column {column} (binary data?)")]
    NulByte { column: usize },
    /// The row is not valid UTF-8; `column` is the 1-based byte position.
    #[error("invalid UTF-8 at column {column}")]
    InvalidUtf8 { column: usize },
    /// The puzzle of a plain-lines row does not parse.
    #[error("puzzle: {0}")]
    Puzzle(ParseError),
    /// The puzzle column of a CSV row does not parse.
    #[error("puzzle column: {0}")]
    PuzzleColumn(ParseError),
    /// The solution column does not parse as 81 cells.
    #[error("solution column: {0}")]
    SolutionColumn(ParseError),
    /// The solution column parses but does not solve the puzzle.
    #[error("solution column: not a solution of the puzzle: {0}")]
    NotASolution(SolutionError),
    /// A CSV row with a different number of fields than the header.
    #[error("expected {expected} fields (as in the header), found {found}")]
    Ragged { expected: usize, found: usize },
    /// A quoted CSV field still open at the end of the file.
    #[error("unterminated quoted field")]
    UnterminatedQuote,
    /// A 729-character pencilmark puzzle that does not parse.
    #[error("pencilmark puzzle: {0}")]
    Pencilmark(PencilmarkError),
    /// An 81-cell puzzle among pencilmark ones, or the other way round.
    #[error(
        "a puzzle of {found} characters in a file of {expected}-character puzzles \
         (81-cell and 729-character pencilmark puzzles cannot be mixed in one file)"
    )]
    MixedLengths { expected: usize, found: usize },
}

fn list_header(h: &[String]) -> String {
    if h.is_empty() {
        return "(nothing)".to_string();
    }
    h.iter()
        .map(|s| format!("{s:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl ErrorKind {
    /// True for errors that concern a single row: the reader goes on after them.
    pub fn is_row(&self) -> bool {
        matches!(
            self,
            ErrorKind::LineTooLong { .. }
                | ErrorKind::NulByte { .. }
                | ErrorKind::InvalidUtf8 { .. }
                | ErrorKind::Puzzle(_)
                | ErrorKind::PuzzleColumn(_)
                | ErrorKind::SolutionColumn(_)
                | ErrorKind::NotASolution(_)
                | ErrorKind::Ragged { .. }
                | ErrorKind::UnterminatedQuote
                | ErrorKind::Pencilmark(_)
                | ErrorKind::MixedLengths { .. }
        )
    }

    /// A short stable name, handy for counting skips by cause.
    pub fn name(&self) -> &'static str {
        match self {
            ErrorKind::Open(_) => "open",
            ErrorKind::IsDirectory => "is_directory",
            ErrorKind::Read(_) => "read",
            ErrorKind::Gzip(_) => "gzip",
            ErrorKind::Empty => "empty",
            ErrorKind::NoPuzzles(_) => "no_puzzles",
            ErrorKind::Binary { .. } => "binary",
            ErrorKind::MissingPuzzleColumn { .. } => "missing_puzzle_column",
            ErrorKind::UnknownFormat { .. } => "unknown_format",
            ErrorKind::BadHeader(_) => "bad_header",
            ErrorKind::LineTooLong { .. } => "line_too_long",
            ErrorKind::NulByte { .. } => "nul_byte",
            ErrorKind::InvalidUtf8 { .. } => "invalid_utf8",
            ErrorKind::Puzzle(_) | ErrorKind::PuzzleColumn(_) => "bad_puzzle",
            ErrorKind::SolutionColumn(_) | ErrorKind::NotASolution(_) => "bad_solution",
            ErrorKind::Ragged { .. } => "ragged_row",
            ErrorKind::UnterminatedQuote => "unterminated_quote",
            ErrorKind::Pencilmark(_) => "bad_pencilmark",
            ErrorKind::MixedLengths { .. } => "mixed_lengths",
        }
    }
}

/// An error while reading a dataset: `FILE:LINE: what is wrong` for a row,
/// `FILE: what is wrong` (or `FILE:LINE: ...` when a line is known) for the file.
#[derive(Debug)]
pub struct DatasetError {
    path: PathBuf,
    line: Option<u64>,
    index: Option<u64>,
    kind: ErrorKind,
}

impl DatasetError {
    pub(crate) fn file(path: &Path, kind: ErrorKind) -> Self {
        DatasetError {
            path: path.to_path_buf(),
            line: None,
            index: None,
            kind,
        }
    }

    pub(crate) fn at_line(path: &Path, line: u64, kind: ErrorKind) -> Self {
        DatasetError {
            path: path.to_path_buf(),
            line: Some(line),
            index: None,
            kind,
        }
    }

    pub(crate) fn row(path: &Path, line: u64, index: u64, kind: ErrorKind) -> Self {
        DatasetError {
            path: path.to_path_buf(),
            line: Some(line),
            index: Some(index),
            kind,
        }
    }

    /// The dataset file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// 1-based line where the offending row (or header) starts, if any.
    pub fn line(&self) -> Option<u64> {
        self.line
    }

    /// The 0-based puzzle index the bad row consumed (row errors only).
    pub fn index(&self) -> Option<u64> {
        self.index
    }

    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// True when the reader continues after this error (a bad row).
    pub fn is_row(&self) -> bool {
        self.kind.is_row()
    }

    /// True when the stream ends with this error.
    pub fn is_fatal(&self) -> bool {
        !self.kind.is_row()
    }
}

impl fmt::Display for DatasetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The path as a terminal may show it (a line break or an escape
        // sequence in a file name is escaped).
        let path = self.path.display().to_string();
        let path = crate::support::text::printable(&path);
        match self.line {
            Some(line) => write!(f, "{path}:{line}: {}", self.kind),
            None => write!(f, "{path}: {}", self.kind),
        }
    }
}

// No `source()`: the message already includes the cause, and error chains
// (`anyhow`'s `{:#}`) would print it twice.
impl std::error::Error for DatasetError {}
