//! Dataset readers on fixture files (tests/fixtures/datasets, generated
//! puzzles only) and on files built at run time in temp dirs.

use bench_sudoku::dataset::{self, DatasetError, ErrorKind, Format, Reader, Record};
use bench_sudoku::solver::{solve, Limits, Strategy};
use bench_sudoku::Grid;
use std::io::Write;
use std::path::{Path, PathBuf};

const PUZZLES: [&str; 5] = [
    "009020034070008006600500000003900080700040002050002700000001007200300090480060500",
    "000007308200000007097805600070100906005903700901008030002304560800000001504200000",
    "100040007050002090008000400070200008006090100300008050001000600020800040600030005",
    "850000200060000010001000437000302000005080900000701000586000300020000050007000046",
    "060593000901000500030400090108020004400309001200010609080006020004000807000785010",
];

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/datasets")
        .join(name)
}

fn puzzle(i: usize) -> Grid {
    Grid::parse(PUZZLES[i]).unwrap()
}

/// The solution as computed by the solver (the fixtures must agree with it).
fn solution(i: usize) -> Grid {
    let r = solve(
        &puzzle(i),
        &Strategy::named("locked").unwrap(),
        &Limits::uniqueness(),
    );
    assert_eq!(r.solutions, 1, "generated puzzle {i} must be unique");
    r.grid
}

fn read_all(path: &Path, format: Format) -> Vec<Result<Record, DatasetError>> {
    dataset::open(path, format)
        .unwrap_or_else(|e| panic!("open {}: {e}", path.display()))
        .collect()
}

