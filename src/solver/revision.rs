//! Which revision of a solver a run measured.
//!
//! A strategy's revision comes, in order of precedence, from its spec's
//! `rev=` key, from `run --revision` (external solvers only), or from
//! `git describe --always --dirty` in the directory of the solver's file
//! (a library, a command's program or script) when that directory is inside
//! a git work tree. A built-in strategy is at the revision of bench-sudoku's
//! own build. `meta.json` records the revision and where it came from, so
//! that `history` and `trend` can follow a solver's own commits rather than
//! the tool's.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A revision and where it came from.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Revision {
    /// The revision as given or described (`v1.2-3-gabc1234-dirty`, a hash,
    /// a tag, a version).
    pub id: String,
    /// Where it came from ([`Source`]).
    pub from: Source,
}

/// Where a revision came from.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The spec's `rev=` key.
    Spec,
    /// `run --revision`.
    Run,
    /// `git describe --always --dirty` in this directory.
    Git(PathBuf),
    /// The build of bench-sudoku itself (built-in strategies).
    Build,
}

impl Source {
    /// How reports name it.
    pub fn text(&self) -> String {
        match self {
            Source::Spec => "rev=".into(),
            Source::Run => "--revision".into(),
            Source::Git(dir) => format!("git describe in {}", dir.display()),
            Source::Build => "bench-sudoku's build".into(),
        }
    }
}

/// The longest revision accepted.
pub const MAX_LEN: usize = 128;

/// Checks a revision given by a user (`rev=`, `--revision`): 1 to
/// [`MAX_LEN`] printable characters, none of them a comma, a quote, a
/// space or a control character (it is a spec value and a CSV cell).
pub fn check(rev: &str) -> Result<String, String> {
    let ok = !rev.is_empty()
        && rev.len() <= MAX_LEN
        && rev
            .chars()
            .all(|c| !c.is_control() && !c.is_whitespace() && !matches!(c, ',' | '\'' | '"'));
    if ok {
        Ok(rev.to_string())
    } else {
        Err(format!(
            "rev={rev:?}: a revision is 1 to {MAX_LEN} characters without spaces, commas, quotes \
             or control characters (e.g. a commit hash, a tag, `git describe` output)"
        ))
    }
}

/// The revision of bench-sudoku's own build: its git commit (12
/// characters, `-dirty` kept) when built from a checkout, else `v` and the
/// package version.
pub fn of_build() -> Revision {
    let commit = env!("BENCH_SUDOKU_GIT_COMMIT");
    let id = match (!commit.is_empty()).then_some(commit) {
        Some(c) => {
            let dirty = c.ends_with("-dirty");
            let hash: String = c.trim_end_matches("-dirty").chars().take(12).collect();
            if dirty {
                format!("{hash}-dirty")
            } else {
                hash
            }
        }
        None => format!("v{}", env!("CARGO_PKG_VERSION")),
    };
    Revision {
        id,
        from: Source::Build,
    }
}

/// How long `git describe` may take before it is given up on (a network
/// file system, a huge repository).
const GIT_TIMEOUT: Duration = Duration::from_secs(10);

/// `git describe --always --dirty` of the work tree holding `file` (a
/// file or a directory), or `None` when it is in none, git is missing or
/// fails, or takes longer than ten seconds. Nothing is written to the
/// repository (`GIT_OPTIONAL_LOCKS=0`: the index is not refreshed on disk).
pub fn describe(file: &Path) -> Option<Revision> {
    let dir = if file.is_dir() {
        file.to_path_buf()
    } else {
        file.parent()?.to_path_buf()
    };
    let dir = if dir.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        dir
    };
    let inside = git(&dir, &["rev-parse", "--is-inside-work-tree"])?;
    if inside != "true" {
        return None;
    }
    let id = git(&dir, &["describe", "--always", "--dirty"])?;
    check(&id).ok().map(|id| Revision {
        id,
        from: Source::Git(dir.canonicalize().unwrap_or(dir)),
    })
}

/// Runs `git -C dir ARGS`, its first line of output when it succeeds.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let mut child = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() < GIT_TIMEOUT => {
                std::thread::sleep(Duration::from_millis(2))
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let out = child.wait_with_output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let line = text.lines().next()?.trim().to_string();
    (!line.is_empty()).then_some(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revisions_given_by_users_are_checked() {
        for ok in [
            "abc1234",
            "v1.2-3-gabc1234-dirty",
            "release/2.0",
            "1.0+build.7",
        ] {
            assert_eq!(check(ok).as_deref(), Ok(ok));
        }
        for bad in [
            "",
            "a b",
            "a,b",
            "x'y",
            "a\"b",
            "tab\there",
            &"x".repeat(129),
        ] {
            assert!(check(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_directory_outside_any_work_tree_has_no_revision() {
        let dir = tempfile::tempdir().unwrap();
        // A temporary directory may sit inside a work tree on some
        // machines; then it describes that tree, which is also right.
        if let Some(r) = describe(dir.path()) {
            assert!(matches!(r.from, Source::Git(_)));
        }
        assert!(describe(Path::new("/no/such/dir/file.so")).is_none());
    }

    #[test]
    fn the_build_has_a_revision() {
        let r = of_build();
        assert!(!r.id.is_empty());
        assert_eq!(r.from, Source::Build);
    }
}
