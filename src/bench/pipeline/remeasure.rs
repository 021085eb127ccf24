//! Spikes: a kept time that is an outlier for its puzzle is measured again
//! and the minimum kept.
//!
//! A solve that the scheduler preempts, or that an interrupt or a page
//! fault lands in, takes the time of the interruption on top of its own:
//! on a shared machine a 3 µs solve is now and then measured at 4 ms. One
//! such time dominates a strategy's maximum and moves its mean, so it must
//! not survive into a statistic. Whether a time is such an outlier is
//! judged against what the puzzle's search effort predicts: after a span's
//! passes, each strategy's kept times are ranked by effort (1 + the larger
//! of its nodes and guesses; 1 for a solver that reports neither), and a
//! time more than [`FACTOR`] times the median of its [`NEIGHBOURS`] nearest
//! in effort (their times scaled to its effort), plus [`SLACK_NS`], is an
//! outlier. Each outlier is solved again
//! (up to [`ATTEMPTS`] times, until a time is no outlier) and its minimum
//! kept; every answer is checked like a later pass's.
//!
//! In the cold regime a re-measured puzzle is first kept [`GAP`] other
//! solves from its last one, so that the second measurement is no more
//! practised than the first: the solves of the thread's next span
//! ([`later`], when the thread carries the span), or untimed solves of the
//! span's other puzzles (as many as the span holds).

use super::*;
use crate::solver::stopwatch::{self, Stopwatch};

/// How many times the reference an outlier takes.
pub(super) const FACTOR: u64 = 3;
/// Added to the bound, so that the clock's own jitter on the cheapest
/// solves is not taken for a spike.
pub(super) const SLACK_NS: u64 = 1_000;
/// Puzzles nearest in effort whose median time is the reference.
pub(super) const NEIGHBOURS: usize = 8;
/// Measurements of an outlier at most, beside the one that was flagged.
pub(super) const ATTEMPTS: usize = 3;
/// Solves between two of one puzzle before it is measured again (cold).
pub(super) const GAP: usize = 128;
/// Outliers re-measured at most per strategy and span: at most one in
/// eight of its puzzles (a busy machine cannot double the run's length).
const SHARE: usize = 8;

/// One kept time of a span: block, position in the block, effort, time.
#[derive(Clone, Copy)]
struct Kept {
    block: usize,
    i: usize,
    effort: u64,
    ns: u64,
}

/// Outliers of a span that are re-measured later, once enough other
/// solves have followed them (cold regime): per strategy, its outliers and
/// how many more solves they need.
#[derive(Default)]
pub(super) struct Late(Vec<Waiting>);

/// One strategy's late outliers (with their bounds) and the solves they
/// still need after the span.
struct Waiting {
    k: usize,
    flagged: Vec<(Kept, u64)>,
    fill: usize,
}

impl Waiting {
    /// Strategy `k`'s outliers `flagged` in a span of `len` puzzles
    /// (blocks starting at `starts`), with the filler they need should no
    /// solves follow the span; `None` when there are none.
    fn of(k: usize, flagged: Vec<(Kept, u64)>, starts: &[usize], len: usize) -> Option<Waiting> {
        (!flagged.is_empty()).then(|| Waiting {
            k,
            fill: gap_needed(&flagged, starts, len),
            flagged,
        })
    }
}

