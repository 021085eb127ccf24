//! Outputs never replace what they must not: every user-named output
//! (`run --export`, `--gate-summary`, `generate -o`, `export --export`,
//! `merge --out`, `trend --out`, `man --out`) is refused, naming both, when
//! it is an input or a file of the results directory written; a FIFO or a
//! device is written through, and a symbolic link stays a link.

mod common;
use common::{bin, command, err, hard_lines, json, scratch};

use std::path::{Path, PathBuf};
use std::process::Output;

fn run(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    let mut cmd = command();
    for a in args {
        cmd.arg(a);
    }
    cmd.output().unwrap()
}

#[track_caller]
fn refused(o: &Output, names: &[&Path]) {
    let e = err(o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    for n in names {
        assert!(
            e.contains(&n.display().to_string()),
            "{} not named: {e}",
            n.display()
        );
    }
}

/// A results directory of 20 puzzles (a shard 1/1, so that merge takes it).
fn results_dir(dir: &Path, name: &str) -> PathBuf {
    let data = dir.join("set.txt");
    if !data.exists() {
        std::fs::write(&data, hard_lines(20)).unwrap();
    }
    let out = dir.join(name);
    let o = run(&[
        &"run", &data, &"-s", &"fast", &"-q", &"--shard", &"1/1", &"--out", &out,
    ]);
    assert!(o.status.success(), "{}", err(&o));
    out
}

/// The gate's options: an A/A gate of `fast` against itself.
const GATE: [&str; 6] = [
    "-s",
    "fast",
    "-s",
    "fast,name=again",
    "--gate",
    "fast:again",
];

#[test]
fn an_output_that_names_an_input_is_refused_and_the_input_kept() {
    let dir = scratch("inputs");
    let data = dir.join("set.txt");
    std::fs::write(&data, hard_lines(20)).unwrap();
    let kept = hard_lines(20);
    let out = dir.join("out");
    // run --export and --gate-summary: the dataset, under its own name and
    // through a link; a file of the results directory written.
    #[cfg(unix)]
    std::os::unix::fs::symlink(&data, dir.join("link.txt")).unwrap();
    let mut names = vec![data.clone()];
    #[cfg(unix)]
    names.push(dir.join("link.txt"));
    for name in &names {
        let o = run(&[
            &"run",
            &data,
            &"-q",
            &"-s",
            &"fast",
            &"--out",
            &out,
            &"--export",
            &"bmf",
            name,
        ]);
        refused(&o, &[name, &data]);
        assert!(err(&o).contains("that this command reads"), "{}", err(&o));
        let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"run", &data, &"-q", &"--out", &out];
        for g in &GATE {
            args.push(g);
        }
        args.extend([&"--gate-summary" as &dyn AsRef<std::ffi::OsStr>, name]);
        refused(&run(&args), &[name, &data]);
    }
    let inside = out.join("summary.json");
    let o = run(&[
        &"run",
        &data,
        &"-q",
        &"-s",
        &"fast",
        &"--out",
        &out,
        &"--export",
        &"bmf",
        &inside,
    ]);
    refused(&o, &[&inside, &out]);
    assert!(
        err(&o).contains("is summary.json of the results directory"),
        "{}",
        err(&o)
    );
    // Two outputs of one run on one file.
    let same = dir.join("same.json");
    let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"run", &data, &"-q", &"--out", &out];
    for g in &GATE {
        args.push(g);
    }
    args.extend([
        &"--export" as &dyn AsRef<std::ffi::OsStr>,
        &"bmf",
        &same,
        &"--gate-summary",
        &same,
    ]);
    let o = run(&args);
    refused(&o, &[&same]);
    assert!(err(&o).contains("the same file"), "{}", err(&o));
    assert!(!same.exists());
    assert!(!out.join("meta.json").exists(), "nothing ran");
    assert!(
        !dir.join("results").exists(),
        "no default directory left behind"
    );

    // generate -o: its --from file.
    let from = dir.join("from.txt");
    std::fs::write(&from, hard_lines(3)).unwrap();
    let o = run(&[
        &"generate",
        &"--hard-for",
        &"fast",
        &"-n",
        &"1",
        &"--from",
        &from,
        &"-q",
        &"-o",
        &from,
    ]);
    refused(&o, &[&from]);
    assert_eq!(std::fs::read_to_string(&from).unwrap(), hard_lines(3));

    // export DIR --export: a file of DIR.
    let res = results_dir(&dir, "res");
    let summary = std::fs::read(res.join("summary.json")).unwrap();
    let target = res.join("summary.json");
    let o = run(&[&"export", &res, &"--export", &"bmf", &target]);
    refused(&o, &[&target, &res]);
    assert_eq!(std::fs::read(res.join("summary.json")).unwrap(), summary);

    // merge --out: an input, or a results folder of one.
    for bad in [res.clone(), res.join("charts")] {
        let o = run(&[&"merge", &res, &"--out", &bad, &"--force"]);
        refused(&o, &[&bad, &res]);
    }
    assert_eq!(std::fs::read(res.join("summary.json")).unwrap(), summary);

    // run --out: a dataset inside named like a results file.
    let clash = dir.join("clash");
    std::fs::create_dir_all(&clash).unwrap();
    let inner = clash.join("summary.csv");
    std::fs::write(&inner, &kept).unwrap();
    let o = run(&[
        &"run", &inner, &"-q", &"-s", &"fast", &"--force", &"--out", &clash,
    ]);
    refused(&o, &[&clash, &inner]);
    assert_eq!(std::fs::read_to_string(&inner).unwrap(), kept);
    assert_eq!(std::fs::read_to_string(&data).unwrap(), kept);
}

