//! report.html in a real browser: four strategies with 40-character names
//! fit a 1280-pixel window without a horizontal scroll, and the comparison
//! column is in view. Headless Chromium measures the page (an end-to-end
//! check: it runs with `BENCH_SUDOKU_E2E=1`, which `.ci/run` sets; it needs
//! `chromium`, or `CHROMIUM=/path/to/chrome`).

mod common;

use common::*;
use std::path::Path;
use std::process::Command;

/// A script appended to a copy of the page: once it has laid out, it writes
/// the page's width and the comparison column's edges into the DOM.
const MEASURE: &str = r#"<script>
window.addEventListener('load', () => {
  const t = document.querySelector('table.summary');
  const th = [...t.querySelectorAll('thead th')].find(h => h.textContent.startsWith('vs '));
  const r = th.getBoundingClientRect();
  const d = document.createElement('pre');
  d.id = 'measure';
  d.textContent = JSON.stringify({scroll: document.documentElement.scrollWidth,
    inner: window.innerWidth, left: r.left, right: r.right});
  document.body.appendChild(d);
});
</script>"#;

fn chromium() -> String {
    if let Ok(c) = std::env::var("CHROMIUM") {
        return c;
    }
    for c in ["chromium", "chromium-browser", "google-chrome"] {
        if Command::new(c).arg("--version").output().is_ok() {
            return c.to_string();
        }
    }
    panic!("BENCH_SUDOKU_E2E is set but no Chromium was found (apt-get install chromium, or CHROMIUM=…)");
}

/// The measurements of `page` in a `width`-pixel window.
fn measure(page: &Path, width: u32) -> serde_json::Value {
    let profile = scratch("chromium-profile");
    let out = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--virtual-time-budget=3000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--window-size={width},900"))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    let dom = text(&out.stdout);
    let at = dom
        .find("<pre id=\"measure\">")
        .unwrap_or_else(|| panic!("no measurement in the page: {}", err(&out)));
    let rest = &dom[at + "<pre id=\"measure\">".len()..];
    let json = &rest[..rest.find('<').unwrap()];
    serde_json::from_str(&json.replace("&quot;", "\"")).unwrap()
}

#[test]
fn four_long_names_fit_a_1280_pixel_window_with_the_comparison_in_view() {
    if std::env::var_os("BENCH_SUDOKU_E2E").is_none() {
        eprintln!("an end-to-end check: set BENCH_SUDOKU_E2E=1 (.ci/run does)");
        return;
    }
    let dir = scratch("report-width");
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/hard.csv");
    let name = |c: char| std::iter::repeat_n(c, 40).collect::<String>();
    let out = dir.join("out");
    let o = bin(&[
        "run",
        data.to_str().unwrap(),
        "--limit",
        "200",
        "-q",
        "--out",
        out.to_str().unwrap(),
        "-s",
        &format!("fast,name={}", name('a')),
        "-s",
        &format!("mrv,name={}", name('b')),
        "-s",
        &format!("hidden,name={}", name('c')),
        "-s",
        &format!("locked,name={}", name('d')),
    ]);
    assert!(o.status.success(), "{}", err(&o));
    let page = dir.join("measured.html");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    std::fs::write(&page, html + MEASURE).unwrap();
    let m = measure(&page, 1280);
    let f = |k: &str| m[k].as_f64().unwrap();
    assert!(f("scroll") <= f("inner"), "the page scrolls sideways: {m}");
    assert!(
        f("left") >= 0.0 && f("right") <= f("inner"),
        "the comparison is out of view: {m}"
    );
}
