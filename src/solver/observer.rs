//! Engine events for tracing and teaching.
//!
//! The engine is generic over an [`Observer`]; every hook is guarded by the
//! associated constant [`Observer::ENABLED`], so with [`NoopObserver`] the
//! calls — and the work done only to feed them — are removed at compile time.
//! The `strip-observer` cargo feature removes the hooks from the source as
//! well: a build to hold the default one against
//! (`cargo build --release --features strip-observer`).

use super::techniques::Technique;
use crate::grid::cell_name;
use std::fmt::Write as _;

/// Why a cell received its digit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The cell had one candidate left.
    NakedSingle,
    /// The digit had one place left in a row, column or box.
    HiddenSingle,
    /// Chosen by the search without propagation, the cell having a single
    /// legal value (not a guess).
    Forced,
    /// A trial value at a branch cell with two or more candidates.
    Guess,
}

/// The locked-candidates pattern behind an elimination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Locked {
    /// A digit confined to one row or column inside a box is removed from the
    /// rest of that row or column. `unit` is the row/column unit index (0..18).
    Pointing { boxx: u8, unit: u8 },
    /// A digit confined to one box inside a row or column is removed from the
    /// rest of that box.
    Claiming { unit: u8, boxx: u8 },
}

/// A dead end found by the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Contradiction {
    /// An empty cell has no candidate left.
    NoCandidates { cell: u8 },
    /// A digit has no place left in a unit (0..9 rows, 9..18 columns, 18..27 boxes).
    NoPlace { unit: u8, digit: u8 },
}

/// Receives engine events. Every method has an empty default body.
pub trait Observer {
    /// When false the engine skips every call (and the work to prepare it).
    const ENABLED: bool = true;

    /// A digit placed by propagation or forced by the search.
    fn placed(&mut self, _cell: u8, _digit: u8, _reason: Reason, _depth: u32) {}
    /// A trial value at a branch cell; `depth` counts open branch frames
    /// including this one; `candidates` is the cell's 9-bit candidate mask.
    fn guess(&mut self, _cell: u8, _digit: u8, _candidates: u16, _depth: u32) {}
    /// Candidates removed from a cell by locked candidates.
    fn eliminated(&mut self, _cell: u8, _digits: u16, _why: Locked) {}
    /// Candidates removed from a cell by a technique of the levels above
    /// locked candidates (subsets, fish, wings, chains).
    fn inferred(&mut self, _cell: u8, _digits: u16, _technique: Technique) {}
    /// A dead end.
    fn contradiction(&mut self, _what: Contradiction, _depth: u32) {}
    /// The engine undoes a guess; `depth` is the frame it returns to.
    fn backtrack(&mut self, _depth: u32) {}
    /// A complete grid was found; `count` solutions so far.
    fn solution(&mut self, _count: u32) {}
}

/// The observer of the benchmark path: receives nothing and costs nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoopObserver;

impl Observer for NoopObserver {
    const ENABLED: bool = false;
}

/// Emits an observer event when observers are compiled in and enabled.
macro_rules! observe {
    ($O:ty, $call:expr) => {
        #[cfg(not(feature = "strip-observer"))]
        {
            if <$O as $crate::solver::observer::Observer>::ENABLED {
                $call;
            }
        }
    };
}
pub(crate) use observe;

/// Writes one human-readable line per event (the `solve --trace` output).
#[derive(Debug, Default)]
pub struct TraceObserver {
    pub out: String,
    pub lines: usize,
}

impl TraceObserver {
    fn line(&mut self, depth: u32, text: std::fmt::Arguments<'_>) {
        for _ in 0..depth {
            self.out.push_str("  ");
        }
        let _ = self.out.write_fmt(text);
        self.out.push('\n');
        self.lines += 1;
    }
}

/// `{1,4,7}`-style listing of a 9-bit digit mask.
pub fn digits_of(mask: u16) -> String {
    let mut s = String::from("{");
    let mut first = true;
    for d in 1..=9u8 {
        if mask & (1 << (d - 1)) != 0 {
            if !first {
                s.push(',');
            }
            s.push((b'0' + d) as char);
            first = false;
        }
    }
    s.push('}');
    s
}

/// Name of unit `u`: rows 0..9, columns 9..18, boxes 18..27.
pub fn unit_name(u: u8) -> String {
    match u {
        0..=8 => format!("row {}", u + 1),
        9..=17 => format!("column {}", u - 8),
        _ => format!("box {}", u - 17),
    }
}

impl Observer for TraceObserver {
    fn placed(&mut self, cell: u8, digit: u8, reason: Reason, depth: u32) {
        let why = match reason {
            Reason::NakedSingle => "naked single",
            Reason::HiddenSingle => "hidden single",
            Reason::Forced => "only legal value",
            Reason::Guess => "guess",
        };
        self.line(
            depth,
            format_args!("placed {}={} by {}", cell_name(cell as usize), digit, why),
        );
    }
    fn guess(&mut self, cell: u8, digit: u8, candidates: u16, depth: u32) {
        self.line(
            depth.saturating_sub(1),
            format_args!(
                "guess {}={} at depth {} (candidates {})",
                cell_name(cell as usize),
                digit,
                depth,
                digits_of(candidates)
            ),
        );
    }
    fn eliminated(&mut self, cell: u8, digits: u16, why: Locked) {
        let text = match why {
            Locked::Pointing { boxx, unit } => format!(
                "pointing: {} in {} confined to {}",
                digits_of(digits),
                unit_name(18 + boxx),
                unit_name(unit)
            ),
            Locked::Claiming { unit, boxx } => format!(
                "claiming: {} in {} confined to {}",
                digits_of(digits),
                unit_name(unit),
                unit_name(18 + boxx)
            ),
        };
        self.line(
            0,
            format_args!(
                "removed {} from {} ({text})",
                digits_of(digits),
                cell_name(cell as usize)
            ),
        );
    }
    fn inferred(&mut self, cell: u8, digits: u16, technique: Technique) {
        self.line(
            0,
            format_args!(
                "removed {} from {} ({technique})",
                digits_of(digits),
                cell_name(cell as usize)
            ),
        );
    }
    fn contradiction(&mut self, what: Contradiction, depth: u32) {
        match what {
            Contradiction::NoCandidates { cell } => self.line(
                depth,
                format_args!(
                    "contradiction: {} has no candidate",
                    cell_name(cell as usize)
                ),
            ),
            Contradiction::NoPlace { unit, digit } => self.line(
                depth,
                format_args!("contradiction: {digit} has no place in {}", unit_name(unit)),
            ),
        }
    }
    fn backtrack(&mut self, depth: u32) {
        self.line(depth, format_args!("backtrack to depth {depth}"));
    }
    fn solution(&mut self, count: u32) {
        self.line(0, format_args!("solution #{count} found"));
    }
}