/// Reads a FIFO to its end on a thread (started before the writer opens it).
#[cfg(unix)]
fn fifo(dir: &Path, name: &str) -> (PathBuf, std::thread::JoinHandle<Vec<u8>>) {
    let path = dir.join(name);
    assert!(std::process::Command::new("mkfifo")
        .arg(&path)
        .status()
        .unwrap()
        .success());
    let p = path.clone();
    (path, std::thread::spawn(move || std::fs::read(p).unwrap()))
}

#[cfg(unix)]
fn is_fifo(p: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::symlink_metadata(p).unwrap().file_type().is_fifo()
}

/// Every kind of file output, written to a FIFO a thread reads: the bytes
/// arrive and the FIFO is still one; to /dev/null; through a link, which
/// stays a link.
#[cfg(unix)]
#[test]
fn fifos_devices_and_links_are_written_through_or_followed() {
    let dir = scratch("kinds");
    let data = dir.join("set.txt");
    std::fs::write(&data, hard_lines(20)).unwrap();
    let res = results_dir(&dir, "res");

    // run --export and --gate-summary into FIFOs.
    let (bmf, bmf_reader) = fifo(&dir, "bmf.fifo");
    let (gate, gate_reader) = fifo(&dir, "gate.fifo");
    let out = dir.join("gated");
    let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"run", &data, &"-q", &"--out", &out];
    for g in &GATE {
        args.push(g);
    }
    args.extend([
        &"--export" as &dyn AsRef<std::ffi::OsStr>,
        &"bmf",
        &bmf,
        &"--gate-summary",
        &gate,
    ]);
    let o = run(&args);
    // Passed, failed or (a small dataset) not judged: the outputs are
    // written in every case.
    assert!(matches!(o.status.code(), Some(0..=2)), "{}", err(&o));
    let bytes = bmf_reader.join().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert!(v.get("set/fast").is_some(), "{v}");
    assert!(String::from_utf8(gate_reader.join().unwrap())
        .unwrap()
        .contains("fast"));
    assert!(is_fifo(&bmf) && is_fifo(&gate));

    // generate -o and export --export into FIFOs.
    let (gen, gen_reader) = fifo(&dir, "gen.fifo");
    let o = run(&[
        &"generate",
        &"-n",
        &"2",
        &"--seed",
        &"1",
        &"-q",
        &"-o",
        &gen,
    ]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(
        String::from_utf8(gen_reader.join().unwrap())
            .unwrap()
            .lines()
            .count(),
        3
    );
    let (gh, gh_reader) = fifo(&dir, "gh.fifo");
    let o = run(&[&"export", &res, &"--export", &"github-benchmark", &gh]);
    assert!(o.status.success(), "{}", err(&o));
    let v: serde_json::Value = serde_json::from_slice(&gh_reader.join().unwrap()).unwrap();
    assert!(v.is_array(), "{v}");
    assert!(is_fifo(&gen) && is_fifo(&gh));

    // /dev/null, for every kind.
    let null = Path::new("/dev/null");
    let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> =
        vec![&"run", &data, &"-q", &"--out", &out, &"--force"];
    for g in &GATE {
        args.push(g);
    }
    args.extend([
        &"--export" as &dyn AsRef<std::ffi::OsStr>,
        &"bmf",
        &null,
        &"--gate-summary",
        &null,
    ]);
    let o = run(&args);
    assert!(matches!(o.status.code(), Some(0..=2)), "{}", err(&o));
    let o = run(&[
        &"generate",
        &"-n",
        &"2",
        &"--seed",
        &"1",
        &"-q",
        &"-o",
        &null,
    ]);
    assert!(o.status.success(), "{}", err(&o));
    let o = run(&[&"export", &res, &"--export", &"bmf", &null]);
    assert!(o.status.success(), "{}", err(&o));
    {
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::metadata(null)
            .unwrap()
            .file_type()
            .is_char_device());
    }

    // Links to regular files: the file is written, the link stays.
    let link = |name: &str| {
        let target = dir.join(format!("{name}.target"));
        std::fs::write(&target, "old").unwrap();
        let link = dir.join(name);
        std::os::unix::fs::symlink(&target, &link).unwrap();
        (link, target)
    };
    let (bmf_link, bmf_target) = link("bmf.link");
    let (gate_link, gate_target) = link("gate.link");
    let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> =
        vec![&"run", &data, &"-q", &"--out", &out, &"--force"];
    for g in &GATE {
        args.push(g);
    }
    args.extend([
        &"--export" as &dyn AsRef<std::ffi::OsStr>,
        &"bmf",
        &bmf_link,
        &"--gate-summary",
        &gate_link,
    ]);
    let o = run(&args);
    assert!(matches!(o.status.code(), Some(0..=2)), "{}", err(&o));
    assert!(json(&bmf_target).get("set/fast").is_some());
    let appended = std::fs::read_to_string(&gate_target).unwrap();
    assert!(
        appended.starts_with("old") && appended.len() > 3,
        "{appended}"
    );
    let (gen_link, gen_target) = link("gen.link");
    let o = run(&[
        &"generate",
        &"-n",
        &"2",
        &"--seed",
        &"1",
        &"-q",
        &"-o",
        &gen_link,
    ]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(
        std::fs::read_to_string(&gen_target)
            .unwrap()
            .lines()
            .count(),
        3
    );
    let (gh_link, gh_target) = link("gh.link");
    let o = run(&[&"export", &res, &"--export", &"github-benchmark", &gh_link]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(json(&gh_target).is_array());
    let man = dir.join("man");
    std::fs::create_dir_all(&man).unwrap();
    let page_target = dir.join("page.target");
    std::os::unix::fs::symlink(&page_target, man.join("bench-sudoku-run.1")).unwrap();
    let o = bin(&["man", "--out", man.to_str().unwrap()]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(std::fs::read_to_string(&page_target)
        .unwrap()
        .contains("transform"));
    for l in [
        &bmf_link,
        &gate_link,
        &gen_link,
        &gh_link,
        &man.join("bench-sudoku-run.1"),
    ] {
        assert!(
            std::fs::symlink_metadata(l)
                .unwrap()
                .file_type()
                .is_symlink(),
            "{}",
            l.display()
        );
    }
    // Nothing temporary is left beside the outputs.
    for e in std::fs::read_dir(&dir).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!name.ends_with(".tmp"), "{name}");
    }
}

