//! Every exporter's bytes from a fixed results directory
//! (tests/fixtures/results/run, made by the command in its README): the
//! directory is loaded as `report DIR` loads it, each exporter renders it,
//! and the bytes must equal the files there. After an intended change of a
//! format, `BLESS=1 cargo test --test golden` rewrites them (review the
//! diff).

use bench_sudoku::commands::report::load;
use bench_sudoku::report::{self, Exporter};
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/results/run")
}

#[test]
fn every_exporter_renders_the_fixture_byte_for_byte() {
    let dir = fixture();
    let loaded = load(&dir).unwrap();
    let report = loaded.report().with_scatter(&dir).unwrap();
    let mut exporters: Vec<Box<dyn Exporter>> = report::exporters();
    for (format, file) in [
        ("bmf", "bmf.json"),
        ("github-benchmark", "github-benchmark.json"),
    ] {
        exporters.push(report::tracker_exporter(format, &dir.join(file)).unwrap());
    }
    let bless = std::env::var_os("BLESS").is_some();
    let mut checked = 0;
    for e in &exporters {
        for out in e.render(&report).unwrap() {
            let path = dir.join(&out.path);
            if bless {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, &out.bytes).unwrap();
            }
            let golden = std::fs::read(&path)
                .unwrap_or_else(|e| panic!("{}: {e} (BLESS=1 writes it)", path.display()));
            assert!(
                golden == out.bytes,
                "{} ({}) differs from what the exporter renders now",
                path.display(),
                e.name()
            );
            checked += 1;
        }
    }
    // summary.csv/json/md, report.html, 4 charts, 12 histogram files, 2
    // tracker files.
    assert_eq!(checked, 22);
}
