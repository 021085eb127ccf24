//! Deciding while measuring: an always-valid confidence sequence for the
//! gate's geometric-mean ratio, so that `run --gate … --budget D` may look
//! at its interval after every round of measurement and stop as soon as
//! the answer is known, without its error rates growing with the number
//! of looks (docs/MEASUREMENT.md §5 derives it and shows how it fares).
//!
//! **What is observed.** The gate's statistic is the mean log ratio μ of
//! the pairs (candidate time / base time on one puzzle): the log of the
//! geometric-mean ratio. Pairs come in chunks, the units in which the two
//! sides alternate (noise that hits one side's turn at a chunk is shared
//! by the chunk's pairs), so the observations are chunk *i*'s number of
//! pairs nᵢ and the sum Sᵢ of their log ratios. After t chunks the
//! estimate is μ̂ = ΣSᵢ / Σnᵢ, and the deviations Sᵢ − nᵢμ add up to
//! Mₜ = Nₜ(μ̂ − μ), a sum of (nearly) independent terms.
//!
//! **Why a plain interval cannot be looked at repeatedly.** A 95 %
//! interval holds μ with probability 95 % at one chosen moment. Looking
//! after every round and stopping at the first that excludes μ makes
//! the chance of ever excluding it grow with the number of looks (to 1,
//! eventually): a gate that keeps measuring until it sees a regression
//! finds one in every A/A run.
//!
//! **The boundary (Robbins' normal mixture).** For increments with
//! conditional variances adding up to Vₜ, exp(λMₜ − λ²Vₜ/2) is a
//! non-negative supermartingale for every λ, and so is its average over λ
//! drawn from any distribution fixed in advance. Averaged over λ ≥ 0 with
//! a half-normal of variance 1/v₀ it is
//! 2·√(v₀/(v₀+Vₜ))·exp(u²/2)·Φ(u) with u = Mₜ/√(v₀+Vₜ), and Ville's
//! inequality bounds the chance that it *ever* exceeds 1/α′ by α′. So with
//! probability at least 1 − α′, at every t at once, Mₜ < u*·√(v₀+Vₜ),
//! where u* solves u²/2 + ln Φ(u) = ln(1/(2α′)) + ½·ln(1 + Vₜ/v₀). The
//! same holds for −Mₜ: each side of the interval μ̂ ± u*√(v₀+Vₜ)/Nₜ is
//! wrong, ever, with probability at most α′ = 2.5 %, and the interval is a
//! 95 % confidence *sequence*.
//!
//! **Unknown variance (the asymptotic confidence sequence).** Vₜ is
//! estimated by V̂ₜ = t/(t−1)·Σ(Sᵢ − nᵢμ̂)² (each chunk's deviation from
//! the current estimate: the chunk-level noise and the pairs' own alike),
//! and v₀ is stated relative to the variance per chunk, v₀ = (V̂ₜ/t)/ρ²;
//! since the variance is estimated, u* is then read as a quantile of
//! Student's t with t − 1 degrees of freedom at the normal's level of u*
//! ([`studentized`]), as a t test reads a z, which matters below some 50
//! chunks;
//! with ρ fixed before the data: the boundary is narrowest near
//! t* = x/ρ² chunks, where x solves x = 2·ln(1/α) + ln(1 + x) (x ≈ 8.2).
//! The gate sets t* between its first look and the last the budget
//! should hold ([`super::budget::target_rounds`]). Replacing Vₜ by its estimate makes the guarantee asymptotic
//! (it holds as the chunks grow); how close it is on 10 to 1,000 chunks of
//! normal, heavy-tailed, bursty and skewed noise is simulated below.
//!
//! At the planned horizon the half-width is about 1.55 times a single
//! look's 1.96 standard errors (3.0 standard errors): that is the price of
//! being allowed to stop at any round.

use crate::bench::paired::MIN_BLOCKS;

/// Two-sided error of the interval: each side is wrong, ever, with
/// probability at most `ALPHA / 2`.
pub const ALPHA: f64 = 0.05;

