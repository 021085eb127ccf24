//! How a span is cut into blocks, and how its solves are timed, from the
//! pace of the calling thread's last block.
//!
//! Interleaving pairs two strategies' times of a puzzle only as well as the
//! two solves share the machine's mood, so a block's turns must be short
//! beside the time over which a loaded machine's speed drifts (tens of
//! milliseconds: with turns of a slow solver's 64 puzzles, the blocks'
//! mean ratios spread several times more than the pairs' own noise
//! explains; docs/MEASUREMENT.md §3 has the figures). So a block holds the
//! layout's usual number of puzzles while every strategy's turn of it
//! together takes at most [`TURN_NS`], and fewer (down to [`LEAST`])
//! beyond: the usual size for fast solvers, whose strategy that follows
//! another on the same puzzles must find them forgotten (a block's other
//! puzzles are what make it forget), a few puzzles a turn for solvers of a
//! millisecond.
//!
//! The block's solves are timed undisturbed ([`crate::solver::stopwatch`]: a preempted
//! solve given its CPU time) when every strategy's solves of the last
//! blocks took at least [`UNDISTURBED_NS`] on average: the four system calls that
//! asks for are outside the timed region and then a small part of the
//! thread's time. So are the first block's, whose pace is not known.
//!
//! Jobs whose every strategy is a built-in engine are cut by the pace
//! ([`Pacing`]); so are jobs of in-process libraries once every strategy
//! is slow enough to be timed undisturbed (a library's calls then only in
//! batches that ran on the calling thread alone, [`crate::solver::alone`]).
//! A library paced beside a fast built-in engine made the history of a
//! gated solver in `tests/adoption.rs` less steady, so a job with a fast
//! strategy keeps the usual blocks. A job with a solver process keeps them
//! always (a process gets its requests a block at a time, pipelined), and
//! the wall clock (the process keeps its own clock, or the round trip).
//! Each job starts at an unknown pace, with a block of [`LEAST`] puzzles,
//! so that one dataset's or round's pace never sizes another's blocks.

use super::*;
use std::cell::Cell;

/// Every strategy's turn of a block, together, at most (ns), unless one
/// puzzle takes longer.
pub(super) const TURN_NS: u64 = 10_000_000;
/// Puzzles of a block at least: the strategy that follows another on a
/// puzzle then has another puzzle's solve between the two (right after it,
/// the follower is measurably faster than the leader, which the rotation
/// cancels on average but which widens the interval: docs/MEASUREMENT.md
/// §3).
pub(super) const LEAST: usize = 2;
/// The mean solve (ns) of every strategy of a block from which the next
/// block's solves are timed undisturbed.
pub(super) const UNDISTURBED_NS: u64 = 50_000;

/// The calling thread's last blocks of one job ([`Job::pace_epoch`]):
/// every strategy's time per puzzle together, and the fastest strategy's
/// time per solve (0: no block yet).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Pace {
    epoch: u64,
    puzzle_ns: u64,
    fastest_ns: u64,
}

thread_local! {
    static PACE: Cell<Pace> = const { Cell::new(Pace { epoch: 0, puzzle_ns: 0, fastest_ns: 0 }) };
}

/// The last job number given out ([`epoch`]).
static EPOCH: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A new job's number: a thread starts each job's pace afresh (another
/// dataset, other strategies or another round go at their own pace).
pub(super) fn epoch() -> u64 {
    EPOCH.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1
}

/// The calling thread's pace in `job` (unknown before its first block).
fn pace_of(job: &Job) -> Pace {
    let pace = PACE.get();
    if pace.epoch == job.pace_epoch {
        pace
    } else {
        Pace {
            epoch: job.pace_epoch,
            ..Pace::default()
        }
    }
}

/// The size of the next block of a span (`usual` at most) and whether its
/// solves are timed undisturbed (the block sets the thread's clock).
///
/// A thread's first block of a job, whose pace is not known yet, holds
/// [`LEAST`] puzzles timed undisturbed: were it the usual size, a solver
/// of milliseconds would take turns of a tenth of a second on the wall
/// clock, into which a loaded machine's pauses fall, enough to move a
/// gate round's ratio (docs/MEASUREMENT.md §3). A fast solver loses
/// nothing: its next block is the usual one.
pub(super) fn next_block(job: &Job, usual: usize) -> (usize, bool) {
    pace_of(job).next(job.paced, usual)
}

/// Which jobs' blocks follow the pace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Pacing {
    /// Every strategy is a built-in engine.
    Always,
    /// In-process libraries (beside built-in engines, or not): once every
    /// strategy's solves are timed undisturbed, where turns of a few
    /// puzzles were measured to pay (docs/MEASUREMENT.md §3).
    WhenSlow,
    /// A solver process (`cmd=`, or an isolated library), which gets its
    /// requests a block at a time, pipelined.
    Never,
}

