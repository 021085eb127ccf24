//! The charts of `trend`, one file each: per dataset, each series' ratio
//! to the yardstick by revision, with its interval and its steps
//! (`ratio.rs`), and its absolute solve times by revision (`time.rs`). The
//! revisions are the x axis of both, oldest first: this module draws it.

use super::axes::Axis;
use super::frame::{palette, Frame, Marker};

mod ratio;
mod time;

pub use ratio::{ratio_svg, RatioLine};
pub use time::{time_svg, TimeLine};

/// At most this many revision labels under the x axis; the others get a
/// tick without a label.
const MAX_LABELS: usize = 14;
/// A revision label's longest length.
const LABEL_CHARS: usize = 14;

/// The x axis over `revisions` and the label of each position.
fn revision_axis(revisions: &[String]) -> (Axis, impl Fn(&f64) -> String + '_) {
    let n = revisions.len().max(1);
    let every = n.div_ceil(MAX_LABELS).max(1);
    let ticks: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let hi = (n.max(2) - 1) as f64;
    let label = move |x: &f64| {
        let i = x.round();
        if (x - i).abs() > 1e-6 || i < 0.0 {
            return String::new();
        }
        let i = i as usize;
        // The newest revision is always labelled.
        if !i.is_multiple_of(every) && i + 1 != revisions.len() {
            return String::new();
        }
        revisions.get(i).map_or_else(String::new, |r| {
            if r.chars().count() > LABEL_CHARS {
                let mut s: String = r.chars().take(LABEL_CHARS - 1).collect();
                s.push('…');
                s
            } else {
                r.clone()
            }
        })
    };
    (Axis::new(-0.3..hi + 0.3, ticks), label)
}

/// The frame of a chart by revision: `title`, a legend of the series
/// `names` in palette order from index `colour` (a series keeps its colour
/// from chart to chart), and the revisions under the x axis; the chart
/// gives its y axis.
fn revision_frame<'a>(
    title: String,
    names: impl Iterator<Item = &'a str>,
    colour: usize,
    revisions: &'a [String],
) -> Frame<'a> {
    let entries = names
        .enumerate()
        .map(|(i, n)| (n, palette(colour + i)))
        .collect();
    Frame::new(title, entries, Marker::Line)
        .x_axis("revision (oldest first)", revision_axis(revisions).1)
        .label_size(15)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_revisions_are_cut_and_many_are_thinned() {
        let revs: Vec<String> = (0..40)
            .map(|i| format!("v1.0-{i}-gabcdef1234-dirty"))
            .collect();
        let (_, label) = revision_axis(&revs);
        let shown: Vec<String> = (0..40)
            .map(|i| label(&(i as f64)))
            .filter(|l| !l.is_empty())
            .collect();
        assert!(shown.len() <= MAX_LABELS + 1, "{}", shown.len());
        assert!(shown.iter().all(|l| l.chars().count() <= LABEL_CHARS));
        assert!(!label(&39.0).is_empty(), "the newest revision is labelled");
    }
}
