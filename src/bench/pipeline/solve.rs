//! Timing: a chunk solved by every strategy of a group, pass by pass, each
//! solve timed alone (built-in engines called directly, external solvers
//! through their per-thread instances).

use super::*;
use crate::solver::stopwatch::{self, Clock, Undisturbed, Wall};

/// One instance of an external solver per pool thread, made on the
/// thread's first chunk and dropped when the unit ends (which stops solver
/// processes and frees library states).
pub(super) struct Instances {
    pub(super) solver: std::sync::Arc<dyn ExternalSolver>,
    pub(super) slots: Vec<Mutex<Option<Box<dyn SolverInstance>>>>,
}

impl Instances {
    pub(super) fn new(solver: &std::sync::Arc<dyn ExternalSolver>, threads: usize) -> Self {
        Instances {
            solver: std::sync::Arc::clone(solver),
            slots: (0..threads.max(1)).map(|_| Mutex::new(None)).collect(),
        }
    }

    /// Solves `puzzles` with the calling pool thread's instance; when none
    /// can be made, every puzzle is `crashed` with the reason (and the next
    /// chunk tries again).
    pub(super) fn solve_batch(&self, puzzles: &[Grid], limits: &Limits, out: &mut Vec<Answer>) {
        let i = rayon::current_thread_index().unwrap_or(0) % self.slots.len();
        let mut slot = self.slots[i].lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            match self.solver.instance() {
                Ok(instance) => *slot = Some(instance),
                Err(e) => {
                    let why = format!("{e:#}");
                    out.extend(
                        puzzles
                            .iter()
                            .map(|p| Answer::fault(p, Status::Crashed, why.clone())),
                    );
                    return;
                }
            }
        }
        if let Some(instance) = slot.as_mut() {
            instance.solve_batch(puzzles, limits, out);
        }
    }
}

/// A raw result on its way to verification: the first pass's answer, and
/// what the other passes of the same puzzle showed.
pub(super) struct Solved {
    pub(super) result: SolveResult,
    /// Minimum over the measured passes (`u64::MAX`: none, or a fault).
    pub(super) time_ns: u64,
    /// The first pass's time, measured or not (`u64::MAX` on a fault).
    pub(super) first_ns: u64,
    /// Minimum over the passes after the first (`u64::MAX`: none).
    pub(super) later_ns: u64,
    /// Minimum over the measured passes of even and of odd number
    /// (`u64::MAX`: none): two independent measurements of the puzzle with
    /// two or more measured passes, whose disagreement is timing noise
    /// ([`crate::bench::paired::PassNoise`]).
    pub(super) halves: [u64; 2],
    /// The first later pass whose answer or counters differ from the
    /// first pass's.
    pub(super) changed: Changed,
    /// Its kept time was an outlier and the puzzle was solved again
    /// ([`super::remeasure`]).
    pub(super) remeasured: bool,
}

impl Solved {
    /// A first pass's result: kept as the puzzle's answer.
    #[inline(always)]
    pub(super) fn first(result: SolveResult, ns: u64, measured: bool) -> Self {
        Solved {
            result,
            time_ns: if measured { ns } else { u64::MAX },
            first_ns: ns,
            later_ns: u64::MAX,
            halves: [if measured { ns } else { u64::MAX }, u64::MAX],
            changed: Changed::NONE,
            remeasured: false,
        }
    }

    /// A later pass of the same puzzle: its time is kept when it is the
    /// fastest measured one, and its answer is compared with the first
    /// pass's (status, solution count, grid, counters), so that every
    /// answer whose time may be kept is checked, not just the first.
    #[inline(always)]
    pub(super) fn again(&mut self, result: &SolveResult, ns: u64, measured: bool, pass: u32) {
        if measured {
            self.time_ns = self.time_ns.min(ns);
            let h = &mut self.halves[(pass & 1) as usize];
            *h = (*h).min(ns);
        }
        self.later_ns = self.later_ns.min(ns);
        self.compare(result, pass);
    }