impl Late {
    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Re-measures the outliers of a span that are already [`GAP`] solves
/// from their last (every outlier, practised) and returns the others, for
/// [`later`].
pub(super) fn early(
    blocks: &[&[Record]],
    puzzles: &[Vec<Grid>],
    job: &Job,
    out: &mut [Vec<Chunk>],
) -> Late {
    let starts: Vec<usize> = blocks
        .iter()
        .scan(0, |at, b| {
            let start = *at;
            *at += b.len();
            Some(start)
        })
        .collect();
    let span: usize = blocks.iter().map(|b| b.len()).sum();
    let mut late = Late::default();
    for k in 0..job.strategies.len() {
        // Should anything below panic, the message names the strategy.
        SOLVING.set((usize::MAX, k));
        let (now, wait): (Vec<_>, Vec<_>) = flag(out, k).into_iter().partition(|f| {
            job.practised || gap_needed(std::slice::from_ref(f), &starts, span) == 0
        });
        late.0.extend(Waiting::of(k, wait, &starts, span));
        if !now.is_empty() {
            let start = Instant::now();
            again(blocks, puzzles, job, k, now, out);
            out[0][k].busy_ns += start.elapsed().as_nanos() as u64;
        }
    }
    late
}

/// Every outlier of a span (each strategy's chunks `out`, blocks starting
/// at `starts`, `len` puzzles), none re-measured yet: each waits for
/// [`later`], with filler solves only where the solves since the span do
/// not keep it [`GAP`] solves from its last. For a cold run's lone solver
/// thread, which holds each span until it has solved the next one, so
/// that this can be done by another thread meanwhile.
pub(super) fn flag_all(out: &[Vec<Chunk>], starts: &[usize], len: usize) -> Late {
    let strategies = out.first().map_or(0, Vec::len);
    Late(
        (0..strategies)
            .filter_map(|k| Waiting::of(k, flag(out, k), starts, len))
            .collect(),
    )
}

/// Re-measures a span's `late` outliers after `since` other solves by the
/// calling thread (another span's, solved since): untimed filler solves
/// of the span's other puzzles make up what those do not cover.
pub(super) fn later(
    blocks: &[&[Record]],
    puzzles: &[Vec<Grid>],
    job: &Job,
    out: &mut [Vec<Chunk>],
    late: Late,
    since: usize,
) {
    for Waiting { k, flagged, fill } in late.0 {
        SOLVING.set((usize::MAX, k));
        let start = Instant::now();
        solve_filler(
            blocks,
            puzzles,
            job,
            k,
            &flagged,
            fill.saturating_sub(since),
        );
        again(blocks, puzzles, job, k, flagged, out);
        out[0][k].busy_ns += start.elapsed().as_nanos() as u64;
    }
}

/// Strategy `k`'s outliers in the span with their bound, in span order.
fn flag(out: &[Vec<Chunk>], k: usize) -> Vec<(Kept, u64)> {
    let mut kept: Vec<Kept> = Vec::with_capacity(out.iter().map(|c| c[k].solved.len()).sum());
    for (block, chunks) in out.iter().enumerate() {
        for (i, s) in chunks[k].solved.iter().enumerate() {
            if s.time_ns == u64::MAX || s.result.status.is_fault() {
                continue;
            }
            let c = &s.result.counters;
            let effort = c.nodes.max(c.guesses).saturating_add(1);
            kept.push(Kept {
                block,
                i,
                effort,
                ns: s.time_ns,
            });
        }
    }
    pick(kept)
}

/// The outliers among `kept` with their bounds, in span order.
fn pick(kept: Vec<Kept>) -> Vec<(Kept, u64)> {
    if kept.len() <= NEIGHBOURS / 2 {
        // Too few puzzles to say what is usual.
        return Vec::new();
    }
    // By effort, equal efforts in span order (`kept` is in span order).
    let kept = by_effort(kept);
    // Each time per unit of its effort: a neighbour's time scaled to
    // another effort is its rate times that effort.
    let rates: Vec<f64> = kept
        .iter()
        .map(|x| x.ns as f64 / x.effort.max(1) as f64)
        .collect();
    let least = window_minima(&rates);
    let mut flagged: Vec<(Kept, u64)> = (0..kept.len())
        .filter(|&s| kept[s].ns as f64 > floor(least[s], kept[s].effort))
        .filter_map(|s| {
            let bound = bound(&kept, s);
            (kept[s].ns > bound).then_some((kept[s], bound))
        })
        .collect();
    // The worst first when there are more than the share allows.
    let most = kept.len().div_ceil(SHARE);
    if flagged.len() > most {
        flagged.sort_by_key(|(x, b)| std::cmp::Reverse(x.ns / b.max(&1)));
        flagged.truncate(most);
    }
    flagged.sort_by_key(|(x, _)| (x.block, x.i));
    flagged
}

/// `kept` (in span order) sorted by effort, equal efforts in span order.
/// Efforts are mostly small (a fast solver's nodes): a counting sort, in
/// one pass and without comparisons, when the largest effort is at most a
/// few times the number of times; a stable sort otherwise.
fn by_effort(mut kept: Vec<Kept>) -> Vec<Kept> {
    let most = kept.iter().map(|x| x.effort).max().unwrap_or(0);
    if most > 4 * kept.len() as u64 + 64 {
        kept.sort_by_key(|x| x.effort);
        return kept;
    }
    // Where each effort's times start in the output.
    let mut at = vec![0usize; most as usize + 2];
    for x in &kept {
        at[x.effort as usize + 1] += 1;
    }
    for e in 1..at.len() {
        at[e] += at[e - 1];
    }
    let mut sorted = vec![
        Kept {
            block: 0,
            i: 0,
            effort: 0,
            ns: 0,
        };
        kept.len()
    ];
    for x in kept {
        let slot = &mut at[x.effort as usize];
        sorted[*slot] = x;
        *slot += 1;
    }
    sorted
}

/// The ranks of the [`NEIGHBOURS`] nearest to rank `s` (and `s` itself,
/// which the callers leave out), among `len`.
fn around(len: usize, s: usize) -> std::ops::Range<usize> {
    let lo = s.saturating_sub(NEIGHBOURS / 2);
    let hi = (lo + NEIGHBOURS + 1).min(len);
    hi.saturating_sub(NEIGHBOURS + 1)..hi
}

/// The times of the [`NEIGHBOURS`] ranks nearest to rank `s`, each scaled
/// to the effort of `s` (a neighbour of half the effort counts twice its
/// time), so that where efforts jump (from puzzles solved without a guess
/// to ones that need a hundred) the reference follows the effort.
fn near(kept: &[Kept], s: usize) -> impl Iterator<Item = u64> + '_ {
    let effort = u128::from(kept[s].effort);
    around(kept.len(), s)
        .filter(move |&t| t != s)
        .map(move |t| {
            let scaled = u128::from(kept[t].ns) * effort / u128::from(kept[t].effort.max(1));
            u64::try_from(scaled).unwrap_or(u64::MAX)
        })
}

