//! One writer per results directory.
//!
//! A command that writes a results directory (`run`, `merge`, a scan,
//! `report`) first claims it: it takes an exclusive `flock` on the
//! directory's lock file [`LOCK`] and writes its own pid, start time and
//! command line there. A second command that claims the same directory
//! while the first holds it is refused with those details. The lock is
//! held by the open file, so the kernel releases it when its process ends
//! in any way; a lock file left behind by a process that was killed blocks
//! nobody (the next command locks it and writes its own details). The lock
//! file is removed when the claim is dropped.
//!
//! Default directory names (`results/<stem>-<stamp>`) are taken with
//! [`std::fs::create_dir`], which fails when the name exists: two commands
//! started in the same second get different directories.

use anyhow::Context;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::path::{Path, PathBuf};

/// The lock file of a claimed directory.
pub const LOCK: &str = ".bench-sudoku.lock";

/// Who holds a directory: what the lock file says.
#[derive(Debug, Serialize, Deserialize)]
struct Owner {
    pid: u32,
    started: String,
    command_line: Vec<String>,
}

impl std::fmt::Display for Owner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let command = shlex::try_join(self.command_line.iter().map(String::as_str))
            .unwrap_or_else(|_| self.command_line.join(" "));
        write!(f, "pid {}, started {}: {command}", self.pid, self.started)
    }
}

/// A directory this process holds until the claim is dropped.
#[derive(Debug)]
pub struct Claim {
    dir: PathBuf,
    /// The locked lock file; closing it releases the lock.
    file: File,
    /// This claim created the directory: when the command ends without
    /// writing anything into it (an error, a refusal), it is removed again,
    /// so that a failed command leaves no empty results directory behind.
    created: bool,
}

/// Why a directory could not be claimed.
#[derive(Debug)]
pub enum Refused {
    /// Another process holds it; what its lock file says, when it says
    /// something readable.
    InUse(Option<String>),
    /// The lock file cannot be created, opened or locked.
    Io(std::io::Error),
}

impl Claim {
    /// Claims the existing directory `dir`.
    pub fn take(dir: &Path) -> Result<Claim, Refused> {
        let path = dir.join(LOCK);
        // The lock file can be removed by the holder that is ending between
        // our open and our lock: we would then hold a lock on a file no
        // longer in the directory, while a third process creates and locks
        // a new one. A lock counts only when the file locked is still the
        // one at the path; otherwise the claim starts again.
        loop {
            let file = File::options()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(Refused::Io)?;
            match try_lock(&file) {
                Ok(true) => {}
                Ok(false) => match read_owner(&path) {
                    // The holder ended and removed its lock file while we
                    // looked: the claim starts again.
                    Holder::Gone => continue,
                    Holder::Is(o) => return Err(Refused::InUse(Some(o))),
                    Holder::Unknown => return Err(Refused::InUse(None)),
                },
                Err(e) => return Err(Refused::Io(e)),
            }
            if !same_file(&file, &path) {
                continue;
            }
            // Held by its absolute name: a solver loaded into the process
            // may change the working directory.
            let mut claim = Claim {
                dir: std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf()),
                file,
                created: false,
            };
            claim.write_owner().map_err(Refused::Io)?;
            return Ok(claim);
        }
    }

    /// Claims `dir` for the option `option` (e.g. `--out`), creating it
    /// (and its parents) when missing; a refusal is an error naming the
    /// directory and the process that holds it.
    pub fn create(option: &str, dir: &Path) -> anyhow::Result<Claim> {
        if dir.exists() && !dir.is_dir() {
            anyhow::bail!("{option} {}: exists and is not a directory", dir.display());
        }
        let created = !dir.exists();
        std::fs::create_dir_all(dir)
            .with_context(|| format!("{}: cannot create the results directory", dir.display()))?;
        let mut claim = Claim::take(dir).map_err(|r| r.into_error(option, dir))?;
        claim.created = created;
        Ok(claim)
    }

    /// Creates and claims a new directory named `base`, or `base-2`,
    /// `base-3`, … when that name is taken (by a directory of an earlier
    /// command, or one another command creates at the same time). The
    /// parent directories are created when missing.
    pub fn fresh(base: &Path) -> anyhow::Result<Claim> {
        if let Some(parent) = base.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("{}: cannot create the directory", parent.display()))?;
        }
        for k in 1u32.. {
            let dir = if k == 1 {
                base.to_path_buf()
            } else {
                let mut name = base.as_os_str().to_owned();
                name.push(format!("-{k}"));
                PathBuf::from(name)
            };
            match std::fs::create_dir(&dir) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(e).with_context(|| {
                        format!("{}: cannot create the results directory", dir.display())
                    })
                }
            }
            match Claim::take(&dir) {
                Ok(mut c) => {
                    c.created = true;
                    return Ok(c);
                }
                // Another command named this new directory explicitly and
                // claimed it first: it is theirs, take the next name.
                Err(Refused::InUse(_)) => continue,
                Err(r) => return Err(r.into_error("results directory", &dir)),
            }
        }
        unreachable!("some name of the sequence is free")
    }

    /// The claimed directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn write_owner(&mut self) -> std::io::Result<()> {
        use std::io::{Seek, Write};
        let owner = Owner {
            pid: std::process::id(),
            started: crate::bench::sysinfo::now_rfc3339(),
            command_line: crate::bench::sysinfo::command_line(),
        };
        let mut bytes = serde_json::to_vec(&owner).map_err(std::io::Error::other)?;
        bytes.push(b'\n');
        self.file.set_len(0)?;
        self.file.rewind()?;
        self.file.write_all(&bytes)
    }
}

