//! `puzzles.csv` rows: one line per puzzle × strategy, formatted straight
//! into the batch's byte buffer.

use super::metrics::PuzzleOutcome;
use crate::dataset::Record;
use crate::solver::{Counter, CounterSet, Status};
use std::mem::MaybeUninit;

/// The columns of `puzzles.csv`, in order: what `run` writes (the rows are
/// formatted by [`super::RowFormat`]) and what `merge` and the readers expect.
pub const HEADER: [&str; 22] = [
    "dataset",
    "index",
    "id",
    "rating",
    "strategy",
    "status",
    "solutions",
    "time_ns",
    "guesses",
    "backtracks",
    "max_depth",
    "nodes",
    "naked_singles",
    "hidden_singles",
    "locked_eliminations",
    "subset_eliminations",
    "fish_eliminations",
    "wing_eliminations",
    "chain_eliminations",
    "givens",
    "matches_solution",
    "answer",
];

/// Formats `puzzles.csv` rows of one (dataset, strategy) unit. Text fields
/// are escaped by the csv crate (the unit's dataset and strategy once, id
/// and rating when they need it); numbers are formatted directly.
///
/// A counter the unit's strategy does not report is an empty cell, as are
/// the solutions, time and counters of a fault (crashed, timeout, …).
///
/// A row whose text fields are short (dataset and strategy of at most 32
/// escaped bytes with their commas, no id or rating: the usual case) and
/// whose strategy reports every counter is written in place into the
/// buffer's spare capacity with fixed-size stores, without a length update
/// per field ([`Cursor`]); other rows field by field. Both give the same
/// bytes (tested).
#[derive(Clone, Debug)]
pub struct RowFormat {
    /// `dataset,` escaped.
    dataset: Vec<u8>,
    /// `,strategy,` escaped.
    strategy: Vec<u8>,
    /// Both pieces zero-padded to [`PIECE`] bytes, when they fit.
    short: Option<[([u8; PIECE], usize); 2]>,
    /// Each status's name, zero-padded, by `Status as usize`.
    status: [([u8; 16], usize); Status::ALL.len()],
    /// The counters the unit's strategy reports.
    counters: CounterSet,
}

/// The longest dataset or strategy piece of the in-place path.
const PIECE: usize = 32;

impl RowFormat {
    pub fn new(dataset: &str, strategy: &str, counters: CounterSet) -> Self {
        let mut d = Vec::new();
        push_text(&mut d, dataset.as_bytes());
        d.push(b',');
        let mut s = vec![b','];
        push_text(&mut s, strategy.as_bytes());
        s.push(b',');
        let padded = |v: &[u8]| {
            let mut p = [0u8; PIECE];
            p.get_mut(..v.len())?.copy_from_slice(v);
            Some((p, v.len()))
        };
        let short = padded(&d)
            .zip(padded(&s))
            .map(|(a, b)| [a, b])
            .filter(|_| counters == CounterSet::ALL || counters == CounterSet::SEARCH);
        let mut status = [([0u8; 16], 0); Status::ALL.len()];
        for st in Status::ALL {
            let name = st.as_str().as_bytes();
            status[st as usize].0[..name.len()].copy_from_slice(name);
            status[st as usize].1 = name.len();
        }
        RowFormat {
            dataset: d,
            strategy: s,
            short,
            status,
            counters,
        }
    }

    /// Appends the row of `o` (the outcome of `rec`) to `row`.
    #[inline]
    pub fn push(&self, row: &mut Vec<u8>, rec: &Record, o: &PuzzleOutcome) {
        match &self.short {
            Some(pieces)
                if rec.id().is_none()
                    && rec.rating().is_none()
                    && !o.status.is_fault()
                    && !o.rejected() =>
            {
                self.push_in_place(row, pieces, o)
            }
            _ => self.push_by_field(row, rec, o),
        }
    }