/// The least of `rates` over each rank's neighbours ([`around`]), the
/// rank itself included: a sliding minimum over windows of
/// `NEIGHBOURS + 1` ranks, from the minima of each run of that many
/// ranks up to a rank and from a rank to the run's end (three comparisons
/// a rank, not eight). Including the rank changes no [`floor`]'s verdict:
/// a rank whose rate is below all its neighbours' has a time under three
/// times its own, which is no outlier by either bound.
fn window_minima(rates: &[f64]) -> Vec<f64> {
    const W: usize = NEIGHBOURS + 1;
    let n = rates.len();
    if n <= W {
        let least = rates.iter().copied().fold(f64::INFINITY, f64::min);
        return vec![least; n];
    }
    let mut up_to = rates.to_vec();
    let mut from = rates.to_vec();
    for i in 1..n {
        if i % W != 0 {
            up_to[i] = up_to[i].min(up_to[i - 1]);
        }
    }
    for i in (0..n - 1).rev() {
        if (i + 1) % W != 0 {
            from[i] = from[i].min(from[i + 1]);
        }
    }
    (0..n)
        .map(|s| {
            let a = around(n, s).start;
            from[a].min(up_to[a + W - 1])
        })
        .collect()
}

/// A lower bound of [`bound`], without sorting or dividing: [`FACTOR`]
/// times the smallest neighbour's time scaled to `effort` (never above
/// their median), plus [`SLACK_NS`], from `least`, the smallest rate (ns
/// per unit of effort) among the neighbours and the time's own
/// ([`window_minima`]). Most times are below it, and only the others need
/// the median. It is taken a hair low (a relative 1e-9 and 1 ns, more
/// than the rounding of the floating-point product and of [`near`]'s
/// integer division), so that no time over the exact bound is ever below
/// it.
fn floor(least: f64, effort: u64) -> f64 {
    if !least.is_finite() {
        return 0.0;
    }
    let scaled = least * effort as f64 * (1.0 - 1e-9) - 1.0;
    scaled.max(0.0) * FACTOR as f64 + SLACK_NS as f64
}

/// The outlier bound of the time at rank `s` (by effort): [`FACTOR`] times
/// the median of its nearest neighbours in rank, plus [`SLACK_NS`].
fn bound(kept: &[Kept], s: usize) -> u64 {
    let mut times = [0u64; NEIGHBOURS];
    let mut n = 0;
    for t in near(kept, s) {
        times[n] = t;
        n += 1;
    }
    let near = &mut times[..n];
    near.sort_unstable();
    let median = near[(n - 1) / 2];
    median.saturating_mul(FACTOR).saturating_add(SLACK_NS)
}

