//! Change points: where a series of ratios stepped, and by how much.
//!
//! The input is one value per revision, in commit order: the log of the
//! paired ratio to the yardstick and the half-width of its 95 % interval
//! (in log units). The method has three stages, in the manner of asv's
//! step detection (a piecewise-constant fit, then only the steps that
//! matter):
//!
//! 1. **Noise between runs.** A run's interval covers the puzzles, not the
//!    runner: two runners can disagree on a ratio by more than either run's
//!    interval. With eight values or more, that extra spread is estimated
//!    from the differences of neighbouring values (their median absolute
//!    value, which a few real steps do not move) and added to every
//!    value's variance; with fewer there is too little to estimate it from
//!    and the intervals are taken as they are.
//! 2. **Segmentation.** The series is cut into segments of constant level
//!    by optimal partitioning: the cuts minimise the weighted squared
//!    deviation of every value from its segment's weighted mean (weights
//!    1/σ², never below [`SIGMA_FLOOR`]) plus a penalty of `2·ln(n)` (at
//!    least [`MIN_PENALTY`]) per cut — the Bayesian information criterion
//!    of a Gaussian model, exact by dynamic programming in O(n²).
//! 3. **Only real steps.** Two neighbouring segments are merged back into
//!    one (and the pair re-examined) unless their levels differ by more
//!    than the threshold **and** their 95 % intervals are apart. A
//!    segment's level is the median of its values; its interval's
//!    half-width is 1.96 standard errors of that median, from the values'
//!    σ or, when larger, from their own scatter (the median absolute
//!    deviation) with four values or more.
//!
//! What is left is a list of steps, each named by the first revision of
//! the new level.

/// The smallest σ a value is weighed with (0.1 % in log units): a run with
/// an implausibly narrow interval does not dominate the fit.
pub const SIGMA_FLOOR: f64 = 0.001;
/// The smallest penalty per cut.
pub const MIN_PENALTY: f64 = 2.0;
/// z of a two-sided 95 % interval.
const Z95: f64 = 1.959_964;

/// One value of a series: the log of a ratio and its interval's half-width
/// (log units).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Value {
    pub log: f64,
    pub half: f64,
}

/// A run of values at one level.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Segment {
    /// Its first and one-past-last index.
    pub start: usize,
    pub end: usize,
    /// Its level (log units) and the half-width of its interval.
    pub level: f64,
    pub half: f64,
}

impl Segment {
    /// The level as a ratio, and its interval.
    pub fn ratio(&self) -> (f64, f64, f64) {
        (
            self.level.exp(),
            (self.level - self.half).exp(),
            (self.level + self.half).exp(),
        )
    }
}

/// A step between two segments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    /// The index of the first value at the new level.
    pub at: usize,
    pub before: Segment,
    pub after: Segment,
}

impl Step {
    /// The change of the ratio, in percent (+ = slower).
    pub fn change_pct(&self) -> f64 {
        ((self.after.level - self.before.level).exp() - 1.0) * 100.0
    }
}

/// The segments of `values` and the steps between them; `threshold_pct`
/// is the smallest change, in percent of the ratio, that counts as a step.
pub fn detect(values: &[Value], threshold_pct: f64) -> (Vec<Segment>, Vec<Step>) {
    if values.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let sigmas = sigmas(values);
    let mut bounds: Vec<usize> = std::iter::once(0)
        .chain(partition(values, &sigmas))
        .chain(std::iter::once(values.len()))
        .collect();
    let min_log = (1.0 + threshold_pct.max(0.0) / 100.0).ln();
    // Merge the least distinct neighbouring pair until every boundary is a
    // real step.
    loop {
        let segs: Vec<Segment> = bounds
            .windows(2)
            .map(|w| segment(values, &sigmas, w[0], w[1]))
            .collect();
        let weakest = segs
            .windows(2)
            .enumerate()
            .filter(|(_, p)| !distinct(&p[0], &p[1], min_log))
            .min_by(|(_, a), (_, b)| separation(a).total_cmp(&separation(b)))
            .map(|(i, _)| i);
        match weakest {
            Some(i) => {
                bounds.remove(i + 1);
            }
            None => {
                let steps = segs
                    .windows(2)
                    .map(|p| Step {
                        at: p[1].start,
                        before: p[0],
                        after: p[1],
                    })
                    .collect();
                return (segs, steps);
            }
        }
    }
}

