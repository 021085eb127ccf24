//! The one rule for every file or directory a user names as an output
//! (`--export FORMAT FILE`, `--gate-summary`, `generate -o`, `--out` of
//! `run`, `merge`, `trend` and `man`).
//!
//! A command declares what it reads (datasets, `--solvers` files, results
//! directories) and the results directory it writes in a [`Guard`]; each
//! output then goes through [`Guard::file`] or [`Guard::dir`], which refuse
//! (naming both) an output that is an input, that is a file of a results
//! directory the command reads or writes ([`super::FILES`] and the lock
//! file), or that is another output of the same command. Inputs are
//! compared by what they are, not by how they are spelled: the same file
//! under another name, through a symbolic link or a hard link is refused
//! too.
//!
//! A checked file output is a [`Dest`], which writes it the one way it may
//! be written:
//! - a regular file (or a new one) is written under a temporary name beside
//!   it and renamed into place, so that a failed write leaves the old file
//!   or none; a symbolic link to a regular file is followed and the file it
//!   names is replaced (the link stays a link);
//! - a FIFO, a character device (`/dev/null`, a terminal) or anything
//!   reached through a process's file descriptors (`/dev/stdout`,
//!   `/dev/fd/N`, `/proc/self/fd/N`) is opened and written through, never
//!   replaced: renaming a file over `/dev/null` would replace the device.

use super::{claim::LOCK, FILES};
use anyhow::{bail, Context};
use std::fs::File;
use std::io::Write;
use std::path::{Component, Path, PathBuf};

/// What a command reads and writes, against which its outputs are checked.
#[derive(Debug, Default)]
pub struct Guard {
    inputs: Vec<Input>,
    /// Outputs accepted so far: the option, the path as given, where it
    /// lands.
    outputs: Vec<(String, PathBuf, Landing)>,
}