/// Untimed solves needed before the outliers are measured again, so that
/// each is at least [`GAP`] solves from its last (which was at its place in
/// the last pass: the rest of the span followed it). `starts`: where each
/// block starts in the span.
fn gap_needed(flagged: &[(Kept, u64)], starts: &[usize], span: usize) -> usize {
    flagged
        .iter()
        .map(|(x, _)| {
            let after = span - 1 - (starts[x.block] + x.i);
            GAP.saturating_sub(after)
        })
        .max()
        .unwrap_or(0)
}

/// Solves up to `fill` puzzles of the span that are not flagged, untimed,
/// with strategy `k` (their answers are dropped: no time of theirs is
/// kept). A span shorter than the gap gives fewer: going round it again
/// would cost a slow solver many solves for each spike of a small dataset.
fn solve_filler(
    blocks: &[&[Record]],
    puzzles: &[Vec<Grid>],
    job: &Job,
    k: usize,
    flagged: &[(Kept, u64)],
    fill: usize,
) {
    if fill == 0 {
        return;
    }
    #[cfg(test)]
    filled::add(job.dataset, fill);
    let is_flagged = |b: usize, i: usize| flagged.iter().any(|(x, _)| x.block == b && x.i == i);
    let chosen: Vec<(usize, usize)> = blocks
        .iter()
        .enumerate()
        .flat_map(|(b, recs)| (0..recs.len()).map(move |i| (b, i)))
        .filter(|&(b, i)| !is_flagged(b, i))
        .take(fill)
        .collect();
    let mut sink = Vec::new();
    solve_each(blocks, puzzles, job, k, &chosen, &mut sink);
}

/// Measures the outliers again until each has a time within its bound or
/// [`ATTEMPTS`] more measurements; keeps the minimum and checks each
/// answer ([`Solved::again_remeasured`]).
fn again(
    blocks: &[&[Record]],
    puzzles: &[Vec<Grid>],
    job: &Job,
    k: usize,
    mut flagged: Vec<(Kept, u64)>,
    out: &mut [Vec<Chunk>],
) {
    for _ in 0..ATTEMPTS {
        let at: Vec<(usize, usize)> = flagged.iter().map(|(x, _)| (x.block, x.i)).collect();
        let mut answers = Vec::with_capacity(at.len());
        solve_each(blocks, puzzles, job, k, &at, &mut answers);
        for (&(b, i), (a, ns)) in at.iter().zip(answers) {
            let chunk = &mut out[b][k];
            let s = &mut chunk.solved[i];
            match chunk.extra.get_mut(i) {
                Some(e) => external_again(s, e, a, ns, job.passes_of(k), Later::Remeasure),
                // A built-in engine: the reference, never a fault.
                None => s.again_remeasured(&a.result, ns, job.passes_of(k)),
            }
        }
        flagged.retain(|(x, bound)| {
            let s = &out[x.block][k].solved[x.i];
            !s.result.status.is_fault() && s.time_ns > *bound
        });
        if flagged.is_empty() {
            break;
        }
    }
}

/// Solves the puzzles at `at` (block, position) with strategy `k`, each
/// timed alone, pushing each answer and its time in order.
fn solve_each(
    blocks: &[&[Record]],
    puzzles: &[Vec<Grid>],
    job: &Job,
    k: usize,
    at: &[(usize, usize)],
    out: &mut Vec<(Answer, u64)>,
) {
    match &job.runners[k] {
        Runner::Builtin(b) => SOLVER.with(|s| {
            let mut solver = s.borrow_mut();
            for &(j, i) in at {
                let rec = &blocks[j][i];
                SOLVING.set((usize::MAX, k));
                let t = Stopwatch::start(stopwatch::undisturbed());
                let r = solver.solve_builtin_with(
                    &rec.puzzle,
                    rec.candidates(),
                    b,
                    job.limits,
                    &mut NoopObserver,
                );
                let ns = t.stop();
                let answer = Answer {
                    result: r,
                    time_ns: None,
                    note: None,
                    unwritten: false,
                };
                out.push((answer, ns));
            }
        }),
        Runner::External(instances) => {
            // Never pencilmark puzzles: those were faults on every pass.
            let grids: Vec<Grid> = at.iter().map(|&(j, i)| puzzles[j][i]).collect();
            // In parts a supervised run's board can name puzzle by puzzle.
            const PART: usize = 64;
            for (p, part) in grids.chunks(PART).enumerate() {
                #[cfg(unix)]
                if let Some(slot) = crate::board::this_thread_slot() {
                    let named = &at[p * PART..(p * PART + part.len())];
                    slot.chunk(
                        named
                            .iter()
                            .map(|&(j, i)| (blocks[j][i].index, blocks[j][i].line)),
                    );
                    slot.strategy(k);
                }
                let mut answers = Vec::with_capacity(part.len());
                instances.solve_batch(part, job.limits, &mut answers);
                out.extend(answers.into_iter().map(|a| {
                    let ns = if a.result.status.is_fault() {
                        0
                    } else {
                        a.time_ns.unwrap_or(0)
                    };
                    (a, ns)
                }));
            }
        }
    }
}

