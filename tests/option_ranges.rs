//! Every numeric option is checked against its range when parsed: a value
//! outside it (including ones that would wrap or could not be allocated) is
//! refused with exit 2 and a message naming the option and the range,
//! before anything runs or is written; `--help` states the ranges.

mod common;
use common::command;

use std::path::{Path, PathBuf};

fn dataset() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/easy.csv")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("bench-sudoku-ranges-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.parent().unwrap()).unwrap();
    dir
}

/// `args` is refused: exit 2, the option named, no panic, nothing written.
fn refused(args: &[&str], option: &str, expect: &str) {
    let out = scratch(&format!("{option}-{}", args.join("_").replace('/', "")));
    let o = command()
        .args(args)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("binary runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(option), "{args:?}: expected {option} in {err}");
    assert!(
        err.contains(expect),
        "{args:?}: expected {expect:?} in {err}"
    );
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert!(!out.exists(), "{args:?}: nothing may be written");
}

#[test]
fn run_refuses_values_outside_their_range() {
    let data = dataset();
    let data = data.to_str().unwrap();
    let max = "18446744073709551615";
    let cases: &[(&[&str], &str, &str)] = &[
        (&["--batch-size", max], "--batch-size", "1..=65536"),
        (&["--batch-size", "0"], "--batch-size", "1..=65536"),
        (&["--warmup", "4294967295"], "--warmup", "0..=1000"),
        (&["--repeat", "4294967295"], "--repeat", "1..=1000"),
        (&["--repeat", "0"], "--repeat", "1..=1000"),
        (&["--count", "0"], "--count", "1.."),
        (&["--limit", "0"], "--limit", "1.."),
        (&["-j", "100000"], "--threads", "0..=4096"),
        (&["-j", "-1"], "'-1'", ""),
        (
            &["--gate", "a:b", "--threshold=-3"],
            "--threshold",
            "0 < PCT <= 1000",
        ),
        (
            &["--gate", "a:b", "--threshold", "nan"],
            "--threshold",
            "0 < PCT <= 1000",
        ),
    ];
    for (extra, option, expect) in cases {
        let mut args = vec!["run", data, "-s", "fast", "-q"];
        args.extend_from_slice(extra);
        refused(&args, option, expect);
    }
}

#[test]
fn other_commands_refuse_values_outside_their_range() {
    let o = command()
        .args(["solve", common::EASY, "--count", "0"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--count"));
    for args in [
        &["generate", "-n", "0"][..],
        &["generate", "--max-attempts", "0"],
        &["generate", "-j", "99999"],
    ] {
        let o = command().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}: nothing generated");
    }
    let o = command()
        .args(["compare", "a", "b", "--threshold", "0"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("0 < PCT <= 1000"));
}

#[test]
fn help_states_the_ranges() {
    let o = command().args(["run", "--help"]).output().unwrap();
    // Words as one line (the help wraps them).
    let help = String::from_utf8_lossy(&o.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for range in [
        "1 to 65536",
        "1 to 1000",
        "0 to 1000",
        "0 to 4096",
        "0 < PCT ≤ 1000",
    ] {
        assert!(help.contains(range), "run --help lacks {range:?}");
    }
}

/// Every duration option, at 0 and at a value that overflows a deadline
/// (`Instant::now() + d`), is refused at once: exit 2 naming the option and
/// its range. Each command runs under a time limit, so that a hang fails.
#[test]
fn every_duration_option_is_refused_at_zero_and_when_it_would_overflow() {
    let data = dataset();
    let data = data.to_str().unwrap();
    let cases: &[(&[&str], &str, &str)] = &[
        (
            &["run", data, "-s", "fast", "-q"],
            "--timeout",
            "1ms to 24h",
        ),
        (
            &["run", data, "-s", "fast", "-q"],
            "--progress-interval",
            "1ms to 24h",
        ),
        (&["solve", common::EASY], "--timeout", "1ms to 24h"),
        (&["check", data], "--timeout", "1ms to 24h"),
        (&["serve"], "--timeout", "1ms to 24h"),
        (
            &[
                "run",
                data,
                "-s",
                "fast,name=a",
                "-s",
                "fast,name=b",
                "--gate",
                "a:b",
                "-q",
            ],
            "--budget",
            "1ms to 365d",
        ),
        (
            &["generate", "--hard-for", "fast", "-n", "1"],
            "--budget",
            "1ms to 365d",
        ),
        (
            &["generate", "--hard-for", "fast", "-n", "1"],
            "--timeout",
            "1ms to 24h",
        ),
        (&["strategies"], "--timeout", "1ms to 24h"),
    ];
    for (args, option, range) in cases {
        for value in ["0", "0s", "999999999999h", "18446744073709551615s", "25h"] {
            if *option == "--budget" && value == "25h" {
                continue;
            }
            let out = scratch(&format!("duration-{}", option.trim_start_matches('-')));
            let mut cmd = command();
            cmd.args(*args).args([option, value]);
            if args[0] == "run" {
                cmd.arg("--out").arg(&out);
            }
            let o = common::output_within(&mut cmd, 20);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{args:?} {option} {value}: {err}");
            assert!(err.contains(option), "{args:?} {option} {value}: {err}");
            if value != "18446744073709551615s" {
                assert!(err.contains(range), "{args:?} {option} {value}: {err}");
            }
            assert!(!err.contains("panicked"), "{err}");
            assert!(!out.exists(), "{args:?} {option} {value}: nothing written");
        }
    }
    // Within the range: accepted (the run is short).
    let out = scratch("duration-ok");
    let o = common::output_within(
        command()
            .args([
                "run",
                data,
                "-s",
                "fast",
                "--limit",
                "5",
                "-q",
                "--timeout",
                "24h",
            ])
            .args(["--progress-interval", "1ms", "--out"])
            .arg(&out),
        60,
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn generate_refuses_counts_beyond_its_range() {
    for args in [
        &["generate", "-n", "1000000001"][..],
        &[
            "generate",
            "-n",
            "18446744073709551615",
            "--hard-for",
            "fast",
            "--budget",
            "1s",
        ],
    ] {
        let o = common::output_within(command().args(args), 20);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("1..=1000000000"), "{args:?}: {err}");
    }
    let o = command().args(["generate", "--help"]).output().unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).contains("1 to 1000000000"));
}

#[test]
fn help_states_the_duration_ranges() {
    for (cmd, ranges) in [
        (&["run", "--help"][..], &["1ms to 24h", "1ms to 365d"][..]),
        (&["generate", "--help"], &["1ms to 365d", "1ms to 24h"]),
        (&["solve", "--help"], &["1ms to 24h"]),
    ] {
        let o = command().args(cmd).output().unwrap();
        let help = String::from_utf8_lossy(&o.stdout)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        for r in ranges {
            assert!(help.contains(r), "{cmd:?} --help lacks {r:?}");
        }
    }
}

/// A thread list or scan that names one value twice is refused at once
/// (it used to hang drawing the scan chart over a zero-width axis, and one
/// value's results overwrote the other's).
#[test]
fn repeated_values_of_a_scan_are_refused() {
    let data = dataset();
    let data = data.to_str().unwrap();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let zero_and_cores = format!("0,{cores}");
    for (list, needle) in [
        (&["-j", "1,1"][..], "-j 1,1: 1 is given twice"),
        (&["-j", "2,1,2"], "-j 2,1,2: 2 is given twice"),
        (&["--threads", "1,2,1"], "1 is given twice"),
        (&["-j", &zero_and_cores], "0 is every logical core"),
        (
            &["--scan", "threads=1,01"],
            "--scan threads=1,01: 1 and 01 are the same value",
        ),
        (&["--scan", "batch-size=64,64"], "64 is given twice"),
        (&["--scan", "prop=hidden,hidden"], "hidden is given twice"),
    ] {
        let out = scratch("repeats");
        let o = common::output_within(
            command()
                .args(["run", data, "-s", "fast", "--limit", "5", "-q"])
                .args(list)
                .arg("--out")
                .arg(&out),
            20,
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{list:?}: {err}");
        assert!(err.contains(needle), "{list:?}: {err}");
        assert!(!out.join("scan.json").exists(), "{list:?}");
    }
}

/// A shard of a huge N owns one puzzle or none; its progress estimate does
/// not overflow (it panicked in a debug build, with a progress display).
#[test]
fn a_shard_of_any_n_runs() {
    let data = dataset();
    let out = scratch("huge-shard");
    let o = common::output_within(
        command()
            .args([
                "run",
                data.to_str().unwrap(),
                "-s",
                "fast",
                "--progress",
                "plain",
            ])
            .args(["--shard", "1/18446744073709551615", "--out"])
            .arg(&out),
        60,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let s: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(s["results"][0]["puzzles"], 1);
}