fn records(path: &Path, format: Format) -> Vec<Record> {
    read_all(path, format)
        .into_iter()
        .map(|r| r.unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

fn open_err(path: &Path, format: Format) -> DatasetError {
    match dataset::open(path, format) {
        Ok(_) => panic!("{} opened, expected an error", path.display()),
        Err(e) => e,
    }
}

/// Messages with the fixture directory replaced by `FIX/`.
fn msg(e: &DatasetError) -> String {
    let dir = fixture("");
    e.to_string().replace(&*dir.to_string_lossy(), "FIX/")
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

fn write(dir: &tempfile::TempDir, name: &str, data: &[u8]) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, data).unwrap();
    p
}

#[test]
fn plain_lines_with_comments_blanks_crlf_bom_and_dots() {
    for format in [Format::Auto, Format::Lines] {
        let reader = dataset::open(&fixture("lines.txt"), format).unwrap();
        assert_eq!(reader.format(), Format::Lines);
        assert!(!reader.has_solutions() && !reader.is_gzip());
        assert!(reader.columns().is_empty());
        let recs: Vec<Record> = reader.map(Result::unwrap).collect();
        let got: Vec<(u64, u64, Grid)> = recs.iter().map(|r| (r.index, r.line, r.puzzle)).collect();
        let want: Vec<(u64, u64, Grid)> = [3, 4, 6, 8, 9]
            .iter()
            .enumerate()
            .map(|(i, &line)| (i as u64, line, puzzle(i)))
            .collect();
        assert_eq!(got, want);
        assert!(recs
            .iter()
            .all(|r| r.id().is_none() && r.solution.is_none() && r.rating().is_none()));
    }
}

#[test]
fn kaggle_1m_layout() {
    let reader = dataset::open(&fixture("kaggle_1m.csv"), Format::Auto).unwrap();
    assert_eq!(reader.format(), Format::Csv);
    assert!(reader.has_solutions() && !reader.has_ids() && !reader.has_ratings());
    assert_eq!(reader.columns(), ["quizzes", "solutions"]);
    let mut reader = reader;
    let recs: Vec<Record> = reader.by_ref().map(Result::unwrap).collect();
    assert_eq!(recs.len(), 5);
    for (i, r) in recs.iter().enumerate() {
        assert_eq!((r.index, r.line), (i as u64, i as u64 + 2));
        assert_eq!(r.puzzle, puzzle(i));
        assert_eq!(r.solution, Some(solution(i)));
        assert_eq!((r.id(), r.rating()), (None, None));
    }
    let s = reader.stats();
    assert_eq!((s.rows, s.valid, s.invalid, s.with_solution), (5, 5, 0, 5));
}

#[test]
fn ratings_3m_layout_with_dot_blanks() {
    let reader = dataset::open(&fixture("ratings_3m.csv"), Format::Auto).unwrap();
    assert!(reader.has_solutions() && reader.has_ids() && reader.has_ratings());
    let recs: Vec<Record> = reader.map(Result::unwrap).collect();
    let ratings: Vec<&str> = recs.iter().map(|r| r.rating().unwrap()).collect();
    assert_eq!(ratings, ["1.2", "0.0", "4.5", "3.1", "2.7"]);
    for (i, r) in recs.iter().enumerate() {
        assert_eq!(r.id(), Some(i.to_string().as_str()));
        assert_eq!(r.puzzle, puzzle(i));
        assert_eq!(r.solution, Some(solution(i)));
    }
}

#[test]
fn quoted_fields_extra_columns_and_header_case() {
    let reader = dataset::open(&fixture("quoted_extra.csv"), Format::Auto).unwrap();
    assert_eq!(
        reader.columns(),
        ["Source", "Rating", "Notes", "SUDOKU", "Answer"]
    );
    assert!(reader.has_solutions() && reader.has_ratings() && !reader.has_ids());
    let recs: Vec<Record> = reader.map(Result::unwrap).collect();
    assert_eq!(recs.len(), 5);
    assert_eq!(recs[1].rating(), Some("hard"));
    assert_eq!(recs[4].puzzle, puzzle(4));
    assert_eq!(recs[4].solution, Some(solution(4)));
}

#[test]
fn explicit_formats_override_detection() {
    // A CSV read as plain lines: the header and every row are bad puzzles.
    let got = read_all(&fixture("kaggle_1m.csv"), Format::Lines);
    assert_eq!(got.len(), 6);
    assert!(got.iter().all(|r| r.as_ref().is_err_and(|e| e.is_row())));
    // Plain lines read as CSV: the first puzzle is taken as a header.
    let e = open_err(&fixture("lines.txt"), Format::Csv);
    assert!(
        matches!(e.kind(), ErrorKind::MissingPuzzleColumn { .. }),
        "{e}"
    );
}

#[test]
fn gzip_is_detected_by_magic_bytes_for_every_format() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "lines.txt",
        "kaggle_1m.csv",
        "ratings_3m.csv",
        "quoted_extra.csv",
    ] {
        let plain = records(&fixture(name), Format::Auto);
        let data = std::fs::read(fixture(name)).unwrap();
        // A misleading extension: detection is by content.
        let gz = write(&dir, &format!("{name}.data"), &gzip(&data));
        let reader = dataset::open(&gz, Format::Auto).unwrap();
        assert!(reader.is_gzip());
        let unzipped: Vec<Record> = reader.map(Result::unwrap).collect();
        assert_eq!(unzipped, plain, "{name}");
    }
    // Multi-member gzip (concatenated files) reads as one stream.
    let mut two = gzip(format!("{}\n", PUZZLES[0]).as_bytes());
    two.extend(gzip(format!("{}\n", PUZZLES[1]).as_bytes()));
    let p = write(&dir, "two.txt.gz", &two);
    let recs = records(&p, Format::Lines);
    assert_eq!(
        recs.iter().map(|r| r.puzzle).collect::<Vec<_>>(),
        [puzzle(0), puzzle(1)]
    );
    assert_eq!(recs[1].line, 2);
}

#[test]
fn corrupt_and_truncated_gzip_end_the_stream() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..2000).map(|i| format!("{}\n", PUZZLES[i % 5])).collect();
    let gz = gzip(text.as_bytes());
    // Truncated: some records, then a fatal error, then nothing.
    let p = write(&dir, "cut.gz", &gz[..gz.len() / 2]);
    let mut reader = dataset::open(&p, Format::Auto).unwrap();
    let mut ok = 0;
    let err = loop {
        match reader.next() {
            Some(Ok(_)) => ok += 1,
            Some(Err(e)) => break e,
            None => panic!("truncated gzip read to the end"),
        }
    };
    assert!(ok > 0);
    assert!(err.is_fatal() && err.line().is_none());
    assert!(matches!(err.kind(), ErrorKind::Gzip(_)), "{err}");
    assert!(err.to_string().contains(": corrupt gzip data: "), "{err}");
    assert!(reader.next().is_none());
    // Garbage after the magic bytes: fails at open.
    let mut bad = gz.clone();
    for b in bad.iter_mut().skip(10).take(64) {
        *b ^= 0x5a;
    }
    let p = write(&dir, "bad.gz", &bad);
    let e = match dataset::open(&p, Format::Auto) {
        Err(e) => e,
        Ok(r) => r.filter_map(Result::err).next().expect("an error"),
    };
    assert!(
        e.is_fatal() && matches!(e.kind(), ErrorKind::Gzip(_)),
        "{e}"
    );
}

