//! `histograms/`: per (dataset, strategy), the HdrHistogram percentile
//! distributions (`.hgrm`, the text the HdrHistogram plotter reads) of solve
//! time (in microseconds), guesses and maximum depth, each with its
//! serialized V2 histogram (`.hdr`, values in ns / counts) for merging.
//! A strategy that does not report guesses (or depth) has no such files.

use super::{Exporter, Output, Report};
use crate::bench::metrics::{hgrm_text, v2_bytes};
use crate::solver::Counter;
use crate::support::names::unit_file_base;
use std::path::Path;

pub struct Histograms;

impl Exporter for Histograms {
    fn name(&self) -> &'static str {
        "histograms"
    }
    fn render(&self, report: &Report) -> anyhow::Result<Vec<Output>> {
        let hdir = Path::new("histograms");
        let mut files = Vec::new();
        for u in report.units {
            let base = unit_file_base(&u.dataset, &u.strategy);
            for (suffix, h, scale, present) in [
                ("", &u.time, 1000.0, true),
                (
                    ".guesses",
                    &u.guesses,
                    1.0,
                    u.counters.has(Counter::Guesses),
                ),
                (".depth", &u.depth, 1.0, u.counters.has(Counter::MaxDepth)),
            ] {
                if !present {
                    continue;
                }
                files.push(Output::new(
                    hdir.join(format!("{base}{suffix}.hgrm")),
                    hgrm_text(h, scale),
                ));
                files.push(Output::new(
                    hdir.join(format!("{base}{suffix}.hdr")),
                    v2_bytes(h),
                ));
            }
        }
        Ok(files)
    }
}