    /// A re-measurement of an outlier time (pass `pass`, after the
    /// measured ones): the minimum is kept and the answer is checked like
    /// any later pass's, but it is not a repeat (a spike removed is not a
    /// sign of a cache).
    pub(super) fn again_remeasured(&mut self, result: &SolveResult, ns: u64, pass: u32) {
        self.time_ns = self.time_ns.min(ns);
        self.remeasured = true;
        self.compare(result, pass);
    }

    #[inline(always)]
    fn compare(&mut self, result: &SolveResult, pass: u32) {
        if self.changed.pass == 0 {
            let r = &self.result;
            let answer = r.status != result.status
                || r.solutions != result.solutions
                || r.grid != result.grid;
            if answer || r.counters != result.counters {
                self.changed = Changed {
                    pass: pass + 1,
                    answer,
                };
            }
        }
    }
}

/// Whether a later pass of a puzzle answered otherwise than its first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Changed {
    /// The 1-based pass that first differed (0: none did).
    pub(super) pass: u32,
    /// Its status, solution count or grid differ (a wrong answer of the
    /// puzzle); otherwise only its counters do.
    pub(super) answer: bool,
}

impl Changed {
    pub(super) const NONE: Changed = Changed {
        pass: 0,
        answer: false,
    };
}

/// What an external solver's answer carries beyond a [`Solved`]. Kept apart
/// so that the built-in engines' loop writes no more than it needs.
#[derive(Default)]
pub(super) struct Extra {
    /// An external solver's fault, or why its solution is not a grid.
    pub(super) note: Option<Box<str>>,
    /// The solver counted solutions without writing one (only the count
    /// can be checked).
    pub(super) unwritten: bool,
}

/// A chunk solved by one strategy: results in solve order, each measured
/// pass's total, the time the strategy took over the whole chunk (warm-up
/// and clock reads included) and, for an external solver, the [`Extra`] of
/// each result (empty otherwise).
#[derive(Default)]
pub(super) struct Chunk {
    pub(super) solved: Vec<Solved>,
    pub(super) extra: Vec<Extra>,
    pub(super) pass_ns: Vec<u64>,
    pub(super) busy_ns: u64,
}

/// Solves a span of puzzles `passes` times with every strategy of the job,
/// in blocks of at most `block` puzzles (fewer for slow solvers,
/// [`pace`]): each block is solved by every strategy in
/// turn, in the order [`turn`] gives for `rotation + block + pass` (so that
/// each strategy comes first as often as the others, and comes right after
/// each other as often as before it: the one that follows another on the
/// same puzzles finds them in the caches and the branch predictor).
///
/// The order of passes is the timing regime ([`Job::practised`]): cold
/// (the default), every pass goes over the whole span before the next
/// starts, so that two solves of one puzzle by one strategy are a span of
/// other solves apart and the CPU has forgotten the puzzle
/// (docs/MEASUREMENT.md, "Cold by default"); practised, a block's passes
/// run back to back. Keeps each puzzle's minimum time over the measured
/// passes and each measured pass's total, then solves again the puzzles
/// whose kept time is an outlier ([`super::remeasure`]). Returns each
/// block's offset in the span and its [`Chunk`] per strategy, in the job's
/// order.
///
/// A panic while solving ends the group: the error names the puzzle (or,
/// with an external solver, the block) and the strategy.
pub(super) fn solve_chunk(
    records: &[Record],
    job: &Job,
    rotation: usize,
    block: usize,
) -> Result<Vec<(usize, Vec<Chunk>)>, String> {
    let span = solve_span(records, job, rotation, block, Flagging::Now)?;
    span.settle(records, job, 0)
}

/// A span solved by every strategy, its outliers re-measured but those
/// too near its end ([`remeasure::early`]): a thread that goes on to
/// another span re-measures them after it ([`Span::settle`]), so that the
/// other span's solves keep them cold instead of untimed filler solves.
pub(super) struct Span {
    out: Vec<Vec<Chunk>>,
    /// An external solver's puzzles, per block.
    puzzles: Vec<Vec<Grid>>,
    /// The outliers left to re-measure; `None` until they are flagged
    /// ([`Flagging::Later`], [`Span::flag`]).
    late: Option<super::remeasure::Late>,
    /// Where each block starts in the span.
    starts: Vec<usize>,
    /// Puzzles in the span.
    len: usize,
    /// The span's last block was timed undisturbed, and so are the span's
    /// re-measurements.
    undisturbed: bool,
}

