//! Names made safe for file names: the parts of a results directory's
//! histogram files (injective) and the readable stem of its directory.

use std::path::Path;

/// A dataset or strategy name as one part of a file name, injectively:
/// two different names never give the same part, also on a file system
/// that ignores case, and the part never contains `-` (which joins a
/// dataset's part and a strategy's: `histograms/<dataset>-<strategy>.hgrm`).
///
/// Lowercase ASCII letters, digits, `_`, `.` and `+` stay; an uppercase
/// letter becomes `^` and its lowercase (`Hard` → `^hard`); every other byte
/// of the name's UTF-8 becomes `~` and two uppercase hex digits (`a/b` →
/// `a~2Fb`, `a-b` → `a~2Db`). The two escapes are told apart by their
/// first character, which nothing else produces, and every letter that is
/// not escaped is lowercase, so folding case changes nothing that could
/// make two parts equal. A part longer than [`FILE_PART_MAX`] bytes is cut
/// and ends with `~~` and the 64-bit XXH3 hash of the whole name in hex
/// (a file name stays within the usual 255-byte limit; two long names that
/// share their first 80 encoded bytes then differ by their hash).
pub fn file_part(name: &str) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        match b {
            b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' | b'+' => out.push(b as char),
            b'A'..=b'Z' => {
                out.push('^');
                out.push(b.to_ascii_lowercase() as char);
            }
            b => {
                let _ = write!(out, "~{b:02X}");
            }
        }
    }
    if out.len() > FILE_PART_MAX {
        out.truncate(FILE_PART_CUT);
        let _ = write!(
            out,
            "~~{:016x}",
            xxhash_rust::xxh3::xxh3_64(name.as_bytes())
        );
    }
    out
}

/// The longest [`file_part`] kept whole, in bytes.
pub const FILE_PART_MAX: usize = 96;
/// Where a longer one is cut (then `~~` and 16 hex digits follow).
const FILE_PART_CUT: usize = 80;

/// The file name (without suffix) of a (dataset, strategy) unit's
/// histograms: `<dataset part>-<strategy part>` ([`file_part`]).
pub fn unit_file_base(dataset: &str, strategy: &str) -> String {
    format!("{}-{}", file_part(dataset), file_part(strategy))
}

/// The base name to read a unit's histograms by in `hist_dir`: the one
/// [`unit_file_base`] gives, or, in a results directory written before
/// names were escaped injectively (it has no time histogram under that
/// name, but one under the older [`file_safe`] name), the older one.
pub fn unit_file_base_in(hist_dir: &Path, dataset: &str, strategy: &str) -> String {
    let base = unit_file_base(dataset, strategy);
    let legacy = format!("{}-{}", file_safe(dataset), file_safe(strategy));
    let has = |b: &str| hist_dir.join(format!("{b}.hdr")).is_file();
    if legacy != base && !has(&base) && has(&legacy) {
        legacy
    } else {
        base
    }
}

/// A readable, file-name-safe form of a name, for the stem of a results
/// directory (`results/<stem>-<time>`): not injective (`a/b` and `a_b`
/// give one stem); never used where two names must stay apart.
pub fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+') {
                c
            } else {
                '_'
            }
        })
        .collect()
}
