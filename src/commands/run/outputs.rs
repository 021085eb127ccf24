//! Where a run writes: its results directory, created and claimed before
//! any work (`--out`, or a new `results/<dataset-stem>-<UTC timestamp>/`),
//! and every other file it was asked to write (`--export`,
//! `--gate-summary`), each checked against the run's inputs and results.

use super::RunArgs;
use crate::bench::{self, sysinfo};
use crate::results::{self, claim::Claim, dest::Dest, dest::Guard};
use std::path::{Path, PathBuf};

/// The results directory of a run, held for the whole run, and the other
/// files it writes, each checked against the run's inputs and results.
pub(super) struct Outputs {
    /// Released (its lock file removed) when the run ends.
    _claim: Claim,
    /// One per `--export FORMAT FILE`, in order.
    pub(super) exports: Vec<Dest>,
    pub(super) gate_summary: Option<Dest>,
}

/// A guard that knows the run's inputs: its datasets, and every solver's
/// library, program or script and `--solvers` file, so that no output
/// replaces one of them.
pub(super) fn inputs_guard(args: &RunArgs) -> anyhow::Result<Guard> {
    let mut guard = Guard::new();
    for d in &args.datasets {
        guard.reads_file("the dataset", d);
    }
    let specs = super::specs(args);
    args.engine.solvers.guard(
        specs.iter().map(String::as_str),
        args.engine.max_guesses,
        &mut guard,
    )?;
    Ok(guard)
}

/// Creates and claims the results directory (`--out`, or a new
/// `results/<dataset-stem>-<UTC timestamp>[-N]/`) and checks every other
/// output the run was asked to write, before any work.
pub(super) fn output_dir(
    args: &RunArgs,
    infos: &[bench::DatasetInfo],
) -> anyhow::Result<(PathBuf, Outputs)> {
    let mut guard = inputs_guard(args)?;
    let Some(d) = &args.out else {
        let stem = match infos {
            [one] => one.name.clone(),
            [first, rest @ ..] => format!("{}+{}", first.name, rest.len()),
            [] => "run".into(),
        };
        let claim = Claim::fresh(&Path::new("results").join(format!(
            "{}-{}",
            crate::support::names::file_safe(&stem),
            sysinfo::now_stamp()
        )))?;
        let dir = claim.dir().to_path_buf();
        guard.writes_results(&dir);
        return match other_outputs(args, &mut guard) {
            Ok((exports, gate_summary)) => Ok((
                dir,
                Outputs {
                    _claim: claim,
                    exports,
                    gate_summary,
                },
            )),
            Err(e) => {
                // The directory was made for this run: not left behind.
                drop(claim);
                let _ = std::fs::remove_dir(&dir);
                Err(e)
            }
        };
    };
    let mut writes: Vec<&str> = results::FILES.to_vec();
    writes.push(results::claim::LOCK);
    guard.dir("--out", d, &writes)?;
    guard.writes_results(d);
    let (exports, gate_summary) = other_outputs(args, &mut guard)?;
    let claim = Claim::create("--out", d)?;
    // Under the claim: no other run removes or writes results here between
    // this check and the end of the run.
    if results::holds_results(d) {
        if !args.force {
            anyhow::bail!(
                "--out {}: already holds results; choose another directory or pass --force to replace them",
                d.display()
            );
        }
        results::remove(d)?;
    }
    Ok((
        claim.dir().to_path_buf(),
        Outputs {
            _claim: claim,
            exports,
            gate_summary,
        },
    ))
}

/// `--export` files and `--gate-summary`, checked.
fn other_outputs(args: &RunArgs, guard: &mut Guard) -> anyhow::Result<(Vec<Dest>, Option<Dest>)> {
    let exports = args
        .export
        .chunks(2)
        .filter_map(|c| c.get(1))
        .map(|file| guard.file("--export", Path::new(file)))
        .collect::<anyhow::Result<_>>()?;
    let gate_summary = args
        .gate_summary
        .as_deref()
        .map(|f| guard.file("--gate-summary", f))
        .transpose()?;
    Ok((exports, gate_summary))
}