/// The newest value held against the level of the values before it at
/// the same level: how far it moved, in log units, and the half-width of
/// that move's 95 % interval (its own σ, the spread between runs included,
/// and the earlier level's).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Newest {
    pub change: f64,
    pub half: f64,
}

impl Newest {
    /// Whether the move is shown to be within ±`threshold_pct`: the whole
    /// interval inside it. Otherwise a step of the threshold at the newest
    /// value could not be told from none.
    pub fn within(&self, threshold_pct: f64) -> bool {
        let t = (1.0 + threshold_pct.max(0.0) / 100.0).ln();
        self.change.abs() + self.half <= t
    }

    /// The move and its interval as ratios (`1.02, 0.99, 1.05`).
    pub fn ratio(&self) -> (f64, f64, f64) {
        (
            self.change.exp(),
            (self.change - self.half).exp(),
            (self.change + self.half).exp(),
        )
    }
}

/// The newest of `values` against the level before it ([`Newest`]);
/// `None` when there is nothing to hold it against (a single value) or it
/// starts a level of its own (a step, which [`detect`] reports).
pub fn newest(values: &[Value], threshold_pct: f64) -> Option<Newest> {
    let (segs, _) = detect(values, threshold_pct);
    let n = values.len();
    let last = segs.last()?;
    if last.start + 1 >= n {
        return None;
    }
    let sigmas = sigmas(values);
    let before = segment(values, &sigmas, last.start, n - 1);
    let own = sigmas[n - 1];
    Some(Newest {
        change: values[n - 1].log - before.level,
        half: Z95 * (own * own + (before.half / Z95).powi(2)).sqrt(),
    })
}

/// Values needed to estimate the spread between runs from the series.
const MIN_FOR_SPREAD: usize = 8;

/// Each value's σ (log units): its interval's, with the spread between
/// runs added when the series is long enough to estimate it.
fn sigmas(values: &[Value]) -> Vec<f64> {
    let own: Vec<f64> = values.iter().map(|v| v.half / Z95).collect();
    let extra = if values.len() >= MIN_FOR_SPREAD {
        let diffs: Vec<f64> = values
            .windows(2)
            .map(|w| (w[1].log - w[0].log).abs())
            .collect();
        // A difference of two values of σ has a median absolute value of
        // 0.6745·σ·√2.
        let total = median(&diffs) * 1.4826 / std::f64::consts::SQRT_2;
        let typical: Vec<f64> = own.iter().map(|s| s * s).collect();
        (total * total - median(&typical)).max(0.0)
    } else {
        0.0
    };
    own.iter()
        .map(|s| (s * s + extra).sqrt().max(SIGMA_FLOOR))
        .collect()
}

/// How far apart two neighbouring segments are, in units of their
/// intervals (the pair merged first is the least apart).
fn separation(p: &[Segment]) -> f64 {
    (p[1].level - p[0].level).abs() / (p[0].half + p[1].half).max(f64::MIN_POSITIVE)
}

/// A real step: beyond the threshold, and the intervals apart.
fn distinct(a: &Segment, b: &Segment, min_log: f64) -> bool {
    let d = (b.level - a.level).abs();
    d > min_log && d > a.half + b.half
}

/// The standard error of a median of n normal values, in σ / √n.
const MEDIAN_SE: f64 = 1.2533;

