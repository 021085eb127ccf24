//! `report.html`: the page a person opens after a run. One self-contained
//! file — inline CSS and SVG, no script, no network — with the comparison
//! table, the charts of every dataset, the mismatches and skipped rows, and
//! the facts of the run (machine, build, options, timer overhead).
//!
//! The page depends only on what the results directory holds
//! (`summary.json`, `histograms/*.hdr`, `puzzles.csv`), so
//! `bench-sudoku report DIR` writes the same bytes as the run did.

use super::charts::{self, Chart, ChartKind};
use super::terminal::{clock_notes, columns, rows};
use super::{Exporter, Output, Report};
use crate::bench::metrics::UnitStats;
use crate::solver::CounterSet;
use maud::{html, Markup, PreEscaped, DOCTYPE};

/// At most this many mismatches / skipped rows are shown per unit.
const SHOWN_ROWS: usize = 50;

pub struct HtmlReport;

impl Exporter for HtmlReport {
    fn name(&self) -> &'static str {
        "report.html"
    }
    fn render(&self, report: &Report) -> anyhow::Result<Vec<Output>> {
        Ok(vec![Output::new(
            "report.html",
            render(report, report.charts()?),
        )])
    }
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
pub fn inline_svg(svg: &str) -> String {
    let body = match svg.find("<svg") {
        Some(i) => &svg[i..],
        None => svg,
    };
    body.replacen(r#" xmlns="http://www.w3.org/2000/svg""#, "", 1)
        .replace(r#" xmlns:xlink="http://www.w3.org/1999/xlink""#, "")
}

/// The style of every page bench-sudoku writes (`report.html`, the trend
/// page): one look, and tables that never push the page wider than the
/// window.
pub const CSS: &str = "
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;margin:24px auto;max-width:1320px;padding:0 16px;color:#1d1d1f;background:#fff;line-height:1.45}
h1{font-size:26px;margin:0 0 4px;overflow-wrap:anywhere}
h2{font-size:21px;margin:32px 0 8px;padding-bottom:4px;border-bottom:2px solid #e3e3e3;overflow-wrap:anywhere}
h3{font-size:16px;margin:20px 0 6px;overflow-wrap:anywhere}
p.sub{color:#555;margin:0 0 16px}
.banner{background:#fdecea;border:1px solid #e0a39c;color:#8a1f11;padding:10px 14px;border-radius:6px;font-weight:600;margin:12px 0;overflow-wrap:anywhere}
.ok{background:#eaf6ec;border:1px solid #9fd0a8;color:#1e5b2a;padding:8px 14px;border-radius:6px;margin:12px 0;overflow-wrap:anywhere}
.tw{width:fit-content;max-width:100%;overflow-x:auto;margin:8px 0;border:1px solid #e6e6e6;border-radius:4px}
.tw table.ranked th:first-child,.tw table.ranked td:first-child{min-width:0}
.grid2{display:grid;grid-template-columns:repeat(auto-fill,minmax(600px,1fr));gap:0 24px;align-items:start}
.grid2>div{min-width:0}
.tw table{margin:0}
details.all{margin:4px 0 8px}
details.all>summary{cursor:pointer;color:#444;font-size:13.5px}
table.first td{max-width:18em}
table{border-collapse:separate;border-spacing:0;font-size:13.5px;margin:8px 0}
th,td{padding:5px 10px;border-bottom:1px solid #e6e6e6;text-align:left;vertical-align:top}
th{background:#f4f5f7;font-weight:600;white-space:nowrap}
td{background:#fff;min-width:8em;max-width:24em;overflow-wrap:anywhere}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap;min-width:0}
.tw th:first-child,.tw td:first-child{position:sticky;left:0;z-index:1;min-width:10em;max-width:16em;box-shadow:inset -1px 0 #d6d6d6}
.tw td.n:first-child{min-width:0}
.tw th:first-child{white-space:normal}
tr.fastest td{background:#f1f8f2}
table.kv{width:100%}
table.kv th{width:190px;background:none;color:#444}
.kvwrap{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:0 28px;align-items:start}
p.cmd code{display:block;padding:8px 10px;word-break:break-all}
table.kv td{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:13px;word-break:break-word;max-width:none}
figure{margin:14px 0 22px}
figure svg{width:100%;height:auto;max-width:1200px;display:block;border:1px solid #e6e6e6;border-radius:4px}
figcaption{color:#555;font-size:13.5px;margin-top:6px;max-width:1200px}
.note{color:#555;font-size:13.5px;max-width:1200px;overflow-wrap:anywhere}
code{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:90%;background:#f4f5f7;padding:1px 4px;border-radius:3px}
pre{background:#f4f5f7;padding:10px 12px;border-radius:4px;overflow-x:auto;font-size:13px}
";

/// The caption under each kind of chart.
fn caption(kind: ChartKind) -> &'static str {
    match kind {
        ChartKind::Latency => "Solve-time percentile distribution (HdrHistogram style). Read a curve left to right: the typical puzzle at 0–50%, the hard tail at 99% and beyond; the right end is the slowest puzzle. Lower is faster.",
        ChartKind::Guesses => "The share of the dataset each strategy solved with fewer than 1, 2, 4, 8, … guesses (cumulative; at 0: solved by logic alone). A line that rises early and high belongs to a strategy that guesses little; more propagation lifts the left end.",
        ChartKind::Paired => "How each strategy's time compares with the baseline's on the same puzzle (interleaved run: both timed on one thread, one right after the other). Left of 1× the strategy was faster. The axis reaches every ratio measured, however far (its ticks are powers of two, or of 4, 16, … on a wide axis). The dashed line is the geometric mean of the ratios, the statistic with the confidence interval in the summary table.",
        ChartKind::Classes => "Each strategy's time ratio to the reference by difficulty: the puzzles grouped by the number of guesses the fast engine needs (0, 1–3, 4–15, … a power of four apart), easiest left. The point is the geometric mean of the per-puzzle ratios in the class, the bar its 95% interval. A line that rises to the right belongs to a strategy that wins on easy puzzles and loses on hard ones.",
        ChartKind::Scatter => "Each point is one puzzle (at most 5,000 per strategy, sampled deterministically from puzzles.csv). Time grows with guesses; the vertical spread at a fixed guess count is the cost per node of each strategy.",
    }
}

/// The facts of the run, in the order the page lists them: the machine
/// and the build, the strategies, then the run's options.
fn facts(m: &crate::results::meta::Meta) -> Vec<(&'static str, String)> {
    let mut facts = machine_facts(m);
    facts.extend(strategy_facts(m));
    facts.extend(option_facts(m));
    facts
}

/// The machine, the build and the run's times.
fn machine_facts(m: &crate::results::meta::Meta) -> Vec<(&'static str, String)> {
    vec![
        ("tool", format!("{} {}", m.tool, m.version)),
        (
            "git commit",
            m.git_commit.clone().unwrap_or_else(|| "unknown".into()),
        ),
        ("CPU", m.cpu_model.clone()),
        ("logical cores", m.logical_cores.to_string()),
        ("solver threads", m.threads.to_string()),
        ("OS", m.os.clone()),
        ("arch / target", format!("{} / {}", m.arch, m.target)),
        ("rustc", m.rustc.clone()),
        ("target features", m.target_features.join(" ")),
        ("CPU features (run time)", m.cpu_features.join(" ")),
        ("started", m.started.clone()),
        ("finished", m.finished.clone().unwrap_or_else(|| "-".into())),
        (
            "timer overhead",
            format!(
                "{:.1} ns per pair of clock reads (resolution {} ns)",
                m.timer_overhead_ns, m.timer_resolution_ns
            ),
        ),
    ]
}

/// The strategies, their revisions and what each external solver is.
fn strategy_facts(m: &crate::results::meta::Meta) -> Vec<(&'static str, String)> {
    let o = &m.options;
    let mut facts = vec![("strategies", o.strategies.join(", "))];
    let revisions = m.revisions();
    if !revisions.is_empty() {
        facts.push(("revisions", revisions.join("; ")));
    }
    for d in o.strategy_details.iter().filter(|d| d.kind != "builtin") {
        let counters = if d.counters == CounterSet::NONE {
            "none".to_string()
        } else {
            d.counters.names().join(", ")
        };
        facts.push((
            "external solver",
            format!(
                "{}: {} — {} (counters: {}; times: {})",
                d.name,
                d.spec,
                d.description,
                counters,
                d.clock.as_str()
            ),
        ));
    }
    facts
}

/// The run's options, its datasets and how far it got.
fn option_facts(m: &crate::results::meta::Meta) -> Vec<(&'static str, String)> {
    let o = &m.options;
    let mut facts: Vec<(&'static str, String)> = Vec::new();
    if let Some(t) = &o.timeout {
        facts.push(("timeout (external solvers)", t.clone()));
    }
    facts.extend([
        (
            "repeat / warm-up",
            format!(
                "{} / {} (time kept: {}){}",
                o.repeat,
                o.warmup,
                o.time_kept,
                o.own_passes_text()
            ),
        ),
        ("solution limit", o.solution_limit.to_string()),
        ("guess budget", o.max_guesses.to_string()),
        (
            "limit",
            o.limit.map_or_else(|| "none".into(), |l| l.to_string()),
        ),
        (
            "shuffle",
            if o.shuffle {
                format!("yes (seed {})", o.seed)
            } else {
                "no".into()
            },
        ),
    ]);
    if let Some(t) = o.transform {
        facts.push(("isomorphs", format!("yes (--transform {t})")));
    }
    let datasets: Vec<String> = m
        .datasets
        .iter()
        .map(|d| format!("{} ({}, {} puzzles)", d.name, d.path, d.puzzles))
        .collect();
    facts.extend([
        ("batch size", o.batch_size.to_string()),
        (
            "puzzles.csv",
            if o.puzzle_csv {
                "written"
            } else {
                "not written"
            }
            .into(),
        ),
        (
            "skip invalid rows",
            if o.skip_invalid { "yes" } else { "no" }.into(),
        ),
        ("datasets", datasets.join("; ")),
        (
            "processed",
            format!("{} puzzle × strategy solves", m.processed),
        ),
        (
            "complete",
            if m.complete {
                "yes".to_string()
            } else {
                format!("NO — {}", m.stopped.as_deref().unwrap_or("stopped early"))
            },
        ),
    ]);
    facts
}

/// The page for a report and its charts ([`charts::render_all`]), built
/// with `maud`: every text and attribute value is escaped by the template
/// itself; only the inline SVG charts (made by plotters, which escapes its
/// own text) and the CSS are inserted as they are. Each section is a
/// function of its own, in the order the page shows them.
pub fn render(report: &Report, charts: &[Chart]) -> String {
    let datasets = charts::datasets(report);
    let title = format!("bench-sudoku results: {}", datasets.join(", "));
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                style { (PreEscaped(CSS)) }
            }
            body {
                h1 { (title) }
                (machine_line(report.meta))
                (banners(report))
                (summary_section(report))
                (paired_section(report))
                (classes_section(report))
                (notes(report))
                @for ds in &datasets {
                    (dataset_section(report, ds, charts))
                }
                (worst_sections(report))
                (listing_sections(report))
                (run_section(report.meta))
            }
        }
    };
    let mut s = page.into_string();
    s.push('\n');
    s
}

/// The line under the title: machine, threads, commit, when.
fn machine_line(m: &crate::results::meta::Meta) -> Markup {
    html! {
        p.sub {
            (m.cpu_model) " · " (m.logical_cores) " logical cores · " (m.threads)
            " threads · commit " code { (m.git_commit.as_deref().unwrap_or("unknown")) }
            " · started " (m.started)
            @if let Some(f) = &m.finished { ", finished " (f) }
        }
    }
}

/// What a reader must see first: an incomplete run, wrong answers, solver
/// faults, or that every answer was checked and none disagreed.
fn banners(report: &Report) -> Markup {
    let m = report.meta;
    let bad: u64 = report.results.iter().map(|r| r.wrong()).sum();
    let faults: u64 = report.results.iter().map(|r| r.faults()).sum();
    html! {
        @if !m.complete {
            div.banner {
                "INCOMPLETE RUN"
                @if let Some(r) = &m.stopped { " (" (r) ")" }
                " — the numbers cover only what was measured before it stopped."
            }
        }
        @if bad > 0 {
            div.banner {
                (bad) " answers disagree with the dataset's solutions, the rules or bench-sudoku's count of solutions — see "
                a href="#mismatches" { "Mismatches" } "."
            }
        }
        @if faults > 0 {
            div.banner {
                (faults) " puzzles failed in external solvers (crashed, timeout, protocol error, error) — see "
                a href="#faults" { "Solver faults" } "."
            }
        }
        @if bad == 0 && faults == 0 && m.complete {
            div.ok {
                "Every answer was checked against the rules and the givens (and the dataset's solution where there is one): no disagreement. Strategies: "
                (m.options.strategies.join(", ")) "."
            }
        }
    }
}

/// The columns of the summary table seen first, the comparison right after
/// the names so that it is never pushed out of the window: the run's
/// headline, solved, the typical times and the search effort. Every column
/// follows in a table that opens on demand.
const FIRST_COLUMNS: [usize; 8] = [0, 1, 13, 3, 6, 7, 9, 11];

/// The comparison table (the terminal's columns) and what its times mean.
fn summary_section(report: &Report) -> Markup {
    let m = report.meta;
    let o = &m.options;
    let header = columns(&report.results);
    let summary = rows(&report.results);
    let headline_note = super::headline::note(&report.results);
    // Text columns of the summary table (the rest are numbers).
    let text_col = |i: usize| i < 2 || i == 4 || i == 13;
    let marked = |row: &[String; 14]| {
        (row[13].contains("(fastest)") || row[13] == "baseline").then_some("fastest")
    };
    html! {
        h2 #summary { "Summary" }
        div.tw {
            table.summary.first {
                thead { tr { @for &i in &FIRST_COLUMNS { th { (header[i]) } } } }
                tbody {
                    @for row in &summary {
                        tr class=[marked(row)] {
                            @for &i in &FIRST_COLUMNS {
                                td class=[(!text_col(i)).then_some("n")] { (row[i]) }
                            }
                        }
                    }
                }
            }
        }
        details.all {
            summary { "Every column (throughput, p90, max, outcomes, the no-guess share)" }
            div.tw {
                table.summary {
                    thead { tr { @for c in &header { th { (c) } } } }
                    tbody {
                        @for row in &summary {
                            tr class=[marked(row)] {
                                @for (i, cell) in row.iter().enumerate() {
                                    td class=[(!text_col(i)).then_some("n")] { (cell) }
                                }
                            }
                        }
                    }
                }
            }
        }
        p.note {
            "Times are per puzzle, around the solve call only (timer overhead "
            (format!("{:.0}", m.timer_overhead_ns))
            " ns per pair of clock reads, not subtracted). "
            @if let Some(n) = &headline_note { "The comparison column, " (n) ". " }
            code { "puzzles/s" }
            " counts every solve (puzzles × passes, warm-up included) per second of wall time. "
            (o.repeat) " measured pass(es) after " (o.warmup) " warm-up pass(es); per-puzzle time kept: "
            (o.time_kept)
            @if let Some(sch) = &o.schedule { "; strategies " (sch) }
            "."
        }
    }
}

/// The paired comparison with the baseline (nothing when no strategy has
/// one).
fn paired_section(report: &Report) -> Markup {
    let paired = super::terminal::paired_rows(&report.results);
    html! {
        @if !paired.is_empty() {
            h3 #paired { "Paired with the baseline" }
            div.tw {
                table.summary {
                    thead { tr { @for c in super::terminal::PAIRED_COLUMNS { th { (c) } } } }
                    tbody {
                        @for row in &paired {
                            tr {
                                @for (i, cell) in row.iter().enumerate() {
                                    td class=[(i >= 3).then_some("n")] { (cell) }
                                }
                            }
                        }
                    }
                }
            }
            p.note { (super::terminal::paired_note()) }
        }
    }
}

/// Every comparison by difficulty: a class × strategy table (the chart is
/// with each dataset's charts).
fn classes_section(report: &Report) -> Markup {
    use super::classes::{note, rows, COLUMNS, TEXT};
    let Some(b) = report.by_class.as_ref().filter(|b| !b.rows.is_empty()) else {
        return html! {};
    };
    let rows = rows(b);
    html! {
        h3 #classes { "By difficulty" }
        details.all open {
            summary { "Each class of puzzles: times, and the ratio to the reference" }
            div.tw {
                table.summary {
                    thead { tr { @for c in COLUMNS { th { (c) } } } }
                    tbody {
                        @for row in &rows {
                            tr {
                                @for (i, cell) in row.iter().enumerate() {
                                    td class=[(!TEXT.contains(&i)).then_some("n")] { (cell) }
                                }
                            }
                        }
                    }
                }
            }
        }
        p.note { (note(b)) }
    }
}

/// The run's warnings, and what the tables show of external solvers.
fn notes(report: &Report) -> Markup {
    let warnings = super::terminal::warnings(report.meta, &report.results);
    let clocks = clock_notes(&report.results);
    let external_note = !clocks.is_empty()
        || report
            .results
            .iter()
            .any(|r| !r.counters.contains(CounterSet::SEARCH));
    html! {
        @for w in &warnings {
            p.note { strong { "Warning:" } " " (w) "." }
        }
        @if external_note {
            p.note {
                "External solvers: a counter shown as " (super::terminal::ABSENT)
                " is one the solver does not report (null in the JSON and CSV files); faults have no time. "
                (clocks.join("; "))
            }
        }
    }
}

/// A dataset: where it came from and its charts, each with its caption.
fn dataset_section(report: &Report, ds: &str, charts: &[Chart]) -> Markup {
    html! {
        h2 id=(format!("ds-{}", crate::support::names::file_part(ds))) { "Dataset " (ds) }
        @if let Some(d) = report.meta.datasets.iter().find(|d| d.name == ds) {
            p.note {
                code { (d.path) } " · " (d.puzzles) " puzzles · " (d.format)
                @if d.gzip { " (gzip)" }
                " · "
                @if d.has_solutions { "answers checked against its solution column" }
                @else { "no solution column (answers checked against the rules)" }
                @if d.skipped > 0 { " · " (d.skipped) " invalid rows skipped" }
            }
        }
        @for c in charts.iter().filter(|c| c.dataset == ds) {
            figure {
                (PreEscaped(inline_svg(&c.svg)))
                figcaption { (caption(c.kind)) " " code { (c.rel_path()) } }
            }
        }
    }
}

/// The command line, the facts of the run in two columns (the machine and
/// build, then the run's options), and the files of the directory.
fn run_section(m: &crate::results::meta::Meta) -> Markup {
    let facts = facts(m);
    let half = facts.len().div_ceil(2).max(1);
    html! {
        h2 #run { "Run" }
        p.cmd { "command line:" code { (shell_join(&m.command_line)) } }
        div.kvwrap {
            @for part in facts.chunks(half) {
                table.kv { tbody { @for (k, v) in part { tr { th { (k) } td { (v) } } } } }
            }
        }
        p.note {
            "Files in this directory: " code { "summary.json" } ", " code { "summary.csv" } ", "
            code { "summary.md" } ", " code { "puzzles.csv" } ", " code { "meta.json" } ", "
            code { "histograms/" } " (HdrHistogram " code { ".hgrm" } " and V2 " code { ".hdr" } "), "
            code { "charts/" } " (these charts as SVG). Regenerate this page with "
            code { "bench-sudoku report DIR" } "."
        }
    }
}

/// The listed rows of every unit: mismatches, solver faults and skipped
/// rows, a section each ([`listings`]).
fn listing_sections(report: &Report) -> Markup {
    let num = |v: u64| v.to_string();
    let opt = |v: Option<u64>| v.map_or_else(|| "-".to_string(), |v| v.to_string());
    let mismatches = listings(
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
    let faults = listings(
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
    let skipped = listings(
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
    html! { (mismatches) (faults) (skipped) }
}

/// A table whose first `text` columns are text (the rest numbers), in a
/// box that scrolls sideways with its first column fixed.
pub(super) fn boxed_table<const N: usize>(
    headers: &[&str],
    rows: &[[String; N]],
    text: &[usize],
) -> Markup {
    html! {
        div.tw {
            table.ranked {
                thead { tr { @for h in headers { th { (h) } } } }
                tbody {
                    @for row in rows {
                        tr {
                            @for (i, cell) in row.iter().enumerate() {
                                td class=[(!text.contains(&i)).then_some("n")] { (cell) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The slowest puzzles of every strategy and, in a paired run, where each
/// candidate lost most to the baseline ([`super::worst`]); without a
/// puzzles.csv, a note that they need one.
fn worst_sections(report: &Report) -> Markup {
    use super::worst::{self, LOSS_COLUMNS, SLOWEST_COLUMNS};
    let paired = report.results.iter().any(|r| r.paired.is_some());
    let Some(w) = report.worst() else {
        return html! {
            h2 #slowest { "Slowest puzzles" }
            p.note { (worst::NEEDS_CSV) }
        };
    };
    let file = |ds: &str| worst::dataset_file(report.meta, ds).to_string();
    html! {
        h2 #slowest { "Slowest puzzles" }
        p.note { "The " (worst::TOP) " slowest of each strategy. " (worst::SLOWEST_NOTE) }
        // Two tables side by side where the window is wide enough.
        div.grid2 {
            @for s in &w.slowest {
                div {
                    h3 { (s.dataset) " · " (s.strategy) }
                    (boxed_table(&SLOWEST_COLUMNS, &worst::slowest_rows(s, &file(&s.dataset)), &[2]))
                }
            }
        }
        @if paired {
            h2 #losses { "Where each strategy lost most to the baseline" }
            p.note { (worst::LOSS_NOTE) }
            @for l in &w.losses {
                h3 { (l.dataset) " · " (l.strategy) " vs " (l.baseline) }
                @if l.rows.is_empty() {
                    p.note { "Not slower than " (l.baseline) " on any puzzle." }
                } @else {
                    (boxed_table(&LOSS_COLUMNS, &worst::loss_rows(l, &file(&l.dataset)), &[2]))
                }
            }
        }
    }
}

/// A section of listed rows per unit (mismatches, faults, skipped rows),
/// at most [`SHOWN_ROWS`] each; nothing when no unit has any. The first two
/// columns are numbers.
fn listings<'a>(
    id: &str,
    title: &str,
    headers: &[&str],
    units: impl Iterator<Item = (&'a UnitStats, Vec<Vec<String>>)>,
) -> Markup {
    let units: Vec<_> = units.filter(|(_, rows)| !rows.is_empty()).collect();
    html! {
        @if !units.is_empty() {
            h2 id=(id) { (title) }
            @for (u, rows) in &units {
                h3 { (u.dataset) " · " (u.strategy) " (" (rows.len()) " listed)" }
                div.tw {
                    table {
                        thead { tr { @for h in headers { th { (h) } } } }
                        tbody {
                            @for row in rows.iter().take(SHOWN_ROWS) {
                                tr {
                                    @for (i, cell) in row.iter().enumerate() {
                                        td class=[(i < 2).then_some("n")] { (cell) }
                                    }
                                }
                            }
                        }
                    }
                }
                @if rows.len() > SHOWN_ROWS {
                    p.note { "… and " (rows.len() - SHOWN_ROWS) " more in " code { "summary.json" } "." }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_and_quoting() {
        // The template escapes what it is given.
        let m = html! { p title=("a\"b") { ("<a href=\"x\">&") } };
        assert_eq!(
            m.into_string(),
            "<p title=\"a&quot;b\">&lt;a href=&quot;x&quot;&gt;&amp;</p>"
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
