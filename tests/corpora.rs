//! `bench-sudoku corpora`: the built-in catalogue listed, and `corpora
//! fetch` against an HTTP server of this test on the loopback address,
//! serving a tiny made-up corpus archive that the test builds, through a
//! `--catalog` file naming that server and the archive's checksums. (The
//! real corpora are never used here: the tests reach no network beyond
//! loopback.) Every failure — a wrong checksum, a download that breaks off,
//! a missing file, a file in the way — must leave no file under a corpus's
//! name.

mod common;
use common::*;
use sha2::{Digest, Sha256};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

/// Two made-up corpora: lines of 81 characters, a comment line first.
fn made_up() -> Vec<(&'static str, Vec<u8>)> {
    let line = |d: usize| format!("{}{}\n", d, ".".repeat(80));
    let a = format!("# made up by tests/corpora.rs\n{}{}", line(1), line(2));
    let b: String = (1..=9).map(line).collect();
    vec![("tiny_a", a.into_bytes()), ("tiny_b", b.into_bytes())]
}

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The archive: each corpus as data/NAME, plus a file that is no corpus.
fn archive() -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in made_up() {
        zip.start_file(format!("data/{name}"), opts).unwrap();
        zip.write_all(&bytes).unwrap();
    }
    zip.start_file("data/README", opts).unwrap();
    zip.write_all(b"not a corpus\n").unwrap();
    zip.finish().unwrap().into_inner()
}

/// Serves, on 127.0.0.1, `/data.zip` (the archive), `/mirror/NAME` (each
/// corpus alone), `/broken.zip` (a body that stops half-way) and a 404 for
/// anything else, for at most two minutes; returns the base URL.
fn serve() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let base = format!("http://{}", listener.local_addr().unwrap());
    listener.set_nonblocking(true).unwrap();
    let zip = archive();
    std::thread::spawn(move || {
        let until = Instant::now() + Duration::from_secs(120);
        while Instant::now() < until {
            match listener.accept() {
                Ok((stream, _)) => answer(stream, &zip),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                Err(_) => return,
            }
        }
    });
    base
}

fn answer(mut stream: TcpStream, zip: &[u8]) {
    stream.set_nonblocking(false).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request = String::new();
    if reader.read_line(&mut request).is_err() {
        return;
    }
    // The headers, up to the empty line.
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
        line.clear();
    }
    let path = request.split_whitespace().nth(1).unwrap_or("");
    let corpus = made_up()
        .into_iter()
        .find(|(n, _)| path == format!("/mirror/{n}"));
    let (status, body, claimed) = match (path, corpus) {
        ("/data.zip", _) => ("200 OK", zip.to_vec(), zip.len()),
        ("/broken.zip", _) => ("200 OK", zip[..zip.len() / 2].to_vec(), zip.len()),
        (_, Some((_, bytes))) => ("200 OK", bytes.clone(), bytes.len()),
        _ => ("404 Not Found", b"no such file\n".to_vec(), 13),
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Length: {claimed}\r\nConnection: close\r\n\r\n"
    );
    let _ = stream.write_all(&body);
}

/// A catalogue of the made-up corpora whose archive is `archive`.
fn catalogue(dir: &Path, archive: &str, archive_sha: Option<&str>, wrong: Option<&str>) -> String {
    let mut t = format!("origin = \"made up by tests/corpora.rs\"\narchive = \"{archive}\"\n");
    if let Some(sum) = archive_sha {
        t += &format!("archive_sha256 = \"{sum}\"\n");
    }
    for (name, bytes) in made_up() {
        let sum = if wrong == Some(name) {
            "0".repeat(64)
        } else {
            sha256(&bytes)
        };
        t += &format!(
            "[[corpus]]\nname = \"{name}\"\nmember = \"data/{name}\"\npuzzles = {}\nbytes = {}\nsha256 = \"{sum}\"\n\
             about = \"a made-up corpus\"\nsource = \"this test\"\nlicence = \"none needed\"\n",
            bytes.iter().filter(|&&b| b == b'\n').count() - usize::from(name == "tiny_a"),
            bytes.len()
        );
    }
    let path = dir.join(format!("catalogue-{}.toml", sha256(t.as_bytes())));
    std::fs::write(&path, t).unwrap();
    path.to_str().unwrap().to_string()
}

