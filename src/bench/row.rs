//! `puzzles.csv` rows: one line per puzzle × strategy, formatted straight
//! into the batch's byte buffer.

use super::metrics::PuzzleOutcome;
use crate::dataset::Record;
use crate::solver::Status;

/// Formats `puzzles.csv` rows of one (dataset, strategy) unit. Text fields
/// are escaped by the csv crate (the unit's dataset and strategy once, id
/// and rating when they need it); numbers are formatted directly.
#[derive(Clone, Debug)]
pub struct RowFormat {
    /// `dataset,` escaped.
    dataset: Piece,
    /// `,strategy,` escaped.
    strategy: Piece,
}

/// Constant text of every row, kept zero-padded so that a short one is
/// appended with a fixed-size copy (and the excess cut off) instead of a
/// call to `memcpy`.
#[derive(Clone, Debug)]
struct Piece {
    padded: Vec<u8>,
    len: usize,
}

impl Piece {
    fn new(bytes: Vec<u8>) -> Self {
        let len = bytes.len();
        let mut padded = bytes;
        padded.resize(len.max(32), 0);
        Piece { padded, len }
    }

    #[inline(always)]
    fn append(&self, row: &mut Vec<u8>) {
        if let Ok(short) = <&[u8; 32]>::try_from(&self.padded[..]) {
            let end = row.len() + self.len;
            row.extend_from_slice(short);
            row.truncate(end);
        } else {
            row.extend_from_slice(&self.padded[..self.len]);
        }
    }
}

impl RowFormat {
    pub fn new(dataset: &str, strategy: &str) -> Self {
        let mut d = Vec::new();
        push_text(&mut d, dataset.as_bytes());
        d.push(b',');
        let mut s = vec![b','];
        push_text(&mut s, strategy.as_bytes());
        s.push(b',');
        RowFormat {
            dataset: Piece::new(d),
            strategy: Piece::new(s),
        }
    }

    /// Appends the row of `o` (the outcome of `rec`) to `row`.
    pub fn push(&self, row: &mut Vec<u8>, rec: &Record, o: &PuzzleOutcome) {
        let c = &o.counters;
        let mut n = itoa::Buffer::new();
        row.reserve(256);
        self.dataset.append(row);
        push_u64(row, &mut n, o.index);
        row.push(b',');
        if let Some(id) = &rec.id {
            push_text(row, id.as_bytes());
        }
        row.push(b',');
        if let Some(rating) = &rec.rating {
            push_text(row, rating.as_bytes());
        }
        self.strategy.append(row);
        // Constant-length pieces are stored inline, without a copy call.
        match o.status {
            Status::Solved => row.extend_from_slice(b"solved"),
            Status::NoSolution => row.extend_from_slice(b"no_solution"),
            Status::Multiple => row.extend_from_slice(b"multiple"),
            Status::Invalid => row.extend_from_slice(b"invalid"),
            Status::Stalled => row.extend_from_slice(b"stalled"),
            Status::GaveUp => row.extend_from_slice(b"gave_up"),
        }
        for v in [
            o.solutions as u64,
            o.time_ns,
            c.guesses,
            c.backtracks,
            c.max_depth as u64,
            c.nodes,
            c.naked_singles,
            c.hidden_singles,
            o.givens as u64,
        ] {
            row.push(b',');
            push_u64(row, &mut n, v);
        }
        row.extend_from_slice(match o.matches_solution {
            Some(true) => b",true\n",
            Some(false) => b",false\n",
            None => b",\n",
        });
    }
}

/// Appends `v` in decimal; values below 10,000 (most counters, and the solve
/// times of easy puzzles) with fixed-size stores, larger ones with itoa.
#[inline(always)]
fn push_u64(row: &mut Vec<u8>, n: &mut itoa::Buffer, v: u64) {
    if v < 10 {
        row.push(b'0' + v as u8);
    } else if v < 100 {
        row.extend_from_slice(&DIGIT_PAIRS[v as usize]);
    } else if v < 1000 {
        let [b, c] = DIGIT_PAIRS[(v % 100) as usize];
        row.extend_from_slice(&[b'0' + (v / 100) as u8, b, c]);
    } else if v < 10_000 {
        let [a, b] = DIGIT_PAIRS[(v / 100) as usize];
        let [c, d] = DIGIT_PAIRS[(v % 100) as usize];
        row.extend_from_slice(&[a, b, c, d]);
    } else {
        row.extend_from_slice(n.format(v).as_bytes());
    }
}

/// "00" to "99".
static DIGIT_PAIRS: [[u8; 2]; 100] = {
    let mut t = [[0u8; 2]; 100];
    let mut i = 0;
    while i < 100 {
        t[i] = [b'0' + (i / 10) as u8, b'0' + (i % 10) as u8];
        i += 1;
    }
    t
};

