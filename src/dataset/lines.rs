//! Bounded physical-line reading, shared by both formats.
//!
//! [`LineReader`] hands out one line at a time from a buffered source, never
//! holding more than [`MAX_LINE_BYTES`](super::MAX_LINE_BYTES) of a line: the
//! rest of a longer line is read and discarded, and the line is flagged
//! `too_long`. Line numbers are 1-based and count `\n`; a UTF-8 byte-order
//! mark at the start of the file is dropped.

use std::io::{self, Read};

/// Bytes asked of the source per read.
const BLOCK: usize = 64 * 1024;
/// Bytes of an over-long line kept, so callers can still tell a comment.
const LONG_PREFIX: usize = 64;

/// The first `\n` in `bytes`. Puzzle lines are short, where a word-wide
/// scan beats a call into `memchr` (whose set-up dominates below ~100
/// bytes); longer lines go to `memchr`.
#[inline]
fn find_newline(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    const NEWLINES: u64 = u64::from_ne_bytes([b'\n'; 8]);
    let short = bytes.len().min(128);
    let mut i = 0;
    while i + 8 <= short {
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes[i..i + 8]);
        let x = u64::from_le_bytes(word) ^ NEWLINES;
        // Nonzero exactly when some byte of `x` is zero (a newline); its
        // lowest set high bit marks the first one.
        let zero = x.wrapping_sub(ONES) & !x & HIGHS;
        if zero != 0 {
            return Some(i + zero.trailing_zeros() as usize / 8);
        }
        i += 8;
    }
    memchr::memchr(b'\n', &bytes[i..]).map(|k| i + k)
}

/// What [`LineReader::take`] does with the first unread line.
enum Next {
    /// Take it: its length with its line end.
    Take(usize),
    /// Leave it (and stop).
    Stop,
    /// The buffer ends inside it: refill and judge it again.
    RanOut,
}

/// Lines are handed out as slices of the reader's own buffer (no copy per
/// line); the buffer holds up to `cap` bytes of an unfinished line plus one
/// block.
pub(crate) struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    /// `buf[pos..end]` is read and not yet handed out.
    pos: usize,
    end: usize,
    /// The current line (without `\n`) is `buf[start..stop]`, or
    /// `long_prefix` when it is too long.
    start: usize,
    stop: usize,
    long_prefix: Vec<u8>,
    /// 1-based number of the current line; 0 before the first.
    number: u64,
    too_long: bool,
    cap: usize,
    pushed_back: bool,
    eof: bool,
    /// Bytes read from the source so far (after decompression).
    read: u64,
}

impl<R: Read> LineReader<R> {
    pub(crate) fn new(inner: R, cap: usize) -> Self {
        LineReader {
            inner,
            buf: vec![0; cap + BLOCK],
            pos: 0,
            end: 0,
            start: 0,
            stop: 0,
            long_prefix: Vec::new(),
            number: 0,
            too_long: false,
            cap,
            pushed_back: false,
            eof: false,
            read: 0,
        }
    }

