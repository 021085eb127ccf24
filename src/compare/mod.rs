//! Comparing two results directories: per (dataset, strategy), exact
//! search-effort counter changes and a bootstrap verdict on solve time.
//! `bench-sudoku compare` prints it; its exit status gates CI.

pub mod gate;

pub mod sequential;
pub mod stats;

use crate::judge::{self, Finding, Findings, Rule, Weight};
use crate::report::terminal::fmt_ns;
use crate::results::dir::{PuzzleData, ResultsDir, Samples};
use crate::results::ResultRecord;
use sequential::Decision;
use stats::{Interval, Metric};
use std::collections::HashMap;
use std::fmt::Write as _;

/// What changed for one (dataset, strategy).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The judge failed it whatever its time: rejected answers, faults,
    /// unverifiable answers, a clock that claims more than the harness
    /// measured, giving up on more puzzles than the baseline.
    Failed,
    Improved,
    Regressed,
    /// The whole interval within ±threshold (and the passes' totals do not
    /// say otherwise): equivalence shown.
    Unchanged,
    /// The data cannot tell: the interval straddles a threshold, or it and
    /// the passes' totals point different ways.
    Undecided,
    /// Only in the current run.
    New,
    /// Only in the baseline.
    Missing,
    /// Nothing sound to judge the time on (too few puzzles, a side that
    /// solved nothing, different clocks): the row says why.
    NotJudged,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Failed => "failed",
            Verdict::Improved => "improved",
            Verdict::Regressed => "regressed",
            Verdict::Unchanged => "unchanged",
            Verdict::Undecided => "undecided",
            Verdict::New => "new",
            Verdict::Missing => "missing",
            Verdict::NotJudged => "not judged",
        }
    }
}

/// An exact change of a deterministic counter (baseline → current);
/// `None` where a run's strategy does not report the counter.
#[derive(Clone, Debug, PartialEq)]
pub struct CounterChange {
    pub name: &'static str,
    pub base: Option<u64>,
    pub current: Option<u64>,
}

/// How the time verdict was reached.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimeEvidence {
    /// Bootstrap over the per-puzzle samples of puzzles.csv.
    Bootstrap(Interval),
    /// Summary values only (a run without puzzles.csv): shown, never
    /// judged (no interval).
    Summary { base: f64, current: f64 },
}

/// One line of the comparison.
#[derive(Clone, Debug)]
pub struct Row {
    pub dataset: String,
    pub strategy: String,
    pub verdict: Verdict,
    /// `None` for new / missing units.
    pub time: Option<TimeEvidence>,
    /// With two or more measured passes on both sides: the smallest and
    /// largest ratio of a current pass's total to a baseline pass's total.
    pub repeats: Option<(f64, f64)>,
    pub counters: Vec<CounterChange>,
    /// The judge's findings: why the row failed or is not judged, and notes.
    pub findings: Findings,
}

impl Row {
    /// The row of a unit only one run holds (new or missing).
    fn alone(r: &ResultRecord, verdict: Verdict) -> Row {
        Row {
            dataset: r.dataset.clone(),
            strategy: r.strategy.clone(),
            verdict,
            time: None,
            repeats: None,
            counters: Vec::new(),
            findings: Findings::default(),
        }
    }

    /// current / baseline of the compared statistic.
    pub fn ratio(&self) -> Option<f64> {
        match self.time? {
            TimeEvidence::Bootstrap(i) => Some(i.ratio),
            TimeEvidence::Summary { base, current } => Some(current / base.max(f64::MIN_POSITIVE)),
        }
    }
}

/// Settings of a comparison.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Percent.
    pub threshold: f64,
    pub metric: Metric,
    pub seed: u64,
    /// Resample puzzles in pairs when both runs hold the same puzzles
    /// (tighter; assumes run-level noise is small).
    pub paired: bool,
    /// Compare runs that stopped early (else refused).
    pub allow_incomplete: bool,
    /// Compare although units of the baseline are missing now (else
    /// refused).
    pub allow_missing: bool,
    /// An undecided unit passes (exit 0) instead of making the comparison
    /// exit [`gate::EXIT_UNDECIDED`].
    pub undecided_passes: bool,
}

