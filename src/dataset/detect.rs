//! Opening a source (transparent gzip by magic bytes), telling the format
//! from the first content line, and the quick puzzle-count estimate.

use super::csv::{self as table, Header, Layout};
use super::error::ErrorKind;
use super::lines::LineReader;
use crate::grid::Grid;
use flate2::bufread::MultiGzDecoder;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

/// Read-buffer size for files and decompressed streams.
pub(crate) const BUF_BYTES: usize = 64 * 1024;

/// The gzip magic number.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// A boxed buffered byte source.
pub(crate) type Source = Box<dyn BufRead + Send>;

/// Wraps `raw` in a buffer, and in a gzip decoder when it starts with the
/// gzip magic bytes (whatever the file name says). Returns whether it did.
pub(crate) fn sniff<R: Read + Send + 'static>(raw: R) -> io::Result<(Source, bool)> {
    let mut br = BufReader::with_capacity(BUF_BYTES, raw);
    let gz = loop {
        match br.fill_buf() {
            Ok(head) => break head.starts_with(&GZIP_MAGIC),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    };
    if gz {
        let dec = MultiGzDecoder::new(br);
        Ok((Box::new(BufReader::with_capacity(BUF_BYTES, dec)), true))
    } else {
        Ok((Box::new(br), false))
    }
}

/// What the first content line says the file is.
#[derive(Debug)]
pub(crate) enum Detected {
    Lines,
    /// Plain lines of 729-character pencilmark puzzles.
    Pencilmark,
    Csv(Layout),
}

fn first_nul(line: &[u8]) -> Option<usize> {
    line.iter().position(|&b| b == 0).map(|i| i + 1)
}

fn shown(line: &[u8]) -> String {
    let s = String::from_utf8_lossy(line);
    let s = s.trim();
    if s.chars().count() > 40 {
        format!("{:?}...", s.chars().take(40).collect::<String>())
    } else {
        format!("{s:?}")
    }
}

/// Reads a CSV header line (explicit `--format csv`).
pub(crate) fn csv_header(line: &[u8]) -> Result<Layout, ErrorKind> {
    if let Some(column) = first_nul(line) {
        return Err(ErrorKind::Binary { column });
    }
    match table::parse_header(line) {
        Header::Found(l) => Ok(l),
        Header::NoPuzzleColumn(header) => Err(ErrorKind::MissingPuzzleColumn { header }),
        Header::Unterminated => Err(ErrorKind::BadHeader("unterminated quoted field".into())),
    }
}

/// `--format auto`: decides from the first non-blank, non-comment line.
///
/// 1. a NUL byte: a binary file (error);
/// 2. the line parses as an 81-cell puzzle: plain lines; it is 729 digits
///    and dots: pencilmark lines;
/// 3. not UTF-8: error;
/// 4. it contains a delimiter (`,` tab `;` `|`), or is a single puzzle column
///    name (`puzzle`): a CSV header, which must name a puzzle column (a
///    headerless CSV row is called out as such);
/// 5. it holds only digits, `.` and spaces (a puzzle of the wrong length):
///    plain lines, so the row error names the real problem;
/// 6. anything else: error.
pub(crate) fn detect(line: &[u8]) -> Result<Detected, ErrorKind> {
    if let Some(column) = first_nul(line) {
        return Err(ErrorKind::Binary { column });
    }
    if Grid::parse_bytes(line).is_ok() {
        return Ok(Detected::Lines);
    }
    if crate::grid::pencilmark::looks_like(line) {
        return Ok(Detected::Pencilmark);
    }
    if let Err(e) = std::str::from_utf8(line) {
        return Err(ErrorKind::UnknownFormat {
            reason: format!(
                "the first line is not UTF-8 text (invalid byte at column {})",
                e.valid_up_to() + 1
            ),
        });
    }
    // A delimiter means a CSV header; so does a single column named like a
    // puzzle column (`puzzle` alone on the first line).
    let one_column = {
        let name = line.trim_ascii();
        let name = name
            .strip_prefix(b"\"")
            .and_then(|n| n.strip_suffix(b"\""))
            .unwrap_or(name);
        table::PUZZLE_COLUMNS
            .iter()
            .any(|c| c.as_bytes().eq_ignore_ascii_case(name))
    };
    if one_column || line.iter().any(|b| table::DELIMITERS.contains(b)) {
        return match table::parse_header(line) {
            Header::Found(l) => Ok(Detected::Csv(l)),
            Header::Unterminated => Err(ErrorKind::BadHeader("unterminated quoted field".into())),
            Header::NoPuzzleColumn(header) => {
                let headerless = header.iter().any(|f| Grid::parse(f).is_ok());
                if headerless {
                    Err(ErrorKind::UnknownFormat {
                        reason: format!(
                            "the first line looks like a CSV row without a header; \
                             add a header line naming the puzzle column ({})",
                            table::PUZZLE_COLUMNS.join(", ")
                        ),
                    })
                } else {
                    Err(ErrorKind::MissingPuzzleColumn { header })
                }
            }
        };
    }
    let puzzle_like = line
        .iter()
        .all(|b| b.is_ascii_digit() || *b == b'.' || b.is_ascii_whitespace());
    if puzzle_like {
        return Ok(Detected::Lines);
    }
    Err(ErrorKind::UnknownFormat {
        reason: format!(
            "the first line {} is neither an 81-cell puzzle nor a CSV header with a puzzle column",
            shown(line)
        ),
    })
}