impl Pacing {
    /// The pacing of a job of `runners`.
    pub(super) fn of(runners: &[Runner]) -> Pacing {
        let in_process = |r: &Runner| match r {
            Runner::Builtin(_) => true,
            Runner::External(i) => i.solver.capabilities().clock == crate::solver::Clock::Harness,
        };
        if runners.iter().all(|r| matches!(r, Runner::Builtin(_))) {
            Pacing::Always
        } else if runners.iter().all(in_process) {
            Pacing::WhenSlow
        } else {
            Pacing::Never
        }
    }
}

/// Takes the pace of a block of `len` puzzles (its chunks, one per
/// strategy) once it has made `passes` passes (every strategy's, at most
/// its own).
pub(super) fn observe(job: &Job, chunks: &[Chunk], len: usize, passes: u32) {
    if len == 0 {
        return;
    }
    let mut pace = Pace {
        epoch: job.pace_epoch,
        puzzle_ns: 0,
        fastest_ns: u64::MAX,
    };
    for (k, c) in chunks.iter().enumerate() {
        if c.solved.iter().all(|s| s.result.status.is_fault()) {
            // No solve to go by (faults only: a library that failed, an
            // external solver given pencilmarks).
            continue;
        }
        let solves = len as u64 * u64::from(passes.min(job.passes_of(k)).max(1));
        let per_solve = c.busy_ns / solves;
        pace.puzzle_ns += per_solve;
        pace.fastest_ns = pace.fastest_ns.min(per_solve);
    }
    if pace.fastest_ns == u64::MAX {
        PACE.set(pace_of(job).without_solves());
        return;
    }
    pace.puzzle_ns = pace.puzzle_ns.max(1);
    PACE.set(pace_of(job).follow(pace, len));
}

impl Pace {
    /// [`next_block`] at this pace, for a job paced as `paced`.
    fn next(self, paced: Pacing, usual: usize) -> (usize, bool) {
        if paced == Pacing::Never {
            // A solver process keeps its own clock (or the round trip); the
            // built-in engines beside it keep the wall clock, as it does.
            return (usual, false);
        }
        let unknown = self.puzzle_ns == 0;
        let undisturbed = unknown || self.fastest_ns >= UNDISTURBED_NS;
        let size = match paced {
            Pacing::WhenSlow if !undisturbed => usual,
            _ => self.block(usual),
        };
        (size, undisturbed)
    }

    /// The pace after a first block with no solve to go by (faults only):
    /// fast, for the usual blocks on the wall clock, rather than blocks of
    /// the least for as long as that lasts.
    fn without_solves(self) -> Pace {
        if self.puzzle_ns != 0 {
            return self;
        }
        Pace {
            puzzle_ns: 1,
            fastest_ns: 0,
            ..self
        }
    }

    /// The size of a block at this pace: the layout's `usual` while every
    /// strategy's turn takes at most [`TURN_NS`] together, fewer beyond,
    /// at least [`LEAST`]; [`LEAST`] before any block, to learn the pace
    /// from.
    fn block(self, usual: usize) -> usize {
        let size = match self.puzzle_ns {
            0 => LEAST,
            ns => (TURN_NS / ns) as usize,
        };
        size.clamp(LEAST, usual.max(LEAST))
    }

