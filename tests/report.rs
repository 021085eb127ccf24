//! The charts and the HTML page: written by every `run`, rebuilt byte for
//! byte by `report DIR` from what the directory holds, self-contained.

mod common;
use common::scratch;
use common::{bin, text};

use std::path::Path;
use std::process::Output;

const STRATEGIES: [&str; 3] = ["mrv", "hidden", "locked"];
const DATASETS: [&str; 2] = ["easy", "hard"];

fn hard() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("datasets/hard.csv")
        .display()
        .to_string()
}

/// A quick run of the shipped datasets (40 puzzles each, three strategies).
fn quick_run(out: &Path, extra: &[&str]) -> Output {
    let hard = hard();
    let easy = hard.replace("hard.csv", "easy.csv");
    let mut args = vec!["run", &easy, &hard, "--limit", "40", "-q", "-j", "2"];
    for s in STRATEGIES {
        args.extend(["-s", s]);
    }
    let out_s = out.to_str().unwrap();
    args.extend(["--out", out_s]);
    args.extend(extra);
    bin(&args)
}

/// Every text node of an SVG document, which must parse as XML.
fn svg_text(path: &Path) -> String {
    let src = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&src)
        .unwrap_or_else(|e| panic!("{}: not XML: {e}", path.display()));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants()
        .filter(|n| n.is_text())
        .filter_map(|n| n.text())
        .map(str::trim)
        .collect::<Vec<_>>()
        .join("\n")
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn run_writes_charts_and_a_self_contained_page_that_report_rebuilds() {
    let out = scratch("run").join("out");
    let o = quick_run(&out, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));

    // The three charts of each dataset: XML, labelled axes, every strategy.
    let labels: [(&str, &[&str]); 3] = [
        (
            "latency",
            &["percentile", "solve time", "50%", "90%", "99%"],
        ),
        (
            "guesses",
            &["guesses per puzzle", "share of puzzles (%, cumulative)"],
        ),
        ("scatter", &["guesses", "solve time", "µs"]),
    ];
    for ds in DATASETS {
        for (kind, wanted) in labels {
            let t = svg_text(&out.join(format!("charts/{ds}-{kind}.svg")));
            for l in wanted {
                assert!(t.contains(l), "{ds}-{kind}: no `{l}` in\n{t}");
            }
            for s in STRATEGIES {
                assert!(
                    t.lines().any(|line| line == s),
                    "{ds}-{kind}: no legend entry {s}"
                );
            }
        }
    }

    // The page: every strategy's row, the meta, the charts inline.
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    for ds in DATASETS {
        for s in STRATEGIES {
            assert!(
                html.contains(&format!("<td>{ds}</td><td>{s}</td><td class=\"n\">40</td>")),
                "no row for {ds} {s}"
            );
        }
        assert!(html.contains(&format!("<h2 id=\"ds-{ds}\">Dataset {ds}</h2>")));
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("meta.json")).unwrap()).unwrap();
    let cpu = meta["cpu_model"].as_str().unwrap();
    assert!(html.contains(cpu), "no CPU model");
    assert!(html.contains(meta["rustc"].as_str().unwrap()), "no rustc");
    if let Some(c) = meta["git_commit"].as_str() {
        assert!(html.contains(c), "no commit");
    }
    for needle in [
        "logical cores",
        "solver threads",
        "timer overhead",
        "command line",
        "--limit 40",
        "guess budget",
        "<th>complete</th><td>yes</td>",
    ] {
        assert!(html.contains(needle), "no `{needle}` in the page");
    }
    // Three charts per dataset, and the paired one (the strategies ran
    // interleaved): the per-puzzle ratios to the first, every other
    // strategy in the legend.
    // With a reference, each dataset whose strategies have ratios in two
    // difficulty classes or more also has the chart by difficulty.
    let by_class = DATASETS
        .iter()
        .filter(|ds| out.join(format!("charts/{ds}-classes.svg")).exists())
        .count();
    assert_eq!(html.matches("<svg").count(), 8 + by_class);
    for ds in DATASETS {
        let t = svg_text(&out.join(format!("charts/{ds}-paired.svg")));
        assert!(t.contains("per-puzzle time ratio to"), "{t}");
        for s in &STRATEGIES[1..] {
            assert!(t.lines().any(|line| line == *s), "{ds}-paired: no {s}");
        }
    }
    assert!(html.contains("Paired with the baseline"));

    // Self-contained: no addresses, scripts or external resources.
    for bad in [
        "http://", "https://", "<script", "<link", "src=", "@import", "url(",
    ] {
        assert!(!html.contains(bad), "page contains `{bad}`");
    }

    // `report DIR` writes the same bytes from disk.
    let charts_before = files(&out.join("charts"));
    std::fs::remove_file(out.join("report.html")).unwrap();
    std::fs::remove_dir_all(out.join("charts")).unwrap();
    let o = bin(&["report", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("report.html"));
    let again = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(again == html, "report DIR wrote a different page");
    assert!(files(&out.join("charts")) == charts_before);
}

