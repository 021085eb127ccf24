//! CSV with a header row: column roles and a small RFC 4180 field splitter.
//!
//! The splitter works on one logical record already held in memory (at most
//! [`MAX_LINE_BYTES`](super::MAX_LINE_BYTES)), which keeps memory bounded and
//! lets the reader resynchronise on the next line after any bad row. Quoting
//! follows the usual rules (and the `csv` crate's): a field that *starts* with
//! `"` is quoted, `""` inside it is one `"`, delimiters and newlines inside it
//! are data; a `"` elsewhere is an ordinary character.

/// Header names (case-insensitive, trimmed) of the puzzle column.
pub const PUZZLE_COLUMNS: &[&str] = &["quizzes", "puzzle", "quiz", "question", "sudoku"];
/// Header names of the optional solution column.
pub const SOLUTION_COLUMNS: &[&str] = &["solutions", "solution", "answer"];
/// Header names of the optional id column.
pub const ID_COLUMNS: &[&str] = &["id"];
/// Header names of the optional rating column.
pub const RATING_COLUMNS: &[&str] = &[
    "difficulty",
    "rating",
    "level",
    "grade",
    "diff",
    "score",
    "se",
];
/// Delimiters tried on the header, in order of preference.
pub const DELIMITERS: &[u8] = b",\t;|";

/// Which field holds what; found from the header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    pub delimiter: u8,
    pub header: Vec<String>,
    pub puzzle: usize,
    pub solution: Option<usize>,
    pub id: Option<usize>,
    pub rating: Option<usize>,
}

/// Outcome of reading a header line.
pub(crate) enum Header {
    Found(Layout),
    /// No delimiter gives a puzzle column; the names seen (split at the
    /// delimiter giving the most fields).
    NoPuzzleColumn(Vec<String>),
    Unterminated,
}

fn find(names: &[String], wanted: &[&str]) -> Option<usize> {
    names.iter().position(|n| wanted.contains(&n.as_str()))
}

/// A header name trimmed, and unquoted when the quote followed a space
/// (`a, "b"` is `"b"` to RFC 4180; as a header name it means `b`).
fn header_name(raw: &str) -> String {
    let t = raw.trim();
    let t = match t.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        Some(inner) => inner.trim(),
        None => t,
    };
    t.to_string()
}

/// Reads `line` as a header: the first delimiter of [`DELIMITERS`] that yields
/// a known puzzle column wins; the left-most matching column of each role is used.
pub(crate) fn parse_header(line: &[u8]) -> Header {
    let mut best: Vec<String> = Vec::new();
    let mut out = Vec::new();
    let mut fields = Vec::new();
    for &d in DELIMITERS {
        if !split(line, d, &mut out, &mut fields) {
            return Header::Unterminated;
        }
        let header: Vec<String> = fields
            .iter()
            .map(|r| header_name(&String::from_utf8_lossy(&out[r.clone()])))
            .collect();
        let lower: Vec<String> = header.iter().map(|s| s.to_ascii_lowercase()).collect();
        if let Some(puzzle) = find(&lower, PUZZLE_COLUMNS) {
            return Header::Found(Layout {
                delimiter: d,
                puzzle,
                solution: find(&lower, SOLUTION_COLUMNS),
                id: find(&lower, ID_COLUMNS),
                rating: find(&lower, RATING_COLUMNS),
                header,
            });
        }
        if header.len() > best.len() {
            best = header;
        }
    }
    Header::NoPuzzleColumn(best)
}

/// Splits one record at `delim` into unquoted field contents: `out` receives
/// the bytes, `fields` their ranges. Returns false when the record ends inside
/// a quoted field (the caller appends the next line and splits again).
pub(crate) fn split(
    rec: &[u8],
    delim: u8,
    out: &mut Vec<u8>,
    fields: &mut Vec<std::ops::Range<usize>>,
) -> bool {
    #[derive(PartialEq)]
    enum S {
        Start,
        Plain,
        Quoted,
        QuoteInQuoted,
    }
    out.clear();
    fields.clear();
    if !rec.contains(&b'"') {
        // Fast path, the common case: no quoting at all.
        out.extend_from_slice(rec);
        let mut start = 0;
        for (i, &b) in rec.iter().enumerate() {
            if b == delim {
                fields.push(start..i);
                start = i + 1;
            }
        }
        fields.push(start..rec.len());
        return true;
    }
    let mut start = 0;
    let mut s = S::Start;
    for &b in rec {
        s = match s {
            S::Start | S::Plain if b == delim => {
                fields.push(start..out.len());
                start = out.len();
                S::Start
            }
            S::Start if b == b'"' => S::Quoted,
            S::Start | S::Plain => {
                out.push(b);
                S::Plain
            }
            S::Quoted if b == b'"' => S::QuoteInQuoted,
            S::Quoted => {
                out.push(b);
                S::Quoted
            }
            S::QuoteInQuoted if b == b'"' => {
                out.push(b'"');
                S::Quoted
            }
            S::QuoteInQuoted if b == delim => {
                fields.push(start..out.len());
                start = out.len();
                S::Start
            }
            S::QuoteInQuoted => {
                out.push(b);
                S::Plain
            }
        };
    }
    if s == S::Quoted {
        return false;
    }
    fields.push(start..out.len());
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(rec: &str, d: u8) -> Option<Vec<String>> {
        let mut out = Vec::new();
        let mut f = Vec::new();
        split(rec.as_bytes(), d, &mut out, &mut f).then(|| {
            f.iter()
                .map(|r| String::from_utf8(out[r.clone()].to_vec()).unwrap())
                .collect()
        })
    }

    #[test]
    fn splits_plain_and_quoted_fields() {
        assert_eq!(
            fields("a,b,c", b','),
            Some(vec!["a".into(), "b".into(), "c".into()])
        );
        assert_eq!(fields("", b','), Some(vec!["".into()]));
        assert_eq!(fields("a,", b','), Some(vec!["a".into(), "".into()]));
        assert_eq!(
            fields(r#""a,b","say ""hi""",x"y"#, b','),
            Some(vec!["a,b".into(), r#"say "hi""#.into(), r#"x"y"#.into()])
        );
        assert_eq!(
            fields("\"multi\nline\",z", b','),
            Some(vec!["multi\nline".into(), "z".into()])
        );
        assert_eq!(fields("\"open,z", b','), None);
        assert_eq!(fields("a\tb", b'\t'), Some(vec!["a".into(), "b".into()]));
    }

    #[test]
    fn header_roles_case_insensitive_and_delimiters() {
        let Header::Found(l) = parse_header(b" Quizzes , SOLUTIONS") else {
            panic!("no layout")
        };
        assert_eq!(
            (l.delimiter, l.puzzle, l.solution, l.id, l.rating),
            (b',', 0, Some(1), None, None)
        );
        let Header::Found(l) = parse_header(b"id,puzzle,solution,clues,difficulty") else {
            panic!("no layout")
        };
        assert_eq!(
            (l.puzzle, l.solution, l.id, l.rating),
            (1, Some(2), Some(0), Some(4))
        );
        let Header::Found(l) = parse_header(b"rating;sudoku") else {
            panic!("no layout")
        };
        assert_eq!((l.delimiter, l.puzzle, l.rating), (b';', 1, Some(0)));
        match parse_header(b"id,grid,answer") {
            Header::NoPuzzleColumn(h) => assert_eq!(h, vec!["id", "grid", "answer"]),
            _ => panic!("expected NoPuzzleColumn"),
        }
    }
}