/// What the gate concludes from an interval of the ratio and a threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// The whole interval above 1 + threshold.
    Regressed,
    /// The whole interval below 1 − threshold.
    Improved,
    /// The whole interval within ±threshold: equivalence shown.
    Unchanged,
    /// None of these: the data cannot tell yet.
    Undecided,
}

impl Decision {
    /// Decides from an interval `[low, high]` of the ratio at a threshold
    /// in percent.
    pub fn of(low: f64, high: f64, threshold_pct: f64) -> Decision {
        let t = threshold_pct / 100.0;
        if low > 1.0 + t {
            Decision::Regressed
        } else if high < 1.0 - t {
            Decision::Improved
        } else if low >= 1.0 - t && high <= 1.0 + t {
            Decision::Unchanged
        } else {
            Decision::Undecided
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Regressed => "regressed",
            Decision::Improved => "improved",
            Decision::Unchanged => "unchanged",
            Decision::Undecided => "undecided",
        }
    }
}

/// The running sums a confidence sequence needs: O(1) memory, O(1) per
/// chunk and per look.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sums {
    /// Chunks.
    pub chunks: u64,
    /// Pairs.
    pub pairs: u64,
    /// Σ Sᵢ, Σ Sᵢ², Σ nᵢSᵢ, Σ nᵢ².
    sum: f64,
    sum_sq: f64,
    sum_ns: f64,
    sum_nn: f64,
}

impl Sums {
    /// Adds chunk (pairs, sum of their log ratios); an empty chunk is no
    /// observation.
    pub fn add(&mut self, pairs: u32, sum_log: f64) {
        if pairs == 0 {
            return;
        }
        let n = f64::from(pairs);
        let s = if sum_log.is_finite() { sum_log } else { 0.0 };
        self.chunks += 1;
        self.pairs += u64::from(pairs);
        self.sum += s;
        self.sum_sq += s * s;
        self.sum_ns += n * s;
        self.sum_nn += n * n;
    }

    /// The mean log ratio μ̂ (0 without pairs).
    pub fn mean(&self) -> f64 {
        if self.pairs == 0 {
            0.0
        } else {
            self.sum / self.pairs as f64
        }
    }

    /// V̂: the chunks' squared deviations from μ̂, with the small-sample
    /// factor t/(t − 1).
    fn variance(&self) -> f64 {
        let m = self.mean();
        let ss = self.sum_sq - 2.0 * m * self.sum_ns + m * m * self.sum_nn;
        let t = self.chunks as f64;
        ss.max(0.0) * t / (t - 1.0).max(1.0)
    }

    /// The confidence sequence's interval after these chunks, tuned for a
    /// horizon of `target_chunks`; `None` below [`MIN_BLOCKS`] chunks (too
    /// few to estimate the variance they need).
    pub fn interval(&self, target_chunks: f64) -> Option<Interval> {
        if self.chunks < MIN_BLOCKS {
            return None;
        }
        let t = self.chunks as f64;
        let growth = t * mixing(target_chunks);
        let v = self.variance();
        let u = studentized(boundary(growth), self.chunks);
        let half = u * (v * (1.0 + 1.0 / growth)).sqrt() / self.pairs as f64;
        Some(Interval {
            mean: self.mean(),
            half,
            chunks: self.chunks,
            pairs: self.pairs,
        })
    }
}

/// An interval of the mean log ratio, symmetric around its estimate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// μ̂ (log).
    pub mean: f64,
    /// Half-width (log).
    pub half: f64,
    pub chunks: u64,
    pub pairs: u64,
}

impl Interval {
    /// The geometric-mean ratio.
    pub fn ratio(&self) -> f64 {
        self.mean.exp()
    }
    pub fn low(&self) -> f64 {
        (self.mean - self.half).exp()
    }
    pub fn high(&self) -> f64 {
        (self.mean + self.half).exp()
    }
    pub fn decide(&self, threshold_pct: f64) -> Decision {
        Decision::of(self.low(), self.high(), threshold_pct)
    }
}