/// A FIFO output that no process reads is an error after a wait, never a
/// run that hangs; the results are written before it.
#[cfg(unix)]
#[test]
fn a_fifo_output_nobody_reads_is_an_error_not_a_hang() {
    let dir = scratch("fifo-unread");
    let fifo = dir.join("nobody.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let started = std::time::Instant::now();
    let o = command()
        .args([
            "run",
            &common::solvers::dataset("easy.csv"),
            "--limit",
            "20",
            "-q",
            "-s",
            "fast",
        ])
        .arg("--out")
        .arg(dir.join("out"))
        .arg("--export")
        .arg("bmf")
        .arg(&fifo)
        .output()
        .unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(40));
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(
        err(&o).contains("no process reads this FIFO"),
        "{}",
        err(&o)
    );
    assert_eq!(json(&dir.join("out/meta.json"))["complete"], true);
}

/// No output replaces a solver under test: its library (also through a
/// link), the script a `cmd=` runs, one named by a `--solvers` file, or one
/// a results directory would overwrite. Each is refused, naming both, and
/// left as it was.
#[cfg(unix)]
#[test]
fn no_output_replaces_a_solver_under_test() {
    let dir = scratch("solvers-kept");
    let lib = dir.join("libsolver.so");
    std::fs::copy(common::solvers::need_fixtures(), &lib).unwrap();
    let before = std::fs::read(&lib).unwrap();
    let link = dir.join("link.json");
    std::os::unix::fs::symlink(&lib, &link).unwrap();
    let data = dir.join("set.txt");
    std::fs::write(&data, hard_lines(5)).unwrap();
    let spec = format!("lib={},name=mine", lib.display());
    let base = |extra: &[&dyn AsRef<std::ffi::OsStr>]| {
        let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"run", &data, &"-q", &"-s", &spec];
        args.extend_from_slice(extra);
        run(&args)
    };
    refused(&base(&[&"--export", &"bmf", &lib]), &[&lib]);
    refused(&base(&[&"--export", &"bmf", &link]), &[&link, &lib]);
    // A library that sits where the results directory writes a file.
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let inside = out.join("summary.json");
    std::fs::copy(&lib, &inside).unwrap();
    let spec_inside = format!("lib={},name=inside", inside.display());
    let o = run(&[
        &"run",
        &data,
        &"-q",
        &"-s",
        &spec_inside,
        &"--out",
        &out,
        &"--force",
    ]);
    refused(&o, &[&out, &inside]);
    // The script of a cmd= solver.
    let script_spec = common::no_solution_solver(&dir);
    let script = dir.join("no-solution.sh");
    let script_before = std::fs::read(&script).unwrap();
    let o = run(&[
        &"run",
        &data,
        &"-q",
        &"-s",
        &"fast",
        &"-s",
        &script_spec,
        &"--gate",
        &"fast:liar",
        &"--gate-summary",
        &script,
    ]);
    refused(&o, &[&script]);
    // generate -o: the library searched for, directly or through a label.
    let hard_for = format!("lib={}", lib.display());
    let o = run(&[
        &"generate",
        &"--hard-for",
        &hard_for,
        &"-n",
        &"1",
        &"-o",
        &lib,
    ]);
    refused(&o, &[&lib]);
    let toml = dir.join("solvers.toml");
    std::fs::write(&toml, "[solvers.mine]\nlib = \"libsolver.so\"\n").unwrap();
    let o = run(&[
        &"generate",
        &"--hard-for",
        &"mine",
        &"--solvers",
        &toml,
        &"-n",
        &"1",
        &"-o",
        &lib,
    ]);
    refused(&o, &[&lib]);
    assert_eq!(std::fs::read(&lib).unwrap(), before);
    assert_eq!(std::fs::read(&script).unwrap(), script_before);
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
}