#[test]
fn bad_csv_rows_have_line_numbers_and_reading_continues() {
    let got = read_all(&fixture("bad_rows.csv"), Format::Auto);
    let shown: Vec<String> = got
        .iter()
        .map(|r| match r {
            Ok(rec) => format!("ok {} {}", rec.index, rec.line),
            Err(e) => msg(e),
        })
        .collect();
    let f = "FIX/bad_rows.csv";
    assert_eq!(
        shown,
        [
            "ok 0 2".to_string(),
            format!("{f}:3: puzzle column: expected 81 cells, found 80 characters"),
            format!("{f}:4: puzzle column: expected 81 cells, found 82 characters"),
            format!("{f}:5: puzzle column: invalid character 'x' at position 6 (expected 1-9, 0 or .)"),
            format!("{f}:6: expected 2 fields (as in the header), found 3"),
            format!("{f}:7: expected 2 fields (as in the header), found 1"),
            format!("{f}:8: solution column: expected 81 cells, found 80 characters"),
            format!("{f}:9: solution column: not a solution of the puzzle: given r1c1=1 was changed to 8"),
            format!("{f}:10: solution column: not a solution of the puzzle: cell r9c9 is blank"),
            format!("{f}:11: solution column: not a solution of the puzzle: r1c4 and r1c9 are both 9"),
            "ok 10 13".to_string(),
        ]
    );
    let errors: Vec<&DatasetError> = got.iter().filter_map(|r| r.as_ref().err()).collect();
    assert!(errors.iter().all(|e| e.is_row()));
    assert_eq!(
        errors
            .iter()
            .map(|e| e.index().unwrap())
            .collect::<Vec<_>>(),
        (1..10).collect::<Vec<u64>>()
    );
    assert_eq!(errors[0].line(), Some(3));
    assert_eq!(errors[0].kind().name(), "bad_puzzle");
    assert_eq!(errors[3].kind().name(), "ragged_row");
    assert_eq!(errors[5].kind().name(), "bad_solution");
}

#[test]
fn bad_plain_lines_have_line_numbers_and_reading_continues() {
    let got = read_all(&fixture("bad_lines.txt"), Format::Auto);
    let shown: Vec<String> = got
        .iter()
        .map(|r| match r {
            Ok(rec) => format!("ok {} {}", rec.index, rec.line),
            Err(e) => msg(e),
        })
        .collect();
    let f = "FIX/bad_lines.txt";
    assert_eq!(
        shown,
        [
            "ok 0 2".to_string(),
            format!("{f}:3: puzzle: expected 81 cells, found 80 characters"),
            format!("{f}:4: puzzle: expected 81 cells, found 82 characters"),
            format!("{f}:5: puzzle: invalid character '?' at position 11 (expected 1-9, 0 or .)"),
            "ok 4 6".to_string(),
        ]
    );
}

#[test]
fn file_level_errors() {
    let cases: [(&str, Format, &str); 7] = [
        ("empty.txt", Format::Auto, "FIX/empty.txt: empty file"),
        (
            "comments_only.txt",
            Format::Auto,
            "FIX/comments_only.txt: no puzzles (only comments and blank lines)",
        ),
        (
            "header_only.csv",
            Format::Auto,
            "FIX/header_only.csv: no puzzles (only a CSV header)",
        ),
        (
            "header_only.csv",
            Format::Csv,
            "FIX/header_only.csv: no puzzles (only a CSV header)",
        ),
        (
            "no_puzzle_column.csv",
            Format::Auto,
            "FIX/no_puzzle_column.csv:1: no puzzle column in the CSV header (expected one of: \
             quizzes, puzzle, quiz, question, sudoku); found: \"id\", \"grid\", \"answer\"",
        ),
        (
            "headerless.csv",
            Format::Auto,
            "FIX/headerless.csv:1: cannot detect the format: the first line looks like a CSV \
             row without a header; add a header line naming the puzzle column \
             (quizzes, puzzle, quiz, question, sudoku)",
        ),
        (
            "unknown.txt",
            Format::Auto,
            "FIX/unknown.txt:1: cannot detect the format: the first line \"hello world\" is \
             neither an 81-cell puzzle nor a CSV header with a puzzle column",
        ),
    ];
    for (name, format, want) in cases {
        let e = open_err(&fixture(name), format);
        assert!(e.is_fatal());
        assert_eq!(msg(&e), want);
    }
    // The same file forced to CSV names the header it found.
    let e = open_err(&fixture("no_puzzle_column.csv"), Format::Csv);
    assert!(matches!(e.kind(), ErrorKind::MissingPuzzleColumn { header } if header.len() == 3));
}

