//! Plain puzzle lines taken from the input unparsed, to be parsed by
//! another thread.
//!
//! A dataset is read in order, by one thread at a time, so whatever reading
//! costs per puzzle bounds how many solver threads it can feed. For the
//! common shape (plain lines of exactly 81 characters) [`Reader::next_raw`]
//! does only what must be done in order: it finds where each line ends,
//! counts it (so every row keeps its index and line number) and copies the
//! bytes out. [`RawLines::parse_into`] then turns them into records on whichever
//! thread solves them, with exactly the records and errors the reader's
//! [`Iterator`] gives for the same lines.

use super::{plain_row, DatasetError, Reader, Record};
use crate::grid::{Grid, CELLS};
use std::path::Path;
use std::sync::Arc;

/// Consecutive puzzle rows of a plain-lines dataset, unparsed: each is 81
/// bytes followed by `\n` or `\r\n`, and starts with a byte that makes it a
/// row (neither blank nor a `#` comment).
#[derive(Debug)]
pub struct RawLines {
    path: Arc<Path>,
    bytes: Vec<u8>,
    /// The first row's index and line; the rest follow one a line.
    first_index: u64,
    first_line: u64,
    count: usize,
}

impl RawLines {
    /// Rows held.
    pub fn len(&self) -> usize {
        self.count
    }

    /// True when no row is held.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The index of the first row.
    pub fn first_index(&self) -> u64 {
        self.first_index
    }

    /// Parses the rows in order, appending each good one's record to `out`
    /// and handing each bad one's row error to `bad`; stops after a bad row
    /// when `bad` returns `false`. Records and errors are the ones
    /// [`Reader`]'s iterator gives for the same lines.
    pub fn parse_into(&self, out: &mut Vec<Record>, mut bad: impl FnMut(DatasetError) -> bool) {
        out.reserve(self.count);
        let mut rest = &self.bytes[..];
        for k in 0..self.count {
            let (index, line) = (self.first_index + k as u64, self.first_line + k as u64);
            let text: &[u8; CELLS] = rest[..CELLS].try_into().expect("81 bytes a row");
            let term = if rest[CELLS] == b'\r' { 2 } else { 1 };
            rest = &rest[CELLS + term..];
            if let Some(puzzle) = Grid::parse_exact(text) {
                out.push(Record::plain(index, line, puzzle));
                continue;
            }
            // The reader's own path, for the same error.
            match plain_row(text, false) {
                Ok((puzzle, _)) => out.push(Record::plain(index, line, puzzle)),
                Err(kind) => {
                    if !bad(DatasetError::row(&self.path, line, index, kind)) {
                        return;
                    }
                }
            }
        }
    }

    /// The byte buffer, emptied, for the next [`Reader::next_raw`].
    pub fn into_buffer(mut self) -> Vec<u8> {
        self.bytes.clear();
        self.bytes
    }
}

/// Whether a line starting with `b` is a puzzle row for certain: not blank,
/// not a comment (a line starting with blanks is left to the full reader).
fn starts_a_row(b: u8) -> bool {
    b != b'#' && !b.is_ascii_whitespace()
}