impl Span {
    /// Whether outliers are left to re-measure (or may be: not flagged
    /// yet).
    pub(super) fn has_late(&self) -> bool {
        self.late.as_ref().is_none_or(|l| !l.is_empty())
    }

    /// Flags the span's outliers, unless they are flagged already; each
    /// waits for [`Span::settle`] ([`super::remeasure::flag_all`]). Reads
    /// only the span's times and efforts, so that another thread can do
    /// it while the solving thread solves its next span.
    pub(super) fn flag(&mut self) {
        if self.late.is_none() {
            let late = super::remeasure::flag_all(&self.out, &self.starts, self.len);
            self.late = Some(late);
        }
    }

    /// Each block's offset in the span and its [`Chunk`] per strategy,
    /// the late outliers not measured again (they keep the time first
    /// measured): for a group that is ending after a panic or an
    /// abandoned solve, when the solver must not be called again.
    pub(super) fn unsettled(self) -> Vec<(usize, Vec<Chunk>)> {
        self.starts.into_iter().zip(self.out).collect()
    }

    /// Re-measures the span's late outliers (`records` are the span's) now
    /// that the calling thread has made `since` other solves after the
    /// span ([`remeasure::later`]), and returns each block's offset in the
    /// span and its [`Chunk`] per strategy, in the job's order.
    pub(super) fn settle(
        self,
        records: &[Record],
        job: &Job,
        since: usize,
    ) -> Result<Vec<(usize, Vec<Chunk>)>, String> {
        let Span {
            mut out,
            puzzles,
            late,
            starts,
            len,
            undisturbed,
        } = self;
        let late = late.unwrap_or_else(|| super::remeasure::flag_all(&out, &starts, len));
        if !late.is_empty() {
            guarded(
                || solving_what(records, job),
                || {
                    crate::solver::stopwatch::set_undisturbed(undisturbed);
                    let blocks = blocks_at(records, &starts);
                    super::remeasure::later(&blocks, &puzzles, job, &mut out, late, since);
                },
            )?;
        }
        Ok(starts.into_iter().zip(out).collect())
    }
}

/// What [`solve_chunk`] and [`Span::settle`] name when a solve panics.
fn solving_what(records: &[Record], job: &Job) -> String {
    let (i, k) = SOLVING.get();
    let which = match (records.get(i), records.first(), records.last()) {
        (Some(r), _, _) => format!("puzzle {} (line {})", r.index, r.line),
        (None, Some(a), Some(b)) => format!("one of puzzles {}–{}", a.index, b.index),
        _ => "a chunk".to_string(),
    };
    let strategy = job.strategies.get(k).map_or("?", |s| s.name());
    format!("solving {which} of {} with {strategy}", job.dataset)
}

/// When a span's outliers are flagged.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Flagging {
    /// Right after its passes, by the solving thread, which re-measures at
    /// once those that need no more solves after them
    /// ([`super::remeasure::early`]).
    Now,
    /// Before [`Span::settle`]: by another thread while the solving thread
    /// solves its next span ([`Span::flag`]), or by [`Span::settle`]
    /// itself. Every outlier then waits for the settling (a cold run's
    /// lone solver thread, which holds each span until its next is
    /// solved).
    Later,
}

/// [`solve_chunk`]'s passes and, flagging [`Flagging::Now`], the
/// re-measurement of the outliers that need no more solves after them:
/// the span as [`Span::settle`] takes it.
pub(super) fn solve_span(
    records: &[Record],
    job: &Job,
    rotation: usize,
    block: usize,
    flagging: Flagging,
) -> Result<Span, String> {
    guarded(
        || solving_what(records, job),
        || solve_span_unguarded(records, job, rotation, block.max(1), flagging),
    )
}