#[test]
fn mismatches_skips_and_no_puzzle_csv_are_shown() {
    let dir = scratch("mismatch");
    let data = dir.join("m.csv");
    let rows: Vec<String> = std::fs::read_to_string(hard())
        .unwrap()
        .lines()
        .skip(1)
        .take(3)
        .map(str::to_string)
        .collect();
    let first_solution = rows[0].split(',').nth(1).unwrap();
    let mut body = String::from("puzzle,solution\n");
    for r in &rows {
        let f: Vec<&str> = r.split(',').collect();
        body.push_str(&format!("{},{}\n", f[0], f[1]));
    }
    // The empty grid with a valid solution that is not the engine's first.
    body.push_str(&format!("{},{first_solution}\n", "0".repeat(81)));
    body.push_str("12345,\n");
    std::fs::write(&data, body).unwrap();
    // A protocol solver that finds no solution to anything: a mismatch on
    // every puzzle that has a solution in the dataset.
    let liar = common::no_solution_solver(&dir);
    let out = dir.join("out");
    let o = bin(&[
        "run",
        data.to_str().unwrap(),
        "-s",
        "hidden",
        "-s",
        &liar,
        "--skip-invalid",
        "--no-puzzle-csv",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<h2 id=\"mismatches\">Mismatches</h2>"));
    assert!(html.contains("dataset has a solution, engine says no_solution"));
    assert!(html.contains("<h2 id=\"skipped\">Skipped rows</h2>"));
    assert!(html.contains("<th>puzzles.csv</th><td>not written</td>"));
    let scatter = svg_text(&out.join("charts/m-scatter.svg"));
    assert!(scatter.contains("no per-puzzle data"), "{scatter}");

    std::fs::remove_file(out.join("report.html")).unwrap();
    let o = bin(&["report", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(std::fs::read_to_string(out.join("report.html")).unwrap() == html);
}

#[test]
fn report_on_a_directory_that_is_not_a_results_directory_exits_2() {
    let dir = scratch("bad");
    let missing = dir.join("missing");
    let o = bin(&["report", missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("no such directory"),
        "{}",
        text(&o.stderr)
    );

    let o = bin(&["report", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("not a results directory"),
        "{}",
        text(&o.stderr)
    );
    assert!(!dir.join("report.html").exists());

    std::fs::write(dir.join("summary.json"), "{\"something\": 1}\n").unwrap();
    let o = bin(&["report", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("not a bench-sudoku summary"),
        "{}",
        text(&o.stderr)
    );
    assert!(!dir.join("report.html").exists());
}

#[test]
fn an_interrupted_run_gets_a_page_that_says_so() {
    let dir = scratch("incomplete");
    let data = dir.join("cut.csv");
    let hard = std::fs::read_to_string(hard()).unwrap();
    let mut lines = hard.lines();
    let mut body = format!("{}\n", lines.next().unwrap());
    body.push_str("123,456\n");
    for l in lines.take(3) {
        body.push_str(l);
        body.push('\n');
    }
    std::fs::write(&data, body).unwrap();
    let out = dir.join("out");
    let o = bin(&[
        "run",
        data.to_str().unwrap(),
        "-s",
        "hidden",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("INCOMPLETE RUN"), "no banner");
    assert!(html.contains("<th>complete</th><td>NO"), "no complete: NO");
    // Nothing measured: the charts are still valid, empty documents.
    for kind in ["latency", "guesses", "scatter"] {
        svg_text(&out.join(format!("charts/cut-{kind}.svg")));
    }
}

/// A run of more puzzles than the scatter chart keeps: `run` samples them
/// while it aggregates (on every finishing thread, in any order) and
/// `report DIR` samples `puzzles.csv` again; both keep the same puzzles, so
/// the charts are the same bytes, and each strategy has exactly the cap.
#[test]
fn a_sampled_scatter_is_the_same_from_the_run_and_from_puzzles_csv() {
    let dir = scratch("sampled");
    // The shipped easy puzzles, 13 times over, as plain lines: 13,000
    // puzzles (each strategy's sample keeps 5,000).
    let easy = std::fs::read_to_string(hard().replace("hard.csv", "easy.csv")).unwrap();
    let lines: Vec<&str> = easy
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    let data = dir.join("many.txt");
    let mut body = String::new();
    for _ in 0..13 {
        for l in &lines {
            body.push_str(l);
            body.push('\n');
        }
    }
    std::fs::write(&data, body).unwrap();
    let out = dir.join("out");
    let o = bin(&[
        "run",
        data.to_str().unwrap(),
        "-s",
        "fast",
        "-s",
        "hidden",
        "--shuffle",
        "--batch-size",
        "256",
        "-j",
        "2",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let chart = out.join("charts/many-scatter.svg");
    let from_run = std::fs::read(&chart).unwrap();
    let svg = String::from_utf8_lossy(&from_run);
    // Each strategy's legend marker and its points (those on one pixel
    // drawn as one circle): at most 5,000 each.
    let circles = svg.matches("<circle").count();
    assert!(
        circles > 2 + 2 && circles <= 2 + 2 * 5000,
        "{circles} circles"
    );

    std::fs::remove_dir_all(out.join("charts")).unwrap();
    let o = bin(&["report", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(
        std::fs::read(&chart).unwrap() == from_run,
        "report DIR drew other points than run"
    );
}