    /// Reads more into `buf[end..]`, first moving the unread bytes to the
    /// front. `Ok(false)` at end of input.
    fn refill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
        }
        let room = (self.buf.len() - self.end).min(BLOCK);
        loop {
            match self.inner.read(&mut self.buf[self.end..self.end + room]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end += n;
                    self.read += n as u64;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Advances to the next line. `Ok(false)` at end of input.
    pub(crate) fn advance(&mut self) -> io::Result<bool> {
        if self.pushed_back {
            self.pushed_back = false;
            return Ok(true);
        }
        self.too_long = false;
        // Bytes of the unfinished line already searched for a newline.
        let mut searched = 0;
        loop {
            let rest = &self.buf[self.pos + searched..self.end];
            if let Some(i) = find_newline(rest) {
                let len = searched + i;
                if len > self.cap {
                    self.too_long = true;
                    self.long_prefix.clear();
                    self.extend_prefix(len);
                } else {
                    (self.start, self.stop) = (self.pos, self.pos + len);
                }
                self.pos += len + 1;
                break;
            }
            searched = self.end - self.pos;
            if searched > self.cap {
                self.too_long = true;
                self.long_prefix.clear();
                self.skip_rest_of_line()?;
                break;
            }
            if !self.refill()? {
                if self.pos == self.end {
                    return Ok(false);
                }
                // The last line has no newline.
                (self.start, self.stop) = (self.pos, self.end);
                self.pos = self.end;
                break;
            }
        }
        self.number += 1;
        if self.number == 1 {
            if self.too_long {
                if self.long_prefix.starts_with(b"\xEF\xBB\xBF") {
                    self.long_prefix.drain(..3);
                }
            } else if self.buf[self.start..self.stop].starts_with(b"\xEF\xBB\xBF") {
                self.start += 3;
            }
        }
        Ok(true)
    }

    /// Keeps up to [`LONG_PREFIX`] bytes of an over-long line, from the
    /// `len` bytes of it at `pos`.
    fn extend_prefix(&mut self, len: usize) {
        let n = LONG_PREFIX.saturating_sub(self.long_prefix.len()).min(len);
        self.long_prefix
            .extend_from_slice(&self.buf[self.pos..self.pos + n]);
    }

    /// Discards an over-long line up to and including its newline (or to
    /// the end of input), keeping its prefix.
    fn skip_rest_of_line(&mut self) -> io::Result<()> {
        loop {
            if let Some(i) = memchr::memchr(b'\n', &self.buf[self.pos..self.end]) {
                self.extend_prefix(i);
                self.pos += i + 1;
                return Ok(());
            }
            self.extend_prefix(self.end - self.pos);
            self.pos = self.end;
            if !self.refill()? {
                return Ok(());
            }
        }
    }

    /// A fast [`advance`](Self::advance) for lines of exactly `N` bytes:
    /// when the unread input starts with `N` bytes and then `\n` or `\r\n`,
    /// offers those bytes to `parse`, and when it accepts them (`Some`) they
    /// become the current line. Otherwise nothing is consumed (and the
    /// caller falls back to `advance`). `parse` must refuse bytes holding a
    /// `\n`, or line numbers would be wrong; it is not offered the first
    /// line (which may start with a byte-order mark).
    #[inline]
    pub(crate) fn advance_fixed<const N: usize, T>(
        &mut self,
        parse: impl FnOnce(&[u8; N]) -> Option<T>,
    ) -> Option<T> {
        if self.pushed_back || self.number == 0 {
            return None;
        }
        let rest = &self.buf[self.pos..self.end];
        let term = match rest.get(N) {
            Some(b'\n') => 1,
            Some(b'\r') if rest.get(N + 1) == Some(&b'\n') => 2,
            _ => return None,
        };
        let bytes: &[u8; N] = rest[..N].try_into().ok()?;
        let value = parse(bytes)?;
        debug_assert!(!bytes.contains(&b'\n'));
        self.too_long = false;
        // The line keeps its `\r` (as `advance` does); `line()` strips it.
        (self.start, self.stop) = (self.pos, self.pos + N + term - 1);
        self.pos += N + term;
        self.number += 1;
        Some(value)
    }

    /// Copies up to `max` consecutive lines of exactly `N` bytes, each with
    /// its `\n` or `\r\n`, to the end of `out`, as long as `row` accepts
    /// each line's first byte. Stops before the first line that is not of
    /// that shape (it stays unread, for [`advance`](Self::advance)), at the
    /// end of input and after `max` lines; returns how many were copied.
    ///
    /// This is the bulk form of [`advance_fixed`](Self::advance_fixed): the
    /// per-line work is two byte tests, and the copy is one per buffer's
    /// worth of lines, so a caller can hand the parsing to another thread.
    pub(crate) fn take_fixed<const N: usize>(
        &mut self,
        max: usize,
        row: impl Fn(u8) -> bool,
        out: &mut Vec<u8>,
    ) -> io::Result<usize> {
        self.take(max, out, |rest| {
            let term = match rest.get(N) {
                Some(b'\n') => 1,
                Some(b'\r') => match rest.get(N + 1) {
                    Some(b'\n') => 2,
                    Some(_) => return Next::Stop,
                    None => return Next::RanOut,
                },
                Some(_) => return Next::Stop,
                None => return Next::RanOut,
            };
            if row(rest[0]) {
                Next::Take(N + term)
            } else {
                Next::Stop
            }
        })
    }

    /// Copies up to `max` consecutive lines of any length up to the cap,
    /// each with its `\n`, to the end of `out`, as long as no line holds
    /// the byte `avoid` and `row` accepts each line (without its `\n`).
    /// Stops before the first line it does not take, an over-long line and
    /// a last line without `\n` (they stay unread, for
    /// [`advance`](Self::advance)), at the end of input and after `max`
    /// lines; returns how many were copied.
    pub(crate) fn take_lines(
        &mut self,
        max: usize,
        avoid: u8,
        row: impl Fn(&[u8]) -> bool,
        out: &mut Vec<u8>,
    ) -> io::Result<usize> {
        let cap = self.cap;
        self.take(max, out, |rest| {
            // One scan finds the line's end or the byte it must not hold.
            match memchr::memchr2(b'\n', avoid, rest) {
                Some(len) if rest[len] == b'\n' && len <= cap && row(&rest[..len]) => {
                    Next::Take(len + 1)
                }
                Some(_) => Next::Stop,
                // Refilling makes room for a line up to the cap.
                None if rest.len() <= cap => Next::RanOut,
                None => Next::Stop,
            }
        })
    }

    /// What [`take_fixed`](Self::take_fixed) and
    /// [`take_lines`](Self::take_lines) share: `next` judges the unread
    /// bytes' first line, and the lines it takes are copied to `out` in one
    /// piece per buffer's worth, refilling the buffer when it ends inside a
    /// line. Lines are counted as read, but none becomes the current line;
    /// the first line (a byte-order mark) and a line pushed back are not
    /// offered.
    fn take(
        &mut self,
        max: usize,
        out: &mut Vec<u8>,
        next: impl Fn(&[u8]) -> Next,
    ) -> io::Result<usize> {
        if self.pushed_back || self.number == 0 {
            return Ok(0);
        }
        let mut taken = 0;
        while taken < max {
            let (begin, before) = (self.pos, taken);
            let mut p = self.pos;
            let mut ran_out = false;
            while taken < max {
                match next(&self.buf[p..self.end]) {
                    Next::Take(len) => {
                        p += len;
                        taken += 1;
                    }
                    Next::Stop => break,
                    Next::RanOut => {
                        ran_out = true;
                        break;
                    }
                }
            }
            out.extend_from_slice(&self.buf[begin..p]);
            // One `\n` a line.
            self.number += (taken - before) as u64;
            self.pos = p;
            if !ran_out || !self.refill()? {
                break;
            }
        }
        self.too_long = false;
        Ok(taken)
    }

    /// Makes the next [`advance`](Self::advance) return the current line again.
    pub(crate) fn unread(&mut self) {
        self.pushed_back = true;
    }

    /// The current line as read, without `\n`.
    fn raw(&self) -> &[u8] {
        if self.too_long {
            &self.long_prefix
        } else {
            &self.buf[self.start..self.stop]
        }
    }

    /// The current line, without `\n` or a trailing `\r`. When
    /// [`too_long`](Self::too_long) it holds only a short prefix.
    pub(crate) fn line(&self) -> &[u8] {
        let line = self.raw();
        line.strip_suffix(b"\r").unwrap_or(line)
    }

    pub(crate) fn number(&self) -> u64 {
        self.number
    }

    pub(crate) fn too_long(&self) -> bool {
        self.too_long
    }

    /// Bytes consumed from the source so far (after decompression): up to
    /// the end of the current line.
    pub(crate) fn bytes_read(&self) -> u64 {
        self.read - (self.end - self.pos) as u64
    }

    /// True when the current line is blank or a `#` comment (judged on its
    /// first non-whitespace byte, so also for an over-long line).
    pub(crate) fn is_skippable(&self) -> bool {
        match self.raw().trim_ascii_start().first() {
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

    #[test]
    fn find_newline_matches_a_plain_search() {
        for len in 0..300 {
            for at in (0..len).step_by(7).chain([len]) {
                let mut v: Vec<u8> = (0..len).map(|j| (j * 37 % 251) as u8 | 0x80).collect();
                // Bytes that differ from b'\n' by one bit, before the newline.
                for (j, b) in v.iter_mut().enumerate().take(at) {
                    *b = [b'\n' ^ 1, b'\n' ^ 0x80, 0x0b, 0x09, 0][j % 5];
                }
                if at < len {
                    v[at] = b'\n';
                }
                let expect = v.iter().position(|&b| b == b'\n');
                assert_eq!(find_newline(&v), expect, "len {len} at {at}");
            }
        }
    }

    /// Hands out at most `step` bytes per read, varying.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
        k: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            self.k += 1;
            let n = (1 + self.k * 7 % self.step)
                .min(out.len())
                .min(self.data.len());
            out[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    #[test]
    fn agrees_with_a_plain_split_for_any_read_sizes() {
        // Lines of many lengths around the cap, CR, blank lines, with and
        // without a final newline.
        let cap = 40;
        let mut rng = 12345u64;
        let mut next = |m: u64| {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (rng >> 33) % m
        };
        for case in 0..200 {
            let mut input = Vec::new();
            for _ in 0..next(30) {
                let len = match next(5) {
                    0 => next(3),
                    1 => 3 + next(2),
                    2 => cap as u64 - 1 + next(3),
                    3 => next(cap as u64),
                    _ => next(5 * cap as u64),
                };
                input.extend((0..len).map(|j| b"ab#c d\r"[(j % 7) as usize]));
                input.push(b'\n');
            }
            if case % 3 == 0 {
                input.extend_from_slice(b"tail");
            }
            let step = 1 + next(200) as usize;
            let mut r = LineReader::new(
                Trickle {
                    data: &input,
                    step,
                    k: 0,
                },
                cap,
            );
            let mut consumed = 0u64;
            let pieces: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
            let last = pieces.len() - 1;
            for (n, piece) in pieces.iter().enumerate() {
                if n == last && piece.is_empty() {
                    break;
                }
                // The fixed-length fast path, when it takes the line, must
                // agree with `advance` in everything.
                let fixed = if n % 2 == 1 {
                    r.advance_fixed::<3, _>(|b| (!b.contains(&b'\n')).then_some(*b))
                } else {
                    None
                };
                match fixed {
                    Some(b) => assert!(piece == &b || piece == &[b[0], b[1], b[2], b'\r']),
                    None => assert!(r.advance().unwrap(), "case {case}"),
                }
                consumed += piece.len() as u64 + u64::from(n < last);
                assert_eq!(r.number(), n as u64 + 1);
                assert_eq!(r.bytes_read(), consumed, "case {case} line {n}");
                let long = piece.len() > cap;
                assert_eq!(r.too_long(), long, "case {case} line {n}");
                let expect: &[u8] = if long {
                    &piece[..LONG_PREFIX.min(piece.len())]
                } else {
                    piece
                };
                assert_eq!(r.line(), expect.strip_suffix(b"\r").unwrap_or(expect));
            }
            assert!(!r.advance().unwrap(), "case {case}");
            assert_eq!(r.bytes_read(), input.len() as u64);
        }
    }
}