impl Refused {
    /// The error a command reports: the directory, and who holds it.
    pub fn into_error(self, option: &str, dir: &Path) -> anyhow::Error {
        match self {
            Refused::InUse(owner) => anyhow::anyhow!(
                "{option} {}: in use by another bench-sudoku command ({}); wait for it to end or choose another directory",
                dir.display(),
                owner.as_deref().unwrap_or("which has not yet recorded who it is")
            ),
            Refused::Io(e) => anyhow::Error::new(e).context(format!(
                "{}: the directory is not writable (cannot create its lock file {LOCK})",
                dir.display()
            )),
        }
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        // Removed while still locked: whoever opened the file before the
        // removal finds, once it has the lock, that the path no longer
        // names the file it locked, and starts again.
        let _ = std::fs::remove_file(self.dir.join(LOCK));
        if self.created {
            // Fails, leaving it, unless the directory is empty.
            let _ = std::fs::remove_dir(&self.dir);
        }
    }
}

/// Who holds a lock, as its lock file says.
enum Holder {
    Is(String),
    /// The lock file is no longer there.
    Gone,
    /// Nothing readable in it.
    Unknown,
}

/// What the lock file at `path` says of its holder. The holder writes it
/// right after taking the lock: a claim made at the same moment may find it
/// empty or half-written, and reads it again for up to half a second.
fn read_owner(path: &Path) -> Holder {
    for _ in 0..50 {
        match std::fs::read(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Holder::Gone,
            Ok(b) => {
                if let Ok(o) = serde_json::from_slice::<Owner>(&b) {
                    return Holder::Is(o.to_string());
                }
            }
            Err(_) => {}
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    Holder::Unknown
}

/// Takes an exclusive `flock` on `file` without waiting: `Ok(false)` when
/// another open file holds it.
#[cfg(unix)]
fn try_lock(file: &File) -> std::io::Result<bool> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: `flock` reads no memory of ours; it acts on the descriptor,
    // which is valid for the whole call because `file` is borrowed (open)
    // across it.
    let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if r == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    if e.kind() == std::io::ErrorKind::WouldBlock {
        Ok(false)
    } else {
        Err(e)
    }
}

/// Elsewhere no lock is taken: the lock file only records the owner.
#[cfg(not(unix))]
fn try_lock(_file: &File) -> std::io::Result<bool> {
    Ok(true)
}

/// Whether `path` still names the open `file`.
fn same_file(file: &File, path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (file.metadata(), std::fs::metadata(path)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        path.exists()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir()
            .join(format!("bench-sudoku-claim-{}", std::process::id()))
            .join(name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_claimed_directory_is_refused_to_a_second_claim_until_released() {
        let dir = scratch("twice");
        let first = Claim::take(&dir).unwrap();
        let lock = std::fs::read_to_string(dir.join(LOCK)).unwrap();
        assert!(
            lock.contains(&format!("\"pid\":{}", std::process::id())),
            "{lock}"
        );
        match Claim::take(&dir) {
            Err(Refused::InUse(Some(owner))) => {
                assert!(
                    owner.starts_with(&format!("pid {}, started ", std::process::id())),
                    "{owner}"
                );
            }
            other => panic!("expected a refusal, got {other:?}"),
        }
        drop(first);
        assert!(
            !dir.join(LOCK).exists(),
            "the lock file is removed at the end"
        );
        let again = Claim::take(&dir).unwrap();
        drop(again);
    }

    #[test]
    fn a_lock_file_left_behind_blocks_nobody() {
        let dir = scratch("stale");
        std::fs::write(
            dir.join(LOCK),
            "{\"pid\":1,\"started\":\"then\",\"command_line\":[\"x\"]}\n",
        )
        .unwrap();
        let claim = Claim::take(&dir).unwrap();
        let lock = std::fs::read_to_string(dir.join(LOCK)).unwrap();
        assert!(!lock.contains("then"), "{lock}");
        drop(claim);
    }

    #[test]
    fn claims_made_together_get_different_directories() {
        let dir = scratch("together");
        let base = dir.join("results").join("set-20260101T000000Z");
        let n = 8;
        let barrier = std::sync::Barrier::new(n);
        let claims: Vec<Claim> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..n)
                .map(|_| {
                    s.spawn(|| {
                        barrier.wait();
                        Claim::fresh(&base).unwrap()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut dirs: Vec<&Path> = claims.iter().map(Claim::dir).collect();
        dirs.sort();
        dirs.dedup();
        assert_eq!(dirs.len(), n, "{dirs:?}");
    }

    #[test]
    fn claims_of_one_directory_made_together_leave_one_owner() {
        let dir = scratch("one-owner");
        // Claims taken and released in a loop by several threads: at no
        // time do two hold the directory.
        let held = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..200 {
                        if let Ok(c) = Claim::take(&dir) {
                            let was = held.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                            assert_eq!(was, 0, "two owners at once");
                            held.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                            drop(c);
                        }
                    }
                });
            }
        });
    }
}