    /// The numbers after the status, in column order: solutions, time,
    /// the counters in [`Counter::ALL`]'s order, givens.
    #[inline(always)]
    fn numbers(o: &PuzzleOutcome) -> [u64; 14] {
        let c = &o.counters;
        [
            o.solutions as u64,
            o.time_ns,
            c.guesses,
            c.backtracks,
            c.max_depth as u64,
            c.nodes,
            c.naked_singles,
            c.hidden_singles,
            c.locked_eliminations,
            c.subset_eliminations,
            c.fish_eliminations,
            c.wing_eliminations,
            c.chain_eliminations,
            o.givens as u64,
        ]
    }

    /// Where [`numbers`](Self::numbers) has the first elimination counter,
    /// and how many there are.
    const ELIMINATIONS: std::ops::Range<usize> = 8..13;

    /// The end of an accepted answer's row: `matches_solution`, `answer`
    /// (`ok`) and the newline.
    #[inline(always)]
    fn ending(o: &PuzzleOutcome) -> ([u8; 16], usize) {
        match o.matches_solution {
            Some(true) => (*b",true,ok\n\0\0\0\0\0\0\0", 9),
            _ => (*b",,ok\n\0\0\0\0\0\0\0\0\0\0\0", 5),
        }
    }

    fn push_in_place(
        &self,
        row: &mut Vec<u8>,
        pieces: &[([u8; PIECE], usize); 2],
        o: &PuzzleOutcome,
    ) {
        let start = row.len();
        row.reserve(Cursor::ROOM);
        let mut w = Cursor::new(row.spare_capacity_mut());
        let [(dataset, dataset_len), (strategy, strategy_len)] = pieces;
        w.put(dataset, *dataset_len);
        w.number(o.index);
        // Empty id and rating.
        w.put(b",,", 2);
        w.put(strategy, *strategy_len);
        let (name, name_len) = &self.status[o.status as usize];
        w.put(name, *name_len);
        // The in-place path runs for the counter sets with all the
        // elimination counters or none.
        let eliminations = self.counters.has(Counter::LockedEliminations);
        for (i, v) in Self::numbers(o).into_iter().enumerate() {
            w.put(b",", 1);
            if eliminations || !Self::ELIMINATIONS.contains(&i) {
                w.number(v);
            }
        }
        let (end, end_len) = Self::ending(o);
        w.put(&end, end_len);
        let written = w.finish();
        // SAFETY: `Cursor::finish` guarantees that the first `written`
        // elements of the spare capacity it was given were initialised, and
        // `written` is within that spare capacity.
        unsafe { row.set_len(start + written) };
    }

    fn push_by_field(&self, row: &mut Vec<u8>, rec: &Record, o: &PuzzleOutcome) {
        let mut n = itoa::Buffer::new();
        row.extend_from_slice(&self.dataset);
        push_u64(row, &mut n, o.index);
        row.push(b',');
        if let Some(id) = rec.id() {
            push_text(row, id.as_bytes());
        }
        row.push(b',');
        if let Some(rating) = rec.rating() {
            push_text(row, rating.as_bytes());
        }
        row.extend_from_slice(&self.strategy);
        row.extend_from_slice(o.status.as_str().as_bytes());
        // Solutions, time, the counters, givens: empty when absent.
        let fault = o.status.is_fault();
        let present = |i: usize| match i {
            0 | 1 => !fault,
            13 => true,
            c => !fault && self.counters.has(Counter::ALL[c - 2]),
        };
        for (i, v) in Self::numbers(o).into_iter().enumerate() {
            row.push(b',');
            if present(i) {
                push_u64(row, &mut n, v);
            }
        }
        row.extend_from_slice(match o.matches_solution {
            Some(true) => b",true,",
            Some(false) => b",false,",
            None => b",,",
        });
        row.extend_from_slice(o.answer().as_bytes());
        row.push(b'\n');
    }
}

/// Writes a row into the spare capacity of a buffer with fixed-size
/// stores: each [`put`](Cursor::put) stores all `N` bytes of its array and
/// keeps the first `len`, the next store overwriting the rest.
struct Cursor<'a> {
    buf: &'a mut [MaybeUninit<u8>; Cursor::ROOM],
    len: usize,
}