fn solve_span_unguarded(
    records: &[Record],
    job: &Job,
    rotation: usize,
    usual: usize,
    flagging: Flagging,
) -> Span {
    // An external solver's puzzles, made once.
    let external = job.runners.iter().any(|r| matches!(r, Runner::External(_)));
    let mut ctx = Ctx {
        job,
        #[cfg(unix)]
        board: external.then(crate::board::this_thread_slot).flatten(),
    };
    let mut cut = Cut::default();
    // The first pass (cold) or a block's passes (practised) cut the span
    // as they go, each block sized and clocked by the pace of the ones
    // before ([`pace`]).
    while cut.end < records.len() {
        let (size, undisturbed) = pace::next_block(job, usual);
        let j = cut.push(records, size, job, external, undisturbed);
        let passes = if job.practised { job.passes } else { 1 };
        for pass in 0..passes {
            cut.solve(&mut ctx, records, rotation, j, pass);
        }
        pace::observe(job, &cut.out[j], cut.len(j), passes);
    }
    if !job.practised {
        for pass in 1..job.passes {
            for j in 0..cut.out.len() {
                cut.solve(&mut ctx, records, rotation, j, pass);
            }
        }
    }
    // Outliers are re-measured on the clock of the span's last block.
    let undisturbed = cut.undisturbed.last().copied().unwrap_or(false);
    let late = (flagging == Flagging::Now).then(|| {
        crate::solver::stopwatch::set_undisturbed(undisturbed);
        let blocks = cut.blocks(records);
        super::remeasure::early(&blocks, &cut.puzzles, job, &mut cut.out)
    });
    Span {
        out: cut.out,
        puzzles: cut.puzzles,
        late,
        starts: cut.starts,
        len: records.len(),
        undisturbed,
    }
}

/// A span cut into blocks: where each starts, its chunks (one per
/// strategy), whether its solves are timed undisturbed and, with an
/// external solver, its puzzles.
#[derive(Default)]
struct Cut {
    starts: Vec<usize>,
    undisturbed: Vec<bool>,
    out: Vec<Vec<Chunk>>,
    puzzles: Vec<Vec<Grid>>,
    end: usize,
}

impl Cut {
    fn len(&self, j: usize) -> usize {
        self.starts.get(j + 1).copied().unwrap_or(self.end) - self.starts[j]
    }

    /// Adds the next block, of up to `size` puzzles; returns its number.
    fn push(
        &mut self,
        records: &[Record],
        size: usize,
        job: &Job,
        external: bool,
        undisturbed: bool,
    ) -> usize {
        let (a, b) = (self.end, (self.end + size).min(records.len()));
        self.starts.push(a);
        self.undisturbed.push(undisturbed);
        self.end = b;
        self.out.push(
            (0..job.strategies.len())
                .map(|k| Chunk {
                    solved: Vec::with_capacity(b - a),
                    extra: Vec::new(),
                    pass_ns: vec![0; job.measured(k) as usize],
                    busy_ns: 0,
                })
                .collect(),
        );
        if external {
            self.puzzles
                .push(records[a..b].iter().map(|r| r.puzzle).collect());
        }
        self.starts.len() - 1
    }

    /// Pass `pass` of block `j` by every strategy, on the block's clock.
    fn solve(&mut self, ctx: &mut Ctx, records: &[Record], rotation: usize, j: usize, pass: u32) {
        crate::solver::stopwatch::set_undisturbed(self.undisturbed[j]);
        let a = self.starts[j];
        let block = &records[a..a + self.len(j)];
        let p = self.puzzles.get(j).map_or(&[][..], |p| &p[..]);
        ctx.solve_block(block, a, p, rotation + j, pass, &mut self.out[j]);
    }

    fn blocks<'r>(&self, records: &'r [Record]) -> Vec<&'r [Record]> {
        blocks_at(records, &self.starts)
    }
}

