//! More rounds of a run: the datasets a judge still needs are measured
//! again, a whole pass at a time, until it needs none or the time left
//! would not hold another round (`run --gate … --budget D`).
//!
//! A round is exactly what the run's first measurement was — every chunk
//! of the dataset solved by every strategy in turn, the order changing,
//! each pass over a whole batch before the next (cold), outliers
//! re-measured; only the strategies' order starts one place further on
//! each round (so that over the rounds a chunk's puzzles meet every order,
//! and an advantage of going first or second cancels out on the same
//! puzzles too) and its rows are not written: the results directory
//! describes the first round, and the judge takes each later round's
//! aggregates (their pairs and every answer's verdict). With
//! `--transform SEED` each round solves new isomorphs (its own seed,
//! [`round_seed`]), otherwise the same puzzles again: a whole dataset of
//! other solves lies between two solves of one puzzle, so a round is as
//! cold as the first.
//!
//! Time: a round starts only when the longest round so far would still
//! end before the deadline, so the run ends before it or, when a round
//! takes longer than any before, within the deadline plus one round.

use super::metrics::UnitStats;
use super::{run_some, DatasetInfo, NoRows, Progress, RunOptions, Stop};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One round's results, as the judge receives them.
pub struct Round<'a> {
    /// 1 for the run's own measurement, then 2, 3, …
    pub number: u32,
    /// The isomorphs' seed (`None`: the puzzles as read).
    pub transform: Option<u64>,
    /// Every strategy's aggregates on each dataset the round measured.
    pub units: &'a [UnitStats],
    /// Its wall time.
    pub wall: Duration,
}

/// Why the rounds ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The judge needs no more.
    Decided,
    /// Another round would not end before the deadline.
    Budget,
    /// The run stopped (an interrupt, a failed write, a panic).
    Stopped,
}

impl End {
    pub fn as_str(self) -> &'static str {
        match self {
            End::Decided => "decided",
            End::Budget => "budget spent",
            End::Stopped => "stopped",
        }
    }
}

/// What the rounds did.
pub struct Rounds {
    /// Rounds measured, the first included.
    pub rounds: u32,
    pub end: End,
    /// Why a round stopped early (then `end` is [`End::Stopped`]).
    pub stopped: Option<Stop>,
    /// The longest round.
    pub longest: Duration,
}

/// The isomorphs' seed of round `number` of a run given `--transform
/// seed`: the seed itself for the first round, so that a run with a budget
/// starts exactly as one without; for later rounds the seed with the round
/// number spread over its bits (ChaCha8 streams of different seeds are
/// unrelated).
pub fn round_seed(seed: u64, number: u32) -> u64 {
    if number <= 1 {
        seed
    } else {
        seed ^ u64::from(number - 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

/// Measures rounds 2, 3, … of the datasets `open` (indexes into `infos`)
/// while the judge names datasets it still needs and the deadline allows
/// another round as long as the longest so far (`expected`, before any is
/// measured: the first round's time, scaled to the passes of `opts`). `judge` gets each round and returns the datasets still open.
#[allow(clippy::too_many_arguments)]
pub fn more(
    opts: &RunOptions,
    infos: &[DatasetInfo],
    pool: &rayon::ThreadPool,
    progress: &dyn Progress,
    stop: &Arc<AtomicBool>,
    deadline: Instant,
    expected: Duration,
    mut open: Vec<usize>,
    judge: &mut dyn FnMut(&Round) -> Vec<usize>,
) -> Rounds {
    let mut done = Rounds {
        rounds: 1,
        end: End::Decided,
        stopped: None,
        longest: expected,
    };
    loop {
        if open.is_empty() {
            return done;
        }
        if stop.load(Ordering::Relaxed) {
            (done.end, done.stopped) = (End::Stopped, Some(Stop::Interrupted));
            return done;
        }
        if Instant::now() + done.longest > deadline {
            done.end = End::Budget;
            return done;
        }
        let number = done.rounds + 1;
        let mut o = opts.clone();
        o.transform = opts.transform.map(|s| round_seed(s, number));
        o.rotation = opts.rotation + (number - 1) as usize;
        let labelled = Labelled {
            inner: progress,
            number,
        };
        let start = Instant::now();
        let results = run_some(&o, infos, &open, pool, &mut NoRows, &labelled, stop);
        let wall = start.elapsed();
        done.rounds = number;
        done.longest = done.longest.max(wall);
        if let Some(s) = results.stopped {
            (done.end, done.stopped) = (End::Stopped, Some(s));
            return done;
        }
        open = judge(&Round {
            number,
            transform: o.transform,
            units: &results.units,
            wall,
        });
    }
}

/// Progress of a later round: the run's display, the round named.
struct Labelled<'a> {
    inner: &'a dyn Progress,
    number: u32,
}

impl Progress for Labelled<'_> {
    fn unit_start(&self, dataset: &str, strategies: &str, estimate: Option<u64>) {
        let label = format!("{strategies} (round {})", self.number);
        self.inner.unit_start(dataset, &label, estimate);
    }
    fn advance(&self, n: u64) {
        self.inner.advance(n);
    }
    fn unit_end(&self) {
        self.inner.unit_end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_round_keeps_the_seed_and_later_rounds_get_their_own() {
        assert_eq!(round_seed(7, 1), 7);
        let seeds: Vec<u64> = (1..200).map(|n| round_seed(7, n)).collect();
        let mut unique = seeds.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), seeds.len());
        assert_ne!(round_seed(0, 2), 0);
    }
}
