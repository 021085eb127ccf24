//! `bench-sudoku strategies`: the catalogue with axes and descriptions.

use super::CmdResult;
use crate::cli::StrategiesArgs;
use crate::solver::strategy::NAMED;
use crate::solver::Strategy;
use std::io::Write;

pub fn run(args: &StrategiesArgs) -> CmdResult {
    let mut out = std::io::stdout().lock();
    if args.json {
        let list: Vec<serde_json::Value> = NAMED
            .iter()
            .map(|n| {
                let s = Strategy::named(n.name).expect("catalogue name");
                serde_json::json!({
                    "name": n.name,
                    "axes": s.axes(),
                    "explosive": n.explosive,
                    "description": n.description,
                })
            })
            .collect();
        serde_json::to_writer_pretty(&mut out, &list)?;
        writeln!(out)?;
        return Ok(0);
    }
    let rows: Vec<(String, String, &str)> = NAMED
        .iter()
        .map(|n| {
            let s = Strategy::named(n.name).expect("catalogue name");
            (n.name.to_string(), s.axes(), n.description)
        })
        .collect();
    let w0 = rows.iter().map(|r| r.0.len()).max().unwrap_or(4).max(8);
    let w1 = rows.iter().map(|r| r.1.len()).max().unwrap_or(4);
    writeln!(out, "{:w0$}  {:w1$}  description", "strategy", "axes")?;
    for (name, axes, desc) in &rows {
        writeln!(out, "{name:w0$}  {axes:w1$}  {desc}")?;
    }
    writeln!(
        out,
        "\nAny other combination: -s 'prop=…,branch=…,order=…' (see `bench-sudoku strategies --help`)."
    )?;
    Ok(0)
}
