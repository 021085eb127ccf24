//! Names stay printable: control characters in dataset names (or in
//! messages quoting a dataset) never reach the terminal raw.
#![cfg(unix)]

mod common;
use common::*;

use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The first `n` puzzles of the shipped hard dataset (CSV with solutions).
fn hard_rows(n: usize) -> Vec<String> {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/hard.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .take(n)
        .map(str::to_string)
        .collect()
}

/// A plain-lines dataset of the first `n` hard puzzles at `path`.
fn write_lines(path: &Path, n: usize) {
    let body: Vec<String> = hard_rows(n)
        .iter()
        .map(|r| r.split(',').next().unwrap().to_string())
        .collect();
    std::fs::write(path, body.join("\n") + "\n").unwrap();
}

/// Bytes that must never reach a terminal raw: ESC, and a line break inside
/// a name.
fn assert_printable(what: &str, bytes: &[u8]) {
    assert!(
        !bytes.contains(&0x1b),
        "{what} holds a raw ESC: {}",
        String::from_utf8_lossy(bytes)
    );
}

#[test]
fn control_characters_in_names_and_messages_print_escaped() {
    let dir = scratch("printable");
    let name = "e\x1b[31mred\nline";
    let path = dir.join(std::ffi::OsStr::from_bytes(
        format!("{name}.txt").as_bytes(),
    ));
    write_lines(&path, 12);
    let out = dir.join("out");
    let o = bin(&[
        "run",
        path.to_str().unwrap(),
        "-s",
        "fast,name=a",
        "-s",
        "fast,name=b",
        "--gate",
        "a:b",
        "--progress",
        "plain",
        "--progress-interval",
        "1ms",
        "--out",
        out.to_str().unwrap(),
    ]);
    // 12 puzzles are one chunk: the gate is not judged, and says so naming
    // the dataset.
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert_printable("stdout", &o.stdout);
    assert_printable("stderr", &o.stderr);
    let stdout = text(&o.stdout);
    let shown = "e\\x1b[31mred\\nline";
    // The table row, and the gate's reason.
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with(shown) && l.contains(" a ")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("{shown}: not judged: 12 pairs in 1 chunk")),
        "{stdout}"
    );
    // The dataset's name is the file's stem as printed, in every report.
    let s = json(&out.join("summary.json"));
    assert_eq!(s["results"][0]["dataset"], shown);

    // An error quoting the dataset's path and content.
    let bad = dir.join(std::ffi::OsStr::from_bytes(b"bad\x1b[2J.txt"));
    std::fs::write(&bad, b"12345\x1b[2J\x07\n").unwrap();
    let o = bin(&[
        "run",
        bad.to_str().unwrap(),
        "-s",
        "fast",
        "-q",
        "--out",
        dir.join("o2").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert_printable("stderr", &o.stderr);
    assert!(err(&o).contains("bad\\x1b[2J.txt"), "{}", err(&o));
    let o = bin(&["check", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert_printable("stderr", &o.stderr);

    // A label with an escape sequence is refused, and the refusal prints it
    // escaped.
    let o = bin(&[
        "run",
        path.to_str().unwrap(),
        "-s",
        "fast,name=\x1b[31m",
        "--out",
        dir.join("o3").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert_printable("stderr", &o.stderr);
    assert!(err(&o).contains("a label is"), "{}", err(&o));
}
