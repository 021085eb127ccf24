//! A run's plan, settled from its options before any work: the strategies
//! (external solvers loaded or started here: one that cannot be stops the
//! run before anything is created, each at its revision), the gate, the
//! baseline every strategy is paired with, and the options of the pipeline.

use super::progress::{self, ProgressMode};
use super::{strategies, RunArgs, Undecided};
use crate::bench::{sysinfo, Passes, RunOptions};
use crate::commands::compare::FailOn;
use crate::compare::gate::Gate;
use crate::report::Exporter;
use crate::results::meta::COLD_SOLVES;
use crate::solver::{Engine, Limits, Strategy};

/// What a run will do.
pub(super) struct Plan {
    pub(super) opts: RunOptions,
    pub(super) gate: Option<Gate>,
    /// The label every strategy is paired with.
    pub(super) baseline: String,
    /// Some strategy is an external solver.
    pub(super) external: bool,
    /// The `--export` formats, in order.
    pub(super) trackers: Vec<Box<dyn Exporter>>,
    pub(super) progress: ProgressMode,
}

/// Settles the plan of `args`.
pub(super) fn plan(args: &RunArgs) -> anyhow::Result<Plan> {
    let ctx = args.engine.solvers.context(args.engine.max_guesses)?;
    let mut strategies = strategies(&args.strategies, &ctx)?;
    for s in &mut strategies {
        s.resolve_revision(args.revision.as_deref());
    }
    let external = strategies
        .iter()
        .any(|s| matches!(s.engine(), Engine::External(_)));
    let trackers = crate::commands::export::tracker_exporters(&args.export)?;
    let labels: Vec<&str> = strategies.iter().map(|s| s.name()).collect();
    let gate = gate(args, &labels)?;
    let (baseline, at) = baseline(args, gate.as_ref(), &labels)?;
    let gate_pair = gate.as_ref().map(|g| {
        let at = |l: &str| labels.iter().position(|x| *x == l).unwrap_or(0);
        (at(&g.candidate), at(&g.base))
    });
    let mut opts = options(args, strategies, gate.is_some());
    opts.baseline = at;
    opts.gate_pair = gate_pair;
    Ok(Plan {
        opts,
        gate,
        baseline,
        external,
        trackers,
        progress: progress::mode(args.quiet, args.progress),
    })
}

/// `--gate BASE:CANDIDATE` and its options, checked against the labels.
fn gate(args: &RunArgs, labels: &[&str]) -> anyhow::Result<Option<Gate>> {
    let Some(spec) = &args.gate else {
        return Ok(None);
    };
    if args.sequential {
        anyhow::bail!("--gate pairs the puzzles of an interleaved run: drop --sequential");
    }
    if !(args.threshold.is_finite() && args.threshold >= 0.0) {
        anyhow::bail!("--threshold {}: expected a percentage >= 0", args.threshold);
    }
    let (base, candidate) = Gate::parse(spec, labels).map_err(anyhow::Error::msg)?;
    Ok(Some(Gate {
        base,
        candidate,
        threshold: args.threshold,
        fail_on_counters: args.fail_on == Some(FailOn::Counters),
        undecided_passes: args.undecided == Undecided::Pass,
    }))
}

/// The baseline's label and index: `--baseline`, else the gate's BASE,
/// else `fast` when the run has it (the yardstick every solver author
/// knows), else the first strategy. The gate pairs CANDIDATE with BASE whatever the
/// baseline: with `--baseline OTHER` (a yardstick such as fast) every
/// strategy is also paired with OTHER.
fn baseline(
    args: &RunArgs,
    gate: Option<&Gate>,
    labels: &[&str],
) -> anyhow::Result<(String, usize)> {
    let label = match (&args.baseline, gate) {
        (Some(b), _) => b.clone(),
        (None, Some(g)) => g.base.clone(),
        (None, None) => labels
            .iter()
            .find(|l| **l == "fast")
            .unwrap_or(&labels[0])
            .to_string(),
    };
    let at = labels.iter().position(|l| *l == label).ok_or_else(|| {
        anyhow::anyhow!(
            "--baseline {label}: not a strategy of the run ({})",
            labels.join(", ")
        )
    })?;
    if args.sequential && args.baseline.is_some() {
        anyhow::bail!("--baseline pairs the puzzles of an interleaved run: drop --sequential");
    }
    Ok((label, at))
}

/// The pipeline's options (the baseline and the gate's pair set by the
/// caller): three measured passes with a gate, one warm-up when the
/// strategies are interleaved.
fn options(args: &RunArgs, strategies: Vec<Strategy>, gated: bool) -> RunOptions {
    let several = strategies.len() > 1;
    let repeat = args.repeat.unwrap_or(if gated { 3 } else { 1 }).max(1);
    let warmup = args
        .warmup
        .unwrap_or(if several && !args.sequential { 1 } else { 0 });
    let batch_size = args
        .batch_size
        .unwrap_or_else(|| default_batch(repeat + warmup))
        .max(1);
    RunOptions {
        datasets: args.datasets.clone(),
        threads: match args.threads.first().copied().unwrap_or(0) {
            0 => sysinfo::logical_cores(),
            n => n,
        },
        repeat,
        warmup,
        practised: args.practised,
        limit: args.limit,
        shuffle: args.shuffle,
        transform: args.transform,
        seed: args.seed,
        limits: Limits::first()
            .with_solutions(args.count)
            .with_max_guesses(args.engine.max_guesses),
        format: args.format,
        batch_size,
        skip_invalid: args.skip_invalid,
        shard: args.shard,
        sequential: args.sequential,
        baseline: 0,
        gate_pair: None,
        rotation: 0,
        strategy_passes: own_passes(&strategies, repeat, warmup),
        passes_given: args.repeat.is_some() || args.warmup.is_some(),
        strategies,
    }
}

/// The strategies whose specs asked for passes of their own (`repeat=`,
/// `warmup=`), each key it did not give taken from the run's.
fn own_passes(strategies: &[Strategy], repeat: u32, warmup: u32) -> Vec<(String, Passes)> {
    strategies
        .iter()
        .filter_map(|s| match s.passes() {
            (None, None) => None,
            (r, w) => Some((
                s.name().to_string(),
                Passes {
                    repeat: r.unwrap_or(repeat),
                    warmup: w.unwrap_or(warmup),
                },
            )),
        })
        .collect()
}

/// The batch size without `--batch-size`: [`crate::bench::DEFAULT_BATCH`],
/// or in a supervised child (a library loaded into the process) smaller
/// batches, so that the rows written before the library takes the process
/// down lose at most a small batch per thread. With repeated passes a
/// batch stays large enough for cold repeats: a strategy's repeats of a
/// puzzle are a batch of its own solves apart, and that must be
/// [`COLD_SOLVES`] whatever the number of strategies, since the other
/// strategies' solves in between do not make the puzzle cold for it
/// (docs/MEASUREMENT.md, "Cold by default").
fn default_batch(passes: u32) -> usize {
    #[cfg(unix)]
    let supervised = crate::board::this().is_some();
    #[cfg(not(unix))]
    let supervised = false;
    if !supervised {
        return crate::bench::DEFAULT_BATCH;
    }
    if passes > 1 {
        COLD_SOLVES.max(SUPERVISED_BATCH)
    } else {
        SUPERVISED_BATCH
    }
}

/// The batch size of a supervised child (without repeated passes).
const SUPERVISED_BATCH: usize = 64;