#[derive(Debug)]
struct Input {
    /// How messages name it: "the dataset", "the --solvers file", …
    what: String,
    given: PathBuf,
    kind: InputKind,
    canonical: Option<PathBuf>,
    id: Option<FileId>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum InputKind {
    /// A file the command reads.
    File,
    /// A results directory the command reads.
    ReadsResults,
    /// The results directory the command writes.
    WritesResults,
}

/// Device and inode: one file whatever its names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileId(u64, u64);

fn file_id(path: &Path) -> Option<FileId> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path)
            .ok()
            .map(|m| FileId(m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// Where an output lands: its canonical path (the longest existing part
/// resolved, the rest appended) and the file it is when it exists.
#[derive(Debug, Clone)]
struct Landing {
    canonical: PathBuf,
    id: Option<FileId>,
}

impl Landing {
    fn of(path: &Path) -> Landing {
        Landing {
            canonical: canonical_lenient(path),
            id: file_id(path),
        }
    }
}

/// `path` made absolute with its longest existing prefix resolved
/// (symbolic links, `.` and `..`) and the missing components appended as
/// they are.
pub fn canonical_lenient(path: &Path) -> PathBuf {
    if let Ok(c) = std::fs::canonicalize(path) {
        return c;
    }
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut rest = Vec::new();
    let mut head = abs.as_path();
    loop {
        if let Ok(c) = std::fs::canonicalize(head) {
            let mut out = c;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (head.parent(), head.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                head = parent;
            }
            _ => return abs,
        }
    }
}

impl Guard {
    pub fn new() -> Self {
        Guard::default()
    }

    fn add(&mut self, what: &str, path: &Path, kind: InputKind) -> &mut Self {
        self.inputs.push(Input {
            what: what.to_string(),
            given: path.to_path_buf(),
            kind,
            // The results directory written may not exist yet.
            canonical: if kind == InputKind::WritesResults {
                Some(canonical_lenient(path))
            } else {
                std::fs::canonicalize(path).ok()
            },
            id: file_id(path),
        });
        self
    }

    /// A file the command reads (`what`: "the dataset", …).
    pub fn reads_file(&mut self, what: &str, path: &Path) -> &mut Self {
        self.add(what, path, InputKind::File)
    }

    /// A results directory the command reads.
    pub fn reads_results(&mut self, dir: &Path) -> &mut Self {
        self.add("the results directory", dir, InputKind::ReadsResults)
    }

    /// The results directory the command writes (it may not exist yet).
    pub fn writes_results(&mut self, dir: &Path) -> &mut Self {
        self.add("the results directory", dir, InputKind::WritesResults)
    }

    /// Checks the file output `path` of option `option` (e.g. `--export`)
    /// and returns how to write it.
    pub fn file(&mut self, option: &str, path: &Path) -> anyhow::Result<Dest> {
        let dest = Dest::new(path).with_context(|| format!("{option} {}", path.display()))?;
        let landing = Landing::of(&dest.at);
        for input in &self.inputs {
            match input.kind {
                InputKind::File => {
                    // A character device is written through and replaces
                    // nothing: /dev/stdout may also be what a dataset `-`
                    // was read from.
                    let same = !dest.is_device
                        && (landing.id.is_some() && landing.id == input.id
                            || input.canonical.as_ref() == Some(&landing.canonical));
                    if same {
                        bail!(
                            "{option} {}: is {} {} that this command reads; choose another file",
                            path.display(),
                            input.what,
                            input.given.display()
                        );
                    }
                }
                InputKind::ReadsResults | InputKind::WritesResults => {
                    let Some(dir) = &input.canonical else {
                        continue;
                    };
                    let doing = if input.kind == InputKind::ReadsResults {
                        "reads"
                    } else {
                        "writes"
                    };
                    if *dir == landing.canonical {
                        bail!(
                            "{option} {}: is {} {} that this command {doing}; choose another file",
                            path.display(),
                            input.what,
                            input.given.display()
                        );
                    }
                    if let Some(f) = results_file(dir, &landing.canonical) {
                        bail!(
                            "{option} {}: is {f} of {} {} that this command {doing}; choose another file",
                            path.display(),
                            input.what,
                            input.given.display()
                        );
                    }
                }
            }
        }
        // A device or a process's descriptor (`/dev/stdout`) may take several
        // outputs one after another: nothing is replaced.
        self.claim_output(option, path, landing, dest.is_device || dest.descriptor)?;
        Ok(dest)
    }

    /// Checks the output directory `dir` of option `option`, into which the
    /// command writes the files and folders `writes`: it may be none of the
    /// inputs, nor lie within a results file of a results directory read,
    /// nor hold an input where one of `writes` goes.
    pub fn dir(&mut self, option: &str, dir: &Path, writes: &[&str]) -> anyhow::Result<()> {
        if dir.exists() && !dir.is_dir() {
            bail!("{option} {}: exists and is not a directory", dir.display());
        }
        let landing = Landing::of(dir);
        let c = &landing.canonical;
        for input in &self.inputs {
            let Some(ic) = &input.canonical else {
                continue;
            };
            if input.kind == InputKind::ReadsResults {
                if ic == c {
                    bail!(
                        "{option} {}: is {} {} that this command reads; choose another directory",
                        dir.display(),
                        input.what,
                        input.given.display()
                    );
                }
                if let Some(f) = results_file(ic, c) {
                    bail!(
                        "{option} {}: lies within {f} of {} {} that this command reads; choose another directory",
                        dir.display(),
                        input.what,
                        input.given.display()
                    );
                }
            }
            if input.kind == InputKind::WritesResults {
                continue;
            }
            if ic == c {
                bail!(
                    "{option} {}: is {} {} that this command reads; choose another directory",
                    dir.display(),
                    input.what,
                    input.given.display()
                );
            }
            if let Some(w) = writes.iter().find(|w| {
                let target = c.join(w);
                *ic == target || ic.starts_with(&target)
            }) {
                bail!(
                    "{option} {}: the output would overwrite {} {} ({w}); choose another {option}",
                    dir.display(),
                    input.what,
                    input.given.display()
                );
            }
        }
        self.claim_output(option, dir, landing, false)
    }

    /// Records an accepted output; two outputs may not land on one file
    /// unless it is `shared` (written through, replacing nothing).
    fn claim_output(
        &mut self,
        option: &str,
        path: &Path,
        landing: Landing,
        shared: bool,
    ) -> anyhow::Result<()> {
        if let Some((o, p, _)) = self.outputs.iter().find(|(_, _, l)| {
            l.canonical == landing.canonical || (l.id.is_some() && l.id == landing.id)
        }) {
            if !shared {
                bail!(
                    "{o} {} and {option} {}: the same file; give each output its own",
                    p.display(),
                    path.display()
                );
            }
        }
        self.outputs
            .push((option.to_string(), path.to_path_buf(), landing));
        Ok(())
    }
}

/// The results file (of [`FILES`] or the lock file) of the results
/// directory `dir` that `path` is or lies within (both canonical).
fn results_file(dir: &Path, path: &Path) -> Option<&'static str> {
    FILES.iter().copied().chain([LOCK]).find(|f| {
        let target = dir.join(f);
        path == target || path.starts_with(&target)
    })
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Regular,
    Directory,
    /// A FIFO or a character device.
    Stream,
    Device,
    Other,
}

fn file_kind(path: &Path) -> Option<Kind> {
    let m = std::fs::metadata(path).ok()?;
    let t = m.file_type();
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some(Kind::Stream);
        }
        if t.is_char_device() {
            return Some(Kind::Device);
        }
    }
    Some(if t.is_file() {
        Kind::Regular
    } else if t.is_dir() {
        Kind::Directory
    } else {
        Kind::Other
    })
}