/// The segment of `values[start..end]`: its median level and interval.
fn segment(values: &[Value], sigmas: &[f64], start: usize, end: usize) -> Segment {
    let logs: Vec<f64> = values[start..end].iter().map(|v| v.log).collect();
    let n = logs.len() as f64;
    let level = median(&logs);
    // The median of one or two values is their mean.
    let se = if logs.len() <= 2 { 1.0 } else { MEDIAN_SE };
    let from_sigma = median(&sigmas[start..end]) * se / n.sqrt();
    let from_scatter = if logs.len() >= 4 {
        let dev: Vec<f64> = logs.iter().map(|x| (x - level).abs()).collect();
        1.4826 * median(&dev) * MEDIAN_SE / n.sqrt()
    } else {
        0.0
    };
    Segment {
        start,
        end,
        level,
        half: Z95 * from_sigma.max(from_scatter),
    }
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n == 0 {
        0.0
    } else if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

/// Optimal partitioning: the cut positions (indexes where a new segment
/// starts) minimising the weighted squared error plus the penalty per cut.
fn partition(values: &[Value], sigmas: &[f64]) -> Vec<usize> {
    let n = values.len();
    let penalty = (2.0 * (n as f64).ln()).max(MIN_PENALTY);
    // Prefix sums of w, w·x and w·x² give any segment's cost in O(1).
    let mut sw = vec![0.0; n + 1];
    let mut swx = vec![0.0; n + 1];
    let mut swx2 = vec![0.0; n + 1];
    for (i, (v, s)) in values.iter().zip(sigmas).enumerate() {
        let w = 1.0 / (s * s);
        sw[i + 1] = sw[i] + w;
        swx[i + 1] = swx[i] + w * v.log;
        swx2[i + 1] = swx2[i] + w * v.log * v.log;
    }
    let cost = |a: usize, b: usize| {
        let w = sw[b] - sw[a];
        let wx = swx[b] - swx[a];
        let wx2 = swx2[b] - swx2[a];
        (wx2 - wx * wx / w).max(0.0)
    };
    // best[j]: the least cost of values[..j]; from[j]: where its last
    // segment starts.
    let mut best = vec![0.0; n + 1];
    let mut from = vec![0usize; n + 1];
    for j in 1..=n {
        let (mut b, mut f) = (f64::INFINITY, 0);
        for (i, before) in best[..j].iter().enumerate() {
            let c = if i == 0 { 0.0 } else { before + penalty } + cost(i, j);
            if c < b {
                b = c;
                f = i;
            }
        }
        best[j] = b;
        from[j] = f;
    }
    let mut cuts = Vec::new();
    let mut j = n;
    while j > 0 {
        let i = from[j];
        if i > 0 {
            cuts.push(i);
        }
        j = i;
    }
    cuts.reverse();
    cuts
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Ratios with a 95 % half-width of `half` (relative), as values.
    fn values(ratios: &[f64], half: f64) -> Vec<Value> {
        ratios
            .iter()
            .map(|r| Value {
                log: r.ln(),
                half: (1.0 + half).ln(),
            })
            .collect()
    }

    #[test]
    fn the_newest_value_is_held_against_the_level_before_it() {
        // A steady series and a newest run as precise: within ±5 %.
        let steady = values(&[1.00, 1.01, 0.99, 1.00, 1.01], 0.01);
        let n = newest(&steady, 5.0).unwrap();
        assert!(n.within(5.0), "{n:?}");
        // The same newest ratio measured ±8 %: a 5 % step there could not
        // be seen, so no step found is no evidence of none.
        let mut noisy_last = steady.clone();
        noisy_last[4].half = 1.08f64.ln();
        let n = newest(&noisy_last, 5.0).unwrap();
        assert!(!n.within(5.0), "{n:?}");
        // Within the noise but 4 % off: its interval reaches past 5 %.
        let mut off = steady.clone();
        off[4].log = 1.04f64.ln();
        let n = newest(&off, 5.0).unwrap();
        assert!(!n.within(5.0) && n.ratio().0 > 1.03, "{n:?}");
        // A step at the newest value is a step, not undecided; one value
        // has nothing before it.
        let stepped = values(&[1.00, 1.01, 0.99, 1.00, 1.20], 0.01);
        assert!(newest(&stepped, 5.0).is_none());
        assert!(newest(&steady[..1], 5.0).is_none());
    }

    /// `n` noisy ratios around `level`: each run's ratio is off by a normal
    /// error of σ = `half`/1.96 (what its interval claims).
    fn noisy(rng: &mut rand_chacha::ChaCha8Rng, level: f64, n: usize, half: f64) -> Vec<f64> {
        (0..n)
            .map(|_| {
                let (u1, u2): (f64, f64) = (rng.random(), rng.random());
                let z =
                    (-2.0 * u1.max(1e-12).ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
                level * (z * half / Z95).exp()
            })
            .collect()
    }

    #[test]
    fn a_ten_percent_step_is_named_at_its_first_revision() {
        let (_, steps) = detect(&values(&[1.0, 1.1, 1.1], 0.015), 5.0);
        assert_eq!(steps.len(), 1, "{steps:?}");
        assert_eq!(steps[0].at, 1);
        assert!((steps[0].change_pct() - 10.0).abs() < 0.01);
        // The unchanged third revision is no step, and neither is the
        // first revision alone.
        let (_, steps) = detect(&values(&[1.0, 1.1], 0.015), 5.0);
        assert_eq!(steps.iter().map(|s| s.at).collect::<Vec<_>>(), [1]);
        assert!(detect(&values(&[1.0], 0.015), 5.0).1.is_empty());
        assert!(detect(&[], 5.0).1.is_empty());
    }

    #[test]
    fn small_or_uncertain_changes_are_no_steps() {
        // Below the threshold, however certain.
        assert!(detect(&values(&[1.0, 1.03, 1.03], 0.002), 5.0).1.is_empty());
        // Beyond the threshold, but the intervals overlap.
        assert!(detect(&values(&[1.0, 1.1, 1.1], 0.08), 5.0).1.is_empty());
    }

    #[test]
    fn noise_makes_no_steps_and_a_step_in_noise_is_found() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut false_steps = 0;
        for _ in 0..200 {
            let flat = noisy(&mut rng, 1.3, 40, 0.02);
            false_steps += detect(&values(&flat, 0.02), 5.0).1.len();
        }
        assert_eq!(false_steps, 0, "flat series of 40 with 2 % intervals");
        let mut found = 0;
        for _ in 0..100 {
            let mut s = noisy(&mut rng, 1.3, 20, 0.02);
            s.extend(noisy(&mut rng, 1.3 * 1.08, 20, 0.02));
            let (_, steps) = detect(&values(&s, 0.02), 5.0);
            if steps.len() == 1 && steps[0].at == 20 {
                found += 1;
            }
        }
        assert!(found >= 95, "an 8 % step at 20 found {found} times in 100");
    }

    #[test]
    fn a_spike_is_two_steps_and_a_slower_last_revision_is_one() {
        let (_, steps) = detect(&values(&[1.0, 1.0, 1.0, 1.2, 1.0, 1.0], 0.01), 5.0);
        assert_eq!(steps.iter().map(|s| s.at).collect::<Vec<_>>(), [3, 4]);
        let (_, steps) = detect(&values(&[1.0, 1.0, 1.0, 1.0, 1.12], 0.01), 5.0);
        assert_eq!(steps.iter().map(|s| s.at).collect::<Vec<_>>(), [4]);
        assert!(steps[0].change_pct() > 11.0);
    }

    #[test]
    fn runners_that_disagree_widen_a_level() {
        // Alternating runners 6 % apart, each with a tight interval: their
        // disagreement is noise between runs, not ten steps, and a 7 %
        // step over it is no step.
        let mut s: Vec<f64> = (0..10)
            .map(|i| if i % 2 == 0 { 1.0 } else { 1.06 })
            .collect();
        s.extend((0..10).map(|i| if i % 2 == 0 { 1.07 } else { 1.134 }));
        assert!(detect(&values(&s, 0.005), 5.0).1.is_empty());
        // A 20 % step over the same scatter is one.
        let mut s: Vec<f64> = (0..10)
            .map(|i| if i % 2 == 0 { 1.0 } else { 1.06 })
            .collect();
        s.extend((0..10).map(|i| if i % 2 == 0 { 1.2 } else { 1.272 }));
        let (_, steps) = detect(&values(&s, 0.005), 5.0);
        assert_eq!(steps.iter().map(|s| s.at).collect::<Vec<_>>(), [10]);
    }
}
