//! Where outputs are written.

use std::fs::File;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir()
            .join(format!("bench-sudoku-dest-{}", std::process::id()))
            .join(name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn temporary_names_are_unique() {
        let dir = scratch("temps");
        let path = dir.join("f.json");
        let (_a, ta) = temp_file(&path).unwrap();
        let (_b, tb) = temp_file(&path).unwrap();
        assert_ne!(ta, tb);
        assert_eq!(ta.parent(), Some(dir.as_path()));
    }
}
