//! Which result may be the reference of a comparison, and why a strategy
//! is marked when it may not: the rules the terminal table, summary.md,
//! report.html and the headline comparison share.

use crate::results::ResultRecord;

/// The range of per-pass ratios `r`'s pass total / the fastest's, when
/// both have two or more measured passes over the same puzzles (the spread
/// of the ratio of means over the repeats); `None` otherwise.
pub fn relative_range(results: &[ResultRecord], r: &ResultRecord) -> Option<(f64, f64)> {
    let fastest = fastest_record(results, &r.dataset)?;
    let (a, b) = (&r.pass_solve_ns, &fastest.pass_solve_ns);
    if a.len() < 2 || a.len() != b.len() || b.contains(&0) {
        return None;
    }
    let ratios = a.iter().zip(b).map(|(&x, &y)| x as f64 / y as f64);
    let (lo, hi) = ratios.fold((f64::INFINITY, 0f64), |(lo, hi), q| (lo.min(q), hi.max(q)));
    Some((lo, hi))
}

/// True when `r` left puzzles unfinished (stalled, gave up, failed) or
/// had answers rejected.
pub fn unfinished(r: &ResultRecord) -> bool {
    r.stalled + r.gave_up + r.bad() > 0
}

/// True when `r` may serve as the reference of a comparison: the judge
/// finds nothing that fails it or keeps it from being judged (rejected
/// answers, faults, unverifiable answers, a clock or a cache it does not
/// believe; nothing solved at all). A strategy that stalls or gives up by
/// design may, when no strategy finished.
pub fn trusted(r: &ResultRecord) -> bool {
    findings(r).is_empty()
}

/// The judge's findings on `r` alone that are not notes.
fn findings(r: &ResultRecord) -> Vec<crate::judge::Finding> {
    crate::judge::believable(&r.side(&r.strategy))
        .into_iter()
        .filter(|f| f.weight != crate::judge::Weight::Note)
        .collect()
}

/// Why a ranked strategy is not a fair competitor, for its comparison
/// cell: `3 rejected, 1 fault`, `unfinished`; `None` when it finished every
/// puzzle with accepted answers.
pub fn rank_mark(r: &ResultRecord) -> Option<String> {
    use crate::judge::Rule;
    let mut why = Vec::new();
    for f in findings(r) {
        let mark = match f.rule {
            Rule::Rejected => format!("{} rejected", r.wrong()),
            Rule::Faulted if r.faults() == 1 => "1 fault".to_string(),
            Rule::Faulted => format!("{} faults", r.faults()),
            Rule::Cache => "may cache answers".to_string(),
            Rule::Unverified => format!("{} unverified", r.unverified),
            Rule::ClockClaimsMore | Rule::ClockClaimsTooLittle => {
                "clock not believable".to_string()
            }
            _ => continue,
        };
        if !why.contains(&mark) {
            why.push(mark);
        }
    }
    if why.is_empty() && unfinished(r) {
        why.push("unfinished".to_string());
    }
    (!why.is_empty()).then(|| why.join(", "))
}

/// The fastest finished strategy's result on `dataset` (see
/// [`fastest_mean`]).
pub fn fastest_record<'a>(results: &'a [ResultRecord], dataset: &str) -> Option<&'a ResultRecord> {
    let best = fastest_mean(results, dataset);
    results
        .iter()
        .find(|o| o.dataset == dataset && reference_candidate(o) && o.mean_ns == best)
}

/// A result that may be the reference of a comparison at all: it has
/// accepted answers, and none rejected, and no fault.
fn reference_candidate(o: &ResultRecord) -> bool {
    o.timed() > 0 && trusted(o)
}

/// The smallest mean solve time on `dataset` among the strategies that
/// finished every puzzle (none stalled, gave up, failed or rejected);
/// when none did, among those that only stalled or gave up. A strategy
/// that skips the hard part is not "fastest", and one whose answers were
/// rejected or that failed is never the reference. Infinite when no
/// strategy qualifies.
pub fn fastest_mean(results: &[ResultRecord], dataset: &str) -> f64 {
    let on: Vec<&ResultRecord> = results
        .iter()
        .filter(|o| o.dataset == dataset && reference_candidate(o))
        .collect();
    let finished: Vec<&&ResultRecord> = on.iter().filter(|o| !unfinished(o)).collect();
    let pool: Vec<f64> = if finished.is_empty() {
        on.iter().map(|o| o.mean_ns).collect()
    } else {
        finished.iter().map(|o| o.mean_ns).collect()
    };
    pool.into_iter().fold(f64::INFINITY, f64::min)
}
