//! The numeric scale and the difficulty classes.
//!
//! The scale follows the shape of Sudoku Explainer's: one number per
//! technique, from 1.0 (the last cell of a unit) upwards, a puzzle rated by
//! the hardest step its easiest-first solution path needs, and the
//! puzzles no basic technique finishes at the top (Sudoku Explainer's 11+
//! list is where its nested forcing chains start). The values of the rungs
//! are this project's own; docs/RATING.md gives them with the reasons.

use crate::solver::techniques::Technique;
use std::fmt;

/// A rating: tenths on the scale (`Value(83)` is 8.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Value(pub u16);

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.0 / 10, self.0 % 10)
    }
}

impl std::str::FromStr for Value {
    type Err = String;

    /// Reads `8.3`, `8`, `11.0` (tenths at most, 0 to 6553.5).
    fn from_str(s: &str) -> Result<Value, String> {
        let t = s.trim();
        let bad = || format!("{s:?} is not a rating (a number such as 4.2)");
        let (whole, tenth) = match t.split_once('.') {
            Some((w, f)) if f.len() == 1 => (w, f),
            Some(_) => return Err(bad()),
            None => (t, "0"),
        };
        if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let w: u32 = whole.parse().map_err(|_| bad())?;
        let f: u32 = tenth.parse().map_err(|_| bad())?;
        u16::try_from(w * 10 + f).map(Value).map_err(|_| bad())
    }
}

/// The base value of each rung, in tenths. Chains add a tenth per two
/// links beyond their shortest form ([`chain_value`]); the measures beyond
/// the ladder add a tenth per step ([`beyond_value`]).
pub fn base(t: Technique) -> u16 {
    use Technique::*;
    match t {
        FullHouse => 10,
        HiddenSingleBox => 12,
        HiddenSingleLine => 15,
        NakedSingle => 20,
        Pointing => 25,
        Claiming => 26,
        NakedPair => 30,
        XWing => 32,
        HiddenPair => 34,
        NakedTriple => 36,
        Swordfish => 38,
        HiddenTriple => 40,
        XyWing => 42,
        XyzWing => 44,
        NakedQuad => 48,
        Jellyfish => 50,
        HiddenQuad => 52,
        XChain => 56,
        XyChain => 60,
        Aic => 65,
        Trial => 75,
        NestedTrial => 90,
        Guess => 110,
    }
}

/// The value of a chain step of `links` links.
pub fn chain_value(t: Technique, links: u32) -> u16 {
    // The shortest productive form: 3 links (turbot fish), 5 for a bivalue
    // chain (three cells).
    let (shortest, cap) = match t {
        Technique::XChain => (3, 3),
        Technique::XyChain => (5, 4),
        _ => (3, 8),
    };
    base(t) + (links.saturating_sub(shortest) / 2).min(cap) as u16
}

/// The value of `steps` steps of a measure beyond the ladder (trial,
/// nested trial, guess): its base, a tenth more for each step after the
/// first, up to the next measure's base.
pub fn beyond_value(t: Technique, steps: u32) -> u16 {
    let room = match t {
        Technique::Trial => base(Technique::NestedTrial) - base(t) - 1,
        Technique::NestedTrial => base(Technique::Guess) - base(t) - 1,
        _ => 9,
    };
    base(t) + (steps.saturating_sub(1).min(room as u32)) as u16
}

/// A difficulty class: a band of the scale, named by what its puzzles
/// need. Ordered from easiest; the label is stable (dataset columns,
/// reports).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// Full houses and hidden singles (up to 1.5).
    Easy,
    /// Naked singles and locked candidates (up to 2.6).
    Medium,
    /// Subsets, fish and wings (up to 5.2).
    Hard,
    /// Chains (up to 7.4).
    Fiendish,
    /// One level of trial beyond the ladder (7.5 to 8.9).
    Diabolical,
    /// Trials nested in trials, or search (9.0 and up).
    Extreme,
}

impl Class {
    pub const ALL: [Class; 6] = [
        Class::Easy,
        Class::Medium,
        Class::Hard,
        Class::Fiendish,
        Class::Diabolical,
        Class::Extreme,
    ];

    /// The class of rating `v`.
    pub fn of(v: Value) -> Class {
        let t = |x: Technique| Value(base(x));
        if v < t(Technique::NakedSingle) {
            Class::Easy
        } else if v < t(Technique::NakedPair) {
            Class::Medium
        } else if v < t(Technique::XChain) {
            Class::Hard
        } else if v < t(Technique::Trial) {
            Class::Fiendish
        } else if v < t(Technique::NestedTrial) {
            Class::Diabolical
        } else {
            Class::Extreme
        }
    }

