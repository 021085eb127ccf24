//! Opt-in accounting of where the harness's CPU time goes, beyond what
//! `meta.json` always records (the two serial stages, and the solving
//! loop's time beyond the measured solves, from the chunks' own clocks):
//! with the environment variable `BENCH_SUDOKU_STAGE_TIMES=1`, every thread
//! adds its own CPU time (`CLOCK_THREAD_CPUTIME_ID`, read before and after
//! each batch's stage) spent preparing batches (parsing, `--transform`,
//! `--shuffle`) and finishing them (verification, statistics, rows, the
//! ordered writer and the write), and `meta.json`'s `harness.stages`
//! reports them per puzzle. Off by default: the clock reads are system
//! calls.

use super::*;
use std::sync::atomic::AtomicU64;

/// A stage of the per-puzzle work.
#[derive(Clone, Copy)]
pub(super) enum Stage {
    Prepare,
    Finish,
}

/// CPU time per stage, added by every thread of a group.
#[derive(Default)]
pub(super) struct StageCpu {
    ns: [AtomicU64; 2],
}

/// Whether stage times are on ([`super::diagnostics`]).
#[inline]
pub(super) fn enabled() -> bool {
    super::diagnostics::stage_times()
}

impl StageCpu {
    /// Runs `f`, adding the calling thread's CPU time to `stage` when stage
    /// times are on.
    #[inline]
    pub(super) fn time<T>(&self, stage: Stage, f: impl FnOnce() -> T) -> T {
        if !enabled() {
            return f();
        }
        let start = sysinfo::thread_cpu_ns();
        let out = f();
        if let (Some(a), Some(b)) = (start, sysinfo::thread_cpu_ns()) {
            self.ns[stage as usize].fetch_add(b.saturating_sub(a), Ordering::Relaxed);
        }
        out
    }

    /// The totals, in ns (`None` when stage times are off).
    pub(super) fn totals(&self) -> Option<StageTotals> {
        enabled().then(|| {
            let [p, f] = self.ns.each_ref().map(|a| a.load(Ordering::Relaxed));
            StageTotals {
                prepare_ns: p,
                finish_ns: f,
            }
        })
    }
}

/// CPU time spent in each stage over a group or a run, in ns.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StageTotals {
    pub prepare_ns: u64,
    pub finish_ns: u64,
}

impl std::ops::AddAssign for StageTotals {
    fn add_assign(&mut self, o: StageTotals) {
        self.prepare_ns += o.prepare_ns;
        self.finish_ns += o.finish_ns;
    }
}
