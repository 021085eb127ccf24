//! `bench-sudoku comment DIR`: a pull request's comment for a results
//! directory without a gate (the tables, unfolded), its marker, and where
//! it may be written. (With a gate, and posted through a stand-in `gh`:
//! tests/adoption.rs.)

mod common;
use common::*;

#[test]
fn a_comment_without_a_gate_has_the_marker_and_the_tables() {
    let work = scratch("comment");
    let dir = work.join("r");
    let hard = format!("{}/datasets/hard.csv", env!("CARGO_MANIFEST_DIR"));
    let out = bin(&[
        "run",
        &hard,
        "--limit",
        "100",
        "-s",
        "fast",
        "-s",
        "hidden",
        "-q",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", err(&out));

    let out = bin(&["comment", dir.to_str().unwrap(), "--key", "my solver"]);
    assert_eq!(out.status.code(), Some(0), "{}", err(&out));
    let body = text(&out.stdout);
    assert!(
        body.starts_with("<!-- bench-sudoku-comment: my-solver -->\n### bench-sudoku results\n"),
        "{body}"
    );
    assert!(body.contains("| hard | hidden |"), "{body}");
    assert!(
        !body.contains("<details>"),
        "nothing to fold without a verdict: {body}"
    );

    // --out writes the same body; never a file of the results directory.
    let file = work.join("comment.md");
    let out = bin(&[
        "comment",
        dir.to_str().unwrap(),
        "--key",
        "my solver",
        "--out",
        file.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", err(&out));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), body);
    let inside = dir.join("summary.md");
    let before = std::fs::read(&inside).unwrap();
    let out = bin(&[
        "comment",
        dir.to_str().unwrap(),
        "--out",
        inside.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read(&inside).unwrap(), before);

    let out = bin(&["comment", work.join("nothing").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(err(&out).contains("nothing"), "{}", err(&out));
}
