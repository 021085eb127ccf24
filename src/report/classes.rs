//! The tables of every comparison by difficulty
//! ([`crate::results::classes`]): one row per class and strategy, shared by
//! the terminal, summary.md and report.html.

use super::terminal::fmt_ns;
use crate::results::classes::{ByClass, ClassRatio};

/// The columns of a class table.
pub const COLUMNS: [&str; 8] = [
    "dataset",
    "class",
    "strategy",
    "puzzles",
    "mean",
    "p50",
    "p99",
    "vs reference (95% CI)",
];

/// The text columns (left-aligned).
pub const TEXT: [usize; 3] = [0, 1, 2];

/// The rows of `b`, effort classes first, then rating classes (`rating
/// hard`): a class is named by its scheme when it is a rating class.
pub fn rows(b: &ByClass) -> Vec<[String; 8]> {
    b.rows
        .iter()
        .map(|r| {
            let class = match r.scheme.as_str() {
                "effort" => format!("{} guesses", r.class),
                s => format!("{s} {}", r.class),
            };
            [
                r.dataset.clone(),
                class,
                r.strategy.clone(),
                r.puzzles.to_string(),
                fmt_ns(r.mean_ns),
                fmt_ns(r.p50_ns as f64),
                fmt_ns(r.p99_ns as f64),
                r.ratio.as_ref().map_or(String::new(), ratio_text),
            ]
        })
        .collect()
}

/// `1.08× [1.02, 1.15] vs fast`, or without an interval for a class with
/// few pairs.
pub fn ratio_text(r: &ClassRatio) -> String {
    match (r.low, r.high) {
        (Some(l), Some(h)) => format!("{:.3}× [{:.3}, {:.3}] vs {}", r.geomean, l, h, r.reference),
        _ => format!(
            "{:.3}× vs {} ({} pairs: no interval)",
            r.geomean, r.reference, r.pairs
        ),
    }
}

/// What the classes are and where the effort came from, one sentence.
pub fn note(b: &ByClass) -> String {
    let sources: Vec<String> = b
        .effort_source
        .iter()
        .map(|(d, s)| format!("{d}: {s}"))
        .collect();
    format!(
        "Classes: the number of guesses the fast engine makes on the puzzle (0, 1-3, 4-15, \
         16-63, 64-255, 256+; from {}), and the rating class of a dataset's rating column. \
         Times are the kept times of the puzzles answered; the ratio is the geometric mean of \
         the per-puzzle ratios to the reference in the class, its interval Student's t over \
         blocks of 8 neighbouring puzzles (docs/USAGE.md, \"By difficulty\").",
        sources.join("; ")
    )
}
