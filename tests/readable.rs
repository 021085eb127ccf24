//! Reports that stay readable with many strategies and long names: the
//! slowest-puzzle and largest-loss tables, the paired chart's axis, the
//! scan chart's ticks and the scan rows' specs.

mod common;
use common::{bin, err, json, scratch};

use bench_sudoku::bench::paired::PairAcc;
use bench_sudoku::report::charts::{paired_axis, ratio_tick};
use bench_sudoku::report::worst::{self, Worst, TOP};
use bench_sudoku::results::puzzles::{PuzzleRows, Row, RowSink};
use bench_sudoku::solver::CounterSet;
use std::path::Path;

fn dataset(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("datasets")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn the_paired_axis_reaches_a_ratio_far_beyond_128() {
    let mut acc = PairAcc::new("fast", CounterSet::ALL, CounterSet::ALL);
    for _ in 0..200 {
        acc.add_log(1.1f64.ln());
    }
    // One puzzle 2,003× slower, one 300× faster.
    acc.add_log(2003f64.ln());
    acc.add_log((1.0f64 / 300.0).ln());
    let p = acc.result(1);
    let (lo, hi) = paired_axis(&[&p]);
    assert!(hi >= 2003f64.log2(), "axis ends at 2^{hi}");
    assert!(lo <= (1.0f64 / 300.0).log2(), "axis starts at 2^{lo}");
    let mean = p.geomean_ratio.log2();
    assert!(lo <= mean && mean <= hi);
    // Whole powers of two, so that the ticks fall on them.
    assert_eq!((lo.fract(), hi.fract()), (0.0, 0.0));
    assert_eq!(ratio_tick(11.0), "2Ki×");
    assert_eq!(ratio_tick(-3.0), "1/8");
    assert_eq!(ratio_tick(2.0), "4×");
    // A narrow distribution still gets 1/2 to 2.
    let mut acc = PairAcc::new("fast", CounterSet::ALL, CounterSet::ALL);
    acc.add_log(1.01f64.ln());
    assert_eq!(paired_axis(&[&acc.result(1)]), (-1.0, 1.0));
}

/// A row of a test puzzles.csv: dataset, index, strategy, time_ns, guesses.
type TestRow<'a> = (&'a str, u64, &'a str, Option<u64>, Option<u64>);

/// A puzzles.csv of `rows`.
fn puzzles_csv(path: &Path, rows: &[TestRow]) {
    let mut text = bench_sudoku::results::puzzles::HEADER.join(",");
    text.push('\n');
    for (d, i, s, t, g) in rows {
        let cell = |v: &Option<u64>| v.map_or(String::new(), |v| v.to_string());
        let status = if t.is_some() { "solved" } else { "crashed" };
        text.push_str(&format!(
            "{d},{i},,,{s},{status},1,{},{},0,0,1,0,0,0,0,0,0,0,30,,{}\n",
            cell(t),
            cell(g),
            if t.is_some() { "ok" } else { "" }
        ));
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn the_tables_list_the_slowest_puzzles_and_the_largest_losses() {
    let dir = scratch("worst");
    let csv = dir.join("puzzles.csv");
    let mut rows = Vec::new();
    // Baseline `b`: puzzle i takes 100 + i ns. Candidate `c`: puzzle i takes
    // (100 + i) × (i mod 7) ns, so it loses most where i mod 7 = 6; puzzle 5
    // is a fault of `c` (no time: in no table).
    for i in 0..30u64 {
        rows.push(("d", i, "b", Some(100 + i), Some(i)));
    }
    for i in 0..30u64 {
        let t = (i != 5).then_some((100 + i) * (i % 7));
        rows.push(("d", i, "c", t, Some(2 * i)));
    }
    puzzles_csv(&csv, &rows);
    let pairs = [("d".to_string(), "c".to_string(), "b".to_string())];
    let w = Worst::read(&csv, &pairs).unwrap().expect("a puzzles.csv");
    assert_eq!(w.slowest.len(), 2);
    let b = &w.slowest[0];
    assert_eq!((b.dataset.as_str(), b.strategy.as_str()), ("d", "b"));
    let idx: Vec<u64> = b.rows.iter().map(|e| e.index).collect();
    assert_eq!(idx, (20..30).rev().collect::<Vec<u64>>());
    assert_eq!(b.rows[0].time_ns, 129);
    assert_eq!(b.rows[0].guesses, Some(29));
    let c = &w.slowest[1];
    assert_eq!(c.rows.len(), TOP);
    assert!(c.rows.windows(2).all(|p| p[0].time_ns >= p[1].time_ns));
    assert!(c.rows.iter().all(|e| e.index != 5));

    let l = &w.losses[0];
    assert_eq!((l.strategy.as_str(), l.baseline.as_str()), ("c", "b"));
    // Ratio 6 at i = 6, 13, 20, 27; then ratio 5 at 12, 19, 26 (5 is a
    // fault); ties in ratio go by index.
    let idx: Vec<u64> = l.rows.iter().map(|r| r.candidate.index).collect();
    assert_eq!(&idx[..7], &[6, 13, 20, 27, 12, 19, 26]);
    assert_eq!(l.rows.len(), TOP);
    assert!((l.rows[0].ratio() - 6.0).abs() < 1e-12);
    assert_eq!(l.rows[0].baseline.time_ns, 106);
    assert_eq!(l.rows[0].candidate.guesses, Some(12));
    // Only puzzles it was slower on: ratio > 1.
    assert!(l.rows.iter().all(|r| r.ratio() > 1.0));
    let cells = worst::loss_rows(l, "d.csv");
    assert_eq!(cells[0][2], "d.csv", "no line without the dataset");
    assert_eq!(cells[0][3], "6.000×");

    assert!(Worst::read(&dir.join("none.csv"), &pairs)
        .unwrap()
        .is_none());
}

/// A reader of rows that keeps what it was given, in order.
#[derive(Default)]
struct Seen {
    headers: usize,
    rows: Vec<(String, u64)>,
}

impl RowSink for Seen {
    fn header(&mut self, _header: &csv::StringRecord) {
        self.headers += 1;
    }
    fn row(&mut self, row: &Row<'_>) {
        self.rows.push((row.strategy.to_string(), row.index));
    }
}

#[test]
fn one_pass_shared_by_several_readers_gives_each_what_its_own_pass_gives() {
    let dir = scratch("shared-pass");
    let csv = dir.join("puzzles.csv");
    let mut rows = Vec::new();
    for i in 0..40u64 {
        rows.push(("d", i, "b", Some(50 + (3 * i) % 17), Some(i)));
        let t = (i % 9 != 4).then_some(60 + (5 * i) % 23);
        rows.push(("d", i, "c", t, None));
    }
    puzzles_csv(&csv, &rows);
    let pairs = [("d".to_string(), "c".to_string(), "b".to_string())];
    let mut first = worst::FirstPass::new(&pairs);
    let mut seen = Seen::default();
    PuzzleRows::feed(&csv, &mut [&mut first, &mut seen]).unwrap();
    let shared = Worst::after(&csv, first).unwrap();
    assert_eq!(Some(shared), Worst::read(&csv, &pairs).unwrap());
    assert_eq!(seen.headers, 1);
    let want: Vec<(String, u64)> = rows.iter().map(|r| (r.2.to_string(), r.1)).collect();
    assert_eq!(seen.rows, want, "every row, in file order");
}

/// `run` on the first `limit` puzzles of easy.csv, into `out`.
fn run(out: &Path, limit: &str, extra: &[&str]) {
    let easy = dataset("easy.csv");
    let mut args = vec!["run", &easy, "--limit", limit, "-q"];
    args.extend(extra);
    args.extend(["--out", out.to_str().unwrap()]);
    let o = bin(&args);
    assert!(o.status.success(), "{}", err(&o));
}

#[test]
fn report_and_summary_list_the_slowest_puzzles_with_their_lines() {
    let dir = scratch("pages");
    let out = dir.join("with");
    run(&out, "12", &["-s", "fast", "-s", "naive"]);
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    for page in [&md, &html] {
        assert!(page.contains("Slowest puzzles"), "{page}");
        assert!(page.contains("lost most to the baseline"));
        // easy.csv has a header: puzzle 0 is on line 2, puzzle 11 on 13.
        assert!(page.contains("easy.csv:"), "{page}");
    }
    let csv_rows = std::fs::read_to_string(out.join("puzzles.csv")).unwrap();
    let naive_slowest = csv_rows
        .lines()
        .skip(1)
        .filter(|l| l.contains(",naive,"))
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[7].parse::<u64>().unwrap(), f[1].parse::<u64>().unwrap())
        })
        .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))
        .unwrap();
    let line = naive_slowest.1 + 2;
    assert!(
        md.contains(&format!(
            "| 1 | {} | {}:{line} |",
            naive_slowest.1,
            dataset("easy.csv")
        )),
        "{md}"
    );
    // `report DIR` renders the same page from the directory.
    let o = bin(&["report", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(
        std::fs::read_to_string(out.join("report.html")).unwrap(),
        html
    );

    let out = dir.join("without");
    run(
        &out,
        "5",
        &["-s", "fast", "-s", "hidden", "--no-puzzle-csv"],
    );
    for f in ["summary.md", "report.html"] {
        let page = std::fs::read_to_string(out.join(f)).unwrap();
        assert!(page.contains(worst::NEEDS_CSV), "{f}");
    }
}

/// The text of every `<text>` element of an SVG file, with whether it is
/// centred (the x axis's tick labels are; the y axis's end at the axis).
fn svg_texts(path: &Path) -> Vec<(String, bool)> {
    let src = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&src).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| {
            let text = n.text().unwrap_or("").trim().to_string();
            (text, n.attribute("text-anchor") == Some("middle"))
        })
        .collect()
}

