//! CSV output of generated puzzles.

use super::GeneratedPuzzle;
use std::io::Write;

/// The header row of generated-puzzle CSV files. `puzzle` has `0` for
/// blanks (the Kaggle layout), `solution` is 81 digits, and the last three
/// columns are the effort strategy's counters.
pub const CSV_HEADER: [&str; 6] = [
    "puzzle",
    "solution",
    "clues",
    "guesses",
    "backtracks",
    "max_depth",
];

/// Writes generated puzzles as CSV rows under [`CSV_HEADER`].
pub struct CsvWriter<W: Write> {
    inner: csv::Writer<W>,
}

impl<W: Write> CsvWriter<W> {
    /// Wraps `out` and writes the header row.
    pub fn new(out: W) -> csv::Result<Self> {
        let mut inner = csv::Writer::from_writer(out);
        inner.write_record(CSV_HEADER)?;
        Ok(CsvWriter { inner })
    }

    /// Writes one puzzle.
    pub fn write(&mut self, p: &GeneratedPuzzle) -> csv::Result<()> {
        self.inner.write_record([
            p.puzzle.to_line_zeros(),
            p.solution.to_line_zeros(),
            p.clues.to_string(),
            p.guesses.to_string(),
            p.backtracks.to_string(),
            p.max_depth.to_string(),
        ])
    }

    /// Flushes and returns the underlying writer.
    pub fn finish(self) -> anyhow::Result<W> {
        self.inner
            .into_inner()
            .map_err(|e| anyhow::anyhow!("cannot flush CSV output: {}", e.error()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Grid;

    #[test]
    fn rows_follow_the_header() {
        let solution = Grid::parse(
            "534678912672195348198342567859761423426853791713924856961537284287419635345286179",
        )
        .unwrap();
        let mut puzzle = solution;
        puzzle.set(0, 0);
        let p = GeneratedPuzzle {
            candidate: 0,
            puzzle,
            solution,
            clues: 80,
            guesses: 3,
            backtracks: 2,
            max_depth: 1,
        };
        let mut w = CsvWriter::new(Vec::new()).unwrap();
        w.write(&p).unwrap();
        let text = String::from_utf8(w.finish().unwrap()).unwrap();
        let mut lines = text.lines();
        assert_eq!(
            lines.next(),
            Some("puzzle,solution,clues,guesses,backtracks,max_depth")
        );
        let row = lines.next().unwrap();
        assert!(row.starts_with("034678912"), "{row}");
        assert!(row.ends_with(",80,3,2,1"), "{row}");
        assert_eq!(lines.next(), None);
    }
}
