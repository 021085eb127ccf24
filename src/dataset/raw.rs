//! Plain puzzle lines taken from the input unparsed, to be parsed by
//! another thread.
//!
//! A dataset is read in order, by one thread at a time, so whatever reading
//! costs per puzzle bounds how many solver threads it can feed. For the
//! common shapes (plain lines of exactly 81 characters; CSV rows of one
//! line without quotes) [`Reader::next_raw`] does only what must be done in
//! order: it finds where each line ends, counts it (so every row keeps its
//! index and line number) and copies the bytes out.
//! [`RawLines::parse_into`] then turns them into records on whichever
//! thread solves them, with exactly the records and errors the reader's
//! [`Iterator`] gives for the same lines.

use super::csv::Layout;
use super::{csv_line, plain_row, DatasetError, Reader, Record, MAX_LINE_BYTES};
use crate::grid::{Grid, CELLS};
use std::path::Path;
use std::sync::Arc;

/// Consecutive puzzle rows, unparsed. Each starts with a byte that makes it
/// a row (neither blank nor a `#` comment) and is either a plain line of 81
/// bytes followed by `\n` or `\r\n`, or a CSV row on one line, without
/// quotes, followed by `\n`.
pub struct RawLines {
    path: Arc<Path>,
    form: Form,
    bytes: Vec<u8>,
    /// The first row's index and line; the rest follow one a line.
    first_index: u64,
    first_line: u64,
    count: usize,
}

/// What the rows are.
enum Form {
    Plain,
    /// CSV rows of this layout; the file's first row decided whether their
    /// puzzles are pencilmark puzzles.
    Csv {
        layout: Arc<Layout>,
        pencil: bool,
    },
}