/// The blocks of a span that start at `starts`.
pub(super) fn blocks_at<'r>(records: &'r [Record], starts: &[usize]) -> Vec<&'r [Record]> {
    starts
        .iter()
        .enumerate()
        .map(|(j, &a)| &records[a..starts.get(j + 1).copied().unwrap_or(records.len())])
        .collect()
}

/// The strategy that takes turn `j` of a block solved in order `r` by `n`
/// strategies. The orders are the rows of a Williams design: the first row
/// is `0, 1, n−1, 2, n−2, …`, row `c` adds `c` to every entry (mod `n`),
/// and for an odd `n` the `n` rows are followed by the same rows reversed.
/// Over one period (`n` orders, `2n` for an odd `n`) every strategy takes
/// every turn equally often, and every strategy comes right after every
/// other equally often. (Plain rotations would put, of three strategies,
/// the second right after the first in two orders of three and never the
/// other way round: the one that follows gains from the puzzles and the
/// branch history the other left, which would bias their pairing.) Two
/// strategies alternate who goes first.
#[inline]
pub(super) fn turn(r: usize, n: usize, j: usize) -> usize {
    let period = if n.is_multiple_of(2) { n } else { 2 * n };
    let c = r % period;
    // Turn j of the first row, read backwards in the second half.
    let at = if c < n { j } else { n - 1 - j };
    let first = if at == 0 {
        0
    } else if at % 2 == 1 {
        at.div_ceil(2)
    } else {
        n - at / 2
    };
    (first + c) % n
}

/// What solving a block needs beside the block.
pub(super) struct Ctx<'j, 'a> {
    pub(super) job: &'j Job<'a>,
    /// The calling thread's slot on a supervised run's board (external
    /// strategies only), where the block's puzzles are named so that the
    /// supervisor can say which one a library died or hung on.
    #[cfg(unix)]
    pub(super) board: Option<crate::board::SlotRef<'static>>,
}

impl Ctx<'_, '_> {
    /// One pass of a block (records `base..` of the span) by every
    /// strategy, in the rotated order.
    fn solve_block(
        &mut self,
        records: &[Record],
        base: usize,
        puzzles: &[Grid],
        rotation: usize,
        pass: u32,
        out: &mut [Chunk],
    ) {
        let job = self.job;
        let n = job.strategies.len();
        #[cfg(unix)]
        if let Some(slot) = &self.board {
            slot.chunk(records.iter().map(|r| (r.index, r.line)));
        }
        for j in 0..n {
            let k = turn(rotation + pass as usize, n, j);
            if pass >= job.passes_of(k) {
                // A strategy with fewer passes than another has made them.
                continue;
            }
            let start = Instant::now();
            match &job.runners[k] {
                Runner::Builtin(b) => {
                    solve_pass_builtin(records, base, job, b, k, pass, &mut out[k])
                }
                Runner::External(instances) => {
                    SOLVING.set((usize::MAX, k));
                    #[cfg(unix)]
                    if let Some(slot) = &self.board {
                        slot.strategy(k);
                    }
                    if records.iter().any(|r| r.candidates().is_some()) {
                        pencilmark_faults(records, pass, &mut out[k]);
                    } else {
                        solve_pass_external(puzzles, job, instances, k, pass, &mut out[k])
                    }
                }
            }
            out[k].busy_ns += start.elapsed().as_nanos() as u64;
        }
    }
}

/// One pass of [`solve_chunk`] for a built-in engine, called directly
/// (static dispatch). Each solve is timed alone on the thread's clock
/// ([`stopwatch`]: the monotonic clock, or undisturbed for slow blocks);
/// nothing else happens between the two clock reads. Warm-up times are not
/// kept.
pub(super) fn solve_pass_builtin(
    records: &[Record],
    base: usize,
    job: &Job,
    builtin: &Builtin,
    k: usize,
    pass: u32,
    chunk: &mut Chunk,
) {
    let total = if stopwatch::undisturbed() {
        pass_builtin::<Undisturbed>(records, base, job, builtin, k, pass, chunk)
    } else {
        pass_builtin::<Wall>(records, base, job, builtin, k, pass, chunk)
    };
    if pass >= job.warmup(k) {
        chunk.pass_ns[(pass - job.warmup(k)) as usize] = total;
    }
}

