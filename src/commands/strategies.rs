//! `bench-sudoku strategies`: the catalogue with axes and descriptions, and
//! the external solvers of `--solvers` files (each loaded or started, so a
//! broken entry shows here first).

use super::args::SolverArgs;
use super::CmdResult;
use crate::solver::strategy::NAMED;
use crate::solver::{Strategy, DEFAULT_MAX_GUESSES};
use clap::Args;
use std::fmt::Write as _;

#[derive(Debug, Args)]
pub struct StrategiesArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Also list (and check) the external solvers of these TOML files.
    #[command(flatten)]
    pub solvers: SolverArgs,
}

pub fn run(args: &StrategiesArgs) -> CmdResult {
    let mut strategies: Vec<(Strategy, bool)> = NAMED
        .iter()
        .map(|n| {
            (
                Strategy::named(n.name).expect("catalogue name"),
                n.explosive,
            )
        })
        .collect();
    let ctx = args.solvers.context(DEFAULT_MAX_GUESSES)?;
    for (label, solver) in crate::solver::external::registered() {
        strategies.push((Strategy::external(label, solver), false));
    }
    for label in ctx.solvers.keys() {
        strategies.push((Strategy::parse_in(label, &ctx)?, false));
    }
    if args.json {
        let list: Vec<serde_json::Value> = strategies
            .iter()
            .map(|(s, explosive)| {
                let caps = s.capabilities();
                serde_json::json!({
                    "name": s.name(),
                    "kind": s.kind(),
                    "axes": s.axes(),
                    "explosive": explosive,
                    "counters": caps.counters,
                    "clock": caps.clock,
                    "budget": caps.budget,
                    "trace": caps.trace,
                    "description": s.description(),
                })
            })
            .collect();
        let mut text = serde_json::to_string_pretty(&list)?;
        text.push('\n');
        super::print_text(&text)?;
        return Ok(0);
    }
    let rows: Vec<(String, String, String)> = strategies
        .iter()
        .map(|(s, _)| (s.name().to_string(), s.axes(), s.description()))
        .collect();
    let w0 = rows.iter().map(|r| r.0.len()).max().unwrap_or(4).max(8);
    let w1 = rows.iter().map(|r| r.1.len()).max().unwrap_or(4);
    let mut out = String::new();
    let _ = writeln!(out, "{:w0$}  {:w1$}  description", "strategy", "axes");
    for (name, axes, desc) in &rows {
        let _ = writeln!(out, "{name:w0$}  {axes:w1$}  {desc}");
    }
    let _ = writeln!(
        out,
        "\nAny other combination: -s 'prop=…,branch=…,order=…'; an external solver: -s 'lib=PATH,…' or \
         -s 'cmd=COMMAND' (see `bench-sudoku strategies --help`)."
    );
    super::print_text(&out)?;
    Ok(0)
}
