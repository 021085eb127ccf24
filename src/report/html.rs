//! `report.html`: the page a person opens after a run. One self-contained
//! file — inline CSS and SVG, no script, no network — with the comparison
//! table, the charts of every dataset, the mismatches and skipped rows, and
//! the facts of the run (machine, build, options, timer overhead).
//!
//! The page depends only on what the results directory holds
//! (`summary.json`, `histograms/*.hdr`, `puzzles.csv`), so
//! `bench-sudoku report DIR` writes the same bytes as the run did.

use super::charts::{self, Chart, ChartKind};
use super::terminal::{clock_notes, rows, COLUMNS};
use super::{Exporter, Output, Report};
use crate::bench::metrics::UnitStats;
use crate::solver::CounterSet;
use std::fmt::Write as _;

/// At most this many mismatches / skipped rows are shown per unit.
const SHOWN_ROWS: usize = 50;

pub struct HtmlReport;

impl Exporter for HtmlReport {
    fn name(&self) -> &'static str {
        "report.html"
    }
    fn render(&self, report: &Report) -> anyhow::Result<Vec<Output>> {
        let charts = charts::render_all(report)?;
        Ok(vec![Output::new("report.html", render(report, &charts))])
    }
}

/// Escapes text for HTML content and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A command line as one shell-readable string (arguments quoted when
/// needed).
fn shell_join(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            if !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
            {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// An SVG document made fit for inlining: no XML declaration and no
/// namespace URL (HTML5 knows `<svg>`), so the page names no address.
fn inline_svg(svg: &str) -> String {
    let body = match svg.find("<svg") {
        Some(i) => &svg[i..],
        None => svg,
    };
    body.replacen(r#" xmlns="http://www.w3.org/2000/svg""#, "", 1)
        .replace(r#" xmlns:xlink="http://www.w3.org/1999/xlink""#, "")
}

const CSS: &str = "
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;margin:24px auto;max-width:1320px;padding:0 16px;color:#1d1d1f;background:#fff;line-height:1.45}
h1{font-size:26px;margin:0 0 4px}
h2{font-size:21px;margin:32px 0 8px;padding-bottom:4px;border-bottom:2px solid #e3e3e3}
h3{font-size:16px;margin:20px 0 6px}
p.sub{color:#555;margin:0 0 16px}
.banner{background:#fdecea;border:1px solid #e0a39c;color:#8a1f11;padding:10px 14px;border-radius:6px;font-weight:600;margin:12px 0}
.ok{background:#eaf6ec;border:1px solid #9fd0a8;color:#1e5b2a;padding:8px 14px;border-radius:6px;margin:12px 0}
table{border-collapse:collapse;font-size:13.5px;margin:8px 0}
th,td{padding:5px 10px;border-bottom:1px solid #e6e6e6;text-align:left;vertical-align:top}
th{background:#f4f5f7;font-weight:600;white-space:nowrap}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.fastest td{background:#f1f8f2}
table.kv{width:100%}
table.kv th{width:190px;background:none;color:#444}
.kvwrap{display:grid;grid-template-columns:1fr 1fr;gap:0 28px;align-items:start}
p.cmd code{display:block;padding:8px 10px;word-break:break-all}
table.kv td{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:13px;word-break:break-word}
figure{margin:14px 0 22px}
figure svg{width:100%;height:auto;max-width:1200px;display:block;border:1px solid #e6e6e6;border-radius:4px}
figcaption{color:#555;font-size:13.5px;margin-top:6px;max-width:1200px}
.note{color:#555;font-size:13.5px;max-width:1200px}
code{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:90%;background:#f4f5f7;padding:1px 4px;border-radius:3px}
";

/// The page for a report and its charts ([`charts::render_all`]).
pub fn render(report: &Report, charts: &[Chart]) -> String {
    let m = report.meta;
    let datasets = charts::datasets(report);
    let mut s = String::new();
    let title = format!("bench-sudoku results: {}", datasets.join(", "));
    let _ = writeln!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>",
        esc(&title)
    );
    let _ = writeln!(s, "<h1>{}</h1>", esc(&title));
    let strategies: Vec<&str> = m.options.strategies.iter().map(String::as_str).collect();
    let _ = writeln!(
        s,
        "<p class=\"sub\">{} · {} logical cores · {} threads · commit <code>{}</code> · started {}{}</p>",
        esc(&m.cpu_model),
        m.logical_cores,
        m.threads,
        esc(m.git_commit.as_deref().unwrap_or("unknown")),
        esc(&m.started),
        m.finished
            .as_deref()
            .map(|f| format!(", finished {}", esc(f)))
            .unwrap_or_default()
    );
    if !m.complete {
        let _ = writeln!(
            s,
            "<div class=\"banner\">INCOMPLETE RUN{} — the numbers cover only what was measured before it stopped.</div>",
            m.stopped
                .as_deref()
                .map(|r| format!(" ({})", esc(r)))
                .unwrap_or_default()
        );
    }
    let bad: u64 = report
        .results
        .iter()
        .map(|r| r.mismatches + r.wrong_answers + r.wrong_counts)
        .sum();
    let faults: u64 = report.results.iter().map(|r| r.faults()).sum();
    if bad > 0 {
        let _ = writeln!(
            s,
            "<div class=\"banner\">{bad} answers disagree with the dataset's solutions, the rules or bench-sudoku's count of solutions — see <a href=\"#mismatches\">Mismatches</a>.</div>"
        );
    }
    if faults > 0 {
        let _ = writeln!(
            s,
            "<div class=\"banner\">{faults} puzzles failed in external solvers (crashed, timeout, protocol error, error) — see <a href=\"#faults\">Solver faults</a>.</div>"
        );
    }
    if bad == 0 && faults == 0 && m.complete {
        let _ = writeln!(
            s,
            "<div class=\"ok\">Every answer was checked against the rules and the givens (and the dataset's solution where there is one): no disagreement. Strategies: {}.</div>",
            esc(&strategies.join(", "))
        );
    }

    // The comparison table.
    let _ = writeln!(s, "<h2 id=\"summary\">Summary</h2>");
    let _ = writeln!(s, "<table class=\"summary\">\n<thead><tr>");
    for c in COLUMNS {
        let _ = write!(s, "<th>{}</th>", esc(c));
    }
    let _ = writeln!(s, "</tr></thead>\n<tbody>");
    for row in rows(&report.results) {
        let fastest = row[13].contains("fastest");
        let _ = write!(s, "<tr{}>", if fastest { " class=\"fastest\"" } else { "" });
        for (i, cell) in row.iter().enumerate() {
            let numeric = !(i < 2 || i == 4 || i == 13);
            let _ = write!(
                s,
                "<td{}>{}</td>",
                if numeric { " class=\"n\"" } else { "" },
                esc(cell)
            );
        }
        let _ = writeln!(s, "</tr>");
    }
    let _ = writeln!(s, "</tbody></table>");
    let _ = writeln!(
        s,
        "<p class=\"note\">Times are per puzzle, around the solve call only (timer overhead {:.0} ns per pair of clock reads, not subtracted). \
         <code>relative</code> compares the mean solve time with the fastest strategy that finished every puzzle of the same dataset; \
         <code>puzzles/s</code> counts every solve (puzzles × passes, warm-up included) per second of wall time. Per-puzzle time kept: {} of {} measured pass(es), after {} warm-up pass(es){}.</p>",
        m.timer_overhead_ns,
        esc(&m.options.time_kept),
        m.options.repeat,
        m.options.warmup,
        m.options
            .schedule
            .as_ref()
            .map_or(String::new(), |sch| format!("; strategies {}", esc(sch)))
    );
    let paired = super::terminal::paired_rows(&report.results);
    if !paired.is_empty() {
        let _ = writeln!(
            s,
            "<h3 id=\"paired\">Paired with the baseline</h3>\n<table class=\"summary\">\n<thead><tr>"
        );
        for c in super::terminal::PAIRED_COLUMNS {
            let _ = write!(s, "<th>{}</th>", esc(c));
        }
        let _ = writeln!(s, "</tr></thead>\n<tbody>");
        for row in paired {
            let _ = write!(s, "<tr>");
            for (i, cell) in row.iter().enumerate() {
                let _ = write!(
                    s,
                    "<td{}>{}</td>",
                    if i >= 3 { " class=\"n\"" } else { "" },
                    esc(cell)
                );
            }
            let _ = writeln!(s, "</tr>");
        }
        let _ = writeln!(s, "</tbody></table>");
        let _ = writeln!(
            s,
            "<p class=\"note\">{}</p>",
            esc(&super::terminal::paired_note())
        );
    }
    for w in super::terminal::warnings(report.meta, &report.results) {
        let _ = writeln!(
            s,
            "<p class=\"note\"><strong>Warning:</strong> {}.</p>",
            esc(&w)
        );
    }
    let notes = clock_notes(&report.results);
    if !notes.is_empty() || report.results.iter().any(|r| r.counters != CounterSet::ALL) {
        let _ = writeln!(
            s,
            "<p class=\"note\">External solvers: a counter shown as {} is one the solver does not report (null in the JSON and CSV files); faults have no time. {}</p>",
            super::terminal::ABSENT,
            esc(&notes.join("; "))
        );
    }

    // The charts, per dataset.
    for ds in &datasets {
        let _ = writeln!(
            s,
            "<h2 id=\"ds-{}\">Dataset {}</h2>",
            esc(&super::file_safe(ds)),
            esc(ds)
        );
        if let Some(d) = m.datasets.iter().find(|d| &d.name == ds) {
            let _ = writeln!(
                s,
                "<p class=\"note\"><code>{}</code> · {} puzzles · {}{} · {}{}</p>",
                esc(&d.path),
                d.puzzles,
                esc(&d.format),
                if d.gzip { " (gzip)" } else { "" },
                if d.has_solutions {
                    "answers checked against its solution column"
                } else {
                    "no solution column (answers checked against the rules)"
                },
                if d.skipped > 0 {
                    format!(" · {} invalid rows skipped", d.skipped)
                } else {
                    String::new()
                }
            );
        }
        for c in charts.iter().filter(|c| &c.dataset == ds) {
            let caption = match c.kind {
                ChartKind::Latency => "Solve-time percentile distribution (HdrHistogram style). Read a curve left to right: the typical puzzle at 0–50%, the hard tail at 99% and beyond; the right end is the slowest puzzle. Lower is faster.",
                ChartKind::Guesses => "How many guesses each strategy needed per puzzle, as a share of the dataset. More propagation moves the mass to the left (0 = solved by logic alone).",
                ChartKind::Paired => "How each strategy's time compares with the baseline's on the same puzzle (interleaved run: both timed on one thread, one right after the other). Left of 1× the strategy was faster. The dashed line is the geometric mean of the ratios, the statistic with the confidence interval in the summary table.",
                ChartKind::Scatter => "Each point is one puzzle (at most 5,000 per strategy, sampled deterministically from puzzles.csv). Time grows with guesses; the vertical spread at a fixed guess count is the cost per node of each strategy.",
            };
            let _ = writeln!(
                s,
                "<figure>\n{}\n<figcaption>{} <code>{}</code></figcaption>\n</figure>",
                inline_svg(&c.svg),
                caption,
                esc(&c.rel_path())
            );
        }
    }

    // Mismatches, solver faults and skipped rows, when any.
    let num = |v: u64| v.to_string();
    let opt = |v: Option<u64>| v.map_or_else(|| "-".to_string(), |v| v.to_string());
    listings(
        &mut s,
        "mismatches",
        "Mismatches",
        &["index", "line", "status", "kind", "detail"],
        report.units.iter().map(|u| {
            let rows = u.mismatch_list.iter().map(|r| {
                vec![
                    num(r.index),
                    num(r.line),
                    r.status.as_str().into(),
                    r.kind.as_str().into(),
                    r.detail.clone(),
                ]
            });
            (u, rows.collect())
        }),
    );
    listings(
        &mut s,
        "faults",
        "Solver faults",
        &["index", "line", "outcome", "detail"],
        report.units.iter().map(|u| {
            let rows = u.fault_list.iter().map(|f| {
                vec![
                    num(f.index),
                    num(f.line),
                    f.status.as_str().into(),
                    f.detail.clone(),
                ]
            });
            (u, rows.collect())
        }),
    );
    listings(
        &mut s,
        "skipped",
        "Skipped rows",
        &["line", "index", "error"],
        report.units.iter().map(|u| {
            let rows = u
                .skipped_list
                .iter()
                .map(|r| vec![opt(r.line), opt(r.index), r.error.clone()]);
            (u, rows.collect())
        }),
    );

    // The facts of the run.
    let _ = writeln!(
        s,
        "<h2 id=\"run\">Run</h2>\n<p class=\"cmd\">command line:<code>{}</code></p>",
        esc(&shell_join(&m.command_line))
    );
    let o = &m.options;
    let mut facts: Vec<(&str, String)> = Vec::new();
    let mut kv = |k: &'static str, v: String| facts.push((k, v));
    kv("tool", format!("{} {}", m.tool, m.version));
    kv(
        "git commit",
        m.git_commit.clone().unwrap_or_else(|| "unknown".into()),
    );
    kv("CPU", m.cpu_model.clone());
    kv("logical cores", m.logical_cores.to_string());
    kv("solver threads", m.threads.to_string());
    kv("OS", m.os.clone());
    kv("arch / target", format!("{} / {}", m.arch, m.target));
    kv("rustc", m.rustc.clone());
    kv("target features", m.target_features.join(" "));
    kv("CPU features (run time)", m.cpu_features.join(" "));
    kv("started", m.started.clone());
    kv("finished", m.finished.clone().unwrap_or_else(|| "-".into()));
    kv(
        "timer overhead",
        format!(
            "{:.1} ns per pair of clock reads (resolution {} ns)",
            m.timer_overhead_ns, m.timer_resolution_ns
        ),
    );
    kv("strategies", o.strategies.join(", "));
    for d in o.strategy_details.iter().filter(|d| d.kind != "builtin") {
        kv(
            "external solver",
            format!(
                "{}: {} — {} (counters: {}; times: {})",
                d.name,
                d.spec,
                d.description,
                if d.counters == CounterSet::NONE {
                    "none".to_string()
                } else {
                    d.counters.names().join(", ")
                },
                d.clock.as_str()
            ),
        );
    }
    if let Some(t) = &o.timeout {
        kv("timeout (external solvers)", t.clone());
    }
    kv(
        "repeat / warm-up",
        format!("{} / {} (time kept: {})", o.repeat, o.warmup, o.time_kept),
    );
    kv("solution limit", o.solution_limit.to_string());
    kv("guess budget", o.max_guesses.to_string());
    kv(
        "limit",
        o.limit
            .map(|l| l.to_string())
            .unwrap_or_else(|| "none".into()),
    );
    kv(
        "shuffle",
        if o.shuffle {
            format!("yes (seed {})", o.seed)
        } else {
            "no".into()
        },
    );
    kv("batch size", o.batch_size.to_string());
    kv(
        "puzzles.csv",
        if o.puzzle_csv {
            "written"
        } else {
            "not written"
        }
        .into(),
    );
    kv(
        "skip invalid rows",
        if o.skip_invalid { "yes" } else { "no" }.into(),
    );
    kv(
        "datasets",
        m.datasets
            .iter()
            .map(|d| format!("{} ({}, {} puzzles)", d.name, d.path, d.puzzles))
            .collect::<Vec<_>>()
            .join("; "),
    );
    kv(
        "processed",
        format!("{} puzzle × strategy solves", m.processed),
    );
    kv(
        "complete",
        if m.complete {
            "yes".to_string()
        } else {
            format!("NO — {}", m.stopped.as_deref().unwrap_or("stopped early"))
        },
    );
    // Two columns of facts: the machine and build, then the run's options.
    let half = facts.len().div_ceil(2);
    let _ = writeln!(s, "<div class=\"kvwrap\">");
    for part in facts.chunks(half.max(1)) {
        let _ = writeln!(s, "<table class=\"kv\"><tbody>");
        for (k, v) in part {
            let _ = writeln!(s, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(v));
        }
        let _ = writeln!(s, "</tbody></table>");
    }
    let _ = writeln!(s, "</div>");
    let _ = writeln!(
        s,
        "<p class=\"note\">Files in this directory: <code>summary.json</code>, <code>summary.csv</code>, <code>summary.md</code>, \
         <code>puzzles.csv</code>, <code>meta.json</code>, <code>histograms/</code> (HdrHistogram <code>.hgrm</code> and V2 <code>.hdr</code>), \
         <code>charts/</code> (these charts as SVG). Regenerate this page with <code>bench-sudoku report DIR</code>.</p>\n</body>\n</html>"
    );
    s
}

/// A section of listed rows per unit (mismatches, faults, skipped rows),
/// at most [`SHOWN_ROWS`] each; nothing when no unit has any. The first two
/// columns are numbers.
fn listings<'a>(
    s: &mut String,
    id: &str,
    title: &str,
    headers: &[&str],
    units: impl Iterator<Item = (&'a UnitStats, Vec<Vec<String>>)>,
) {
    let units: Vec<_> = units.filter(|(_, rows)| !rows.is_empty()).collect();
    if units.is_empty() {
        return;
    }
    let _ = writeln!(s, "<h2 id=\"{id}\">{}</h2>", esc(title));
    for (u, rows) in units {
        let _ = write!(
            s,
            "<h3>{} · {} ({} listed)</h3>\n<table><thead><tr>",
            esc(&u.dataset),
            esc(&u.strategy),
            rows.len()
        );
        for h in headers {
            let _ = write!(s, "<th>{}</th>", esc(h));
        }
        let _ = writeln!(s, "</tr></thead><tbody>");
        for row in rows.iter().take(SHOWN_ROWS) {
            let _ = write!(s, "<tr>");
            for (i, cell) in row.iter().enumerate() {
                let class = if i < 2 { " class=\"n\"" } else { "" };
                let _ = write!(s, "<td{class}>{}</td>", esc(cell));
            }
            let _ = writeln!(s, "</tr>");
        }
        let _ = writeln!(s, "</tbody></table>");
        if rows.len() > SHOWN_ROWS {
            let _ = writeln!(
                s,
                "<p class=\"note\">… and {} more in <code>summary.json</code>.</p>",
                rows.len() - SHOWN_ROWS
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_and_quoting() {
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        let args = [
            "run".to_string(),
            "-s".into(),
            "prop=hidden,branch=max".into(),
            "a b".into(),
            "it's".into(),
        ];
        assert_eq!(
            shell_join(&args),
            r"run -s prop=hidden,branch=max 'a b' 'it'\''s'"
        );
        let svg = "<?xml version=\"1.0\"?>\n<svg width=\"1\" xmlns=\"http://www.w3.org/2000/svg\">\n</svg>";
        assert_eq!(inline_svg(svg), "<svg width=\"1\">\n</svg>");
    }
}
