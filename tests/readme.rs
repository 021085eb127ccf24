//! README.md's example output (between its quick-start-output markers,
//! written by scripts/readme-example.sh) shows what the quick-start
//! command prints: every exact counter in its table — solved out of the
//! puzzles, guesses/puzzle — and the puzzles of each difficulty class equal
//! a fresh run's. Times are never compared: they are the generating
//! machine's.

mod common;

use common::{json, scratch, text};

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap()
}

/// How README.md's quick-start command starts: install, then run the
/// installed binary.
const QUICK_START: &str = "cargo install --locked --path . && bench-sudoku ";

/// The arguments of the quick-start command: the first line that starts
/// with [`QUICK_START`], without its comment.
fn quick_start_args(readme: &str) -> Vec<String> {
    let line = readme
        .lines()
        .find_map(|l| l.strip_prefix(QUICK_START))
        .expect("README.md has a quick-start command");
    let command = line.split('#').next().unwrap();
    command.split_whitespace().map(str::to_string).collect()
}

/// The generated block: the lines between the markers.
fn block(readme: &str) -> Vec<&str> {
    let lines: Vec<&str> = readme.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with("<!-- quick-start-output:begin"))
        .expect("README.md has the begin marker");
    let end = lines
        .iter()
        .position(|l| l.starts_with("<!-- quick-start-output:end"))
        .expect("README.md has the end marker");
    lines[start + 1..end].to_vec()
}

/// The cells of the rows of the table whose header starts with `head`, by
/// column name: a right-aligned column's cell (`right`) ends where its
/// header ends, a left-aligned one (`left`) starts where its header starts
/// (positions in characters: `µs` is one).
fn table(
    block: &[&str],
    head: &str,
    (left, right): (&[&'static str], &[&'static str]),
) -> Vec<std::collections::HashMap<&'static str, String>> {
    let header_at = block
        .iter()
        .position(|l| l.starts_with(head))
        .unwrap_or_else(|| panic!("the block holds the table headed {head:?}"));
    let header: Vec<char> = block[header_at].chars().collect();
    let find = |name: &str| -> (usize, usize) {
        let h: String = header.iter().collect();
        let byte = h.find(name).unwrap_or_else(|| panic!("no column {name}"));
        let start = h[..byte].chars().count();
        (start, start + name.chars().count())
    };
    let mut rows = Vec::new();
    for line in &block[header_at + 1..] {
        let chars: Vec<char> = line.chars().collect();
        // The rows end at the first line that does not start with a dataset name
        // followed by the table's spacing.
        if chars.len() < header.len() / 2 || line.starts_with(' ') || !line.contains("  ") {
            break;
        }
        let mut row = std::collections::HashMap::new();
        for &name in left {
            let (start, _) = find(name);
            let rest: String = chars[start..].iter().collect();
            row.insert(name, rest.split_whitespace().next().unwrap().to_string());
        }
        for &name in right {
            let (_, end) = find(name);
            let before: String = chars[..end].iter().collect();
            row.insert(name, before.split_whitespace().last().unwrap().to_string());
        }
        rows.push(row);
    }
    rows
}

#[test]
fn the_readme_example_shows_a_fresh_runs_exact_counters() {
    let readme = readme();
    let args = quick_start_args(&readme);
    let block = block(&readme);
    let shown = table(
        &block,
        "dataset  strategy  solved",
        (&["dataset", "strategy", "solved"], &["guesses/puzzle"]),
    );
    assert!(!shown.is_empty(), "no rows in README.md's example block");
    let command = format!("bench-sudoku {}", args.join(" "));
    assert!(
        block.iter().any(|l| l.contains(&command)),
        "the block does not name the quick-start command {command:?}: run scripts/readme-example.sh"
    );

    let out = scratch("readme").join("r");
    let mut run: Vec<String> = args.clone();
    run.extend(["-q", "--out", out.to_str().unwrap()].map(str::to_string));
    let run: Vec<&str> = run.iter().map(String::as_str).collect();
    // The command's paths are the repository's.
    let o = std::process::Command::new(common::BIN)
        .args(&run)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let summary = json(&out.join("summary.json"));
    let results = summary["results"].as_array().unwrap();
    assert_eq!(
        shown.len(),
        results.len(),
        "README.md shows {} rows, the run has {}: run scripts/readme-example.sh",
        shown.len(),
        results.len()
    );
    for (row, r) in shown.iter().zip(results) {
        let unit = format!("{}/{}", row["dataset"], row["strategy"]);
        assert_eq!(row["dataset"], r["dataset"].as_str().unwrap(), "{unit}");
        assert_eq!(row["strategy"], r["strategy"].as_str().unwrap(), "{unit}");
        let fresh = [
            ("solved", format!("{}/{}", r["solved"], r["puzzles"])),
            (
                "guesses/puzzle",
                format!("{:.2}", r["guesses_mean"].as_f64().unwrap()),
            ),
        ];
        for (name, value) in fresh {
            assert_eq!(
                row[name], value,
                "README.md shows {unit} {name} {}, a fresh run gives {value}: run scripts/readme-example.sh",
                row[name]
            );
        }
    }
    // The table by difficulty: each class's puzzles, as the fresh run's.
    let classes = table(
        &block,
        "dataset  class",
        (&["dataset", "class", "strategy"], &["puzzles"]),
    );
    assert!(!classes.is_empty(), "no rows by difficulty");
    let rows = summary["by_class"]["rows"].as_array().expect("by_class");
    for c in &classes {
        let label = c["class"].clone();
        let fresh = rows
            .iter()
            .find(|r| {
                r["scheme"] == "effort"
                    && r["class"] == label.as_str()
                    && r["strategy"] == c["strategy"].as_str()
            })
            .unwrap_or_else(|| panic!("no class {label} of {} in a fresh run", c["strategy"]));
        assert_eq!(c["puzzles"], fresh["puzzles"].to_string(), "class {label}");
    }
}