/// A checked file output ([`Guard::file`]) and how it is written.
#[derive(Debug, Clone)]
pub struct Dest {
    /// As the user named it.
    given: PathBuf,
    /// The file written: `given` with the symbolic links of its last
    /// component followed (for a regular or new file), or `given` itself
    /// (written through).
    at: PathBuf,
    /// Opened and written through rather than replaced.
    through: bool,
    /// A character device.
    is_device: bool,
    /// Reached through a process's file descriptors (`/dev/stdout`).
    descriptor: bool,
}

impl Dest {
    /// How `path` is written (see the module documentation); an error for a
    /// directory or a kind of file that is neither written through nor
    /// replaced (a socket, a block device).
    fn new(path: &Path) -> anyhow::Result<Dest> {
        let kind = file_kind(path);
        let (at, magic) = follow(path)?;
        let (through, is_device) = match kind {
            Some(Kind::Directory) => bail!("is a directory"),
            Some(Kind::Other) => {
                bail!("is neither a regular file, a FIFO nor a character device")
            }
            Some(Kind::Stream) => (true, false),
            Some(Kind::Device) => (true, true),
            // A regular file reached through a process's descriptors
            // (`/dev/stdout` redirected to a file) is the file the shell
            // opened: written through, never replaced.
            Some(Kind::Regular) => (magic, false),
            None => (false, false),
        };
        // Written by its absolute name: a solver loaded into the process
        // may change the working directory.
        let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        Ok(Dest {
            given: path.to_path_buf(),
            at: if through {
                absolute(path)
            } else {
                absolute(&at)
            },
            through,
            is_device,
            descriptor: magic,
        })
    }

    /// The output as the user named it.
    pub fn path(&self) -> &Path {
        &self.given
    }

    /// Writes `bytes` as the whole file: replaced through a temporary file
    /// and a rename, or written through.
    pub fn write(&self, bytes: &[u8]) -> std::io::Result<()> {
        if self.through {
            let mut f = self.open_through()?;
            return f.write_all(bytes).and_then(|()| f.flush());
        }
        let mut p = self.create()?;
        p.write_all(bytes)?;
        p.commit()
    }

    /// Appends `bytes` to the file (created when missing); a symbolic link
    /// is followed, a FIFO or device written through.
    pub fn append(&self, bytes: &[u8]) -> std::io::Result<()> {
        let mut f = if self.through {
            self.open_through()?
        } else {
            File::options().create(true).append(true).open(&self.at)?
        };
        f.write_all(bytes)
    }