/// Appends `field` to `buf` as one CSV field (quoted when needed).
pub(super) fn push_text(buf: &mut Vec<u8>, field: &[u8]) {
    if field
        .iter()
        .all(|&b| !matches!(b, b',' | b'"' | b'\n' | b'\r'))
    {
        buf.extend_from_slice(field);
        return;
    }
    // Rare (a quote, comma or newline): let csv quote it, as a one-field
    // record whose terminator is dropped.
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    // Writing to an in-memory buffer cannot fail.
    let _ = w.write_record([field]);
    if let Ok(bytes) = w.into_inner() {
        buf.extend_from_slice(bytes.strip_suffix(b"\n").unwrap_or(&bytes));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::{PuzzleCsv, RowSink};
    use crate::solver::Counters;

    #[test]
    fn puzzle_rows_are_valid_csv_with_escaped_text() {
        let dir = std::env::temp_dir().join(format!("bench-sudoku-rows-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("p.csv");
        let mut w = PuzzleCsv::create(&path).unwrap();
        let format = w
            .unit("set, \"one\"", "prop=hidden,branch=max,order=asc")
            .unwrap();
        let rec = Record {
            index: 7,
            line: 9,
            id: Some("a,b".into()),
            rating: Some(" 3 ".into()),
            puzzle: crate::Grid::empty(),
            solution: None,
        };
        let o = PuzzleOutcome {
            index: 7,
            line: 9,
            status: Status::Multiple,
            solutions: 2,
            time_ns: 12345,
            counters: Counters {
                guesses: 3,
                backtracks: 2,
                max_depth: 1,
                nodes: 4,
                naked_singles: 5,
                hidden_singles: 6,
            },
            givens: 0,
            matches_solution: Some(false),
            wrong: None,
        };
        let mut row = Vec::new();
        format.push(&mut row, &rec, &o);
        w.write(&row).unwrap();
        w.finish().unwrap();
        let mut r = csv::Reader::from_path(&path).unwrap();
        assert_eq!(r.headers().unwrap().len(), 16);
        let rows: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
        assert_eq!(rows.len(), 1);
        let row: Vec<&str> = rows[0].iter().collect();
        assert_eq!(
            row,
            [
                "set, \"one\"",
                "7",
                "a,b",
                " 3 ",
                "prop=hidden,branch=max,order=asc",
                "multiple",
                "2",
                "12345",
                "3",
                "2",
                "1",
                "4",
                "5",
                "6",
                "0",
                "false"
            ]
        );
    }

    #[test]
    fn rows_name_every_status_as_the_reports_do() {
        let f = RowFormat::new("d", "s");
        let rec = Record {
            index: 0,
            line: 1,
            id: None,
            rating: None,
            puzzle: crate::Grid::empty(),
            solution: None,
        };
        for status in Status::ALL {
            let o = PuzzleOutcome {
                index: 123,
                line: 1,
                status,
                solutions: 0,
                time_ns: 9,
                counters: Counters::default(),
                givens: 99,
                matches_solution: None,
                wrong: None,
            };
            let mut row = Vec::new();
            f.push(&mut row, &rec, &o);
            let text = String::from_utf8(row).unwrap();
            let fields: Vec<&str> = text.trim_end().split(',').collect();
            assert_eq!(fields[5], status.as_str());
            assert_eq!((fields[1], fields[7], fields[14]), ("123", "9", "99"));
        }
    }

    #[test]
    fn numbers_and_long_names_are_formatted_exactly() {
        let long = "d".repeat(40);
        for (dataset, strategy) in [("d", "s"), (long.as_str(), long.as_str())] {
            let f = RowFormat::new(dataset, strategy);
            for v in [
                0u64,
                9,
                10,
                99,
                100,
                101,
                999,
                1000,
                1009,
                9999,
                10_000,
                123_456_789,
                u64::MAX,
            ] {
                let mut row = vec![b'x'];
                push_u64(&mut row, &mut itoa::Buffer::new(), v);
                assert_eq!(row, format!("x{v}").into_bytes());
                let rec = Record {
                    index: v,
                    line: 1,
                    id: None,
                    rating: None,
                    puzzle: crate::Grid::empty(),
                    solution: None,
                };
                let o = PuzzleOutcome {
                    index: v,
                    line: 1,
                    status: Status::Solved,
                    solutions: 1,
                    time_ns: v,
                    counters: Counters::default(),
                    givens: 0,
                    matches_solution: Some(true),
                    wrong: None,
                };
                let mut row = Vec::new();
                f.push(&mut row, &rec, &o);
                assert_eq!(
                    String::from_utf8(row).unwrap(),
                    format!("{dataset},{v},,,{strategy},solved,1,{v},0,0,0,0,0,0,0,true\n")
                );
            }
        }
    }
}