/// `bench-sudoku corpora ARGS`, with no proxy in the way of loopback.
fn corpora_cmd(args: &[&str]) -> Output {
    let mut cmd = command();
    cmd.arg("corpora").args(args);
    for var in [
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ] {
        cmd.env_remove(var);
    }
    output_within(&mut cmd, 60)
}

/// The names in `dir`, temporary files included.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn assert_fetched(dir: &Path) {
    assert_eq!(
        names(dir),
        ["tiny_a", "tiny_b"],
        "nothing else, no temporary file"
    );
    for (name, bytes) in made_up() {
        assert_eq!(std::fs::read(dir.join(name)).unwrap(), bytes, "{name}");
    }
}

#[test]
fn the_built_in_catalogue_is_listed_with_sources_checksums_and_licences() {
    let out = bin(&["corpora"]);
    assert_eq!(out.status.code(), Some(0), "{}", err(&out));
    let list = text(&out.stdout);
    for (name, puzzles) in [
        ("puzzles2_17_clue", "49158"),
        ("puzzles3_magictour_top1465", "1465"),
        ("puzzles5_forum_hardest_1905_11+", "48766"),
        ("puzzles6_forum_hardest_1106", "375"),
        ("puzzles7_serg_benchmark", "10000"),
    ] {
        let row = list.lines().find(|l| l.starts_with(name)).expect(name);
        assert!(row.contains(puzzles), "{row}");
    }
    assert!(list.contains("2cf268735dfd40d32269b5f20ebbea067037e5976b4d016ce0b4d3c0a50deb30"));
    assert!(list.contains("github.com/t-dillon/tdoku"), "{list}");
    assert!(
        list.contains("BSD-2-Clause") && list.contains("licence"),
        "{list}"
    );
    let json = bin(&["corpora", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["corpus"].as_array().unwrap().len(), 5);
}

#[test]
fn fetch_from_the_archive_verifies_and_keeps_what_is_there() {
    let work = scratch("archive");
    let base = serve();
    let zip = archive();
    let cat = catalogue(
        &work,
        &format!("{base}/data.zip"),
        Some(&sha256(&zip)),
        None,
    );
    let dir = work.join("corpora");
    let out = corpora_cmd(&["--catalog", &cat, "fetch", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", err(&out));
    assert_fetched(&dir);
    assert!(text(&out.stdout).contains("fetched, SHA-256 checked"));

    // Again: both are there with the right bytes, and nothing is fetched.
    let again = corpora_cmd(&["--catalog", &cat, "fetch", dir.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(0), "{}", err(&again));
    assert_eq!(text(&again.stdout).matches("already there").count(), 2);

    // A file with other bytes under a corpus's name is refused, then
    // replaced with --force.
    std::fs::write(dir.join("tiny_b"), "mine\n").unwrap();
    let refused = corpora_cmd(&["--catalog", &cat, "fetch", dir.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        err(&refused).contains("tiny_b: already there with other bytes"),
        "{}",
        err(&refused)
    );
    assert_eq!(std::fs::read(dir.join("tiny_b")).unwrap(), b"mine\n");
    let forced = corpora_cmd(&["--catalog", &cat, "fetch", dir.to_str().unwrap(), "--force"]);
    assert_eq!(forced.status.code(), Some(0), "{}", err(&forced));
    assert_fetched(&dir);

    // One corpus by name.
    let one = work.join("one");
    let out = corpora_cmd(&["--catalog", &cat, "fetch", one.to_str().unwrap(), "tiny_b"]);
    assert_eq!(out.status.code(), Some(0), "{}", err(&out));
    assert_eq!(names(&one), ["tiny_b"]);
    let unknown = corpora_cmd(&["--catalog", &cat, "fetch", one.to_str().unwrap(), "tiny_c"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        err(&unknown).contains("no corpus \"tiny_c\""),
        "{}",
        err(&unknown)
    );
}

#[test]
fn nothing_that_fails_its_check_takes_a_corpus_name() {
    let work = scratch("failures");
    let base = serve();
    let zip = archive();
    let sum = sha256(&zip);
    let cases = [
        // A file whose checksum is not the catalogue's.
        (
            catalogue(&work, &format!("{base}/data.zip"), None, Some("tiny_b")),
            "data/tiny_b: SHA-256",
        ),
        // An archive whose checksum is not the catalogue's.
        (
            catalogue(
                &work,
                &format!("{base}/data.zip"),
                Some(&"1".repeat(64)),
                None,
            ),
            "not the archive",
        ),
        // A download that breaks off half-way.
        (
            catalogue(&work, &format!("{base}/broken.zip"), Some(&sum), None),
            "broken.zip",
        ),
        // No such file on the server.
        (
            catalogue(&work, &format!("{base}/nothing.zip"), Some(&sum), None),
            "404",
        ),
    ];
    for (i, (cat, says)) in cases.iter().enumerate() {
        let dir = work.join(format!("case-{i}"));
        let out = corpora_cmd(&["--catalog", cat, "fetch", dir.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "case {i}: {}", err(&out));
        let e = err(&out);
        assert!(e.contains(says) && e.contains(&base), "case {i}: {e}");
        assert!(!e.contains("panicked"), "{e}");
        // tiny_a may have been put in place before tiny_b failed; nothing
        // else, and never a temporary file.
        let left = names(&dir);
        assert!(left.is_empty() || left == ["tiny_a"], "case {i}: {left:?}");
        if !left.is_empty() {
            assert_eq!(std::fs::read(dir.join("tiny_a")).unwrap(), made_up()[0].1);
        }
    }
}

#[test]
fn fetch_from_a_mirror_url_a_local_archive_or_a_directory() {
    let work = scratch("mirrors");
    let base = serve();
    // The catalogue's archive is unreachable (port 9, discard): --from
    // replaces it.
    let cat = catalogue(&work, "http://127.0.0.1:9/data.zip", None, None);

    let from_url = work.join("from-url");
    let mirror = format!("{base}/mirror/");
    let out = corpora_cmd(&[
        "--catalog",
        &cat,
        "fetch",
        from_url.to_str().unwrap(),
        "--from",
        &mirror,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", err(&out));
    assert_fetched(&from_url);

    let zip = work.join("data.zip");
    std::fs::write(&zip, archive()).unwrap();
    let from_zip = work.join("from-zip");
    let out = corpora_cmd(&[
        "--catalog",
        &cat,
        "fetch",
        from_zip.to_str().unwrap(),
        "--from",
        zip.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", err(&out));
    assert_fetched(&from_zip);

    // A directory holding the files by name.
    let from_dir = work.join("from-dir");
    let out = corpora_cmd(&[
        "--catalog",
        &cat,
        "fetch",
        from_dir.to_str().unwrap(),
        "--from",
        from_url.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", err(&out));
    assert_fetched(&from_dir);

    // Not a zip, and a directory without the files.
    let not_zip = work.join("not.zip");
    std::fs::write(&not_zip, "plain text").unwrap();
    let out = corpora_cmd(&[
        "--catalog",
        &cat,
        "fetch",
        work.join("x").to_str().unwrap(),
        "--from",
        not_zip.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(err(&out).contains("not a zip archive"), "{}", err(&out));
    let empty = work.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = corpora_cmd(&[
        "--catalog",
        &cat,
        "fetch",
        work.join("y").to_str().unwrap(),
        "--from",
        empty.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(err(&out).contains("no file tiny_a"), "{}", err(&out));
}

#[test]
fn a_bad_catalogue_is_named() {
    let work = scratch("bad-catalogue");
    let path = work.join("cat.toml");
    std::fs::write(&path, "origin = 1\n").unwrap();
    let out = corpora_cmd(&["--catalog", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        err(&out).contains(&format!("--catalog {}", path.display())),
        "{}",
        err(&out)
    );
    let mut s = String::new();
    std::fs::File::open(&path)
        .unwrap()
        .read_to_string(&mut s)
        .unwrap();
    assert_eq!(s, "origin = 1\n", "an input is never written");
}

/// With the reference copies of the corpora (BENCH_SUDOKU_CORPORA, as for
/// the other corpus tests): the built-in catalogue's sizes and SHA-256s are
/// theirs, so a fetch from the public archive gives exactly those bytes.
#[test]
fn corpus_catalogue_matches_the_reference_copies() {
    let Some(reference) = corpora() else {
        eprintln!("BENCH_SUDOKU_CORPORA is not set: the catalogue is checked against the reference copies only with it");
        return;
    };
    let dir = scratch("reference").join("corpora");
    let out = corpora_cmd(&[
        "fetch",
        dir.to_str().unwrap(),
        "--from",
        reference.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", err(&out));
    assert_eq!(
        text(&out.stdout)
            .matches("fetched, SHA-256 checked")
            .count(),
        5
    );
}
