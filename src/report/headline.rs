//! The headline comparison of each strategy: one ratio per strategy, in one
//! direction everywhere (the strategy's time / the reference's, so that
//! above 1 is slower), said in words next to the number.
//!
//! In an interleaved run the strategies are paired per puzzle, and the
//! headline is the paired geometric mean of the per-puzzle ratios with the
//! baseline, with its 95 % interval ([`crate::bench::paired`]). Otherwise (a
//! sequential run, or one strategy per dataset) it is the ratio of the mean
//! times to the fastest trusted strategy, and says that it is unpaired.

use super::rank::{fastest_mean, rank_mark, relative_range, trusted};
use crate::bench::paired::{ratio, Paired};
use crate::results::ResultRecord;

/// What the headline ratio of a run is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Basis {
    /// Geometric mean of per-puzzle ratios with the baseline (interleaved).
    Paired,
    /// Ratio of mean times to the fastest strategy (sequential).
    MeanRatio,
}

impl Basis {
    /// The run's basis: paired when any strategy has a paired comparison.
    pub fn of(results: &[ResultRecord]) -> Basis {
        if results.iter().any(|r| r.paired.is_some()) {
            Basis::Paired
        } else {
            Basis::MeanRatio
        }
    }

    /// How the basis is named in summary.csv's `comparison` column.
    pub fn as_str(self) -> &'static str {
        match self {
            Basis::Paired => "paired geomean",
            Basis::MeanRatio => "ratio of means (unpaired)",
        }
    }
}

/// The baseline of a paired run (every paired comparison names the same).
pub fn baseline(results: &[ResultRecord]) -> Option<&str> {
    results
        .iter()
        .find_map(|r| r.paired.as_ref().map(|p| p.baseline.as_str()))
}

/// The header of the headline column.
pub fn column(results: &[ResultRecord]) -> String {
    match (Basis::of(results), baseline(results)) {
        (Basis::Paired, Some(b)) => format!("vs {b} (paired geomean, 95% CI)"),
        _ => "vs fastest (ratio of means, unpaired)".to_string(),
    }
}

/// One sentence saying what the headline column holds, or `None` when no
/// dataset has two strategies (nothing is compared).
pub fn note(results: &[ResultRecord]) -> Option<String> {
    let compared = results.iter().any(|r| {
        results
            .iter()
            .any(|o| o.dataset == r.dataset && o.strategy != r.strategy)
    });
    if !compared {
        return None;
    }
    Some(match (Basis::of(results), baseline(results)) {
        (Basis::Paired, Some(b)) => format!(
            "vs {b}: each strategy's time / {b}'s on the same puzzle, the geometric mean over the puzzles \
             with its 95% interval (above 1 = slower; an interval that holds 1 is no clear difference); \
             the ratio of mean times, which weighs the slowest puzzles most, is in the paired table as \
             \"ratio of means\""
        ),
        _ => "vs fastest: mean time / the fastest finished strategy's mean time (above 1 = slower), \
              unpaired: the strategies ran one after another, so whatever the machine did in between \
              enters the ratio, and it has no interval; run them interleaved (without --sequential) \
              for a paired ratio with an interval"
            .to_string(),
    })
}

/// Whether the judge believes `r`'s paired ratio to `base`: each side on
/// its own, and `r` against `base` (giving up, clocks) at the gate's
/// default threshold.
fn judged_against(base: &ResultRecord, r: &ResultRecord) -> bool {
    let (b, s) = (base.side(&base.strategy), r.side(&r.strategy));
    trusted(r)
        && crate::judge::against(&b, &s, crate::judge::DEFAULT_THRESHOLD_PCT)
            .iter()
            .all(|f| f.weight == crate::judge::Weight::Note)
}

/// What the headline says of a strategy the judge does not believe
/// (rejected answers, faults, unverifiable answers, a clock or a cache it
/// does not believe): its ratio is shown, and no claim made of it.
pub const NOT_JUDGED: &str = "not judged";

/// The compact table's one line on its comparison column, or `None` when
/// no dataset has two strategies.
pub fn short_note(results: &[ResultRecord]) -> Option<String> {
    note(results)?;
    Some(match (Basis::of(results), baseline(results)) {
        (Basis::Paired, Some(b)) => format!(
            "vs {b}: geometric mean of per-puzzle time / {b}'s, 95% interval (above 1 = slower); \
             --details: all columns"
        ),
        _ => "vs fastest: mean time / the fastest strategy's, unpaired (no interval); --details: all \
              columns"
            .to_string(),
    })
}

/// A ratio in words: `2.33× faster`, `1.60× slower`, `same time`.
pub fn words(r: f64) -> String {
    if !r.is_finite() || r <= 0.0 {
        "-".to_string()
    } else if (r - 1.0).abs() < 0.005 {
        "same time".to_string()
    } else if r > 1.0 {
        format!("{r:.2}× slower")
    } else {
        format!("{:.2}× faster", 1.0 / r)
    }
}

