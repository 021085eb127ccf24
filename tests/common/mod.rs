//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod solvers;

use bench_sudoku::grid::Grid;
use bench_sudoku::solver::{Counter, Limits, Solver, Status, Strategy};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The bench-sudoku binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_bench-sudoku");

/// The puzzles named in the foundation issue (0 = blank).
pub const LOGIC_SOLVES: [&str; 3] = [
    "009020034070008006600500000003900080700040002050002700000001007200300090480060500",
    "000007308200000007097805600070100906005903700901008030002304560800000001504200000",
    "100040007050002090008000400070200008006090100300008050001000600020800040600030005",
];
/// Singles alone (`prop=hidden,guess=no`) stall on it; locked candidates
/// finish it.
pub const SINGLES_STALL: &str =
    "850000200060000010001000437000302000005080900000701000586000300020000050007000046";
/// The whole technique ladder (`logic`) stalls on it with 16 cells filled
/// (from datasets/hard.csv).
pub const LADDER_STALLS: &str =
    "090007050004030008805200040000800400001050030700000000000900000100500020200008600";
pub const EASY: &str =
    "060593000901000500030400090108020004400309001200010609080006020004000807000785010";
pub const FAMOUS_HARD: &str =
    "800000000070090200003600000050007000000045700000100030001000068008500010090000400";
/// Valid givens (no rule broken) but no solution; needs search to prove it.
pub const NO_SOLUTION: &str =
    "800000000070090200003600000050007000000045700000100030001000068008300010090000400";

pub fn grid(s: &str) -> Grid {
    Grid::parse(s).expect("test puzzle parses")
}

/// The corpora directory when `BENCH_SUDOKU_CORPORA` is set.
pub fn corpora() -> Option<PathBuf> {
    let dir = std::env::var_os("BENCH_SUDOKU_CORPORA")?;
    let dir = PathBuf::from(dir);
    assert!(
        dir.is_dir(),
        "BENCH_SUDOKU_CORPORA={} is not a directory",
        dir.display()
    );
    Some(dir)
}

/// Puzzles of a plain-lines corpus file (comments and blank lines skipped).
pub fn read_corpus(path: &std::path::Path) -> Vec<Grid> {
    let text = std::fs::read_to_string(path).expect("corpus readable");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| Grid::parse(l).expect("corpus line parses"))
        .collect()
}

/// A small deterministic generator for test puzzles (xorshift64*).
pub struct TestRng(u64);

impl TestRng {
    pub fn new(seed: u64) -> Self {
        TestRng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }
}

/// Applies a random Sudoku symmetry (digit relabelling, row/column
/// permutations within bands/stacks, band/stack permutations, transpose).
pub fn random_symmetry(g: &Grid, rng: &mut TestRng) -> Grid {
    let mut digits: Vec<u8> = (1..=9).collect();
    rng.shuffle(&mut digits);
    let perm = |rng: &mut TestRng| -> [usize; 9] {
        let mut bands = [0usize, 1, 2];
        rng.shuffle(&mut bands);
        let mut p = [0usize; 9];
        for (bi, &b) in bands.iter().enumerate() {
            let mut inner = [0usize, 1, 2];
            rng.shuffle(&mut inner);
            for (ii, &i) in inner.iter().enumerate() {
                p[bi * 3 + ii] = b * 3 + i;
            }
        }
        p
    };
    let rows = perm(rng);
    let cols = perm(rng);
    let transpose = rng.below(2) == 1;
    let mut out = [0u8; 81];
    for r in 0..9 {
        for c in 0..9 {
            let (sr, sc) = if transpose {
                (cols[c], rows[r])
            } else {
                (rows[r], cols[c])
            };
            let v = g.get(sr * 9 + sc);
            out[r * 9 + c] = if v == 0 { 0 } else { digits[v as usize - 1] };
        }
    }
    Grid::from_cells(out).unwrap()
}