impl std::fmt::Debug for RawLines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawLines")
            .field("path", &self.path)
            .field("first_index", &self.first_index)
            .field("first_line", &self.first_line)
            .field("count", &self.count)
            .finish_non_exhaustive()
    }
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
        let numbers = |k: usize| (self.first_index + k as u64, self.first_line + k as u64);
        let error = |(index, line), kind| DatasetError::row(&self.path, line, index, kind);
        match &self.form {
            Form::Plain => {
                let mut rest = &self.bytes[..];
                for k in 0..self.count {
                    let (index, line) = numbers(k);
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
                            if !bad(error((index, line), kind)) {
                                return;
                            }
                        }
                    }
                }
            }
            Form::Csv { layout, pencil } => {
                let mut scratch = (Vec::new(), Vec::new());
                let mut lines = self.bytes.split(|&b| b == b'\n');
                for k in 0..self.count {
                    let (index, line) = numbers(k);
                    let text = lines.next().expect("a line a row");
                    // As the reader hands out lines: without a final `\r`.
                    let text = text.strip_suffix(b"\r").unwrap_or(text);
                    match csv_line(layout, *pencil, text, &mut scratch, line, index) {
                        Ok(rec) => out.push(rec),
                        Err(kind) => {
                            if !bad(error((index, line), kind)) {
                                return;
                            }
                        }
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

/// Whether a CSV line without quotes (a quoted field may go on over the
/// next line) is a row: not blank, not a comment.
fn csv_row_line(line: &[u8]) -> bool {
    line.trim_ascii_start().first().is_some_and(|&b| b != b'#')
}

impl Reader {
    /// Up to `max` rows, unparsed, when the next line is one of the shapes
    /// [`RawLines`] holds; `Ok(None)` when it is not (a pencilmark file, a
    /// line of another shape, a comment, the first row, the end, a CSV file
    /// whose first row did not say whether its puzzles are pencilmark
    /// puzzles): then [`Reader::next_into`] reads it. `buffer` is reused
    /// for the bytes. The rows count as rows of [`Reader::stats`]; whether
    /// they are valid is only known once they are parsed, so they do not
    /// count as valid or invalid.
    pub fn next_raw(
        &mut self,
        max: usize,
        mut buffer: Vec<u8>,
    ) -> Result<Option<RawLines>, DatasetError> {
        if self.done || max == 0 {
            return Ok(None);
        }
        buffer.clear();
        let first_line = self.src.number() + 1;
        let (form, count) = match (&self.layout, self.pencil) {
            (None, Some(false)) => (
                Form::Plain,
                self.src.take_fixed::<CELLS>(max, starts_a_row, &mut buffer),
            ),
            (Some(layout), Some(pencil)) => (
                Form::Csv {
                    layout: Arc::clone(layout),
                    pencil,
                },
                self.src.take_lines(max, b'"', csv_row_line, &mut buffer),
            ),
            _ => return Ok(None),
        };
        let count = count.map_err(|e| self.io_error(e))?;
        if count == 0 {
            return Ok(None);
        }
        debug_assert!(buffer.len() <= count * (MAX_LINE_BYTES + 1));
        let first_index = self.stats.rows;
        self.stats.rows += count as u64;
        Ok(Some(RawLines {
            path: Arc::clone(&self.path),
            form,
            bytes: buffer,
            first_index,
            first_line,
            count,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{P1, S1};
    use super::super::Format;
    use super::*;
    use std::io;

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

    /// Files of `head` and then `lines` (each three times, in an order
    /// stepping by `step`, from every start), ending with and without a
    /// newline: raw runs of each length in `maxes` must read as the
    /// iterator reads.
    fn in_every_order(head: &str, lines: &[String], step: usize, maxes: &[usize]) {
        for shift in 0..lines.len() {
            let mut text = head.to_string();
            for k in 0..3 * lines.len() {
                text.push_str(&lines[(k * step + shift) % lines.len()]);
                text.push('\n');
            }
            for t in [text.as_str(), text.trim_end_matches('\n')] {
                let want = plain(t);
                for &max in maxes {
                    assert_eq!(mixed(t, max), want, "max {max}, shift {shift}");
                }
            }
        }
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
        // The first line decides the format.
        in_every_order(&format!("{P1}\n"), &lines, 7, &[1, 2, 5, 1000]);
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

    /// The pencilmark form of a puzzle: each given as its digit alone,
    /// each blank with every candidate.
    fn pencil(p: &str) -> String {
        p.chars()
            .map(|c| match c.to_digit(10) {
                Some(d) if d > 0 => (1..=9)
                    .map(|k| if k == d { c } else { '.' })
                    .collect::<String>(),
                _ => "123456789".to_string(),
            })
            .collect()
    }

    #[test]
    fn raw_csv_rows_are_what_the_iterator_reads() {
        let wrong = S1.replace("519", "591");
        let rows = [
            format!("{P1},{S1},easy"),
            format!("{P1},{S1},easy\r"),
            format!("{P1},,"),
            format!("\"{P1}\",{S1},\"quoted\""),
            format!("{P1},{S1},\"two\nlines\""),
            format!("{P1},{wrong},x"),
            format!("{P1},{S1}"),
            format!("{P1},{S1},a,b"),
            format!("{},{S1},short", &P1[..80]),
            format!("{},,pencil", pencil(P1)),
            format!("{P1},{S1},nul\0"),
            format!("{P1},{S1},bad \u{ff}"),
            "# a comment".into(),
            String::new(),
            "   ".into(),
            format!("  {P1} ,{S1}, spaced "),
        ];
        in_every_order(
            &format!("puzzle,solution,rating\n{P1},{S1},first\n"),
            &rows,
            5,
            &[1, 3, 1000],
        );
        // A file of pencilmark puzzles: 81-cell rows are the odd ones out.
        let text = format!(
            "puzzle;solution\n{};{S1}\n{};\n{P1};\n{};{wrong}\n",
            pencil(P1),
            pencil(P1),
            pencil(P1)
        );
        let want = plain(&text);
        assert!(
            want[2].as_ref().is_err_and(|e| e.contains("729")),
            "{want:?}"
        );
        for max in [1, 1000] {
            assert_eq!(mixed(&text, max), want);
        }
    }

    #[test]
    fn the_first_line_and_other_formats_are_not_offered() {
        let mut r = reader(&format!("{P1}\n{P1}\n"));
        assert!(r.next_raw(10, Vec::new()).unwrap().is_none());
        r.next().unwrap().unwrap();
        let raw = r.next_raw(10, Vec::new()).unwrap().unwrap();
        assert_eq!((raw.len(), raw.first_index()), (1, 1));
        // A CSV file's first row decides whether its puzzles are pencilmark
        // puzzles; until one is read, nothing is offered.
        let mut r = reader(&format!("puzzle\nbad\n{P1}\n{P1}\n"));
        assert!(r.next_raw(10, Vec::new()).unwrap().is_none());
        r.next().unwrap().unwrap_err();
        assert!(r.next_raw(10, Vec::new()).unwrap().is_none());
        r.next().unwrap().unwrap();
        let raw = r.next_raw(10, Vec::new()).unwrap().unwrap();
        assert_eq!((raw.len(), raw.first_index()), (1, 2));
    }
}