/// The words of a paired ratio: `no clear difference` when its interval
/// holds 1.
pub fn paired_words(p: &Paired) -> String {
    if !p.too_few_chunks() && p.ci_low <= 1.0 && p.ci_high >= 1.0 {
        "no clear difference".to_string()
    } else {
        words(p.geomean_ratio)
    }
}

/// A strategy's headline comparison, as the machine-readable columns of
/// summary.csv hold it.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// The reference: the baseline (paired) or the fastest strategy.
    pub vs: String,
    pub basis: Basis,
    /// Time / the reference's time.
    pub ratio: f64,
    /// The 95 % interval of a paired ratio (none with too few chunks).
    pub ci: Option<(f64, f64)>,
    pub words: String,
}

/// The record of `strategy` on `dataset`.
fn record<'a>(
    results: &'a [ResultRecord],
    dataset: &str,
    strategy: &str,
) -> Option<&'a ResultRecord> {
    results
        .iter()
        .find(|o| o.dataset == dataset && o.strategy == strategy)
}

/// The headline comparison of `r`, when it has one: `None` for the
/// reference itself, a strategy without a time, and a comparison with a
/// reference that cannot be trusted (rejected answers, faults).
pub fn comparison(results: &[ResultRecord], r: &ResultRecord) -> Option<Comparison> {
    if r.timed() == 0 {
        return None;
    }
    if let Some(p) = &r.paired {
        let base = record(results, &r.dataset, &p.baseline)?;
        if p.pairs == 0 || !trusted(base) {
            return None;
        }
        return Some(Comparison {
            vs: p.baseline.clone(),
            basis: Basis::Paired,
            ratio: p.geomean_ratio,
            ci: (!p.too_few_chunks()).then_some((p.ci_low, p.ci_high)),
            words: if judged_against(base, r) {
                paired_words(p)
            } else {
                NOT_JUDGED.to_string()
            },
        });
    }
    if Basis::of(results) == Basis::Paired {
        return None;
    }
    let fastest = fastest_mean(results, &r.dataset);
    let best = super::rank::fastest_record(results, &r.dataset)?;
    if best.strategy == r.strategy || !fastest.is_finite() || fastest <= 0.0 {
        return None;
    }
    let q = r.mean_ns / fastest;
    Some(Comparison {
        vs: best.strategy.clone(),
        basis: Basis::MeanRatio,
        ratio: q,
        ci: None,
        // The same judge as a paired comparison's: each side believed,
        // and each against the other (a fastest that gave up on more
        // puzzles is not faster; nor is this one).
        words: if trusted(r) && judged_against(best, r) && judged_against(r, best) {
            words(q)
        } else {
            NOT_JUDGED.to_string()
        },
    })
}

/// The headline cell of `r` in the comparison table.
pub fn cell(results: &[ResultRecord], r: &ResultRecord) -> String {
    let mark = rank_mark(r);
    let marked = |s: String| match &mark {
        Some(m) => format!("{s} ({m})"),
        None => s,
    };
    if r.puzzles == 0 {
        return "-".to_string();
    }
    if r.timed() == 0 {
        return marked("-".to_string());
    }
    match Basis::of(results) {
        Basis::Paired => paired_cell(results, r, &marked),
        Basis::MeanRatio => mean_cell(results, r, &marked),
    }
}

/// The cell of a paired run: `baseline`, or `0.430× [0.384, 0.479]: 2.33×
/// faster`.
fn paired_cell(
    results: &[ResultRecord],
    r: &ResultRecord,
    marked: &dyn Fn(String) -> String,
) -> String {
    let Some(p) = &r.paired else {
        let base = baseline(results).is_some_and(|b| b == r.strategy);
        return marked(if base { "baseline" } else { "-" }.to_string());
    };
    let untrusted = record(results, &r.dataset, &p.baseline)
        .filter(|b| !trusted(b))
        .and_then(rank_mark);
    if let Some(why) = untrusted {
        return marked(format!(
            "- (baseline {} not trusted: {why}; choose another with --baseline)",
            p.baseline
        ));
    }
    if p.pairs == 0 {
        return marked("- (no pairs)".to_string());
    }
    // A strategy the judge does not believe gets its ratio, never a claim.
    let believed = record(results, &r.dataset, &p.baseline).is_some_and(|b| judged_against(b, r));
    if !believed {
        return marked(format!("{}: {NOT_JUDGED}", p.ratio_text()));
    }
    marked(format!("{}: {}", p.ratio_text(), paired_words(p)))
}

