//! End-to-end tests of the `solve`, `check` and `strategies` commands.

mod common;

use common::*;
use std::io::Write;
use std::process::{Output, Stdio};

fn run(args: &[&str]) -> Output {
    command().args(args).output().expect("binary runs")
}

fn run_stdin(args: &[&str], input: &str) -> Output {
    let mut child = command()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn temp_file(name: &str, content: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("bench-sudoku-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    path
}

#[test]
fn solve_prints_the_grid_status_and_counters() {
    let o = run(&["solve", LOGIC_SOLVES[0]]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("status: solved (unique solution)"), "{out}");
    assert!(out.contains("------+-------+------"), "{out}");
    assert!(out.contains("guesses 0"), "{out}");
    // The printed block is the verified solution.
    let digits: String = out
        .lines()
        .skip(1)
        .take(11)
        .flat_map(|l| l.chars().filter(|c| c.is_ascii_digit()))
        .collect();
    let sol = grid(&digits);
    assert!(sol.is_solution_of(&grid(LOGIC_SOLVES[0])));
}

#[test]
fn solve_json_lines_from_stdin() {
    let input = format!(
        "# comment\n{}\r\n\n{}\n{}\n",
        LOGIC_SOLVES[1], FAMOUS_HARD, SINGLES_STALL
    );
    let o = run_stdin(&["solve", "-s", "locked", "--json"], &input);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let rows: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    assert_eq!(rows.len(), 3);
    for (row, p) in rows
        .iter()
        .zip([LOGIC_SOLVES[1], FAMOUS_HARD, SINGLES_STALL])
    {
        assert_eq!(row["status"], "solved");
        assert_eq!(row["solutions"], 1);
        for key in ["guesses", "backtracks", "max_depth", "nodes"] {
            assert!(row[key].is_u64(), "{key} missing");
        }
        let sol = grid(row["solution"].as_str().unwrap());
        assert!(sol.is_solution_of(&grid(p)));
    }
    assert!(rows[1]["guesses"].as_u64().unwrap() > 0);
}

#[test]
fn solve_logic_reports_stalled_with_filled_cells() {
    let o = run(&["solve", "-s", "logic", "--json", LADDER_STALLS]);
    let row: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(row["status"], "stalled");
    assert_eq!(row["filled"], 16);
    assert!(row.get("solution").is_none());
    assert_eq!(row["grid"].as_str().unwrap().len(), 81);
}

#[test]
fn solve_trace_shows_the_process() {
    let o = run(&["solve", "-s", "hidden", "--trace", SINGLES_STALL]);
    let out = stdout(&o);
    assert!(out.contains("by naked single"), "{out}");
    assert!(out.contains("by hidden single"), "{out}");
    assert!(out.contains("guess r"), "{out}");
    assert!(out.contains("at depth 1"), "{out}");
    assert!(out.contains("backtrack"), "{out}");
    assert!(out.contains("contradiction"), "{out}");
    let o = run(&["solve", "-s", "locked", "--trace", SINGLES_STALL]);
    let out = stdout(&o);
    assert!(
        out.contains("pointing") || out.contains("claiming"),
        "{out}"
    );
}

#[test]
fn solve_count_limits_the_empty_grid() {
    let empty = ".".repeat(81);
    let o = run(&["solve", "--json", "--count", "7", &empty]);
    let row: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(row["status"], "multiple");
    assert_eq!(row["solutions"], 7);
}

#[test]
fn solve_rejects_a_malformed_puzzle_without_panicking() {
    let o = run(&["solve", &LOGIC_SOLVES[0][..80]]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("expected 81 cells, found 80"), "{err}");
    assert!(!err.contains("panicked"));
    let input = format!("{}\n{}x\n", LOGIC_SOLVES[0], &LOGIC_SOLVES[1][..80]);
    let o = run_stdin(&["solve", "--json"], &input);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("stdin:2:"), "{err}");
    assert!(err.contains("'x' at position 81"), "{err}");
    let o = run(&["solve", "-s", "quantum", LOGIC_SOLVES[0]]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown strategy"));
}

#[test]
fn solve_reports_invalid_givens() {
    let mut p = EASY.to_string();
    p.replace_range(0..1, "6");
    let o = run(&["solve", &p]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("invalid (givens conflict: r1c1 and r1c2 are both 6)"));
}

#[test]
fn check_classifies_a_file() {
    let mut conflict = EASY.to_string();
    conflict.replace_range(0..1, "6");
    let content = format!(
        "# test file\r\n{}\r\n{}\r\n\r\n{}\r\n{}\r\n{}\r\n",
        LOGIC_SOLVES[0],
        FAMOUS_HARD,
        NO_SOLUTION,
        ".".repeat(81),
        conflict
    );
    let path = temp_file("check.txt", &content);
    let o = run(&["check", "--list", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("5 puzzles"), "{out}");
    let count = |label: &str| -> u64 {
        out.lines()
            .find(|l| l.trim_start().starts_with(label))
            .and_then(|l| l.split_whitespace().last())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no {label} line in {out}"))
    };
    assert_eq!(count("unique"), 2);
    assert_eq!(count("multiple"), 1);
    assert_eq!(count("no_solution"), 1);
    assert_eq!(count("invalid"), 1);
    assert!(out.contains(":5: no_solution"), "{out}");
    assert!(out.contains(":6: multiple"), "{out}");
    assert!(
        out.contains(":7: invalid (r1c1 and r1c2 are both 6)"),
        "{out}"
    );
    let o = run(&["check", "--strict", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn check_names_file_and_line_of_a_malformed_line() {
    let content = format!("{}\n# ok\n{}\n", LOGIC_SOLVES[0], &LOGIC_SOLVES[1][..79]);
    let path = temp_file("bad.txt", &content);
    let o = run(&["check", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains(&format!(
            "{}:3: puzzle: expected 81 cells, found 79",
            path.display()
        )),
        "{err}"
    );
    let o = run(&["check", "/nonexistent/puzzles.txt"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/nonexistent/puzzles.txt: cannot open"));
    // CSV works too (the dataset reader).
    let csv = temp_file(
        "check.csv",
        &format!("id,puzzle\n1,{}\n2,{}\n", LOGIC_SOLVES[0], FAMOUS_HARD),
    );
    let o = run(&["check", csv.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("2 puzzles"));
    let o = run(&["check", std::env::temp_dir().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is a directory"));
}

#[test]
fn strategies_lists_the_catalogue() {
    let o = run(&["strategies"]);
    let out = stdout(&o);
    for name in ["naive", "rowmajor", "mrv", "logic", "hidden", "locked"] {
        assert!(out.lines().any(|l| l.starts_with(name)), "{name} in {out}");
    }
    assert!(out.contains("prop=locked,branch=mrv,order=asc"));
    let o = run(&["strategies", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v.as_array().unwrap().len() >= 6);
}

#[test]
fn help_texts_have_examples() {
    for cmd in ["solve", "check", "strategies"] {
        let o = run(&[cmd, "--help"]);
        assert!(o.status.success());
        let out = stdout(&o);
        assert!(
            out.contains("Examples") || out.contains("prop="),
            "{cmd} --help: {out}"
        );
    }
}

#[test]
fn completions_and_man_pages_come_from_the_clap_definitions() {
    for (shell, marker) in [
        ("bash", "_bench__sudoku()"),
        ("zsh", "#compdef bench-sudoku"),
        ("fish", "complete -c bench-sudoku"),
        ("elvish", "bench-sudoku"),
        ("powershell", "bench-sudoku"),
    ] {
        let o = run(&["completions", shell]);
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        let script = stdout(&o);
        assert!(
            script.contains(marker),
            "{shell}: {}",
            &script[..script.len().min(300)]
        );
        // Every subcommand and a deep option are offered.
        for word in ["run", "generate", "hard-for", "transform"] {
            assert!(script.contains(word), "{shell} lacks {word}");
        }
    }
    let o = run(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2));

    let o = run(&["man"]);
    assert!(o.status.success());
    let page = stdout(&o);
    assert!(page.contains(".TH bench-sudoku 1"), "{}", &page[..200]);
    assert!(page.contains("generate"));
    let dir = scratch("man");
    let o = run(&["man", "--out", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    for page in [
        "bench-sudoku.1",
        "bench-sudoku-run.1",
        "bench-sudoku-generate.1",
    ] {
        let text = std::fs::read_to_string(dir.join(page)).unwrap();
        assert!(text.starts_with(".ie"), "{page}");
    }
    let run_page = std::fs::read_to_string(dir.join("bench-sudoku-run.1")).unwrap();
    assert!(
        run_page.contains("transform"),
        "run's page lists its options"
    );
}

#[test]
fn mistyped_strategies_and_keys_get_a_suggestion() {
    let p = "000000010400000000020000000000050407008000300001090000300400200050100000000806000";
    for (spec, hint) in [
        ("fsat", "did you mean \"fast\"?"),
        ("dxl", "did you mean \"dlx\"?"),
        ("hiddne", "did you mean \"hidden\"?"),
        ("brnach=mrv", "did you mean \"branch\"?"),
        ("prop=hiden", "did you mean \"hidden\"?"),
        ("order=descending", "did you mean \"desc\"?"),
    ] {
        let o = run(&["solve", "-s", spec, p]);
        assert_eq!(o.status.code(), Some(2), "{spec}");
        assert!(stderr(&o).contains(hint), "{spec}: {}", stderr(&o));
    }
    // Nothing close: no guess.
    let o = run(&["solve", "-s", "quantum", p]);
    assert!(!stderr(&o).contains("did you mean"), "{}", stderr(&o));
}

#[test]
fn every_command_has_examples_in_its_help() {
    for cmd in [
        "solve",
        "check",
        "run",
        "generate",
        "strategies",
        "compare",
        "merge",
        "export",
        "serve",
        "report",
        "comment",
        "corpora",
        "corpora fetch",
        "completions",
        "man",
    ] {
        let words: Vec<&str> = cmd.split(' ').chain(["--help"]).collect();
        let o = run(&words);
        assert!(o.status.success(), "{cmd}");
        assert!(
            stdout(&o).contains("Examples:"),
            "{cmd} --help has no examples"
        );
    }
}

#[test]
fn plain_progress_lines_for_logs_and_warnings_for_debug_builds() {
    let dir = scratch("plain-progress");
    let hard = format!("{}/datasets/hard.csv", env!("CARGO_MANIFEST_DIR"));
    let out = dir.join("r");
    let o = run(&[
        "run",
        &hard,
        "-s",
        "hidden",
        "--limit",
        "200",
        "--batch-size",
        "8",
        "--progress",
        "plain",
        "--progress-interval",
        "1ms",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    let lines: Vec<&str> = e.lines().filter(|l| l.starts_with('[')).collect();
    assert!(lines.len() >= 2, "{e}");
    assert!(
        lines
            .iter()
            .all(|l| l.contains("hard hidden:") && l.contains("/s")),
        "{e}"
    );
    // A test binary is a debug build: said on stderr and in meta.json.
    if cfg!(debug_assertions) {
        assert!(e.contains("warning: debug build"), "{e}");
        assert_eq!(json(&out.join("meta.json"))["debug_build"], true);
        let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
        assert!(md.contains("**Warning:** debug build"), "{md}");
    }
    // Not on a terminal and --progress none (or -q): no progress lines.
    let o = run(&[
        "run",
        &hard,
        "-s",
        "hidden",
        "--limit",
        "50",
        "--progress",
        "none",
        "--out",
        dir.join("q").to_str().unwrap(),
    ]);
    assert!(
        !stderr(&o).lines().any(|l| l.starts_with('[')),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_manual_strategy_list_is_what_the_binary_prints() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/USAGE.md")).unwrap();
    let start = readme
        .find("$ bench-sudoku strategies\n")
        .expect("docs/USAGE.md shows it")
        + "$ bench-sudoku strategies\n".len();
    let block = &readme[start..start + readme[start..].find("```").unwrap()];
    let o = run(&["strategies"]);
    assert!(
        stdout(&o).starts_with(block),
        "docs/USAGE.md's `strategies` block is stale; the binary prints:\n{}",
        stdout(&o)
    );
}

#[test]
fn unfinished_strategies_are_marked_and_relative_has_its_range() {
    let dir = scratch("unfinished");
    let hard = format!("{}/datasets/hard.csv", env!("CARGO_MANIFEST_DIR"));
    let out = dir.join("r");
    let o = run(&[
        "run",
        &hard,
        "-s",
        "hidden",
        "-s",
        "prop=hidden,guess=no,name=singles",
        "--limit",
        "60",
        "--repeat",
        "3",
        "--sequential",
        "-q",
        "--details",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = stdout(&o);
    // A sequential run's comparison is the ratio of means, said unpaired.
    assert!(
        table.contains("vs fastest (ratio of means, unpaired)"),
        "{table}"
    );
    let logic = table.lines().find(|l| l.contains(" singles ")).unwrap();
    // Singles alone stall on every hard puzzle: faster, but never "fastest".
    assert!(
        logic.contains("(unfinished)") && !logic.contains("fastest"),
        "{table}"
    );
    assert!(logic.contains("per pass"), "{table}");
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("(unfinished)"), "{md}");
    let svg = std::fs::read_dir(out.join("charts"))
        .unwrap()
        .filter_map(|e| e.ok())
        .find(|e| e.file_name().to_string_lossy().contains("latency"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .unwrap();
    assert!(
        svg.contains("singles (unfinished: 60 of 60)"),
        "latency chart legend"
    );
    let csv = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let row: Vec<&str> = csv
        .lines()
        .find(|l| l.contains(",singles,"))
        .unwrap()
        .split(',')
        .collect();
    let col = |name: &str| row[header.iter().position(|h| *h == name).unwrap()];
    assert_eq!(col("unfinished"), "true");
    assert!(
        !col("mean_ratio_vs_fastest_min").is_empty()
            && !col("mean_ratio_vs_fastest_max").is_empty(),
        "{csv}"
    );
}

#[test]
fn the_manual_solve_example_is_what_the_binary_prints() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/USAGE.md")).unwrap();
    let start = readme
        .find("$ bench-sudoku solve -s locked ")
        .expect("docs/USAGE.md shows it");
    let block = &readme[start..start + readme[start..].find("```").unwrap()];
    let mut lines = block.lines();
    let command = lines.next().unwrap().trim_start_matches("$ bench-sudoku ");
    let args: Vec<&str> = command.split_whitespace().collect();
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    // Everything but the time is exact and must match.
    let strip_time = |l: &str| l.split("  time ").next().unwrap().to_string();
    let shown: Vec<String> = lines.map(strip_time).collect();
    let printed: Vec<String> = stdout(&o).lines().map(strip_time).collect();
    assert_eq!(shown, printed, "docs/USAGE.md's `solve` example is stale");
}