    /// The stable lower-case label.
    pub fn label(self) -> &'static str {
        match self {
            Class::Easy => "easy",
            Class::Medium => "medium",
            Class::Hard => "hard",
            Class::Fiendish => "fiendish",
            Class::Diabolical => "diabolical",
            Class::Extreme => "extreme",
        }
    }

    pub fn parse(label: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.label() == label)
    }

    /// The lowest rating of the class.
    pub fn floor(self) -> Value {
        let t = match self {
            Class::Easy => return Value(0),
            Class::Medium => Technique::NakedSingle,
            Class::Hard => Technique::NakedPair,
            Class::Fiendish => Technique::XChain,
            Class::Diabolical => Technique::Trial,
            Class::Extreme => Technique::NestedTrial,
        };
        Value(base(t))
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// A band of ratings, both ends included: `LOW..HIGH` (either end may be
/// left out), or a class label for the class's band.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Band {
    pub low: Value,
    pub high: Value,
}

impl Band {
    pub fn contains(&self, v: Value) -> bool {
        self.low <= v && v <= self.high
    }
}

impl fmt::Display for Band {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.low, self.high)
    }
}

impl std::str::FromStr for Band {
    type Err = String;

    /// `7.5..9.9`, `..2`, `9..`, or a class (`extreme`).
    fn from_str(s: &str) -> Result<Band, String> {
        let t = s.trim();
        if let Some(c) = Class::parse(t) {
            let next = Class::ALL.get(c as usize + 1);
            let high = next.map_or(Value(u16::MAX), |n| Value(n.floor().0 - 1));
            return Ok(Band {
                low: c.floor(),
                high,
            });
        }
        let Some((lo, hi)) = t.split_once("..") else {
            return Err(format!(
                "{s:?} is not a rating band (LOW..HIGH such as 3.0..5.2, ..2.0, 7.5.., or a class: {})",
                Class::ALL.map(Class::label).join(", ")
            ));
        };
        let end = |x: &str, default: Value| {
            if x.trim().is_empty() {
                Ok(default)
            } else {
                x.parse::<Value>()
            }
        };
        let band = Band {
            low: end(lo, Value(0))?,
            high: end(hi, Value(u16::MAX))?,
        };
        if band.low > band.high {
            return Err(format!(
                "{s:?}: the band is empty ({} is above {})",
                band.low, band.high
            ));
        }
        Ok(band)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_print_and_parse() {
        assert_eq!(Value(83).to_string(), "8.3");
        assert_eq!(Value(110).to_string(), "11.0");
        assert_eq!("8.3".parse::<Value>(), Ok(Value(83)));
        assert_eq!(" 11 ".parse::<Value>(), Ok(Value(110)));
        for bad in ["", "x", "1.23", "-1", "1.", ".5", "99999"] {
            assert!(bad.parse::<Value>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_ladder_climbs() {
        let mut last = 0;
        for t in Technique::ALL {
            assert!(base(t) > last, "{t:?}");
            last = base(t);
        }
        assert_eq!(chain_value(Technique::XChain, 3), 56);
        assert_eq!(chain_value(Technique::XChain, 99), 59);
        assert!(chain_value(Technique::XyChain, 99) < base(Technique::Aic));
        assert!(chain_value(Technique::Aic, 99) < base(Technique::Trial));
        assert!(beyond_value(Technique::Trial, 999) < base(Technique::NestedTrial));
        assert!(beyond_value(Technique::NestedTrial, 999) < base(Technique::Guess));
    }

    #[test]
    fn bands_parse() {
        let b: Band = "3.0..5.2".parse().unwrap();
        assert!(b.contains(Value(30)) && b.contains(Value(52)) && !b.contains(Value(53)));
        let b: Band = "..2".parse().unwrap();
        assert!(b.contains(Value(0)) && !b.contains(Value(21)));
        let b: Band = "9..".parse().unwrap();
        assert!(b.contains(Value(1000)) && !b.contains(Value(89)));
        let b: Band = "hard".parse().unwrap();
        assert_eq!((b.low, b.high), (Value(30), Value(55)));
        let b: Band = "extreme".parse().unwrap();
        assert!(b.contains(Value(90)) && b.contains(Value(200)));
        for bad in ["", "5", "5..3", "x..y", "1..2..3"] {
            assert!(bad.parse::<Band>().is_err(), "{bad}");
        }
    }

    #[test]
    fn classes_are_ordered_bands() {
        assert_eq!(Class::of(Value(10)), Class::Easy);
        assert_eq!(Class::of(Value(15)), Class::Easy);
        assert_eq!(Class::of(Value(20)), Class::Medium);
        assert_eq!(Class::of(Value(52)), Class::Hard);
        assert_eq!(Class::of(Value(74)), Class::Fiendish);
        assert_eq!(Class::of(Value(75)), Class::Diabolical);
        assert_eq!(Class::of(Value(120)), Class::Extreme);
        for c in Class::ALL {
            assert_eq!(Class::parse(c.label()), Some(c));
            assert_eq!(Class::of(c.floor()), c);
        }
        let mut sorted = Class::ALL;
        sorted.sort();
        assert_eq!(sorted, Class::ALL);
    }
}