    /// The pace after a block of `len` puzzles that went at `block`'s: an
    /// average of the last [`MEMORY`] puzzles or so, since one puzzle's
    /// search can take a hundred times another's of the same dataset.
    fn follow(self, block: Pace, len: usize) -> Pace {
        if self.puzzle_ns == 0 {
            return block;
        }
        let w = len.min(MEMORY) as f64 / MEMORY as f64;
        let mix = |old: u64, new: u64| (old as f64 + (new as f64 - old as f64) * w) as u64;
        Pace {
            epoch: self.epoch,
            puzzle_ns: mix(self.puzzle_ns, block.puzzle_ns).max(1),
            fastest_ns: mix(self.fastest_ns, block.fastest_ns),
        }
    }
}

/// Puzzles the pace remembers, about.
const MEMORY: usize = 32;

#[cfg(test)]
mod tests {
    use super::*;

    fn at(puzzle_ns: u64, fastest_ns: u64) -> Pace {
        Pace {
            epoch: 0,
            puzzle_ns,
            fastest_ns,
        }
    }

    #[test]
    fn fast_solvers_keep_the_usual_blocks_and_slow_ones_take_turns_of_a_few_puzzles() {
        // Before any block: the least, to learn the pace from.
        assert_eq!(Pace::default().block(64), LEAST);
        // Two strategies of 2.5 µs: 5 µs a puzzle, the usual 64.
        assert_eq!(at(5_000, 2_500).block(64), 64);
        assert_eq!(at(5_000, 2_500).block(32), 32);
        // 200 µs a puzzle: 10 ms / 200 µs.
        assert_eq!(at(200_000, 100_000).block(64), 50);
        // Milliseconds a puzzle: never fewer than the least.
        assert_eq!(at(3_600_000, 1_800_000).block(64), LEAST);
        assert_eq!(at(50_000_000, 1_800_000).block(64), LEAST);
    }

    #[test]
    fn a_first_block_is_of_the_least_timed_undisturbed_unless_a_process_solves() {
        let unknown = Pace::default();
        for paced in [Pacing::Always, Pacing::WhenSlow] {
            assert_eq!(unknown.next(paced, 64), (LEAST, true), "{paced:?}");
            // Then a fast solver's usual blocks on the wall clock, and a
            // slow one's turns of a few puzzles, undisturbed.
            assert_eq!(at(5_000, 2_500).next(paced, 64), (64, false));
            assert_eq!(at(3_600_000, 1_800_000).next(paced, 64), (LEAST, true));
        }
        // A library beside a built-in engine of 2.5 µs and 100 µs a
        // puzzle: beyond the turn, but the fast side keeps the wall clock
        // and the library's blocks stay the usual (a built-in job's
        // follow the pace).
        assert_eq!(at(1_000_000, 2_500).next(Pacing::WhenSlow, 64), (64, false));
        assert_eq!(at(1_000_000, 2_500).next(Pacing::Always, 64), (10, false));
        // A solver process: the usual blocks, the wall clock, always.
        for pace in [unknown, at(3_600_000, 1_800_000)] {
            assert_eq!(pace.next(Pacing::Never, 64), (64, false));
        }
        // A first block of faults only: the usual blocks after it.
        let after = unknown.without_solves();
        assert_eq!(after.next(Pacing::Always, 64), (64, false));
        assert_eq!(after.next(Pacing::WhenSlow, 64), (64, false));
        // A pace already known is kept.
        assert_eq!(at(10, 5).without_solves(), at(10, 5));
    }

    #[test]
    fn the_pace_follows_about_the_last_32_puzzles() {
        // The first block sets it.
        let p = Pace::default().follow(at(1_000, 500), 2);
        assert_eq!((p.puzzle_ns, p.fastest_ns), (1_000, 500));
        // A block of one puzzle moves it a 32nd of the way.
        let q = at(32_000, 32_000).follow(at(64_000, 0), 1);
        assert_eq!((q.puzzle_ns, q.fastest_ns), (33_000, 31_000));
        // A block of 32 puzzles or more replaces it.
        let r = at(32_000, 32_000).follow(at(64_000, 64_000), 64);
        assert_eq!((r.puzzle_ns, r.fastest_ns), (64_000, 64_000));
    }
}