/// The smallest change an interval `[low, high]` of a ratio can tell from
/// none, in percent: its half-width.
pub fn resolution_pct(low: f64, high: f64) -> f64 {
    (high - low) / 2.0 * 100.0
}

/// ρ² per chunk: the mixing that makes the boundary narrowest at
/// `target_chunks` (at least [`MIN_BLOCKS`]).
pub fn mixing(target_chunks: f64) -> f64 {
    let a = 2.0 * (1.0 / ALPHA).ln();
    // x = a + ln(1 + x) minimises (1 + 1/x)(a + ln(1 + x)), the squared
    // half-width at the target in units of its variance; the fixed point
    // converges in a few steps from x = a.
    let mut x = a;
    for _ in 0..20 {
        x = a + (1.0 + x).ln();
    }
    x / target_chunks.max(MIN_BLOCKS as f64)
}

/// The boundary `u` (in standard errors) for a variance estimated from
/// `chunks` chunks rather than known: the quantile of Student's t with
/// `chunks − 1` degrees of freedom at the normal's level of `u`, Φ(u), as a
/// t test would take it (at u = 3: 1.36 times wider from 10 chunks, 1.15
/// from 20, 1.03 from 100, → 1). The confidence sequence's guarantee
/// assumes the variance known; estimated from few chunks it would hold the
/// truth less often than it says, most of all under heavy-tailed noise
/// (simulated in the tests).
pub fn studentized(u: f64, chunks: u64) -> f64 {
    let nu = (chunks.max(2) - 1) as f64;
    // The Cornish–Fisher expansion of t's quantile in powers of 1/ν
    // (Abramowitz and Stegun 26.7.5), within 0.5 % from 9 degrees of
    // freedom where u ≤ 3.5.
    let p = |k: i32| u.powi(k);
    u + (p(3) + u) / (4.0 * nu)
        + (5.0 * p(5) + 16.0 * p(3) + 3.0 * u) / (96.0 * nu.powi(2))
        + (3.0 * p(7) + 19.0 * p(5) + 17.0 * p(3) - 15.0 * u) / (384.0 * nu.powi(3))
        + (79.0 * p(9) + 776.0 * p(7) + 1482.0 * p(5) - 1920.0 * p(3) - 945.0 * u)
            / (92160.0 * nu.powi(4))
}

/// u* for one side at `ALPHA / 2`: the root of
/// u²/2 + ln Φ(u) = ln(1/ALPHA) + ½·ln(1 + growth), where growth = Vₜ/v₀.
pub fn boundary(growth: f64) -> f64 {
    let c = (1.0 / ALPHA).ln() + 0.5 * growth.max(0.0).ln_1p();
    // The left side is increasing; Newton's method from √(2c), where
    // ln Φ(u) is already within (−0.01, 0), with g' = u + φ(u)/Φ(u),
    // reaches machine precision in a few steps.
    let mut u = (2.0 * c).sqrt();
    for _ in 0..6 {
        let ln_phi = ln_phi(u);
        let g = u * u / 2.0 + ln_phi - c;
        u -= g / (u + density(u) / ln_phi.exp());
    }
    u
}

/// The standard normal density.
fn density(u: f64) -> f64 {
    (-u * u / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt()
}

/// ln Φ(u) for u ≥ 2 (the only range [`boundary`] asks for: u ≥ √(2 ln
/// 20)): Φ(u) = 1 − φ(u)·R(u), with Mills' ratio R from its continued
/// fraction R(u) = 1/(u + 1/(u + 2/(u + 3/(u + …)))), evaluated from the
/// bottom.
fn ln_phi(u: f64) -> f64 {
    debug_assert!(u >= 2.0);
    let mut t = u;
    for k in (1..=80).rev() {
        t = u + k as f64 / t;
    }
    (-density(u) / t).ln_1p()
}

#[cfg(test)]
mod tests;
