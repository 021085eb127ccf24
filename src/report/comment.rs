//! The body of a pull-request comment for one results directory: a marker
//! that finds the comment again (so a CI job updates its comment in place
//! rather than adding one per push), the gate's verdict as a table with its
//! reasons, and the results tables folded under it. Bytes only: the
//! `comment` command writes them, a CI script posts them.

use super::Report;
use crate::results::gate::GateRecord;
use crate::support::text::md_cell;
use std::fmt::Write as _;

/// The start of every marker; the whole marker is [`marker`].
pub const MARKER_PREFIX: &str = "<!-- bench-sudoku-comment: ";

/// The most characters a body may have (GitHub refuses a comment over
/// 65,536): past it the results tables are left out, with a line saying so.
pub const MAX_CHARS: usize = 60_000;

/// The HTML comment that marks a body as the one for `key` (one per
/// solver, say): `<!-- bench-sudoku-comment: KEY -->`, the key reduced to
/// letters, digits and `._:@+-`.
pub fn marker(key: &str) -> String {
    let key: String = key
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._:@+-".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("{MARKER_PREFIX}{key} -->")
}

/// The comment's body: the marker, the verdict (or the results' title when
/// the run had no gate), the results tables (folded under a gate), and a
/// link to the whole results when given.
pub fn render(report: &Report, gate: Option<&GateRecord>, key: &str, link: Option<&str>) -> String {
    let mut head = format!("{}\n", marker(key));
    match gate {
        Some(g) => verdict(&mut head, g),
        None => {
            let _ = writeln!(head, "### bench-sudoku results\n");
        }
    }
    if !report.meta.complete {
        let _ = writeln!(
            head,
            "**INCOMPLETE RUN**: {}\n",
            md_cell(
                report
                    .meta
                    .stopped
                    .as_deref()
                    .unwrap_or("the run stopped early")
            )
        );
    }
    let mut tail = String::new();
    if let Some(link) = link {
        let _ = writeln!(
            tail,
            "\nThe whole results (report.html, summary.json, puzzles.csv): {}",
            md_cell(link)
        );
    }
    let tables = super::markdown::tables(report);
    let body = match gate {
        Some(_) => {
            format!("\n<details><summary>Results tables</summary>\n\n{tables}\n</details>\n")
        }
        None => tables,
    };
    if head.len() + body.len() + tail.len() <= MAX_CHARS {
        format!("{head}{body}{tail}")
    } else {
        format!("{head}\nThe results tables are left out: too long for a comment (see the job summary).\n{tail}")
    }
}

/// The heading, one row per dataset, the reasons and the budget's line.
fn verdict(s: &mut String, g: &GateRecord) {
    let passes = g.verdict == "UNDECIDED" && g.exit_code == 0;
    let _ = writeln!(
        s,
        "### bench-sudoku gate: {}{} — {} vs {}\n",
        md_cell(&g.verdict),
        if passes {
            " (passing: undecided does not fail)"
        } else {
            ""
        },
        md_cell(&g.candidate),
        md_cell(&g.base)
    );
    let _ = writeln!(
        s,
        "| dataset | time | {} / {} [95% interval] | smallest change it could detect | pairs | rounds |",
        md_cell(&g.candidate),
        md_cell(&g.base)
    );
    let _ = writeln!(s, "|---|---|---:|---:|---:|---:|");
    for d in &g.datasets {
        let ratio = match (d.ratio, d.ci_low, d.ci_high) {
            (Some(r), Some(lo), Some(hi)) => format!("{r:.3}× [{lo:.3}, {hi:.3}]"),
            _ => "—".into(),
        };
        let width = d.half_width_pct.map_or("—".into(), |w| format!("±{w:.2}%"));
        let _ = writeln!(
            s,
            "| {} | {} | {ratio} | {width} | {} | {} |",
            md_cell(&d.dataset),
            md_cell(&d.time),
            d.pairs,
            d.rounds
        );
    }
    s.push('\n');
    let mut reasons = String::new();
    for d in &g.datasets {
        for (kind, lines) in [
            ("FAIL", &d.failures),
            ("not judged", &d.unjudged),
            ("note", &d.notes),
        ] {
            for l in lines {
                let _ = writeln!(reasons, "- {}: {kind}: {}", md_cell(&d.dataset), md_cell(l));
            }
        }
    }
    if !reasons.is_empty() {
        let _ = writeln!(s, "{reasons}");
    }
    let _ = writeln!(
        s,
        "Threshold ±{}%: regressed when the whole interval is above it, unchanged when wholly within it; {}.",
        g.threshold_pct,
        if g.undecided == "pass" { "an undecided gate passes" } else { "an undecided gate fails" }
    );
    if let Some(b) = &g.budget {
        let _ = writeln!(
            s,
            "Measured until decided: {} round{} in {:.1} s of a {:.0} s budget ({}).",
            b.rounds,
            if b.rounds == 1 { "" } else { "s" },
            b.elapsed_s,
            b.budget_s,
            b.ended
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marker_is_one_html_comment() {
        assert_eq!(
            marker("mysolver"),
            "<!-- bench-sudoku-comment: mysolver -->"
        );
        assert_eq!(marker("a b-->c"), "<!-- bench-sudoku-comment: a-b---c -->");
    }
}
