//! Text cells of CSV files that a spreadsheet opens: a cell that would run
//! as a formula is written neutralised, and read back without the mark.

use std::borrow::Cow;

/// True when a spreadsheet opening the CSV would run this text cell as a
/// formula: it starts with `=`, `+`, `-`, `@`, a tab or a carriage return
/// (or with `'`, the mark [`neutral`] adds, so that marked and unmarked
/// cells stay apart) and is not a number. Only the first byte is looked at
/// in the usual case: this runs on every `puzzles.csv` row with an id.
#[inline]
pub fn formula_like(cell: &[u8]) -> bool {
    matches!(
        cell.first(),
        Some(b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r' | b'\'')
    ) && !is_number(cell)
}

/// A decimal number (`-2`, `+1.5`, `-3e4`), which a spreadsheet reads as
/// the number it is.
#[cold]
fn is_number(cell: &[u8]) -> bool {
    cell.iter().any(u8::is_ascii_digit)
        && std::str::from_utf8(cell).is_ok_and(|s| s.parse::<f64>().is_ok())
}

/// A text cell of a CSV file, neutralised when a spreadsheet would run it
/// as a formula ([`formula_like`]): prefixed with `'`, which spreadsheets
/// show as text. Numbers stay numbers. [`unneutral`] reads it back.
pub fn neutral(cell: &str) -> Cow<'_, str> {
    if formula_like(cell.as_bytes()) {
        Cow::Owned(format!("'{cell}"))
    } else {
        Cow::Borrowed(cell)
    }
}

/// The text of a cell written by [`neutral`] (the files' readers compare
/// names with it).
pub fn unneutral(cell: &str) -> &str {
    cell.strip_prefix('\'').unwrap_or(cell)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_cells_are_marked_numbers_are_not_and_the_mark_reads_back() {
        for (cell, written) in [
            ("fast", "fast"),
            ("=1+1", "'=1+1"),
            ("+A1", "'+A1"),
            ("-2+3", "'-2+3"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\tx", "'\tx"),
            ("\rx", "'\rx"),
            ("'quoted", "''quoted"),
            ("-2", "-2"),
            ("+1.5", "+1.5"),
            ("-3e4", "-3e4"),
            ("-inf", "'-inf"),
            ("", ""),
        ] {
            assert_eq!(neutral(cell), written, "{cell:?}");
            assert_eq!(unneutral(&neutral(cell)), cell, "{cell:?}");
        }
    }
}