#[test]
fn directory_and_missing_paths() {
    let dir = tempfile::tempdir().unwrap();
    let e = open_err(dir.path(), Format::Auto);
    assert!(matches!(e.kind(), ErrorKind::IsDirectory));
    assert_eq!(
        e.to_string(),
        format!(
            "{}: is a directory, expected a dataset file",
            dir.path().display()
        )
    );
    assert_eq!(e.path(), dir.path());
    let missing = dir.path().join("nope.csv");
    let e = open_err(&missing, Format::Auto);
    assert!(matches!(e.kind(), ErrorKind::Open(_)));
    assert!(
        e.to_string()
            .starts_with(&format!("{}: cannot open: ", missing.display())),
        "{e}"
    );
    assert_eq!(dataset::estimate_count(dir.path()), None);
    assert_eq!(dataset::estimate_count(&missing), None);
}

#[test]
fn huge_line_is_a_row_error_without_buffering_it() {
    let dir = tempfile::tempdir().unwrap();
    // 16 MiB without a newline between two good puzzles.
    let mut data = format!("{}\n", PUZZLES[0]).into_bytes();
    data.extend(vec![b'1'; 16 << 20]);
    data.extend(format!("\n{}\n", PUZZLES[1]).bytes());
    let p = write(&dir, "huge.txt", &data);
    for format in [Format::Auto, Format::Lines] {
        let got = read_all(&p, format);
        assert_eq!(got.len(), 3);
        let e = got[1].as_ref().unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("{}:2: line too long (over 65536 bytes)", p.display())
        );
        assert_eq!((e.index(), e.kind().name()), (Some(1), "line_too_long"));
        let last = got[2].as_ref().unwrap();
        assert_eq!((last.index, last.line, last.puzzle), (2, 3, puzzle(1)));
    }
    // The same inside CSV, and as a whole file with no newline at all.
    let mut csv = b"quizzes,solutions\n".to_vec();
    csv.extend(vec![b'0'; 1 << 20]);
    csv.extend(format!(",x\n{},\n", PUZZLES[2]).bytes());
    let p = write(&dir, "huge.csv", &csv);
    let got = read_all(&p, Format::Auto);
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].as_ref().unwrap_err().kind().name(), "line_too_long");
    assert_eq!(got[1].as_ref().unwrap().puzzle, puzzle(2));
    let p = write(&dir, "one_line.txt", &vec![b'5'; 4 << 20]);
    let e = open_err(&p, Format::Auto);
    assert!(
        e.to_string()
            .contains("cannot detect the format: the first line is over 65536 bytes"),
        "{e}"
    );
    let e = open_err(&p, Format::Csv);
    assert!(
        e.to_string()
            .ends_with(":1: bad CSV header: the first line is over 65536 bytes"),
        "{e}"
    );
    let got = read_all(&p, Format::Lines);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].as_ref().unwrap_err().line(), Some(1));
    // An over-long comment line is still a comment.
    let mut c = b"#".to_vec();
    c.extend(vec![b'c'; 1 << 20]);
    c.extend(format!("\n{}\n", PUZZLES[3]).bytes());
    let p = write(&dir, "long_comment.txt", &c);
    let recs = records(&p, Format::Auto);
    assert_eq!((recs.len(), recs[0].index, recs[0].line), (1, 0, 2));
}