/// The whole comparison.
#[derive(Clone, Debug)]
pub struct Comparison {
    pub settings: Settings,
    pub rows: Vec<Row>,
    /// Facts the reader must know (fallbacks, different inputs).
    pub notes: Vec<String>,
}

/// The counters compared exactly (`None`: not reported). `faults` counts
/// the puzzles an external solver failed on (crashed, timeout, …).
fn counters(r: &ResultRecord) -> [(&'static str, Option<u64>); 5] {
    [
        ("puzzles", Some(r.puzzles)),
        ("faults", Some(r.faults())),
        ("guesses", r.guesses_total),
        ("backtracks", r.backtracks_total),
        ("max_depth", r.max_depth_max),
    ]
}

/// Compares two loaded results directories.
pub fn compare(
    base: &ResultsDir,
    current: &ResultsDir,
    settings: Settings,
) -> anyhow::Result<Comparison> {
    let bd = base.puzzle_data()?;
    let cd = current.puzzle_data()?;
    let reasons = cannot_judge(base, current, bd.as_ref(), cd.as_ref(), &settings);
    if !reasons.is_empty() {
        anyhow::bail!(
            "cannot compare {} with {}:\n  - {}",
            base.path.display(),
            current.path.display(),
            reasons.join("\n  - ")
        );
    }
    let mut notes = Vec::new();
    for (d, s) in [(base, &bd), (current, &cd)] {
        if s.is_none() {
            notes.push(format!(
                "{} has no puzzles.csv (run with --no-puzzle-csv): times compared from summary values, without an interval",
                d.path.display()
            ));
        }
        if !d.meta.complete {
            notes.push(format!(
                "{} is an incomplete run (compared with --allow-incomplete)",
                d.path.display()
            ));
        }
    }
    notes.extend(setup_differences(base, current)?);
    let key = |r: &ResultRecord| (r.dataset.clone(), r.strategy.clone());
    let base_map: HashMap<(String, String), &ResultRecord> =
        base.results.iter().map(|r| (key(r), r)).collect();
    let cur_keys: Vec<(String, String)> = current.results.iter().map(key).collect();
    let mut rows = Vec::new();
    for (i, c) in current.results.iter().enumerate() {
        let k = &cur_keys[i];
        let Some(b) = base_map.get(k) else {
            rows.push(Row::alone(c, Verdict::New));
            continue;
        };
        rows.push(judge_unit(
            base,
            current,
            b,
            c,
            (bd.as_ref(), cd.as_ref()),
            &settings,
        ));
    }
    let cur_set: std::collections::HashSet<&(String, String)> = cur_keys.iter().collect();
    for b in &base.results {
        if !cur_set.contains(&key(b)) {
            rows.push(Row::alone(b, Verdict::Missing));
        }
    }
    if rows.iter().any(|r| r.verdict == Verdict::Undecided) {
        notes.push(undecided_note(settings.threshold));
    }
    Ok(Comparison {
        settings,
        rows,
        notes,
    })
}

/// What to do about an undecided unit.
fn undecided_note(threshold: f64) -> String {
    format!(
        "undecided: the data cannot tell a change of {threshold}% from none; more puzzles, more \
         passes (run --repeat), --paired (when both runs hold the same puzzles) or a wider \
         --threshold narrow the interval, and run --gate BASE:CANDIDATE pairs both sides in one \
         process"
    )
}

/// One unit's row: the judge's findings on the two runs' records (one
/// experiment? each side believable? the current run against the
/// baseline?), the exact counter changes, and the time's verdict when
/// nothing failed or kept it from being judged.
/// The experiment of `r`'s unit in `d`, without its yardstick: `compare`
/// holds absolute times against each other.
fn experiment_of(d: &ResultsDir, r: &ResultRecord) -> crate::judge::Experiment {
    d.meta
        .experiment_of(&r.dataset, &r.strategy)
        .without_yardstick()
}

fn judge_unit(
    base: &ResultsDir,
    current: &ResultsDir,
    b: &ResultRecord,
    c: &ResultRecord,
    data: (Option<&PuzzleData>, Option<&PuzzleData>),
    settings: &Settings,
) -> Row {
    let k = (c.dataset.clone(), c.strategy.clone());
    let mut findings = Findings::default();
    // Absolute times are compared: the yardstick does not matter.
    let exp = |d: &ResultsDir| experiment_of(d, c);
    let names = ["the baseline", "the current run"];
    let mut other = judge::comparable(&exp(base), &exp(current), names);
    other.extend(judge::puzzles_recorded(&exp(base), &exp(current), names));
    let (sb, sc) = (b.side("the baseline"), c.side("the current run"));
    findings.extend(judge::believable(&sb));
    findings.extend(judge::believable(&sc));
    // Held against each other only when they are one experiment.
    if other.is_empty() {
        findings.extend(judge::against(&sb, &sc, settings.threshold));
    }
    let one = other.is_empty();
    findings.extend(other);
    let (bs, cs) = match data {
        (Some(x), Some(y)) => {
            if one {
                findings.extend(per_puzzle(x, y, &k));
                findings.extend(same_rows(x, y, &k));
            }
            answered_by_both(x, y, &k)
        }
        _ => (None, None),
    };
    let (bs, cs) = (bs.as_ref(), cs.as_ref());
    let time = match (bs, cs) {
        (Some(x), Some(y)) => Some(TimeEvidence::Bootstrap(bootstrap(x, y, settings))),
        _ if data.0.is_some() && data.1.is_some() => {
            findings.push(Finding::unjudged(
                Rule::NoInterval,
                "no puzzle has a time in both runs (each was given up on, stalled on, failed \
                 or rejected in one of them): nothing to compare",
            ));
            None
        }
        _ => {
            findings.push(Finding::unjudged(
                Rule::NoPerPuzzleData,
                "a run has no per-puzzle times (puzzles.csv; run without --no-puzzle-csv): \
                 summary values alone give no interval, and a verdict without one is a guess",
            ));
            Some(TimeEvidence::Summary {
                base: settings.metric.of_summary(b),
                current: settings.metric.of_summary(c),
            })
        }
    };
    findings.extend(too_few(b, c, (bs, cs), settings.metric));
    let repeats = repeat_ratios(b, c);
    let verdict = verdict_of(&mut findings, time.as_ref(), repeats, settings.threshold);
    Row {
        dataset: c.dataset.clone(),
        strategy: c.strategy.clone(),
        verdict,
        time,
        repeats,
        counters: counter_changes(b, c),
        findings,
    }
}

/// Why a unit is not judged for too few timed puzzles in either run
/// (`samples`: each run's puzzles answered by both, when read).
fn too_few(
    b: &ResultRecord,
    c: &ResultRecord,
    samples: (Option<&Samples>, Option<&Samples>),
    metric: Metric,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for (run, r, s) in [
        ("the baseline", b, samples.0),
        ("the current run", c, samples.1),
    ] {
        let timed = s.map_or(r.timed(), |s| s.len() as u64);
        let least = metric.min_puzzles();
        if timed < least {
            out.push(Finding::unjudged(
                Rule::NoInterval,
                format!(
                    "{run} timed {timed} puzzle{}: too few to judge its {} (a verdict needs at \
                     least {least} timed puzzles in each run for its interval to hold the true \
                     ratio about 90% of the time, docs/MEASUREMENT.md §6)",
                    if timed == 1 { "" } else { "s" },
                    metric.as_str(),
                ),
            ));
        }
    }
    out
}

/// The bootstrap interval of the current / baseline statistic: paired when
/// asked for and both runs hold the same puzzles.
fn bootstrap(sb: &Samples, sc: &Samples, settings: &Settings) -> Interval {
    let paired =
        settings.paired && sb.len() == sc.len() && sb.iter().zip(sc).all(|(x, y)| x.0 == y.0);
    let tb: Vec<u64> = sb.iter().map(|x| x.1).collect();
    let tc: Vec<u64> = sc.iter().map(|x| x.1).collect();
    stats::bootstrap_ratio(&tb, &tc, paired, settings.metric, settings.seed)
}

/// The verdict: failed or not judged by the findings; else the gate's
/// decision on the interval ([`Decision::of`]: regressed or improved when
/// the whole interval lies beyond the threshold, unchanged when it lies
/// wholly within, undecided otherwise), held against the passes' totals
/// when both runs measured several: a run-level change (the machine busier
/// during one run) moves all of a run's passes together, so a regression
/// or improvement needs every pair of passes beyond the threshold too, and
/// no equivalence is shown while every pair lies beyond it. Where the two
/// disagree the unit is undecided, and a note says why.
fn verdict_of(
    findings: &mut Findings,
    time: Option<&TimeEvidence>,
    repeats: Option<(f64, f64)>,
    threshold: f64,
) -> Verdict {
    match (findings.worst(), time) {
        (Some(Weight::Fail), _) => return Verdict::Failed,
        (Some(Weight::Unjudged), _) | (_, None) => return Verdict::NotJudged,
        _ => {}
    }
    let Some(TimeEvidence::Bootstrap(i)) = time else {
        return Verdict::NotJudged;
    };
    let by_interval = Decision::of(i.lo, i.hi, threshold);
    let Some((lo, hi)) = repeats else {
        return by_interval.into();
    };
    let t = threshold / 100.0;
    let confirmed = match by_interval {
        Decision::Regressed => lo > 1.0 + t,
        Decision::Improved => hi < 1.0 - t,
        Decision::Unchanged => lo <= 1.0 + t && hi >= 1.0 - t,
        Decision::Undecided => true,
    };
    if confirmed {
        return by_interval.into();
    }
    findings.push(Finding::note(
        Rule::RepeatsDisagree,
        format!(
            "the interval of the per-puzzle times says {} ({} [{}, {}]) but the ratios of the \
             passes' totals span [{}, {}]: a change of the whole run (the machine busier during \
             one of them) cannot be told from a change of the solver, so the time is undecided; \
             measure again, or pair the two in one process with run --gate BASE:CANDIDATE",
            by_interval.as_str(),
            pct(i.ratio),
            pct(i.lo),
            pct(i.hi),
            pct(lo),
            pct(hi)
        ),
    ));
    Verdict::Undecided
}

impl From<Decision> for Verdict {
    fn from(d: Decision) -> Verdict {
        match d {
            Decision::Regressed => Verdict::Regressed,
            Decision::Improved => Verdict::Improved,
            Decision::Unchanged => Verdict::Unchanged,
            Decision::Undecided => Verdict::Undecided,
        }
    }
}

/// The exact counters that changed.
fn counter_changes(b: &ResultRecord, c: &ResultRecord) -> Vec<CounterChange> {
    counters(b)
        .into_iter()
        .zip(counters(c))
        .filter(|(x, y)| x.1 != y.1)
        .map(|(x, y)| CounterChange {
            name: x.0,
            base: x.1,
            current: y.1,
        })
        .collect()
}

/// Why two results directories cannot be judged against each other (none:
/// they can). A verdict on them would look like one and mean nothing:
/// - a run that stopped early (unless allowed);
/// - a (dataset, strategy) of the baseline missing now (unless allowed);
/// - a `puzzles.csv` whose rows disagree with its own summary;
/// - nothing in common, or a unit whose two runs share no puzzle.
fn cannot_judge(
    base: &ResultsDir,
    current: &ResultsDir,
    bd: Option<&PuzzleData>,
    cd: Option<&PuzzleData>,
    settings: &Settings,
) -> Vec<String> {
    let mut why = Vec::new();
    for d in [base, current] {
        let incomplete = !d.meta.complete || d.results.iter().any(|r| !r.complete);
        if incomplete && !settings.allow_incomplete {
            why.push(format!(
                "{} is an incomplete run{} (--allow-incomplete to compare it anyway)",
                d.path.display(),
                d.meta
                    .stopped
                    .as_deref()
                    .map_or(String::new(), |s| format!(" ({s})"))
            ));
        }
    }
    let key = |r: &ResultRecord| (r.dataset.clone(), r.strategy.clone());
    let cur: HashMap<(String, String), &ResultRecord> =
        current.results.iter().map(|r| (key(r), r)).collect();
    let missing: Vec<String> = base
        .results
        .iter()
        .filter(|b| !cur.contains_key(&key(b)))
        .map(|b| format!("{}/{}", b.dataset, b.strategy))
        .collect();
    if !missing.is_empty() && !settings.allow_missing {
        why.push(format!(
            "{} of the baseline's {} units are missing from {}: {} (--allow-missing to compare the rest)",
            missing.len(),
            base.results.len(),
            current.path.display(),
            missing.join(", ")
        ));
    }
    why.extend(same_run(base, current));
    for (d, data) in [(base, bd), (current, cd)] {
        if let Some(data) = data {
            why.extend(data.refusals(d));
        }
    }
    let common: Vec<&ResultRecord> = base
        .results
        .iter()
        .filter(|b| cur.contains_key(&key(b)))
        .collect();
    if common.is_empty() {
        why.push("the two runs have no (dataset, strategy) in common".to_string());
    }
    if let (Some(bd), Some(cd)) = (bd, cd) {
        for b in common {
            let k = key(b);
            let (Some(sb), Some(sc)) = (bd.samples.get(&k), cd.samples.get(&k)) else {
                continue;
            };
            let theirs: std::collections::HashSet<u64> = sc.iter().map(|x| x.0).collect();
            if !sb.is_empty() && !sc.is_empty() && !sb.iter().any(|x| theirs.contains(&x.0)) {
                why.push(format!(
                    "{}/{}: the two runs share no puzzle",
                    b.dataset, b.strategy
                ));
            }
        }
    }
    why
}

/// Why `base` and `current` are one run (empty: they are two): the same
/// directory under two spellings, or a copy of it (the same `run_id`, or
/// the same start, command line and solve times, whatever the ids say;
/// the same shards merged twice have the same `run_id`). A run held against itself shows no change by
/// construction.
fn same_run(base: &ResultsDir, current: &ResultsDir) -> Vec<String> {
    let canon = crate::results::dest::canonical_lenient;
    let (b, c) = (&base.meta, &current.meta);
    let times =
        |d: &ResultsDir| -> Vec<u64> { d.results.iter().map(|r| r.solve_ns_total).collect() };
    // The same id, or (an id missing or rewritten) the same start,
    // command line and solve times: no two runs share all three.
    let copy = (b.run_id.is_some() && b.run_id == c.run_id)
        || (b.started == c.started
            && b.command_line == c.command_line
            && times(base) == times(current));
    if canon(&base.path) != canon(&current.path) && !copy {
        return Vec::new();
    }
    vec![format!(
        "[{}] {} and {} are one run (started {}{}): compared with itself it shows no change \
         by construction",
        Rule::SameRun.name(),
        base.path.display(),
        current.path.display(),
        b.started,
        b.run_id
            .as_deref()
            .map_or(String::new(), |id| format!(", run_id {id}"))
    )]
}

/// Notes on run options and machines that differ (times are then not
/// like for like, and counters may change for that reason).
fn setup_differences(base: &ResultsDir, current: &ResultsDir) -> anyhow::Result<Vec<String>> {
    let mut notes = Vec::new();
    let (b, c) = (
        serde_json::to_value(&base.meta.options)?,
        serde_json::to_value(&current.meta.options)?,
    );
    if let (Some(b), Some(c)) = (b.as_object(), c.as_object()) {
        let mut keys: Vec<&String> = b.keys().chain(c.keys()).collect();
        keys.sort();
        keys.dedup();
        let null = serde_json::Value::Null;
        let diffs: Vec<String> = keys
            .into_iter()
            .filter(|k| b.get(*k) != c.get(*k))
            .map(|k| {
                format!(
                    "{k} {} → {}",
                    b.get(k).unwrap_or(&null),
                    c.get(k).unwrap_or(&null)
                )
            })
            .collect();
        if !diffs.is_empty() {
            notes.push(format!("run options differ: {}", diffs.join(", ")));
        }
    }
    let (bm, cm) = (&base.meta, &current.meta);
    if bm.cpu_model != cm.cpu_model || bm.threads != cm.threads {
        notes.push(format!(
            "different machines or thread counts: {} ({} threads) → {} ({} threads)",
            bm.cpu_model, bm.threads, cm.cpu_model, cm.threads
        ));
    }
    Ok(notes)
}

/// (min, max) over the pairs of measured passes of current pass total /
/// baseline pass total, when both runs measured two or more passes.
fn repeat_ratios(b: &ResultRecord, c: &ResultRecord) -> Option<(f64, f64)> {
    let (bp, cp) = (&b.pass_solve_ns, &c.pass_solve_ns);
    if bp.len() < 2 || cp.len() < 2 || bp.contains(&0) || cp.contains(&0) {
        return None;
    }
    let (bmin, bmax) = (*bp.iter().min()?, *bp.iter().max()?);
    let (cmin, cmax) = (*cp.iter().min()?, *cp.iter().max()?);
    Some((cmin as f64 / bmax as f64, cmax as f64 / bmin as f64))
}

/// Each run's times of the puzzles both runs answered for certain (`None`
/// for a run with none): a puzzle one run gave up on, failed or had
/// rejected is compared in neither, so that both statistics are over the
/// same puzzles (a puzzle given up on has the time it took to stop).
fn answered_by_both(
    b: &PuzzleData,
    c: &PuzzleData,
    k: &(String, String),
) -> (Option<Samples>, Option<Samples>) {
    let (Some(sb), Some(sc)) = (b.samples.get(k), c.samples.get(k)) else {
        return (None, None);
    };
    let ib: std::collections::HashSet<u64> = sb.iter().map(|x| x.0).collect();
    let ic: std::collections::HashSet<u64> = sc.iter().map(|x| x.0).collect();
    let keep = |s: &Samples, other: &std::collections::HashSet<u64>| {
        let v: Samples = s.iter().filter(|x| other.contains(&x.0)).copied().collect();
        (!v.is_empty()).then_some(v)
    };
    (keep(sb, &ic), keep(sc, &ib))
}

/// Two runs of one experiment (the same puzzles by the dataset's content
/// hash) hold rows of the same puzzle indexes; rows renumbered would leave
/// some puzzles out of the comparison unseen.
fn same_rows(b: &PuzzleData, c: &PuzzleData, k: &(String, String)) -> Option<Finding> {
    let of = |d: &PuzzleData| d.tally.get(k).map(|t| (t.rows, t.indexes));
    (of(b) != of(c)).then(|| {
        Finding::unjudged(
            Rule::OtherPuzzles,
            "the two runs hashed the same puzzles, but their puzzles.csv rows hold different \
             puzzle indexes: a file was edited, and the comparison would leave puzzles out",
        )
    })
}

/// Puzzle by puzzle: the current run gave up (or stalled) on puzzles the
/// baseline answered — giving up is never faster, whatever the counts.
fn per_puzzle(b: &PuzzleData, c: &PuzzleData, k: &(String, String)) -> Vec<Finding> {
    let answered: std::collections::HashSet<u64> = b
        .samples
        .get(k)
        .map(|s| s.iter().map(|x| x.0).collect())
        .unwrap_or_default();
    let quit: Vec<u64> = c
        .unsolved
        .get(k)
        .map(|v| v.iter().copied().filter(|i| answered.contains(i)).collect())
        .unwrap_or_default();
    if quit.is_empty() {
        return Vec::new();
    }
    let shown: Vec<String> = quit.iter().take(3).map(u64::to_string).collect();
    vec![Finding::fail(
        Rule::GaveUp,
        format!(
            "the current run gave up or stalled on {} puzzles the baseline answered (e.g. index \
             {}): giving up is not solving faster",
            quit.len(),
            shown.join(", ")
        ),
    )]
}

fn pct(ratio: f64) -> String {
    format!("{:+.1}%", (ratio - 1.0) * 100.0)
}

impl Comparison {
    pub fn count(&self, v: Verdict) -> usize {
        self.rows.iter().filter(|r| r.verdict == v).count()
    }

    pub fn counters_changed(&self) -> usize {
        self.rows.iter().filter(|r| !r.counters.is_empty()).count()
    }

    /// 1 when a unit failed or its time regressed beyond the threshold
    /// (or, with `fail_on_counters`, when a counter changed); else 2 when
    /// a time could not be judged; else 3 when one was undecided (unless
    /// undecided units pass); else 0.
    pub fn exit_code(&self, fail_on_counters: bool) -> i32 {
        let failed = self.count(Verdict::Regressed) + self.count(Verdict::Failed) > 0
            || (fail_on_counters && self.counters_changed() > 0);
        if failed {
            1
        } else if self.count(Verdict::NotJudged) > 0 {
            2
        } else if self.count(Verdict::Undecided) > 0 && !self.settings.undecided_passes {
            gate::EXIT_UNDECIDED
        } else {
            0
        }
    }

    /// Every finding of every row, one line each: `dataset/strategy: FAIL:
    /// [rule] …`, `not judged: …`, `note: …`.
    pub fn reason_lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (w, word) in [
            (Weight::Fail, "FAIL"),
            (Weight::Unjudged, "not judged"),
            (Weight::Note, "note"),
        ] {
            for r in &self.rows {
                for l in r.findings.lines(w) {
                    out.push(format!("{}/{}: {word}: {l}", r.dataset, r.strategy));
                }
            }
        }
        out
    }

    /// The table cells (header first).
    fn cells(&self) -> Vec<Vec<String>> {
        let m = self.settings.metric.as_str();
        let mut out = vec![vec![
            "dataset".to_string(),
            "strategy".to_string(),
            format!("baseline {m}"),
            format!("current {m}"),
            "change".to_string(),
            "95% CI".to_string(),
            "repeats".to_string(),
            "verdict".to_string(),
            "counters".to_string(),
        ]];
        for r in &self.rows {
            let (b, c, ch, ci) = match r.time {
                None => ("-".into(), "-".into(), "-".into(), "-".into()),
                Some(TimeEvidence::Bootstrap(i)) => (
                    fmt_ns(i.base),
                    fmt_ns(i.current),
                    pct(i.ratio),
                    format!("[{}, {}]", pct(i.lo), pct(i.hi)),
                ),
                Some(TimeEvidence::Summary { base, current }) => (
                    fmt_ns(base),
                    fmt_ns(current),
                    pct(r.ratio().unwrap_or(1.0)),
                    "n/a (summary only)".into(),
                ),
            };
            let counters = match r.verdict {
                Verdict::New | Verdict::Missing => "-".to_string(),
                _ if r.counters.is_empty() => "identical".to_string(),
                _ => r
                    .counters
                    .iter()
                    .map(|x| {
                        let show = |v: Option<u64>| v.map_or("—".to_string(), |v| v.to_string());
                        let rel = match (x.base, x.current) {
                            (Some(b), Some(c)) if b != 0 => {
                                format!(" ({:+.2}%)", (c as f64 - b as f64) * 100.0 / b as f64)
                            }
                            _ => String::new(),
                        };
                        format!("{} {} → {}{rel}", x.name, show(x.base), show(x.current))
                    })
                    .collect::<Vec<_>>()
                    .join("; "),
            };
            out.push(vec![
                r.dataset.clone(),
                r.strategy.clone(),
                b,
                c,
                ch,
                ci,
                r.repeats.map_or("-".to_string(), |(lo, hi)| {
                    format!("[{}, {}]", pct(lo), pct(hi))
                }),
                r.verdict.as_str().to_string(),
                counters,
            ]);
        }
        out
    }

    /// The one-line verdict.
    pub fn verdict_line(&self, fail_on_counters: bool) -> String {
        let regressed = self.count(Verdict::Regressed);
        let changed = self.counters_changed();
        let head = match self.exit_code(fail_on_counters) {
            0 => "PASS",
            1 => "FAIL",
            gate::EXIT_UNDECIDED => "UNDECIDED",
            _ => "NOT JUDGED",
        };
        let undecided = self.count(Verdict::Undecided);
        let mut s = format!(
            "{head}: {} failed, {regressed} regressed, {} improved, {} unchanged, {undecided} undecided{}, {} new, {} missing, {} not judged; search counters changed in {changed}",
            self.count(Verdict::Failed),
            self.count(Verdict::Improved),
            self.count(Verdict::Unchanged),
            if undecided > 0 && self.settings.undecided_passes {
                " (passing: --undecided pass)"
            } else {
                ""
            },
            self.count(Verdict::New),
            self.count(Verdict::Missing),
            self.count(Verdict::NotJudged),
        );
        if changed > 0 {
            s.push_str(if fail_on_counters {
                " (a behaviour change; failing: --fail-on counters)"
            } else {
                " (a behaviour change, not noise)"
            });
        }
        s
    }

    /// How the verdicts were decided, in one sentence.
    pub fn method_line(&self) -> String {
        let st = &self.settings;
        let boot: Vec<&Interval> = self
            .rows
            .iter()
            .filter_map(|r| match &r.time {
                Some(TimeEvidence::Bootstrap(i)) => Some(i),
                _ => None,
            })
            .collect();
        let mut s = format!(
            "Time verdict on the {} of the per-puzzle solve times, threshold ±{}%: ",
            st.metric.as_str(),
            st.threshold
        );
        if boot.is_empty() {
            s.push_str("summary values only, no interval: not judged.");
        } else {
            let paired = boot.iter().all(|i| i.paired);
            let unpaired = boot.iter().all(|i| !i.paired);
            let r_min = boot.iter().map(|i| i.resamples).min().unwrap_or(0);
            let _ = write!(
                s,
                "95% {}percentile-bootstrap interval of the ratio current/baseline ({}{} resamples, seed {}); \
                 regressed only when the whole interval is above +{t}%, improved only when below −{t}%, \
                 unchanged only when it lies wholly within ±{t}% (equivalence shown), undecided otherwise.",
                if paired {
                    "paired "
                } else if unpaired {
                    "two-sample "
                } else {
                    ""
                },
                if r_min < stats::MAX_RESAMPLES { "≥" } else { "" },
                r_min,
                st.seed,
                t = st.threshold
            );
        }
        if self.rows.iter().any(|r| r.repeats.is_some()) {
            s.push_str(
                " With repeats on both sides, a verdict also needs the passes to agree: regressed or improved only when each current pass total is beyond each baseline pass total by the threshold, unchanged only when not every pair lies beyond it (else undecided).",
            );
        }
        s.push_str(
            " Counters (puzzles, faults, guesses, backtracks, max_depth) are exact and compared exactly (— where a strategy does not report one).",
        );
        let _ = write!(
            s,
            " Every row goes through bench-sudoku's one judge (docs/RELIABILITY.md): it fails (exit 1) on rejected answers, faults, answers with no solution written, a solver clock that claims more than the harness measured, or giving up on more puzzles (or solving fewer) than the baseline; its time is not judged (exit 2) when the runs are not one experiment (other puzzles, transform, solution limit, search budget or timing), when either run timed fewer than {} puzzles of the unit, has no per-puzzle times, solved none, may cache answers, or used another clock.",
            st.metric.min_puzzles()
        );
        s.push_str(
            " Unpaired: the two runs were made at different times, so whatever the machine did in between lands on one side; to compare two solvers or builds in one process, interleaved and paired per puzzle, use run --gate BASE:CANDIDATE.",
        );
        s
    }

    /// Aligned text for the terminal (every cell and line
    /// [`printable`](crate::support::text::printable)).
    pub fn terminal(&self, fail_on_counters: bool) -> String {
        let cells = self.cells();
        let header: Vec<&str> = cells[0].iter().map(String::as_str).collect();
        let rows: Vec<Vec<String>> = cells[1..].iter().map(|r| r.to_vec()).collect();
        // Columns 2 to 4 (the numbers) right-aligned.
        let left: Vec<usize> = (0..header.len()).filter(|i| !(2..=4).contains(i)).collect();
        let mut out = crate::report::terminal::text_table(&header, &rows, &left);
        for u in self.reason_lines() {
            let _ = writeln!(out, "{u}");
        }
        for n in &self.notes {
            let _ = writeln!(out, "note: {n}");
        }
        let _ = writeln!(out, "{}", self.method_line());
        let _ = writeln!(out, "{}", self.verdict_line(fail_on_counters));
        crate::support::text::printable_lines(&out).into_owned()
    }

    /// A GitHub-flavoured Markdown table and a one-line verdict (for a CI
    /// job summary).
    pub fn markdown(&self, fail_on_counters: bool) -> String {
        let cells = self.cells();
        let mut out = String::from("### bench-sudoku compare\n\n");
        for (i, row) in cells.iter().enumerate() {
            let esc: Vec<String> = row
                .iter()
                .map(|c| crate::support::text::md_cell(c))
                .collect();
            let _ = writeln!(out, "| {} |", esc.join(" | "));
            if i == 0 {
                let _ = writeln!(out, "|---|---|---:|---:|---:|---|---|---|---|");
            }
        }
        out.push('\n');
        for u in self.reason_lines() {
            let _ = writeln!(out, "> {}\n", crate::support::text::md_cell(&u));
        }
        for n in &self.notes {
            let _ = writeln!(out, "> note: {n}\n");
        }
        let _ = writeln!(out, "{}\n", self.method_line());
        let _ = writeln!(out, "**{}**", self.verdict_line(fail_on_counters));
        out
    }
}

#[cfg(test)]
mod tests;