/// The cell of an unpaired run: `1.00 (fastest)`, or `22.90× slower`
/// with the range of the per-pass ratios when the run has repeats.
fn mean_cell(
    results: &[ResultRecord],
    r: &ResultRecord,
    marked: &dyn Fn(String) -> String,
) -> String {
    let fastest = fastest_mean(results, &r.dataset);
    if !fastest.is_finite() || fastest == 0.0 {
        return marked("-".to_string());
    }
    if rank_mark(r).is_none() && r.mean_ns == fastest {
        return "1.00 (fastest)".to_string();
    }
    let range = relative_range(results, r)
        .filter(|(lo, hi)| hi > lo)
        .map_or(String::new(), |(lo, hi)| {
            format!(" (per pass {lo:.2}–{hi:.2})")
        });
    let said = if trusted(r) {
        words(r.mean_ns / fastest)
    } else {
        format!("{:.2}×: {NOT_JUDGED}", r.mean_ns / fastest)
    };
    marked(format!("{said}{range}"))
}

/// The ratio of `r`'s mean time to its baseline's mean time (over every
/// timed puzzle of each), for the paired table: `0.014× (71.61× faster)`.
pub fn mean_ratio_to_baseline(results: &[ResultRecord], r: &ResultRecord) -> Option<f64> {
    let p = r.paired.as_ref()?;
    let base = record(results, &r.dataset, &p.baseline)?;
    (r.timed() > 0 && base.timed() > 0 && base.mean_ns > 0.0).then(|| r.mean_ns / base.mean_ns)
}

/// The paired table's ratio-of-means cell of `r`: the ratio and its words,
/// or `not judged` instead of the words for a strategy the judge does not
/// believe against its baseline.
pub fn mean_ratio_cell(results: &[ResultRecord], r: &ResultRecord) -> String {
    let q = mean_ratio_to_baseline(results, r);
    let believed = r
        .paired
        .as_ref()
        .and_then(|p| record(results, &r.dataset, &p.baseline))
        .is_some_and(|b| judged_against(b, r));
    match q {
        Some(q) if !believed => format!("{}× ({NOT_JUDGED})", ratio(q)),
        _ => mean_ratio_text(q),
    }
}

/// [`mean_ratio_to_baseline`] as a cell: the ratio and its words.
pub fn mean_ratio_text(q: Option<f64>) -> String {
    match q {
        Some(q) => format!("{}× ({})", ratio(q), words(q)),
        None => "-".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::Summary;

    /// The golden fixture: `hidden` paired with `fast` (interleaved).
    fn fixture() -> Summary {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/results/run/summary.json"
        ))
        .unwrap();
        serde_json::from_str(&text).unwrap()
    }

    #[test]
    fn a_paired_run_heads_with_the_paired_ratio_a_sequential_one_says_unpaired() {
        let mut s = fixture();
        let cells = |rs: &[ResultRecord]| rs.iter().map(|r| cell(rs, r)).collect::<Vec<_>>();
        assert_eq!(column(&s.results), "vs fast (paired geomean, 95% CI)");
        assert_eq!(
            cells(&s.results),
            ["baseline", "3.109× [no interval: 1 chunk]: 3.11× slower"]
        );
        let c = comparison(&s.results, &s.results[1]).unwrap();
        assert_eq!(
            (c.basis, c.vs.as_str(), c.ci),
            (Basis::Paired, "fast", None)
        );
        // With an interval that holds 1: no clear difference.
        let p = s.results[1].paired.as_mut().unwrap();
        (p.blocks, p.ci_low, p.ci_high) = ((40, 1), 0.98, 1.02);
        p.geomean_ratio = 1.004;
        assert_eq!(
            cell(&s.results, &s.results[1]),
            "1.004× [0.980, 1.020]: no clear difference"
        );
        // The same results unpaired (a sequential run).
        s.results[1].paired = None;
        assert_eq!(column(&s.results), "vs fastest (ratio of means, unpaired)");
        assert_eq!(cells(&s.results), ["1.00 (fastest)", "3.10× slower"]);
        assert!(note(&s.results).unwrap().contains("unpaired"));
    }

    #[test]
    fn an_untrusted_baseline_is_no_reference() {
        let mut s = fixture();
        s.results[0].rejected = 3;
        s.results[0].mismatches = 3;
        assert!(comparison(&s.results, &s.results[1]).is_none());
        let c = cell(&s.results, &s.results[1]);
        assert!(c.contains("baseline fast not trusted: 3 rejected"), "{c}");
    }

    #[test]
    fn noisy_repeats_in_a_paired_run_do_not_ask_for_a_paired_run() {
        let mut s = fixture();
        for r in &mut s.results {
            r.pass_solve_ns = vec![100, 150];
            r.repeat_spread_pct = 50.0;
        }
        let said = |rs: &[ResultRecord]| super::super::terminal::warnings(&s.meta, rs).join("\n");
        let paired = said(&s.results);
        assert!(paired.contains("the repeats disagree"), "{paired}");
        assert!(!paired.contains("paired run"), "{paired}");
        let mut unpaired = s.results.clone();
        unpaired[1].paired = None;
        assert!(said(&unpaired).contains("interleaved"));
    }

    #[test]
    fn ratios_read_in_one_direction() {
        assert_eq!(words(1.6), "1.60× slower");
        assert_eq!(words(0.43), "2.33× faster");
        assert_eq!(words(1.002), "same time");
        assert_eq!(words(0.0), "-");
    }
}