#[test]
fn nul_bytes_and_binary_garbage() {
    let dir = tempfile::tempdir().unwrap();
    // A binary file: refused at detection, not a panic.
    let garbage: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let p = write(&dir, "garbage.bin", &garbage);
    let e = open_err(&p, Format::Auto);
    assert!(e.is_fatal(), "{e}");
    let mut nul = vec![0u8; 100];
    nul.push(b'\n');
    let p = write(&dir, "nul.bin", &nul);
    let e = open_err(&p, Format::Auto);
    assert!(matches!(e.kind(), ErrorKind::Binary { column: 1 }), "{e}");
    assert!(
        e.to_string()
            .ends_with(":1: binary data (NUL byte at column 1), expected a text dataset"),
        "{e}"
    );
    // Garbage forced through both readers: errors only, never a panic.
    for format in [Format::Lines, Format::Csv] {
        if let Ok(r) = dataset::open(&write(&dir, "g2.bin", &garbage), format) {
            for item in r {
                let _ = item.map(|rec| rec.puzzle);
            }
        }
    }
    // A NUL inside one CSV row is a row error; reading goes on.
    let mut csv = format!("quizzes,solutions\n{},\n", PUZZLES[0]).into_bytes();
    csv.extend_from_slice(b"0000\0,\n");
    csv.extend(format!("{},\n", PUZZLES[1]).bytes());
    let p = write(&dir, "nul.csv", &csv);
    let got = read_all(&p, Format::Auto);
    assert_eq!(got.len(), 3);
    assert_eq!(
        got[1].as_ref().unwrap_err().to_string(),
        format!("{}:3: NUL byte at column 5 (binary data?)", p.display())
    );
    assert!(got[2].is_ok());
}

#[test]
fn estimate_count_matches_small_files() {
    for (name, n) in [
        ("lines.txt", 5),
        ("kaggle_1m.csv", 5),
        ("ratings_3m.csv", 5),
        ("quoted_extra.csv", 5),
        ("bad_rows.csv", 11),
        ("header_only.csv", 0),
        ("empty.txt", 0),
    ] {
        assert_eq!(dataset::estimate_count(&fixture(name)), Some(n), "{name}");
    }
    // Gzip: exact for small files, close for ones beyond the 8 MiB sample.
    let dir = tempfile::tempdir().unwrap();
    let data = std::fs::read(fixture("kaggle_1m.csv")).unwrap();
    let p = write(&dir, "k.csv.gz", &gzip(&data));
    assert_eq!(dataset::estimate_count(&p), Some(5));
    let rows = 150_000u64;
    let text: String = (0..rows)
        .map(|i| format!("{}\n", PUZZLES[(i % 5) as usize]))
        .collect();
    let p = write(&dir, "big.txt.gz", &gzip(text.as_bytes()));
    let est = dataset::estimate_count(&p).unwrap();
    assert!(
        est.abs_diff(rows) <= rows / 100,
        "estimate {est} for {rows}"
    );
}

#[test]
fn reader_from_any_byte_stream() {
    let data = std::fs::read(fixture("ratings_3m.csv")).unwrap();
    let r = Reader::from_reader("stdin", std::io::Cursor::new(gzip(&data)), Format::Auto).unwrap();
    assert_eq!(r.path(), Path::new("stdin"));
    assert_eq!(r.count(), 5);
}

#[test]
fn batching_by_ref_take() {
    let mut reader = dataset::open(&fixture("kaggle_1m.csv"), Format::Auto).unwrap();
    let mut sizes = Vec::new();
    loop {
        let batch: Vec<_> = reader.by_ref().take(2).collect();
        if batch.is_empty() {
            break;
        }
        sizes.push(batch.len());
    }
    assert_eq!(sizes, [2, 2, 1]);
}

#[test]
fn stem_for_report_names() {
    assert_eq!(dataset::stem(&fixture("kaggle_1m.csv")), "kaggle_1m");
    assert_eq!(dataset::stem(Path::new("sudoku.csv.gz")), "sudoku");
    assert_eq!(dataset::stem(Path::new("top95.txt")), "top95");
}

/// Every real corpus reads in full with the expected counts. Set
/// `BENCH_SUDOKU_CORPORA` to the corpora directory to run it.
#[test]
fn real_corpora_when_available() {
    let Some(dir) = std::env::var_os("BENCH_SUDOKU_CORPORA") else {
        return;
    };
    let mut counts = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension() != Some(std::ffi::OsStr::new("md")))
        .collect();
    entries.sort();
    for p in entries {
        let reader = dataset::open(&p, Format::Auto).unwrap_or_else(|e| panic!("{e}"));
        let mut n = 0u64;
        for item in reader {
            item.unwrap_or_else(|e| panic!("{e}"));
            n += 1;
        }
        assert_eq!(dataset::estimate_count(&p), Some(n), "{}", p.display());
        counts.push(n);
    }
    counts.sort_unstable();
    let mut want = vec![49158, 1465, 48766, 375, 10000];
    want.sort_unstable();
    assert_eq!(counts, want);
}