    /// Opens the output for writing in several steps: a temporary file
    /// beside it (its directory created when missing), renamed into place
    /// by [`Pending::commit`] (removed if never committed), or the FIFO or
    /// device itself.
    pub fn create(&self) -> std::io::Result<Pending> {
        if self.through {
            return Ok(Pending {
                file: self.open_through()?,
                temp: None,
                at: self.at.clone(),
            });
        }
        if let Some(parent) = self.at.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)?;
        }
        let (file, temp) = crate::support::files::temp_file(&self.at)?;
        // A replaced file keeps its permissions.
        if let Ok(m) = std::fs::metadata(&self.at) {
            if m.is_file() {
                let _ = file.set_permissions(m.permissions());
            }
        }
        Ok(Pending {
            file,
            temp: Some(temp),
            at: self.at.clone(),
        })
    }

    /// Appends: on a FIFO or a device it makes no difference, and a
    /// regular file reached through `/dev/stdout` keeps what the process
    /// wrote there before (as writing to the descriptor would). A FIFO that
    /// no process reads is waited for up to [`FIFO_WAIT`], then an error
    /// (opening it would otherwise block for ever).
    fn open_through(&self) -> std::io::Result<File> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            let waited = std::time::Instant::now();
            loop {
                let opened = File::options()
                    .append(true)
                    .custom_flags(libc::O_NONBLOCK)
                    .open(&self.at);
                match opened {
                    Ok(f) => return blocking(f),
                    Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
                        if waited.elapsed() >= FIFO_WAIT {
                            return Err(std::io::Error::other(format!(
                                "no process reads this FIFO (waited {} s)",
                                FIFO_WAIT.as_secs()
                            )));
                        }
                        std::thread::sleep(std::time::Duration::from_millis(50));
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        #[cfg(not(unix))]
        File::options().append(true).open(&self.at)
    }
}

/// How long an output FIFO is waited for a reader.
pub const FIFO_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// `f` with its writes blocking again (it was opened without blocking, so
/// that a FIFO with no reader could not hang the open).
#[cfg(unix)]
fn blocking(f: File) -> std::io::Result<File> {
    use std::os::fd::AsRawFd;
    let fd = f.as_raw_fd();
    // SAFETY: fcntl(2) F_GETFL/F_SETFL on a descriptor this `File` owns and
    // keeps open for the duration; only the status flags change.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(f)
}

/// An output being written ([`Dest::create`]).
#[derive(Debug)]
pub struct Pending {
    file: File,
    /// The temporary file, until it is renamed into place.
    temp: Option<PathBuf>,
    at: PathBuf,
}

impl Pending {
    /// The open file (e.g. for a second handle to write from).
    pub fn file(&self) -> &File {
        &self.file
    }

    /// Whether the output replaces a file through a temporary one (rather
    /// than being written through: a FIFO, a device).
    pub fn replaces(&self) -> bool {
        self.temp.is_some()
    }

    /// Gives the temporary file the name `other` instead of its own (what
    /// was written, kept beside the output it was meant to become, which
    /// stays as it was); written through, it is only flushed. `other` must
    /// have passed the output rule ([`Guard::file`]).
    pub fn commit_as(mut self, other: &Path) -> std::io::Result<()> {
        if self.temp.is_some() {
            self.at = std::path::absolute(other).unwrap_or_else(|_| other.to_path_buf());
        }
        self.commit()
    }

    /// Gives the finished file its name: synced and renamed into place (a
    /// file written through is only flushed).
    pub fn commit(mut self) -> std::io::Result<()> {
        self.file.flush()?;
        if let Some(temp) = self.temp.take() {
            let placed = self
                .file
                .sync_all()
                .and_then(|()| std::fs::rename(&temp, &self.at));
            if placed.is_err() {
                let _ = std::fs::remove_file(&temp);
            }
            placed?;
        }
        Ok(())
    }
}

impl Write for Pending {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        // Never committed: nothing half-written is left.
        if let Some(temp) = self.temp.take() {
            let _ = std::fs::remove_file(temp);
        }
    }
}

/// Follows the symbolic links of the last component of `path`; also says
/// whether the chain went through a process's file descriptors
/// (`/dev/fd`, `/dev/std*`, `/proc/…/fd`), whose links name open files
/// rather than paths.
fn follow(path: &Path) -> anyhow::Result<(PathBuf, bool)> {
    let mut p = path.to_path_buf();
    let mut magic = false;
    for _ in 0..40 {
        magic |= is_descriptor_path(&p);
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() && !magic => {
                let target = std::fs::read_link(&p)
                    .with_context(|| format!("cannot read the link {}", p.display()))?;
                p = match p.parent() {
                    Some(parent) if target.is_relative() => parent.join(target),
                    _ => target,
                };
            }
            _ => return Ok((p, magic)),
        }
    }
    bail!("too many levels of symbolic links")
}

