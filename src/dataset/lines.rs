//! Bounded physical-line reading, shared by both formats.
//!
//! [`LineReader`] hands out one line at a time from a buffered source, never
//! holding more than [`MAX_LINE_BYTES`](super::MAX_LINE_BYTES) of a line: the
//! rest of a longer line is read and discarded, and the line is flagged
//! `too_long`. Line numbers are 1-based and count `\n`; a UTF-8 byte-order
//! mark at the start of the file is dropped.

use std::io::{self, BufRead};

pub(crate) struct LineReader<R> {
    inner: R,
    /// The current line without its `\n` (a trailing `\r` is kept; callers trim).
    line: Vec<u8>,
    /// 1-based number of the current line; 0 before the first.
    number: u64,
    too_long: bool,
    cap: usize,
    pushed_back: bool,
    /// Bytes read from the source so far (after decompression).
    bytes: u64,
}

impl<R: BufRead> LineReader<R> {
    pub(crate) fn new(inner: R, cap: usize) -> Self {
        LineReader {
            inner,
            line: Vec::new(),
            number: 0,
            too_long: false,
            cap,
            pushed_back: false,
            bytes: 0,
        }
    }

    /// Advances to the next line. `Ok(false)` at end of input.
    pub(crate) fn advance(&mut self) -> io::Result<bool> {
        if self.pushed_back {
            self.pushed_back = false;
            return Ok(true);
        }
        self.line.clear();
        self.too_long = false;
        let mut any = false;
        loop {
            let avail = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if avail.is_empty() {
                if !any {
                    return Ok(false);
                }
                break;
            }
            any = true;
            let (chunk, used, done) = match memchr::memchr(b'\n', avail) {
                Some(i) => (&avail[..i], i + 1, true),
                None => (avail, avail.len(), false),
            };
            if !self.too_long {
                if self.line.len() + chunk.len() > self.cap {
                    self.too_long = true;
                    // Keep a short prefix so callers can still tell a comment.
                    let room = 64usize.saturating_sub(self.line.len()).min(chunk.len());
                    self.line.extend_from_slice(&chunk[..room]);
                } else {
                    self.line.extend_from_slice(chunk);
                }
            }
            self.inner.consume(used);
            self.bytes += used as u64;
            if done {
                break;
            }
        }
        self.number += 1;
        if self.number == 1 && self.line.starts_with(b"\xEF\xBB\xBF") {
            self.line.drain(..3);
        }
        Ok(true)
    }

    /// Makes the next [`advance`](Self::advance) return the current line again.
    pub(crate) fn unread(&mut self) {
        self.pushed_back = true;
    }

    /// The current line, without `\n` or a trailing `\r`. When
    /// [`too_long`](Self::too_long) it holds only a short prefix.
    pub(crate) fn line(&self) -> &[u8] {
        self.line.strip_suffix(b"\r").unwrap_or(&self.line)
    }

    pub(crate) fn number(&self) -> u64 {
        self.number
    }

    pub(crate) fn too_long(&self) -> bool {
        self.too_long
    }

    pub(crate) fn bytes_read(&self) -> u64 {
        self.bytes
    }

    /// True when the current line is blank or a `#` comment (judged on its
    /// first non-whitespace byte, so also for an over-long line).
    pub(crate) fn is_skippable(&self) -> bool {
        match self.line.trim_ascii_start().first() {
            None => !self.too_long,
            Some(&b) => b == b'#',
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], cap: usize) -> Vec<(u64, Vec<u8>, bool)> {
        // A tiny BufReader capacity exercises lines split across buffer refills.
        let mut r = LineReader::new(io::BufReader::with_capacity(3, input), cap);
        let mut out = Vec::new();
        while r.advance().unwrap() {
            out.push((r.number(), r.line().to_vec(), r.too_long()));
        }
        out
    }

    #[test]
    fn splits_lf_crlf_and_last_line_without_newline() {
        let got = lines(b"ab\r\ncd\n\nef", 100);
        assert_eq!(
            got,
            vec![
                (1, b"ab".to_vec(), false),
                (2, b"cd".to_vec(), false),
                (3, b"".to_vec(), false),
                (4, b"ef".to_vec(), false),
            ]
        );
        assert!(lines(b"", 100).is_empty());
        assert_eq!(lines(b"\n", 100), vec![(1, vec![], false)]);
    }

    #[test]
    fn drops_bom_on_first_line_only() {
        let got = lines(b"\xEF\xBB\xBFab\n\xEF\xBB\xBFcd\n", 100);
        assert_eq!(got[0].1, b"ab");
        assert_eq!(got[1].1, b"\xEF\xBB\xBFcd");
    }

    #[test]
    fn caps_long_lines_and_resynchronises() {
        let mut input = vec![b'x'; 1000];
        input.extend_from_slice(b"\nok\n");
        let got = lines(&input, 100);
        assert_eq!(got.len(), 2);
        assert!(got[0].2);
        assert!(got[0].1.len() <= 100);
        assert_eq!(got[1], (2, b"ok".to_vec(), false));
        // Exactly at the cap is fine.
        let got = lines(&[b'y'; 100], 100);
        assert_eq!(got, vec![(1, vec![b'y'; 100], false)]);
    }

    #[test]
    fn unread_returns_the_same_line() {
        let mut r = LineReader::new(&b"a\nb\n"[..], 10);
        assert!(r.advance().unwrap());
        r.unread();
        assert!(r.advance().unwrap());
        assert_eq!((r.number(), r.line()), (1, &b"a"[..]));
        assert!(r.advance().unwrap());
        assert_eq!((r.number(), r.line()), (2, &b"b"[..]));
        assert!(!r.advance().unwrap());
    }
}