/// [`solve_pass_builtin`]'s loop on clock `C`; returns the pass's total
/// time. A function of its own (per clock), so that the code around the
/// clock reads is chosen for this loop alone.
#[inline(never)]
fn pass_builtin<C: Clock>(
    records: &[Record],
    base: usize,
    job: &Job,
    builtin: &Builtin,
    k: usize,
    pass: u32,
    chunk: &mut Chunk,
) -> u64 {
    let measured = pass >= job.warmup(k);
    let first = pass == 0;
    let solved = &mut chunk.solved;
    let mut total = 0u64;
    SOLVER.with(|s| {
        let mut solver = s.borrow_mut();
        for (i, rec) in records.iter().enumerate() {
            // Outside the timed region: which puzzle, should the solve panic.
            SOLVING.set((base + i, k));
            let t = C::start();
            let result = solver.solve_builtin_with(
                &rec.puzzle,
                rec.candidates(),
                builtin,
                job.limits,
                &mut NoopObserver,
            );
            let ns = C::stop(t);
            #[cfg(test)]
            let ns = ns + spikes::extra(job.dataset, rec.index);
            total += ns;
            if first {
                solved.push(Solved::first(result, ns, measured));
            } else {
                solved[i].again(&result, ns, measured, pass);
            }
        }
    });
    total
}

/// A chunk of pencilmark puzzles for an external solver, which takes
/// 81-cell puzzles only: every puzzle is an `error` outcome saying so
/// (nothing is sent to the solver).
fn pencilmark_faults(records: &[Record], pass: u32, chunk: &mut Chunk) {
    if pass > 0 {
        return;
    }
    for rec in records {
        let a = Answer::fault(
            &rec.puzzle,
            Status::Error,
            crate::solver::PENCILMARK_EXTERNAL,
        );
        chunk.solved.push(Solved::first(a.result, u64::MAX, false));
        chunk.extra.push(Extra {
            note: a.note,
            unwritten: false,
        });
    }
}

/// One pass of [`solve_chunk`] for an external solver: the chunk goes to
/// the thread's instance as one batch (a solver process gets its requests
/// pipelined), and each answer carries its time. A puzzle that fails in any
/// pass keeps its first fault; a later answer that differs from the first
/// (in status, count, grid, counters, or in what is wrong with it) is
/// recorded ([`Solved::again`]).
pub(super) fn solve_pass_external(
    puzzles: &[Grid],
    job: &Job,
    instances: &Instances,
    k: usize,
    pass: u32,
    chunk: &mut Chunk,
) {
    let measured = pass >= job.warmup(k);
    let mut answers = Vec::with_capacity(puzzles.len());
    instances.solve_batch(puzzles, job.limits, &mut answers);
    debug_assert_eq!(answers.len(), puzzles.len());
    let mut total = 0u64;
    for (i, a) in answers.into_iter().enumerate() {
        let fault = a.result.status.is_fault();
        let ns = if fault { 0 } else { a.time_ns.unwrap_or(0) };
        // A solver's own clock can report any u64: the total saturates.
        total = total.saturating_add(ns);
        if pass == 0 {
            let s = if fault {
                Solved::first(a.result, u64::MAX, false)
            } else {
                Solved::first(a.result, ns, measured)
            };
            chunk.solved.push(s);
            chunk.extra.push(Extra {
                note: a.note,
                unwritten: a.unwritten,
            });
            continue;
        }
        let (Some(s), Some(e)) = (chunk.solved.get_mut(i), chunk.extra.get_mut(i)) else {
            break;
        };
        external_again(s, e, a, ns, pass, Later::Pass { measured });
    }
    if measured {
        chunk.pass_ns[(pass - job.warmup(k)) as usize] = total;
    }
}

/// What a later solve of a puzzle is.
#[derive(Clone, Copy)]
pub(super) enum Later {
    /// A pass after the first (its time kept when `measured`).
    Pass { measured: bool },
    /// A re-measurement of an outlier ([`super::remeasure`]).
    Remeasure,
}