impl<'a> Cursor<'a> {
    /// Positions are taken modulo `WRAP` (a no-op for every row this
    /// writes: at most 2 × 32 + 20 + 2 + 11 + 14 × 21 + 9 = 400 bytes), which
    /// keeps every store provably inside `ROOM` without a bounds check.
    const WRAP: usize = 512;
    /// Spare capacity needed: `WRAP` plus the widest store.
    const ROOM: usize = Self::WRAP + 32;

    /// Takes the first `ROOM` elements of `spare` (reserved by the caller).
    fn new(spare: &'a mut [MaybeUninit<u8>]) -> Self {
        let buf = (&mut spare[..Self::ROOM])
            .try_into()
            .expect("a slice of ROOM elements");
        Cursor { buf, len: 0 }
    }

    /// Stores `bytes` at the end and keeps the first `len` of them.
    #[inline(always)]
    fn put<const N: usize>(&mut self, bytes: &[u8; N], len: usize) {
        debug_assert!(N <= Self::ROOM - Self::WRAP && len <= N);
        let at = self.len % Self::WRAP;
        for (d, &s) in self.buf[at..at + N].iter_mut().zip(bytes) {
            d.write(s);
        }
        self.len = at + len;
    }

    /// Appends `v` in decimal.
    #[inline(always)]
    fn number(&mut self, v: u64) {
        if v < 100 {
            let [a, b] = DIGIT_PAIRS[v as usize];
            if v < 10 {
                self.put(&[b], 1);
            } else {
                self.put(&[a, b], 2);
            }
        } else if v < 100_000_000 {
            let (digits, len) = digits8(v);
            self.put(&digits, len);
        } else {
            let mut n = itoa::Buffer::new();
            for &b in n.format(v).as_bytes() {
                self.put(&[b], 1);
            }
        }
    }

    /// How many bytes were written. All of them are initialised: each `put`
    /// initialises the bytes from its start `at` to beyond its new end, and
    /// `at` is never past the previous end (it is that end, or less if it
    /// wrapped), below which every byte was already initialised. A wrapped
    /// position would garble the row, though never leave a byte
    /// uninitialised: it cannot happen (see `WRAP`), and is refused.
    fn finish(self) -> usize {
        assert!(self.len <= Self::WRAP, "row longer than the in-place room");
        self.len
    }
}

