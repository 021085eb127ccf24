//! Every link of the Markdown documents resolves: a relative link names a
//! file or directory of the repository, and its `#anchor` (or a link
//! within the page) names a heading of the file it points to, spelled as
//! GitHub spells heading anchors. Web links are not fetched.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The Markdown files checked: the root's, docs/, results/, datasets/ and
/// every README under examples/.
fn documents() -> Vec<PathBuf> {
    let root = Path::new(ROOT);
    let mut out = Vec::new();
    for dir in [
        "",
        "docs",
        "results",
        "datasets",
        "examples",
        "examples/solvers/c",
        "capi",
    ] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// GitHub's anchor of a heading: lowercase; letters, digits, spaces,
/// hyphens and underscores kept, spaces made hyphens, everything else
/// dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown file (a repeated heading gets `-1`, `-2`, …).
fn anchors(path: &Path) -> HashSet<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut seen = HashSet::new();
    let mut fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        let Some(h) = line.strip_prefix('#') else {
            continue;
        };
        let h = h.trim_start_matches('#');
        if !h.starts_with(' ') {
            continue;
        }
        let base = slug(h);
        let mut a = base.clone();
        let mut k = 1;
        while seen.contains(&a) {
            a = format!("{base}-{k}");
            k += 1;
        }
        seen.insert(a);
    }
    seen
}

/// The targets of the inline links `[text](target)` of a Markdown text,
/// outside code blocks and code spans, with their line numbers.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fence = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        // Code spans hold no links.
        let mut plain = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                plain.push_str(part);
            }
        }
        let b = plain.as_bytes();
        let mut i = 0;
        while let Some(at) = plain[i..].find("](") {
            let start = i + at + 2;
            let mut depth = 1;
            let mut j = start;
            while j < b.len() && depth > 0 {
                match b[j] {
                    b'(' => depth += 1,
                    b')' => depth -= 1,
                    _ => {}
                }
                j += 1;
            }
            let target = plain[start..j.saturating_sub(1)].trim();
            let target = target.split_whitespace().next().unwrap_or("");
            out.push((n + 1, target.to_string()));
            i = j.max(start);
        }
    }
    out
}

#[test]
fn every_link_of_the_documents_resolves() {
    let docs = documents();
    assert!(docs.iter().any(|d| d.ends_with("README.md")));
    let mut broken = Vec::new();
    let mut checked = 0;
    for doc in &docs {
        let text = std::fs::read_to_string(doc).unwrap();
        let dir = doc.parent().unwrap();
        for (line, target) in links(&text) {
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (file, anchor) = match target.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (target.as_str(), None),
            };
            let path = if file.is_empty() {
                doc.clone()
            } else {
                dir.join(file)
            };
            let shown = format!(
                "{}:{line}: {target}",
                doc.strip_prefix(ROOT).unwrap().display()
            );
            if !path.exists() {
                broken.push(format!("{shown} (no such file)"));
                continue;
            }
            if let Some(a) = anchor {
                if path.extension().is_some_and(|x| x == "md") && !anchors(&path).contains(a) {
                    broken.push(format!("{shown} (no such heading)"));
                }
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} links found: the parser missed them"
    );
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn anchors_are_spelled_as_github_spells_them() {
    assert_eq!(
        slug(" `run --gate`: is the candidate slower? (one process, paired)"),
        "run---gate-is-the-candidate-slower-one-process-paired"
    );
    assert_eq!(
        slug(" 3. `fast` against the `sudoku` crate (issue 4)"),
        "3-fast-against-the-sudoku-crate-issue-4"
    );
    assert_eq!(
        links("see [a](b.md#c) and `[x](y)` and [d](e (f))")
            .into_iter()
            .map(|(_, t)| t)
            .collect::<Vec<_>>(),
        ["b.md#c", "e"]
    );
}

/// docs/SOLVERS.md shows the example workflow for a solver's repository as
/// it is in examples/ci/solver-bench.yml, the file actionlint checks in CI.
#[test]
fn the_documented_ci_workflow_is_the_checked_one() {
    let doc = std::fs::read_to_string(Path::new(ROOT).join("docs/SOLVERS.md")).unwrap();
    let file =
        std::fs::read_to_string(Path::new(ROOT).join("examples/ci/solver-bench.yml")).unwrap();
    assert!(
        doc.contains(&format!("```yaml\n{file}```")),
        "docs/SOLVERS.md's workflow differs from examples/ci/solver-bench.yml"
    );
}

/// Every test a document names as holding a promise exists: a
/// `tests/FILE.rs::name` names a function of that file, and a
/// `module::path::tests::name` a function of that module's source (its
/// `mod.rs`, `.rs` or `tests.rs`). `…::name` continues the file before it.
#[test]
fn every_test_a_document_names_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let defines = |file: &Path, name: &str| {
        std::fs::read_to_string(file).is_ok_and(|t| t.contains(&format!("fn {name}(")))
    };
    let mut missing = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        let mut last: Option<PathBuf> = None;
        for cited in text.split('`').skip(1).step_by(2) {
            let (file, name) = if let Some((f, n)) = cited.split_once(".rs::") {
                (Some(root.join(format!("{f}.rs"))), n)
            } else if let Some(n) = cited.strip_prefix("…::") {
                (last.clone(), n)
            } else if let Some((module, n)) = cited.rsplit_once("::tests::") {
                let base = root.join("src").join(module.replace("::", "/"));
                let source = [
                    base.join("tests.rs"),
                    base.join("mod.rs"),
                    base.with_extension("rs"),
                ]
                .into_iter()
                .find(|p| defines(p, n.trim()));
                (source.or(Some(base.with_extension("rs"))), n)
            } else {
                continue;
            };
            let (Some(file), name) = (file, name.trim()) else {
                continue;
            };
            let plain = name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !plain
                || !file.starts_with(root.join("tests")) && !file.starts_with(root.join("src"))
            {
                continue;
            }
            if !defines(&file, name) {
                missing.push(format!("{}: {}::{name}", doc.display(), file.display()));
            }
            last = Some(file);
        }
    }
    assert!(
        missing.is_empty(),
        "documents name tests that do not exist:\n{}",
        missing.join("\n")
    );
}

/// The table of exit statuses in docs/RELIABILITY.md is the one the code
/// has (`bench_sudoku::support::exit`), which `run --help` also shows;
/// `BLESS=1` writes it.
#[test]
fn the_exit_status_table_is_the_codes() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/RELIABILITY.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let begin = text.find("<!-- exit-status:begin").expect("begin marker");
    let body = begin + text[begin..].find("-->\n").unwrap() + 4;
    let end = text.find("<!-- exit-status:end -->").expect("end marker");
    let table = bench_sudoku::support::exit::markdown_table();
    if std::env::var_os("BLESS").is_some() {
        let mut new = text[..body].to_string();
        new.push_str(&table);
        new.push_str(&text[end..]);
        std::fs::write(&path, new).unwrap();
        return;
    }
    assert_eq!(
        &text[body..end],
        table,
        "docs/RELIABILITY.md's exit statuses differ from the code's (BLESS=1 cargo test --test links writes them)"
    );
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_bench-sudoku"))
        .args(["run", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.contains("Exit status:") && help.contains("124"),
        "{help}"
    );
}
