//! Files written whole or not at all: a temporary file beside the target,
//! then a rename, so that no reader ever sees half of one.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A new temporary file beside `path` for it to be renamed to `path`: a
/// hidden name unique to this process and this call
/// (`.NAME.PID.N.tmp`), created exclusively.
pub fn temp_file(path: &Path) -> std::io::Result<(File, PathBuf)> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let temp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
        match File::options().write(true).create_new(true).open(&temp) {
            Ok(f) => return Ok((f, temp)),
            // Left by an earlier process of the same pid: the next number.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// Writes `bytes` to `path` through a temporary file beside it (a name
/// unique to this process and call) and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let (mut file, tmp) = temp_file(path)?;
    let written = file.write_all(bytes).and_then(|()| file.sync_all());
    drop(file);
    match written.and_then(|()| std::fs::rename(&tmp, path)) {
        Ok(()) => Ok(()),
        Err(e) => {
            // Nothing half-written is left behind.
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// Reads the whole file at `path`, which must be a regular file: a FIFO
/// would block the command until something writes to it (or forever), and
/// a device need never end. Results directories and history files are
/// always regular files, so anything else is refused before it is opened.
pub fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    require_regular(path)?;
    std::fs::read(path)
}

/// An error unless `path` is a regular file (following links).
pub fn require_regular(path: &Path) -> std::io::Result<()> {
    let meta = std::fs::metadata(path)?;
    if meta.is_file() {
        Ok(())
    } else {
        Err(std::io::Error::other(
            "not a regular file (a FIFO, a device or a directory): refused",
        ))
    }
}