/// The decimal digits of `v` (`0 < v < 10^8`) as ASCII, most significant
/// first, in the first `len` bytes, `len` being the number of digits.
///
/// All eight digits are found at once in one 64-bit word: the two 4-digit
/// halves go to 32-bit lanes, each lane is split into two 2-digit values
/// (16-bit lanes), and each of those into tens and ones (bytes). Divisions
/// by 100 and by 10 are multiplications by scaled reciprocals, exact for
/// these ranges: `n / 100 = (n × 10486) >> 20` for `n < 10^4`, and
/// `m / 10 = (m × 103) >> 10` for `m < 100` (both checked exhaustively in
/// the tests). Every lane's product stays below the next lane.
#[inline(always)]
fn digits8(v: u64) -> ([u8; 8], usize) {
    debug_assert!(v > 0 && v < 100_000_000);
    // High half in the low lane: it is printed first (little-endian).
    let x = (v / 10_000) | ((v % 10_000) << 32);
    let hundreds = ((x * 10_486) >> 20) & 0x0000_007F_0000_007F;
    let pairs = hundreds | ((x - hundreds * 100) << 16);
    let tens = ((pairs * 103) >> 10) & 0x000F_000F_000F_000F;
    let digits = tens | ((pairs - tens * 10) << 8);
    // Leading zeros are the low zero bytes; v > 0 leaves at least one digit.
    let zeros = digits.trailing_zeros() as usize / 8;
    let ascii = (digits + 0x3030_3030_3030_3030) >> (8 * zeros);
    (ascii.to_le_bytes(), 8 - zeros)
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

/// Appends `field` to `buf` as one CSV text field: neutralised when a
/// spreadsheet would run it as a formula (`'` first, see
/// [`crate::support::cells::neutral`]), quoted when needed.
pub(super) fn push_text(buf: &mut Vec<u8>, field: &[u8]) {
    if crate::support::cells::formula_like(field) {
        let mut marked = Vec::with_capacity(field.len() + 1);
        marked.push(b'\'');
        marked.extend_from_slice(field);
        return push_field(buf, &marked);
    }
    push_field(buf, field)
}

/// Appends `field` to `buf` as one CSV field (quoted when needed).
fn push_field(buf: &mut Vec<u8>, field: &[u8]) {
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

    /// A record of the empty grid with an optional id and rating.
    fn record(index: u64, id: Option<&str>, rating: Option<&str>) -> Record {
        Record::plain(index, index.saturating_add(1), crate::Grid::empty()).with_more(
            crate::dataset::More {
                id: id.map(Into::into),
                rating: rating.map(Into::into),
                ..Default::default()
            },
        )
    }

    #[test]
    fn puzzle_rows_are_valid_csv_with_escaped_text() {
        let dir = std::env::temp_dir().join(format!("bench-sudoku-rows-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("p.csv");
        let mut w = PuzzleCsv::create(&path).unwrap();
        let format = w
            .group(
                "set, \"one\"",
                &[("prop=hidden,branch=max,order=asc", CounterSet::ALL)],
            )
            .unwrap()
            .remove(0)
            .unwrap();
        let rec = record(7, Some("a,b"), Some(" 3 "));
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
                ..Counters::default()
            },
            givens: 0,
            matches_solution: Some(false),
            wrong: None,
            wrong_count: None,
            fault: None,
            repeats: Default::default(),
            unverified: false,
        };
        let mut row = Vec::new();
        format.push(&mut row, &rec, &o);
        w.write(0, &row).unwrap();
        w.finish().unwrap();
        let mut r = csv::Reader::from_path(&path).unwrap();
        assert_eq!(r.headers().unwrap().len(), 22);
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
                "0",
                "0",
                "0",
                "0",
                "0",
                "false",
                "differs"
            ]
        );
    }

    #[test]
    fn rows_name_every_status_as_the_reports_do() {
        let f = RowFormat::new("d", "s", CounterSet::ALL);
        let rec = record(0, None, None);
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
                wrong_count: None,
                fault: None,
                repeats: Default::default(),
                unverified: false,
            };
            let mut row = Vec::new();
            f.push(&mut row, &rec, &o);
            let text = String::from_utf8(row).unwrap();
            let fields: Vec<&str> = text.trim_end().split(',').collect();
            assert_eq!(fields[5], status.as_str());
            // A fault has no time and no counters.
            let time = if status.is_fault() { "" } else { "9" };
            assert_eq!((fields[1], fields[7], fields[19]), ("123", time, "99"));
            assert_eq!(fields[8] == "0", !status.is_fault(), "{status}");
        }
    }

    #[test]
    fn counters_a_strategy_does_not_report_are_empty_cells() {
        let guesses_only = CounterSet::of(&[Counter::Guesses]);
        let f = RowFormat::new("d", "tdoku", guesses_only);
        assert!(
            f.short.is_none(),
            "every such row is written field by field"
        );
        let o = PuzzleOutcome {
            index: 4,
            line: 5,
            status: Status::Solved,
            solutions: 1,
            time_ns: 3100,
            counters: Counters {
                guesses: 7,
                ..Counters::default()
            },
            givens: 17,
            matches_solution: Some(true),
            wrong: None,
            wrong_count: None,
            fault: None,
            repeats: Default::default(),
            unverified: false,
        };
        let mut row = Vec::new();
        f.push(&mut row, &record(4, None, None), &o);
        assert_eq!(
            String::from_utf8(row).unwrap(),
            "d,4,,,tdoku,solved,1,3100,7,,,,,,,,,,,17,true,ok\n"
        );
    }

    #[test]
    fn numbers_and_long_names_are_formatted_exactly() {
        let long = "d".repeat(40);
        let values = [
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
            10_001,
            123_456,
            9_999_999,
            10_000_000,
            99_999_999,
            100_000_000,
            123_456_789,
            u64::MAX,
        ];
        // Short names (in place), long names and an id (field by field).
        for (dataset, strategy, id) in [
            ("d", "s", None),
            (long.as_str(), long.as_str(), None),
            ("d", "s", Some("x")),
        ] {
            let f = RowFormat::new(dataset, strategy, CounterSet::ALL);
            for v in values {
                let mut row = vec![b'x'];
                push_u64(&mut row, &mut itoa::Buffer::new(), v);
                assert_eq!(row, format!("x{v}").into_bytes());
                let rec = record(v, id, None);
                let o = PuzzleOutcome {
                    index: v,
                    line: 1,
                    status: Status::Solved,
                    solutions: 1,
                    time_ns: v,
                    counters: Counters {
                        guesses: v,
                        backtracks: v / 3,
                        max_depth: 7,
                        nodes: v.saturating_add(1),
                        naked_singles: 12,
                        hidden_singles: v % 1000,
                        ..Counters::default()
                    },
                    givens: 17,
                    matches_solution: Some(true),
                    wrong: None,
                    wrong_count: None,
                    fault: None,
                    repeats: Default::default(),
                    unverified: false,
                };
                // Appended after earlier bytes, as in a batch.
                let mut row = b"prev\n".to_vec();
                f.push(&mut row, &rec, &o);
                let c = &o.counters;
                assert_eq!(
                    String::from_utf8(row).unwrap(),
                    format!(
                        "prev\n{dataset},{v},{},,{strategy},solved,1,{v},{v},{},7,{},12,{},0,0,0,0,0,17,true,ok\n",
                        id.unwrap_or(""),
                        c.backtracks,
                        c.nodes,
                        c.hidden_singles
                    )
                );
            }
        }
    }

    #[test]
    fn in_place_and_field_by_field_rows_are_the_same_bytes() {
        for set in [CounterSet::ALL, CounterSet::SEARCH] {
            same_bytes(set);
        }
    }

    /// The in-place and field-by-field rows of strategies reporting `set`.
    fn same_bytes(set: CounterSet) {
        let f = RowFormat::new("set", "fast", set);
        let pieces = f.short.unwrap();
        let rec = record(0, None, None);
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |bits: u32| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x >> (64 - bits)
        };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for i in 0..20_000 {
            let o = PuzzleOutcome {
                index: i,
                line: i + 1,
                // The in-place path takes every status but the faults.
                status: Status::ALL[i as usize % 6],
                solutions: next(2) as u32,
                time_ns: next(1 + (i % 40) as u32),
                counters: Counters {
                    guesses: next(1 + (i % 30) as u32),
                    backtracks: next(4),
                    max_depth: next(7) as u32,
                    nodes: next(64),
                    naked_singles: next(7),
                    hidden_singles: next(12),
                    locked_eliminations: next(9),
                    subset_eliminations: next(3),
                    fish_eliminations: next(2),
                    wing_eliminations: next(40),
                    chain_eliminations: next(5),
                },
                givens: next(7) as u8,
                // An answer that differs from the dataset's is rejected and
                // never takes the in-place path.
                matches_solution: [None, Some(true)][i as usize % 2],
                wrong: None,
                wrong_count: None,
                fault: None,
                repeats: Default::default(),
                unverified: false,
            };
            f.push_in_place(&mut a, &pieces, &o);
            f.push_by_field(&mut b, &rec, &o);
        }
        assert_eq!(a, b);
        // And both are what `push` chose.
        assert_eq!(String::from_utf8(a).unwrap().lines().count(), 20_000);
    }

    #[test]
    fn reciprocal_divisions_and_digits8_are_exact() {
        for n in 0..10_000u64 {
            assert_eq!((n * 10_486) >> 20, n / 100, "{n}");
        }
        for m in 0..100u64 {
            assert_eq!((m * 103) >> 10, m / 10, "{m}");
        }
        let check = |v: u64| {
            let (d, len) = digits8(v);
            assert_eq!(&d[..len], v.to_string().as_bytes(), "{v}");
        };
        (1..200_000).for_each(check);
        (200_000..100_000_000).step_by(997).for_each(check);
        [99_999_999, 10_000_000, 9_999_999, 1_000_000]
            .into_iter()
            .for_each(check);
    }
}