/// `/dev/fd/…`, `/dev/stdin|stdout|stderr` and `/proc/…/fd/…`.
fn is_descriptor_path(p: &Path) -> bool {
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let parts: Vec<Component> = abs.components().collect();
    let name = |i: usize| parts.get(i).and_then(|c| c.as_os_str().to_str());
    match (name(1), name(2)) {
        (Some("dev"), Some("fd" | "stdin" | "stdout" | "stderr")) => true,
        (Some("proc"), Some(_)) => name(3) == Some("fd"),
        _ => false,
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
    fn descriptor_paths_are_recognised() {
        for p in [
            "/dev/stdout",
            "/dev/fd/1",
            "/proc/self/fd/1",
            "/proc/42/fd/3",
        ] {
            assert!(is_descriptor_path(Path::new(p)), "{p}");
        }
        for p in ["/dev/null", "/dev/shm/x.json", "/proc/cpuinfo", "/tmp/fd/1"] {
            assert!(!is_descriptor_path(Path::new(p)), "{p}");
        }
    }

    #[test]
    fn an_input_under_another_name_is_refused() {
        let dir = scratch("names");
        let data = dir.join("data.csv");
        std::fs::write(&data, "x\n").unwrap();
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&data, dir.join("link.csv")).unwrap();
        std::fs::hard_link(&data, dir.join("hard.csv")).unwrap();
        let mut g = Guard::new();
        g.reads_file("the dataset", &data);
        let spellings = [
            dir.join("sub/../data.csv"),
            dir.join("./data.csv"),
            dir.join("hard.csv"),
            #[cfg(unix)]
            dir.join("link.csv"),
        ];
        for p in spellings {
            let e = g.file("--export", &p).unwrap_err().to_string();
            assert!(e.contains("is the dataset"), "{p:?}: {e}");
        }
        assert_eq!(std::fs::read_to_string(&data).unwrap(), "x\n");
        g.file("--export", &dir.join("new.json")).unwrap();
        let e = g
            .file("--gate-summary", &dir.join("sub/../new.json"))
            .unwrap_err();
        assert!(e.to_string().contains("the same file"), "{e}");
    }

    #[test]
    fn files_of_a_results_directory_are_refused() {
        let dir = scratch("results");
        let out = dir.join("out");
        std::fs::create_dir_all(&out).unwrap();
        let mut g = Guard::new();
        g.writes_results(&out);
        for f in ["summary.json", "meta.json", "charts/x.svg", LOCK] {
            let e = g.file("--export", &out.join(f)).unwrap_err().to_string();
            assert!(e.contains("of the results directory"), "{f}: {e}");
        }
        g.file("--export", &out.join("bmf.json")).unwrap();
        // The directory itself, also before it exists.
        let later = dir.join("later");
        g.writes_results(&later);
        let e = g.file("--export", &later).unwrap_err().to_string();
        assert!(e.contains("is the results directory"), "{e}");
    }

    #[test]
    fn writes_replace_regular_files_and_keep_links() {
        let dir = scratch("write");
        let target = dir.join("target.json");
        std::fs::write(&target, "old").unwrap();
        #[cfg(unix)]
        {
            let link = dir.join("link.json");
            std::os::unix::fs::symlink("target.json", &link).unwrap();
            Dest::new(&link).unwrap().write(b"new").unwrap();
            assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
            assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
            // A dangling link: its target is created.
            let dangling = dir.join("dangling.json");
            std::os::unix::fs::symlink("made.json", &dangling).unwrap();
            Dest::new(&dangling).unwrap().write(b"made").unwrap();
            assert_eq!(
                std::fs::read_to_string(dir.join("made.json")).unwrap(),
                "made"
            );
            // /dev/null is written through.
            let null = Dest::new(Path::new("/dev/null")).unwrap();
            assert!(null.through);
            null.write(b"nothing").unwrap();
        }
        // Nothing temporary is left.
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
    }

    #[test]
    fn temporary_names_are_unique() {
        let dir = scratch("temps");
        let path = dir.join("f.json");
        let (_a, ta) = crate::support::files::temp_file(&path).unwrap();
        let (_b, tb) = crate::support::files::temp_file(&path).unwrap();
        assert_ne!(ta, tb);
        assert_eq!(ta.parent(), Some(dir.as_path()));
    }
}