#[test]
fn a_thread_scan_has_whole_number_ticks() {
    let out = scratch("scan-j").join("s");
    run(&out, "8", &["-s", "fast", "-j", "1,2"]);
    let texts = svg_texts(&out.join("charts/scan-easy.svg"));
    let x_numbers: Vec<f64> = texts
        .iter()
        .filter(|(_, centred)| *centred)
        .filter_map(|(t, _)| t.parse::<f64>().ok())
        .collect();
    // A tick at each thread count, and none between them.
    assert_eq!(x_numbers, [1.0, 2.0], "{texts:?}");
}

#[test]
fn spec_scan_rows_name_their_own_spec() {
    let out = scratch("scan-prop").join("s");
    run(&out, "8", &["-s", "hidden", "--scan", "prop=none,hidden"]);
    let scan = json(&out.join("scan.json"));
    let rows = scan["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for (r, want) in rows.iter().zip(["prop=none", "prop=hidden"]) {
        assert!(r["spec"].as_str().unwrap().starts_with(want), "{r}");
    }
    let csv = std::fs::read_to_string(out.join("scan.csv")).unwrap();
    let md = std::fs::read_to_string(out.join("scan.md")).unwrap();
    for text in [&csv, &md] {
        assert!(text.contains("prop=none,branch=mrv"), "{text}");
        assert!(text.contains("prop=hidden,branch=mrv"), "{text}");
    }
    // The chart's x ticks are the values' names.
    let texts = svg_texts(&out.join("charts/scan-easy.svg"));
    let x: Vec<&str> = texts
        .iter()
        .filter(|(_, centred)| *centred)
        .map(|(t, _)| t.as_str())
        .collect();
    assert!(x.contains(&"none") && x.contains(&"hidden"), "{x:?}");
}