/// Filler solves asked for, per dataset (tests only).
#[cfg(test)]
pub(super) mod filled {
    use std::sync::Mutex;

    static BY_DATASET: Mutex<Vec<(String, usize)>> = Mutex::new(Vec::new());

    pub(in crate::bench::pipeline) fn add(dataset: &str, n: usize) {
        let mut all = BY_DATASET.lock().unwrap_or_else(|e| e.into_inner());
        match all.iter_mut().find(|(d, _)| d == dataset) {
            Some((_, m)) => *m += n,
            None => all.push((dataset.to_string(), n)),
        }
    }

    /// Filler solves asked for so far on datasets whose name holds `part`.
    pub(in crate::bench::pipeline) fn of(part: &str) -> usize {
        let all = BY_DATASET.lock().unwrap_or_else(|e| e.into_inner());
        all.iter()
            .filter(|(d, _)| d.contains(part))
            .map(|(_, n)| n)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(times: &[(u64, u64)]) -> Vec<Kept> {
        times
            .iter()
            .enumerate()
            .map(|(i, &(effort, ns))| Kept {
                block: i / 64,
                i: i % 64,
                effort,
                ns,
            })
            .collect()
    }

    #[test]
    fn the_counting_sort_orders_as_a_sort_by_effort_then_span_order() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for (n, spread) in [
            (0, 1),
            (1, 1),
            (300, 3),
            (500, 40),
            (200, 5_000),
            (100, u64::MAX),
        ] {
            let kept: Vec<Kept> = (0..n)
                .map(|p| Kept {
                    block: p / 64,
                    i: p % 64,
                    effort: rand::Rng::random_range(&mut rng, 0..spread.max(1)),
                    ns: p as u64,
                })
                .collect();
            let mut want = kept.clone();
            want.sort_unstable_by_key(|x| (x.effort, x.block, x.i));
            let got = by_effort(kept);
            let key = |v: &[Kept]| {
                v.iter()
                    .map(|x| (x.effort, x.block, x.i, x.ns))
                    .collect::<Vec<_>>()
            };
            assert_eq!(key(&got), key(&want), "{n} times, efforts below {spread}");
        }
    }

    #[test]
    fn a_preempted_solve_is_an_outlier_and_a_hard_puzzle_is_not() {
        // Easy puzzles at about 3 us, hard ones (100 times the effort) at
        // about 300 us; one easy solve preempted for 4 ms.
        let mut times: Vec<(u64, u64)> = (0..200).map(|i| (1 + i % 3, 3_000 + i * 7)).collect();
        times.extend((0..20).map(|i| (100 + i, 300_000 + i * 1_000)));
        times[50].1 = 4_000_000;
        let flagged = pick(span(&times));
        assert_eq!(
            flagged.len(),
            1,
            "{:?}",
            flagged.iter().map(|f| f.0.ns).collect::<Vec<_>>()
        );
        assert_eq!((flagged[0].0.block, flagged[0].0.i), (0, 50));
        assert!(flagged[0].1 < 20_000, "bound {}", flagged[0].1);
    }

    #[test]
    fn a_solver_without_counters_is_judged_against_its_own_times() {
        // Effort 1 everywhere: the ranks are positions; 3 us times and one
        // of 30 us.
        let mut times: Vec<(u64, u64)> = (0..100).map(|_| (1, 3_000)).collect();
        times[10].1 = 30_000;
        let flagged = pick(span(&times));
        assert_eq!(flagged.len(), 1);
        assert_eq!(flagged[0].0.i, 10);
    }

