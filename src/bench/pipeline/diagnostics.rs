//! The pipeline's diagnostic switches: stage times, the probe's skip level
//! and (in builds with debug assertions) an injected fault.
//!
//! The pipeline never reads the environment: `commands` reads the
//! variables once, at the start of the process, and hands them here with
//! [`set`]. A program that calls the library without setting them gets
//! the full harness, no stage times and no fault.

use std::sync::OnceLock;

/// What a process asks of the pipeline beyond measuring.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics {
    /// Account the CPU time of the serial stages (`meta.json`'s stage
    /// times; `BENCH_SUDOKU_STAGE_TIMES`).
    pub stage_times: bool,
    /// How much of the finishing work to leave out, by the name of a
    /// probe level (`BENCH_SUDOKU_PROBE_SKIP`); only a build with the
    /// `harness-probe` feature acts on it.
    pub probe_skip: Option<String>,
    /// A stage to make panic and the puzzle index of the batch it panics
    /// on (`BENCH_SUDOKU_FAULT=STAGE:N`); only a build with debug
    /// assertions acts on it.
    pub fault: Option<(String, u64)>,
}

/// The diagnostics in force, with the probe level already parsed.
struct InForce {
    asked: Diagnostics,
    skip: super::probe::Skip,
}

static IN_FORCE: OnceLock<InForce> = OnceLock::new();

/// Sets this process's diagnostics, once, before any run. An unknown probe
/// level is an error (a misspelt level must not pass for a measurement of
/// the full harness); a second call is refused the same way, since the
/// pipeline may already have acted on the first.
pub fn set(d: Diagnostics) -> Result<(), String> {
    let skip = match &d.probe_skip {
        Some(name) if cfg!(feature = "harness-probe") => super::probe::Skip::named(name)?,
        _ => super::probe::Skip::Nothing,
    };
    IN_FORCE
        .set(InForce { asked: d, skip })
        .map_err(|_| "the pipeline's diagnostics are set once per process".to_string())
}

/// Whether a probe build leaves work out in this process (for a warning:
/// its results are incomplete).
pub fn leaves_work_out() -> bool {
    skip() != super::probe::Skip::Nothing
}

/// Whether stage times are on.
#[inline]
pub(super) fn stage_times() -> bool {
    IN_FORCE.get().is_some_and(|f| f.asked.stage_times)
}

/// The probe level in force (always `Nothing` outside a probe build).
#[inline(always)]
pub(super) fn skip() -> super::probe::Skip {
    if !cfg!(feature = "harness-probe") {
        return super::probe::Skip::Nothing;
    }
    IN_FORCE
        .get()
        .map_or(super::probe::Skip::Nothing, |f| f.skip)
}

/// The puzzle index at which `stage` is made to panic, in builds with
/// debug assertions (what `cargo test` runs; docs/RELIABILITY.md). A
/// release build has no fault to inject.
#[inline(always)]
pub(super) fn injected_fault(stage: &str) -> Option<u64> {
    if !cfg!(debug_assertions) {
        return None;
    }
    let (name, at) = IN_FORCE.get()?.asked.fault.as_ref()?;
    (name == stage).then_some(*at)
}
