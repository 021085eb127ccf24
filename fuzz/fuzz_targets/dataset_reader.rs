//! The dataset readers on arbitrary bytes, in every format: opening and
//! iterating to the end never panics, and row indices increase by one
//! (valid rows and row errors alike share the index sequence).
#![no_main]

use bench_sudoku::dataset::{Format, Reader};
use libfuzzer_sys::fuzz_target;
use std::io::Cursor;

fuzz_target!(|data: &[u8]| {
    for format in [Format::Auto, Format::Csv, Format::Lines] {
        let Ok(reader) = Reader::from_reader("fuzz", Cursor::new(data.to_vec()), format) else {
            continue;
        };
        let mut next_index = 0u64;
        let mut last_line = 0u64;
        let mut valid = 0u64;
        let mut invalid = 0u64;
        let mut reader = reader;
        for item in reader.by_ref() {
            match item {
                Ok(rec) => {
                    assert_eq!(rec.index, next_index, "record index");
                    assert!(rec.line > last_line, "record lines increase");
                    last_line = rec.line;
                    next_index += 1;
                    valid += 1;
                    if let Some(sol) = &rec.solution {
                        assert!(sol.is_solution_of(&rec.puzzle), "checked solution");
                    }
                }
                Err(e) => {
                    if let Some(index) = e.index() {
                        assert!(e.is_row(), "only row errors carry an index");
                        assert_eq!(index, next_index, "row error index");
                        let line = e.line().expect("row errors name their line");
                        assert!(line > last_line, "row error lines increase");
                        last_line = line;
                        next_index += 1;
                        invalid += 1;
                    }
                }
            }
        }
        let stats = reader.stats();
        assert_eq!(stats.rows, next_index);
        assert_eq!(stats.valid, valid);
        assert_eq!(stats.invalid, invalid);
    }
});