/// A command for the binary under test (the one way tests start it).
pub fn command() -> Command {
    Command::new(BIN)
}

/// Runs the binary with `args` and waits for it.
pub fn bin(args: &[&str]) -> std::process::Output {
    command().args(args).output().expect("binary runs")
}

/// Standard error of a finished command, as text.
pub fn err(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The first `n` puzzles of datasets/hard.csv as plain lines.
pub fn hard_lines(n: usize) -> String {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/hard.csv"))
            .unwrap();
    text.lines()
        .skip(1)
        .take(n)
        .map(|l| format!("{}\n", l.split(',').next().unwrap()))
        .collect()
}

/// The first `n` puzzles of datasets/hard.csv, header and all its columns,
/// written to `dir/name.csv`.
pub fn hard_csv(dir: &Path, name: &str, n: usize) -> PathBuf {
    let hard =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/hard.csv"))
            .unwrap();
    let path = dir.join(format!("{name}.csv"));
    let body: Vec<&str> = hard.lines().take(n + 1).collect();
    std::fs::write(&path, body.join("\n") + "\n").unwrap();
    path
}

/// `git ARGS` in `dir` with an identity for commits; its trimmed output.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", err(&out));
    text(&out.stdout).trim().to_string()
}

/// A fresh, empty scratch directory, unique to this test binary and process.
/// Removes the scratch folders of earlier runs of test binary `tag` whose
/// process is gone (Linux: no `/proc/PID`), so that what tests leave
/// behind never outlives the next run.
fn sweep_scratch(tag: &str) {
    let prefix = format!("bench-sudoku-{tag}-");
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(&prefix))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        let gone = cfg!(target_os = "linux") && !Path::new(&format!("/proc/{pid}")).exists();
        if gone && pid != std::process::id() {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// A tool a test needs is missing: outside CI the test is skipped (it
/// says so); in CI (`BENCH_SUDOKU_E2E`, which `.ci/run` sets) the test
/// fails, since a test that passed without its tool would prove nothing.
pub fn skip_without(tool: &str, why: &str) {
    assert!(
        std::env::var_os("BENCH_SUDOKU_E2E").is_none(),
        "this test needs {tool} ({why}), and CI must have it"
    );
    eprintln!("skipped: no {tool} ({why})");
}

/// Whether the end-to-end checks run (`BENCH_SUDOKU_E2E`, which `.ci/run`
/// sets): the release install, the headless browser and the comparisons of
/// timings with an independent method, whose outcome a loaded machine can
/// move. Outside them the test says it was left out.
pub fn end_to_end(what: &str) -> bool {
    let on = std::env::var_os("BENCH_SUDOKU_E2E").is_some();
    if !on {
        eprintln!("{what}: an end-to-end check; set BENCH_SUDOKU_E2E=1 (.ci/run does)");
    }
    on
}

pub fn scratch(name: &str) -> PathBuf {
    let exe = std::env::current_exe().ok();
    let tag = exe
        .as_deref()
        .and_then(|p| p.file_stem())
        .and_then(|s| s.to_str())
        .unwrap_or("test");
    static SWEPT: std::sync::Once = std::sync::Once::new();
    SWEPT.call_once(|| sweep_scratch(tag));
    let dir = std::env::temp_dir()
        .join(format!("bench-sudoku-{tag}-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A JSON file, parsed.
pub fn json(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Bytes (stdout or stderr) as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A shared library's file name on this system (`libX.so`, `libX.dylib`).
pub fn lib_name(stem: &str) -> String {
    format!(
        "{}{stem}{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    )
}

/// `target/<profile>/libbench_sudoku_capi.so`, built once per test process
/// with the profile of this test binary.
pub fn capi() -> PathBuf {
    static LIB: OnceLock<PathBuf> = OnceLock::new();
    LIB.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.args(["build", "--quiet", "-p", "bench-sudoku-capi"])
            .current_dir(env!("CARGO_MANIFEST_DIR"));
        if !cfg!(debug_assertions) {
            cmd.arg("--release");
        }
        let status = cmd.status().expect("cargo runs");
        assert!(status.success(), "building bench-sudoku-capi failed");
        let dir = Path::new(BIN).parent().expect("the binary's directory");
        let lib = dir.join(lib_name("bench_sudoku_capi"));
        assert!(lib.is_file(), "{} not built", lib.display());
        lib
    })
    .clone()
}

/// Solves `puzzles` with `a` and `b` through the library; every status,
/// count, grid (when `b` writes one) and common counter must agree. When
/// `b` cannot say "unfinished" (tdoku's signature), an `a` that gave up or
/// stalled is matched by its count alone (the solutions found before it
/// stopped: 0 for a stall) and its counters.
pub fn same_answers(
    a: &Strategy,
    b: &Strategy,
    puzzles: &[Grid],
    limits: &Limits,
    b_says_unfinished: bool,
) {
    let (mut sa, mut sb) = (Solver::new(), Solver::new());
    let common: Vec<Counter> = Counter::ALL
        .into_iter()
        .filter(|&c| a.capabilities().counters.has(c) && b.capabilities().counters.has(c))
        .collect();
    for p in puzzles {
        let x = sa.answer(p, a, limits);
        let y = sb.answer(p, b, limits);
        let (rx, ry) = (&x.result, &y.result);
        let what = format!("{} vs {} on {p}", a.name(), b.name());
        let unfinished = matches!(rx.status, Status::GaveUp | Status::Stalled);
        if unfinished && !b_says_unfinished {
            let found = if rx.status == Status::Stalled {
                0
            } else {
                rx.solutions
            };
            assert_eq!(ry.solutions, found, "{what}");
        } else {
            assert_eq!(
                (rx.status, rx.solutions),
                (ry.status, ry.solutions),
                "{what}"
            );
            if !y.unwritten && rx.status != Status::Stalled {
                assert_eq!(rx.grid, ry.grid, "{what}");
            }
        }
        for &c in &common {
            assert_eq!(
                c.get(&rx.counters),
                c.get(&ry.counters),
                "{what}: {}",
                c.name()
            );
        }
    }
}

/// A `cmd=` spec of a protocol solver (a shell script written in `dir`)
/// that finds no solution to any puzzle: every puzzle that has a solution
/// in its dataset is then a mismatch (`dataset has a solution, engine says
/// no_solution`), which the built-in engines never give.
pub fn no_solution_solver(dir: &Path) -> String {
    let path = dir.join("no-solution.sh");
    std::fs::write(
        &path,
        "#!/bin/sh\nread greeting\necho 'bench-sudoku-protocol 1 name=liar reports=guesses'\n\
         while read p l; do echo '0 - guesses=0'; done\n",
    )
    .unwrap();
    format!("cmd=sh {},name=liar", path.display())
}

/// Runs `cmd` to its end, its output captured; panics (killing it) when it
/// has not ended within `secs` seconds, so that a command that hangs fails
/// its test instead of stalling the suite.
pub fn output_within(cmd: &mut Command, secs: u64) -> std::process::Output {
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    loop {
        if child.try_wait().expect("wait").is_some() {
            return child.wait_with_output().expect("output");
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let o = child.wait_with_output().expect("output");
            panic!(
                "{cmd:?} did not end within {secs} s; stderr: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Copies the files of results directory `from` (no subdirectories but
/// the histograms) to `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    for sub in ["", "histograms"] {
        let (f, t) = (from.join(sub), to.join(sub));
        if !f.is_dir() {
            continue;
        }
        std::fs::create_dir_all(&t).unwrap();
        for e in std::fs::read_dir(&f).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_file() {
                std::fs::copy(e.path(), t.join(e.file_name())).unwrap();
            }
        }
    }
}
