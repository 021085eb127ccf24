//! Text as a terminal, a log or a Markdown table shows it: control and
//! bidirectional characters escaped, table syntax kept inside a cell.

/// A table cell of GitHub-flavoured Markdown: `|` and `\` escaped, line
/// breaks and other control characters as spaces, `<` as `&lt;` (no
/// inline HTML), so that a dataset or label of any text stays one cell of
/// one row.
pub fn md_cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '|' => out.push_str("\\|"),
            '\\' => out.push_str("\\\\"),
            '<' => out.push_str("&lt;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Text as a terminal or a log shows it: every control character (C0,
/// DEL, C1) and every Unicode bidirectional control escaped (`\n`, `\r`,
/// `\t`, `\x1b`, `\u{9b}`, `\u{202e}`), so that a dataset name, a label,
/// an id or a message quoting a dataset can neither move the cursor,
/// change colours, end a line nor reorder one. The one escaping of
/// everything printed: table cells go through it, and so does every line
/// printed ([`printable_lines`]).
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    escape_for_terminal(text, false)
}

/// [`printable`], but line breaks stay: for a message or a table of
/// several lines (whose cells are already [`printable`]).
pub fn printable_lines(text: &str) -> std::borrow::Cow<'_, str> {
    escape_for_terminal(text, true)
}

fn escape_for_terminal(text: &str, keep_lines: bool) -> std::borrow::Cow<'_, str> {
    // Unicode's bidirectional formatting characters: they reorder what
    // follows them on the line (U+061C, U+200E–F, U+202A–E, U+2066–9).
    let bidi = |c: char| matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    let escaped = |c: char| (c.is_control() && !(keep_lines && c == '\n')) || bidi(c);
    if !text.chars().any(escaped) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if !escaped(c) => out.push(c),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x80 => {
                let _ = std::fmt::Write::write_fmt(&mut out, format_args!("\\x{:02x}", c as u32));
            }
            c => {
                let _ = std::fmt::Write::write_fmt(&mut out, format_args!("\\u{{{:x}}}", c as u32));
            }
        }
    }
    std::borrow::Cow::Owned(out)
}
