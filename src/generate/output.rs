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

/// The columns added after [`CSV_HEADER`] when puzzles are selected by
/// rating: the rating (a dataset's rating column), its class and the
/// hardest technique.
pub const RATING_HEADER: [&str; 3] = ["rating", "class", "hardest"];

/// Writes generated puzzles as CSV rows under [`CSV_HEADER`] (and
/// [`RATING_HEADER`]).
pub struct CsvWriter<W: Write> {
    inner: csv::Writer<W>,
    rated: bool,
}

impl<W: Write> CsvWriter<W> {
    /// Wraps `out` and writes the header row.
    pub fn new(out: W) -> csv::Result<Self> {
        Self::with_ratings(out, false)
    }

    /// Wraps `out` and writes the header row, with the rating columns when
    /// `rated`.
    pub fn with_ratings(out: W, rated: bool) -> csv::Result<Self> {
        let mut inner = csv::Writer::from_writer(out);
        let mut header = CSV_HEADER.to_vec();
        if rated {
            header.extend(RATING_HEADER);
        }
        inner.write_record(header)?;
        Ok(CsvWriter { inner, rated })
    }

    /// Writes one puzzle.
    pub fn write(&mut self, p: &GeneratedPuzzle) -> csv::Result<()> {
        let mut row = vec![
            p.puzzle.to_line_zeros(),
            p.solution.to_line_zeros(),
            p.clues.to_string(),
            p.guesses.to_string(),
            p.backtracks.to_string(),
            p.max_depth.to_string(),
        ];
        if self.rated {
            let r = p.rating;
            row.push(r.map_or(String::new(), |r| r.value.to_string()));
            row.push(r.map_or(String::new(), |r| r.class.label().to_string()));
            row.push(r.map_or(String::new(), |r| r.hardest.name().to_string()));
        }
        self.inner.write_record(row)
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
            rating: None,
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