/// Counts content lines (not blank, not `#` comments) of a stream, up to
/// `max_bytes`. Returns (content lines, first content line is a header-like
/// non-puzzle, bytes scanned, reached end).
fn count_lines<R: BufRead>(r: R, max_bytes: u64) -> Option<(u64, bool, u64, bool)> {
    let mut lr = LineReader::new(r, super::MAX_LINE_BYTES);
    let mut count = 0u64;
    let mut header = false;
    loop {
        if lr.bytes_read() >= max_bytes {
            return Some((count, header, lr.bytes_read(), false));
        }
        if !lr.advance().ok()? {
            return Some((count, header, lr.bytes_read(), true));
        }
        if lr.is_skippable() {
            continue;
        }
        if count == 0 && !lr.too_long() && Grid::parse_bytes(lr.line()).is_err() {
            header = matches!(detect(lr.line()), Ok(Detected::Csv(_)));
        }
        count += 1;
    }
}

/// Counts bytes consumed from the compressed file.
struct Counted<R> {
    inner: R,
    n: u64,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let k = self.inner.read(buf)?;
        self.n += k as u64;
        Ok(k)
    }
}

/// Bytes of decompressed data sampled to estimate a gzip file's count.
const GZ_SAMPLE_BYTES: u64 = 8 << 20;

/// A quick estimate of the number of puzzles in a dataset, for progress bars.
///
/// * Plain files: exact count of content lines (not blank, not `#`
///   comments), minus one for a CSV header, in one buffered pass (no
///   allocation per line). Quoted CSV fields spanning lines are over-counted.
/// * Gzip files: the first 8 MiB of decompressed data are counted; when the
///   file ends within it the count is exact, otherwise it is scaled to the
///   uncompressed size stored in the gzip trailer (`ISIZE`, the last member's
///   size mod 2^32), or, when that is smaller than the sample (multi-member or
///   over 4 GiB), by the compressed bytes consumed.
///
/// `None` when the file cannot be read or decompressed.
pub fn estimate_count(path: &Path) -> Option<u64> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.is_dir() {
        return None;
    }
    let file = File::open(path).ok()?;
    let counted = Counted { inner: file, n: 0 };
    let mut br = BufReader::with_capacity(BUF_BYTES, counted);
    let gz = br.fill_buf().ok()?.starts_with(&GZIP_MAGIC);
    if !gz {
        let (n, header, _, _) = count_lines(br, u64::MAX)?;
        return Some(n - u64::from(header && n > 0));
    }
    let mut dec = BufReader::with_capacity(BUF_BYTES, MultiGzDecoder::new(br));
    let (n, header, bytes, done) = count_lines(&mut dec, GZ_SAMPLE_BYTES)?;
    let rows = n - u64::from(header && n > 0);
    if done || bytes == 0 {
        return Some(rows);
    }
    let consumed = dec.get_ref().get_ref().get_ref().n.max(1);
    let isize_total = gz_isize(path).unwrap_or(0);
    let scale = if isize_total >= bytes {
        isize_total as f64 / bytes as f64
    } else {
        meta.len() as f64 / consumed as f64
    };
    Some((rows as f64 * scale).round() as u64)
}

/// The gzip trailer's ISIZE: the last member's uncompressed size mod 2^32.
fn gz_isize(path: &Path) -> Option<u64> {
    use std::io::{Seek, SeekFrom};
    let mut f = File::open(path).ok()?;
    f.seek(SeekFrom::End(-4)).ok()?;
    let mut b = [0u8; 4];
    f.read_exact(&mut b).ok()?;
    Some(u64::from(u32::from_le_bytes(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: &str =
        "009020034070008006600500000003900080700040002050002700000001007200300090480060500";

    #[test]
    fn detects_lines_csv_and_explains_the_rest() {
        assert!(matches!(detect(P.as_bytes()), Ok(Detected::Lines)));
        assert!(matches!(
            detect(P.replace('0', ".").as_bytes()),
            Ok(Detected::Lines)
        ));
        assert!(matches!(detect(&P.as_bytes()[..80]), Ok(Detected::Lines)));
        assert!(matches!(
            detect(b"quizzes,solutions"),
            Ok(Detected::Csv(Layout { puzzle: 0, .. }))
        ));
        assert!(matches!(
            detect(b"id,foo"),
            Err(ErrorKind::MissingPuzzleColumn { .. })
        ));
        let e = detect(format!("{P},{P}").as_bytes()).unwrap_err();
        assert!(e.to_string().contains("without a header"), "{e}");
        // A one-column CSV: just the puzzle column's name.
        for one in [&b"puzzle"[..], b"Quizzes", b" \"sudoku\" "] {
            assert!(
                matches!(detect(one), Ok(Detected::Csv(Layout { puzzle: 0, .. }))),
                "{one:?}"
            );
        }
        let e = detect(b"hello world").unwrap_err();
        assert!(e.to_string().contains("\"hello world\" is neither"), "{e}");
        assert!(matches!(
            detect(b"ab\0cd"),
            Err(ErrorKind::Binary { column: 3 })
        ));
        let e = detect(b"\xff\xfe,puzzle").unwrap_err();
        assert!(e.to_string().contains("not UTF-8"), "{e}");
    }

    #[test]
    fn sniffs_gzip_by_magic() {
        use flate2::write::GzEncoder;
        use std::io::Write;
        let mut enc = GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(b"hello\n").unwrap();
        let bytes = enc.finish().unwrap();
        let (mut src, gz) = sniff(io::Cursor::new(bytes)).unwrap();
        assert!(gz);
        let mut s = String::new();
        src.read_to_string(&mut s).unwrap();
        assert_eq!(s, "hello\n");
        let (_, gz) = sniff(io::Cursor::new(b"\x1fplain".to_vec())).unwrap();
        assert!(!gz);
    }
}
