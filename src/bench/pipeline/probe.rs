//! Diagnostic builds only: what each part of finishing a batch costs.
//!
//! With the `harness-probe` feature, the environment variable
//! `BENCH_SUDOKU_PROBE_SKIP` (read by `commands`, handed over in
//! [`super::diagnostics::Diagnostics`]) names how much of the finishing work to leave
//! out, cumulatively, in the order of [`Skip`]; `scripts/harness-probe.sh`
//! runs the same dataset at each level and takes the process's CPU time
//! beyond the solves. What is skipped is then
//! missing from the results (no rows, no statistics, answers not checked),
//! so such a build is for measuring the harness, never for results. In a
//! default build `diagnostics::skip` is a constant `Skip::Nothing` and every check
//! compiles to nothing.

/// How much of the finishing work a probe build leaves out: each level
/// also leaves out everything of the levels before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Skip {
    /// The full harness.
    Nothing,
    /// No point offered to the scatter chart's sample.
    Sample,
    /// `puzzles.csv` rows formatted and placed but not written to the file.
    Write,
    /// No `puzzles.csv` rows formatted.
    Rows,
    /// Outcomes verified but not added to the statistics.
    Stats,
    /// Answers not verified (no outcomes).
    Verify,
    /// No content hash: nothing done per puzzle after solving.
    Hash,
}

impl Skip {
    const ALL: [(Skip, &'static str); 7] = [
        (Skip::Nothing, "nothing"),
        (Skip::Sample, "sample"),
        (Skip::Write, "write"),
        (Skip::Rows, "rows"),
        (Skip::Stats, "stats"),
        (Skip::Verify, "verify"),
        (Skip::Hash, "hash"),
    ];
}

impl Skip {
    /// The level of this name, or an error naming the levels there are.
    pub(super) fn named(name: &str) -> Result<Skip, String> {
        Skip::ALL
            .iter()
            .find(|(_, n)| *n == name)
            .map(|&(s, _)| s)
            .ok_or_else(|| {
                format!(
                    "BENCH_SUDOKU_PROBE_SKIP={name} is not one of: {}",
                    Skip::ALL.map(|(_, n)| n).join(", ")
                )
            })
    }
}