impl Reader {
    /// Up to `max` rows of plain 81-cell lines, unparsed, when the next
    /// line is one; `Ok(None)` when it is not (another format, a pencilmark
    /// file, a line of another length, a comment, the first line, the end):
    /// then [`Reader::next_into`] reads it. `buffer` is reused for the
    /// bytes. The rows count as rows of [`Reader::stats`]; whether they are
    /// valid is only known once they are parsed, so they do not count as
    /// valid or invalid.
    pub fn next_raw(
        &mut self,
        max: usize,
        mut buffer: Vec<u8>,
    ) -> Result<Option<RawLines>, DatasetError> {
        if self.done || self.layout.is_some() || self.pencil != Some(false) || max == 0 {
            return Ok(None);
        }
        buffer.clear();
        let first_line = self.src.number() + 1;
        let count = self
            .src
            .take_fixed::<CELLS>(max, starts_a_row, &mut buffer)
            .map_err(|e| self.io_error(e))?;
        if count == 0 {
            return Ok(None);
        }
        let first_index = self.stats.rows;
        self.stats.rows += count as u64;
        Ok(Some(RawLines {
            path: Arc::clone(&self.path),
            bytes: buffer,
            first_index,
            first_line,
            count,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::super::Format;
    use super::*;
    use std::io;

    const P1: &str =
        "009020034070008006600500000003900080700040002050002700000001007200300090480060500";

    fn reader(text: &str) -> Reader {
        Reader::from_reader(
            "mem.txt",
            io::Cursor::new(text.as_bytes().to_vec()),
            Format::Auto,
        )
        .unwrap()
    }

    /// Reads a whole file taking raw lines whenever they are offered (in
    /// runs of at most `max`), parsing them, and the rest with the
    /// iterator.
    fn mixed(text: &str, max: usize) -> Vec<Result<Record, String>> {
        let mut r = reader(text);
        let mut out = Vec::new();
        let mut buffer = Vec::new();
        loop {
            if let Some(raw) = r.next_raw(max, std::mem::take(&mut buffer)).unwrap() {
                assert!(raw.len() <= max && !raw.is_empty());
                // Records and errors in file order.
                let mut records = Vec::new();
                let mut errors = Vec::new();
                raw.parse_into(&mut records, |e| {
                    errors.push(e);
                    true
                });
                let mut items: Vec<(u64, Result<Record, String>)> = records
                    .into_iter()
                    .map(|r| (r.line, Ok(r)))
                    .chain(
                        errors
                            .into_iter()
                            .map(|e| (e.line().unwrap(), Err(e.to_string()))),
                    )
                    .collect();
                items.sort_by_key(|i| i.0);
                out.extend(items.into_iter().map(|i| i.1));
                buffer = raw.into_buffer();
                continue;
            }
            match r.next() {
                Some(item) => out.push(item.map_err(|e| e.to_string())),
                None => return out,
            }
        }
    }

    fn plain(text: &str) -> Vec<Result<Record, String>> {
        reader(text).map(|r| r.map_err(|e| e.to_string())).collect()
    }

    #[test]
    fn raw_rows_are_what_the_iterator_reads() {
        let bad = format!("{}x", &P1[..80]);
        let spaced = format!("{} ", &P1[..80]);
        let lines = [
            P1.to_string(),
            format!("{P1}\r"),
            "# a comment".into(),
            String::new(),
            bad.clone(),
            spaced,
            format!(" {}", &P1[..80]),
            format!("#{}", &P1[..80]),
            P1.replace('0', "."),
            format!("{P1}0"),
            P1[..80].to_string(),
            format!("{}\0", &P1[..80]),
        ];
        // Every line in many orders and with the file ending with and
        // without a newline.
        for shift in 0..lines.len() {
            // The first line decides the format.
            let mut text = format!("{P1}\n");
            for k in 0..3 * lines.len() {
                text.push_str(&lines[(k * 7 + shift) % lines.len()]);
                text.push('\n');
            }
            for last_newline in [true, false] {
                let t = if last_newline {
                    text.clone()
                } else {
                    text.trim_end_matches('\n').to_string()
                };
                let want = plain(&t);
                for max in [1, 2, 5, 1000] {
                    assert_eq!(mixed(&t, max), want, "max {max}, shift {shift}");
                }
            }
        }
    }

    #[test]
    fn raw_lines_span_refills_and_keep_their_numbers() {
        // More than a read block of rows, with a comment in the middle.
        let mut text = String::new();
        for k in 0..3000 {
            if k == 1500 {
                text.push_str("# half way\n");
            }
            text.push_str(P1);
            text.push_str(if k % 3 == 0 { "\r\n" } else { "\n" });
        }
        let got = mixed(&text, 256);
        assert_eq!(got, plain(&text));
        let last = got.last().unwrap().as_ref().unwrap();
        assert_eq!((last.index, last.line), (2999, 3001));
    }

    #[test]
    fn the_first_line_and_other_formats_are_not_offered() {
        let mut r = reader(&format!("{P1}\n{P1}\n"));
        assert!(r.next_raw(10, Vec::new()).unwrap().is_none());
        r.next().unwrap().unwrap();
        let raw = r.next_raw(10, Vec::new()).unwrap().unwrap();
        assert_eq!((raw.len(), raw.first_index()), (1, 1));
        let mut r = reader(&format!("puzzle\n{P1}\n{P1}\n"));
        r.next().unwrap().unwrap();
        assert!(r.next_raw(10, Vec::new()).unwrap().is_none());
    }
}