    #[test]
    fn at_most_one_in_eight_is_measured_again_the_worst_first() {
        let mut times: Vec<(u64, u64)> = (0..64).map(|_| (1, 1_000)).collect();
        for (k, t) in times.iter_mut().enumerate().take(32).skip(16) {
            t.1 = 100_000 + k as u64;
        }
        times[40].1 = 9_000_000;
        let flagged = pick(span(&times));
        assert!(flagged.len() <= 8, "{}", flagged.len());
        assert!(flagged.iter().any(|f| f.0.i == 40));
    }

    proptest::proptest! {
        /// The sliding minimum is the least rate of each rank's window.
        #[test]
        fn window_minima_are_the_least_of_each_window(
            rates in proptest::collection::vec(0.0f64..1e6, 1..200),
        ) {
            let least = window_minima(&rates);
            for (s, &got) in least.iter().enumerate() {
                let want = around(rates.len(), s).map(|t| rates[t]).fold(f64::INFINITY, f64::min);
                proptest::prop_assert_eq!(got, want, "rank {}", s);
            }
        }

        /// The prefilter never hides an outlier: with it, exactly the
        /// times over their exact bound are flagged (up to the share).
        #[test]
        fn the_floor_never_hides_a_time_over_its_bound(
            times in proptest::collection::vec((1u64..5_000, 1u64..50_000_000), 5..300),
        ) {
            let kept = span(&times);
            let mut sorted = kept.clone();
            sorted.sort_unstable_by_key(|x| (x.effort, x.block, x.i));
            let over = (0..sorted.len()).filter(|&s| sorted[s].ns > bound(&sorted, s)).count();
            let flagged = pick(kept.clone());
            proptest::prop_assert_eq!(flagged.len(), over.min(kept.len().div_ceil(SHARE)));
        }
    }

    #[test]
    fn too_few_puzzles_say_nothing_and_the_gap_is_kept() {
        assert!(pick(span(&[(1, 1_000), (1, 9_000_000)])).is_empty());
        let k = Kept {
            block: 3,
            i: 63,
            effort: 1,
            ns: 0,
        };
        // The last puzzle of a 256-puzzle span needs a full gap; the first
        // needs none.
        let starts = [0, 64, 128, 192];
        assert_eq!(gap_needed(&[(k, 0)], &starts, 256), GAP);
        let first = Kept {
            block: 0,
            i: 0,
            ..k
        };
        assert_eq!(gap_needed(&[(first, 0)], &starts, 256), 0);
        // Blocks of other sizes: the position is the block's start plus
        // the place in it (puzzle 150 of 256 has 105 solves after it).
        let uneven = [0, 2, 50, 130];
        let mid = Kept {
            block: 2,
            i: 100,
            ..k
        };
        assert_eq!(gap_needed(&[(mid, 0)], &uneven, 256), GAP - 105);
    }

    #[test]
    fn flagged_for_later_every_outlier_waits_with_the_gap_it_still_lacks() {
        // Two blocks of 100 puzzles by two strategies: the first strategy
        // has spikes at puzzles 10 and 190 (9 solves from the end), the
        // second none.
        let puzzle = Grid::default();
        let chunk = |spikes: &[usize], first: usize| Chunk {
            solved: (first..first + 100)
                .map(|p| {
                    let ns = if spikes.contains(&p) { 90_000 } else { 2_000 };
                    Solved::first(SolveResult::invalid(&puzzle), ns, true)
                })
                .collect(),
            ..Chunk::default()
        };
        let out: Vec<Vec<Chunk>> = [0, 100]
            .iter()
            .map(|&first| vec![chunk(&[10, 190], first), chunk(&[], first)])
            .collect();
        let late = flag_all(&out, &[0, 100], 200);
        assert_eq!(late.0.len(), 1, "only the first strategy has outliers");
        let Waiting { k, flagged, fill } = &late.0[0];
        assert_eq!(*k, 0);
        let at: Vec<(usize, usize)> = flagged.iter().map(|(x, _)| (x.block, x.i)).collect();
        // Both wait, even the one already far enough from the span's end;
        // the filler is what the later one lacks.
        assert_eq!(at, [(0, 10), (1, 90)]);
        assert_eq!(*fill, GAP - 9);
        // Nothing to flag: nothing waits.
        let quiet: Vec<Vec<Chunk>> = vec![vec![chunk(&[], 0)]];
        assert!(flag_all(&quiet, &[0], 100).is_empty());
    }
}
