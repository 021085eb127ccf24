//! A run's `meta.json`: written as the run starts (saying it did not
//! finish, so that a run killed before its results leaves a directory that
//! says so, and a supervisor can rebuild the results from it and the rows),
//! and settled when the measurement ends.

use super::plan::Plan;
use super::RunArgs;
use crate::bench::sysinfo;
use crate::bench::{self, RunOptions};
use crate::report;
use crate::results::meta::{
    self as meta_schema, DatasetMeta, HarnessMeta, Meta, RunOptionsMeta, StagesMeta, StrategyMeta,
};
use anyhow::Context;
use std::path::Path;

/// The run's facts as it starts, written to `out/meta.json` marked as not
/// finished.
pub(super) fn start(
    args: &RunArgs,
    plan: &Plan,
    infos: &[bench::DatasetInfo],
    out: &Path,
) -> anyhow::Result<Meta> {
    let (timer_overhead_ns, timer_resolution_ns) = sysinfo::timer_overhead();
    let opts = &plan.opts;
    let mut meta = Meta {
        tool: "bench-sudoku".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        git_commit: sysinfo::git_commit(),
        revision: args.revision.clone(),
        command_line: sysinfo::command_line(),
        cpu_model: sysinfo::cpu_model(),
        logical_cores: sysinfo::logical_cores(),
        threads: opts.threads,
        os: sysinfo::os_description(),
        arch: std::env::consts::ARCH.into(),
        rustc: env!("BENCH_SUDOKU_RUSTC_VERSION").into(),
        target: env!("BENCH_SUDOKU_TARGET").into(),
        target_features: sysinfo::target_features(),
        cpu_features: sysinfo::cpu_features(),
        started: sysinfo::now_rfc3339(),
        run_id: Some(sysinfo::new_run_id()),
        finished: None,
        timer_overhead_ns,
        timer_resolution_ns,
        options: options(args, plan),
        datasets: datasets(infos, None),
        processed: 0,
        complete: false,
        stopped: Some(
            "the run did not finish writing its results (it was running, or its process was killed)"
                .into(),
        ),
        merged_from: Vec::new(),
        harness: None,
        debug_build: cfg!(debug_assertions),
        load_average: sysinfo::load_average(),
    };
    report::json::write_meta(&meta, out)
        .with_context(|| format!("writing the results in {}: meta.json", out.display()))?;
    meta.stopped = None;
    Ok(meta)
}

/// The options as `meta.json` records them.
fn options(args: &RunArgs, plan: &Plan) -> RunOptionsMeta {
    let opts = &plan.opts;
    let several = opts.strategies.len() > 1;
    RunOptionsMeta {
        strategies: opts
            .strategies
            .iter()
            .map(|s| s.name().to_string())
            .collect(),
        repeat: opts.repeat,
        warmup: opts.warmup,
        solution_limit: opts.limits.solutions,
        max_guesses: opts.limits.max_guesses,
        limit: opts.limit,
        shuffle: opts.shuffle,
        seed: opts.seed,
        batch_size: opts.batch_size,
        puzzle_csv: !args.no_puzzle_csv,
        skip_invalid: opts.skip_invalid,
        time_kept: time_kept(opts).into(),
        timing: if opts.practised { "practised" } else { "cold" }.into(),
        shard: opts.shard.map(|s| s.to_string()),
        strategy_details: opts
            .strategies
            .iter()
            .map(|s| {
                let mut m = StrategyMeta::of(s);
                let own = opts.passes_of(s.name());
                m.passes =
                    (own.warmup != opts.warmup || own.repeat != opts.repeat.max(1)).then_some(own);
                m
            })
            .collect(),
        timeout: plan
            .external
            .then(|| humantime::format_duration(args.engine.solvers.timeout).to_string()),
        schedule: several.then(|| {
            if opts.sequential {
                "sequential"
            } else {
                "interleaved"
            }
            .to_string()
        }),
        baseline: (several && !opts.sequential).then(|| plan.baseline.clone()),
        transform: opts.transform,
    }
}