/// Takes an external solver's later answer `a` (timed `ns`, in pass
/// `pass`) of a puzzle whose first answer is `s` and `e`. A puzzle that
/// failed keeps its first fault; a fault now replaces the answer (the
/// solver fails on a puzzle it answered before); otherwise the answer is
/// compared with the first ([`Solved::again`]), what is wrong with it
/// included: one that turns bad (or good) differs from the first.
pub(super) fn external_again(
    s: &mut Solved,
    e: &mut Extra,
    a: Answer,
    ns: u64,
    pass: u32,
    later: Later,
) {
    if s.result.status.is_fault() {
        return;
    }
    if a.result.status.is_fault() {
        *s = Solved::first(a.result, u64::MAX, false);
        *e = Extra {
            note: a.note,
            unwritten: false,
        };
        return;
    }
    match later {
        Later::Pass { measured } => s.again(&a.result, ns, measured, pass),
        Later::Remeasure => s.again_remeasured(&a.result, ns, pass),
    }
    if s.changed.pass == 0 && (e.note.is_some() != a.note.is_some() || e.unwritten != a.unwritten) {
        s.changed = Changed {
            pass: pass + 1,
            answer: true,
        };
    }
}

/// Test builds only: spikes made on purpose, to test that they are
/// measured again.
#[cfg(test)]
pub(super) mod spikes {
    use std::sync::Mutex;

    /// Puzzles (a part of the dataset's name, the puzzle's index) whose
    /// next solve by a built-in engine is measured [`SPIKE_NS`] longer, as
    /// if the thread had been preempted.
    static AT: Mutex<Vec<(&str, u64)>> = Mutex::new(Vec::new());
    pub(in crate::bench::pipeline) const SPIKE_NS: u64 = 20_000_000;

    /// Adds spikes to make (beside those of tests running at the same
    /// time).
    pub(in crate::bench::pipeline) fn add(spikes: &[(&'static str, u64)]) {
        AT.lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(spikes);
    }

    /// Whether every spike on datasets whose name holds `part` was made.
    pub(in crate::bench::pipeline) fn made(part: &str) -> bool {
        let at = AT.lock().unwrap_or_else(|e| e.into_inner());
        !at.iter().any(|(d, _)| d.contains(part))
    }

    pub(super) fn extra(dataset: &str, index: u64) -> u64 {
        let mut at = AT.lock().unwrap_or_else(|e| e.into_inner());
        match at
            .iter()
            .position(|&(d, i)| i == index && dataset.contains(d))
        {
            Some(p) => {
                at.swap_remove(p);
                SPIKE_NS
            }
            None => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::turn;

    #[test]
    fn turns_are_balanced_in_place_and_in_succession() {
        for n in 1..7 {
            let mut at = vec![vec![0; n]; n];
            let mut after = vec![vec![0; n]; n];
            for r in 5..5 + 2 * n {
                let order: Vec<usize> = (0..n).map(|j| turn(r, n, j)).collect();
                let mut seen = order.clone();
                seen.sort_unstable();
                assert_eq!(seen, (0..n).collect::<Vec<_>>(), "a permutation");
                for (j, &k) in order.iter().enumerate() {
                    at[k][j] += 1;
                }
                for w in order.windows(2) {
                    after[w[0]][w[1]] += 1;
                }
            }
            assert!(at.iter().flatten().all(|&c| c == 2), "n={n}: {at:?}");
            let pairs: Vec<i32> = (0..n)
                .flat_map(|a| (0..n).filter(move |&b| b != a).map(move |b| (a, b)))
                .map(|(a, b)| after[a][b])
                .collect();
            assert!(pairs.windows(2).all(|w| w[0] == w[1]), "n={n}: {after:?}");
        }
        // Two strategies alternate who goes first, as they always did.
        let firsts: Vec<usize> = (0..4).map(|r| turn(r, 2, 0)).collect();
        assert_eq!(firsts, [0, 1, 0, 1]);
    }
}