/// The datasets as `meta.json` records them; their counts and content
/// hashes once measured.
fn datasets(infos: &[bench::DatasetInfo], results: Option<&bench::RunResults>) -> Vec<DatasetMeta> {
    infos
        .iter()
        .enumerate()
        .map(|(k, i)| DatasetMeta {
            name: i.name.clone(),
            path: i.path.display().to_string(),
            format: i.format.as_str().to_string(),
            gzip: i.gzip,
            has_solutions: i.has_solutions,
            puzzles: results.map_or(0, |r| r.puzzles_per_dataset[k]),
            skipped: results.map_or(0, |r| r.skipped_per_dataset[k]),
            content_hash: results
                .and_then(|r| r.content_per_dataset[k])
                .map(meta_schema::content_hash),
            source_hash: None,
            repeated_puzzles: results.map_or(0, |r| r.repeats_per_dataset[k]),
        })
        .collect()
}

/// Settles `meta` once the measurement ended: when, how far it got, what
/// the harness cost, each dataset's counts.
pub(super) fn finish(
    meta: &mut Meta,
    results: &bench::RunResults,
    infos: &[bench::DatasetInfo],
    threads: usize,
) {
    meta.finished = Some(sysinfo::now_rfc3339());
    meta.processed = results.processed;
    meta.harness = Some(harness(results, threads));
    meta.complete = results.stopped.is_none();
    meta.stopped = results.stopped.as_ref().map(|s| s.to_string());
    meta.datasets = datasets(infos, Some(results));
    // A shard names the whole file it is a part of, so that `merge` can
    // tell shards of one file from shards of two.
    if meta.options.shard.is_some() {
        for (d, i) in meta.datasets.iter_mut().zip(infos) {
            d.source_hash = crate::dataset::source_hash(&i.source).ok();
        }
    }
}

/// What the harness cost in a run (see [`HarnessMeta`]).
fn harness(results: &bench::RunResults, threads: usize) -> HarnessMeta {
    let per = |ns: u64| {
        if results.processed == 0 {
            0.0
        } else {
            round2(ns as f64 / results.processed as f64)
        }
    };
    let s = &results.serial;
    let solve = results
        .units
        .iter()
        .fold(0u64, |a, u| a.saturating_add(u.solve_ns_total));
    let one_pass = results.units.iter().all(|u| u.passes == 1);
    HarnessMeta {
        layout: results.layout.to_string(),
        solver_threads: threads,
        helper_threads: results.helper_threads,
        read_ns_per_puzzle: per(s.read_ns),
        write_ns_per_puzzle: per(s.write_ns),
        serial_ns_per_puzzle: per(s.read_ns + s.write_ns),
        cpu_ns: results.cpu_ns,
        // Both defined with one pass over each puzzle: with warm-up or
        // repeated passes only the fastest solve of each is kept, and the
        // other passes' solves would count as harness.
        harness_cpu_pct: results
            .cpu_ns
            .filter(|_| solve > 0 && one_pass)
            .map(|cpu| round2((cpu as f64 - solve as f64) * 100.0 / solve as f64)),
        solve_loop_ns_per_puzzle: one_pass.then(|| per(results.solving_ns.saturating_sub(solve))),
        preempted_solves: Some(crate::solver::stopwatch::preempted_solves()).filter(|&n| n > 0),
        withdrawn_batches: Some(crate::solver::stopwatch::withdrawn_batches()).filter(|&n| n > 0),
        stages: results.stages.map(|t| StagesMeta {
            prepare_ns_per_puzzle: per(t.prepare_ns),
            finish_ns_per_puzzle: per(t.finish_ns),
        }),
    }
}

/// Rounds to two decimals (the precision these figures carry).
fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// How the kept time of a puzzle was measured, in words (meta.json
/// `time_kept`, shown by the reports).
fn time_kept(opts: &RunOptions) -> &'static str {
    match (opts.practised, opts.repeat + opts.warmup > 1) {
        (false, true) => {
            "minimum over the measured passes; cold: each pass over a whole batch before the \
             next; outliers re-measured"
        }
        (false, false) => "one cold solve per puzzle; outliers re-measured",
        (true, true) => {
            "minimum over the measured passes; practised: each chunk's passes back to back; \
             outliers re-measured"
        }
        (true, false) => "one solve per puzzle; outliers re-measured",
    }
}
