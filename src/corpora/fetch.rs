//! Puts the corpora of a [`Catalogue`] into a directory: each file read
//! from its [`Source`] into a hidden temporary file beside its place,
//! checked against the catalogue's size and SHA-256, and only then renamed
//! to its name. A download that breaks off, a file that does not match, or
//! an interrupted fetch leaves no file under a corpus's name; a corpus
//! already there with the right bytes is left as it is.

use super::{is_url, Catalogue, Corpus};
use anyhow::{anyhow, bail, Context};
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where the files come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A zip archive to download (the catalogue's, or `--from URL.zip`),
    /// with its SHA-256 when the catalogue gives one.
    Archive { url: String, sha256: Option<String> },
    /// A zip archive on disk (`--from FILE`).
    LocalArchive(PathBuf),
    /// A directory holding the files by name (`--from DIR`): `DIR/NAME`,
    /// or `DIR/MEMBER` as in the archive (`data/NAME`).
    MirrorDir(PathBuf),
    /// A URL under which each file is `URL/NAME` (`--from URL`).
    MirrorUrl(String),
}

impl Source {
    /// What `--from` names: a URL ending in `.zip` is an archive, any other
    /// URL a mirror of the files; a directory is a mirror, a file an
    /// archive. Without `--from`, the catalogue's archive.
    pub fn of(cat: &Catalogue, from: Option<&str>) -> anyhow::Result<Source> {
        let Some(from) = from else {
            return Ok(Source::Archive {
                url: cat.archive.clone(),
                sha256: cat.archive_sha256.clone(),
            });
        };
        if is_url(from) {
            let url = from.trim_end_matches('/');
            return Ok(if url.ends_with(".zip") {
                let sha256 = (url == cat.archive)
                    .then(|| cat.archive_sha256.clone())
                    .flatten();
                Source::Archive {
                    url: url.into(),
                    sha256,
                }
            } else {
                Source::MirrorUrl(url.into())
            });
        }
        let path = Path::new(from);
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => Ok(Source::MirrorDir(path.into())),
            Ok(_) => Ok(Source::LocalArchive(path.into())),
            Err(e) => Err(anyhow!("--from {from}: {e}")),
        }
    }

    /// The source in words, for messages.
    pub fn describe(&self) -> String {
        match self {
            Source::Archive { url, .. } => url.clone(),
            Source::LocalArchive(p) | Source::MirrorDir(p) => p.display().to_string(),
            Source::MirrorUrl(u) => format!("{u}/"),
        }
    }
}

/// What became of one corpus.
#[derive(Clone, Debug)]
pub struct Fetched {
    pub name: String,
    pub path: PathBuf,
    pub puzzles: u64,
    /// Written by this fetch (false: it was there already, with the
    /// catalogue's bytes).
    pub written: bool,
}

/// Fetches the corpora `names` (all when empty) of `cat` from `source`
/// into `dir` (created when missing). A file already at a corpus's place
/// is kept when it has the catalogue's bytes; one with other bytes is an
/// error unless `force`, which replaces it.
pub fn fetch(
    cat: &Catalogue,
    dir: &Path,
    source: &Source,
    names: &[String],
    force: bool,
) -> anyhow::Result<Vec<Fetched>> {
    let chosen = cat.select(names)?;
    std::fs::create_dir_all(dir)
        .with_context(|| format!("{}: cannot create the directory", dir.display()))?;
    let mut done = Vec::new();
    let mut wanted = Vec::new();
    for c in chosen {
        let path = dir.join(&c.name);
        if already_there(c, &path, force)? {
            done.push(Fetched {
                name: c.name.clone(),
                path,
                puzzles: c.puzzles,
                written: false,
            });
        } else {
            wanted.push(c);
        }
    }
    if !wanted.is_empty() {
        from_source(cat, dir, source, &wanted)?;
    }
    for c in wanted {
        done.push(Fetched {
            name: c.name.clone(),
            path: dir.join(&c.name),
            puzzles: c.puzzles,
            written: true,
        });
    }
    // In the catalogue's order.
    done.sort_by_key(|f| cat.corpora.iter().position(|c| c.name == f.name));
    Ok(done)
}

/// Whether `path` holds the corpus already; an error when it holds
/// something else and `force` is not given.
fn already_there(c: &Corpus, path: &Path, force: bool) -> anyhow::Result<bool> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(anyhow!("{}: {e}", path.display())),
    };
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        bail!("{}: there, and not a file", path.display());
    }
    let (bytes, sum) = digest(file).with_context(|| format!("{}: cannot read", path.display()))?;
    if bytes == c.bytes && sum == c.sha256 {
        return Ok(true);
    }
    if force {
        return Ok(false);
    }
    bail!(
        "{}: already there with other bytes than the catalogue's {} ({bytes} bytes, SHA-256 {sum}); \
         move it away, or give --force to replace it",
        path.display(),
        c.name
    )
}

/// Reads every corpus of `wanted` from `source` into `dir`.
fn from_source(
    cat: &Catalogue,
    dir: &Path,
    source: &Source,
    wanted: &[&Corpus],
) -> anyhow::Result<()> {
    match source {
        Source::Archive { url, sha256 } => {
            let archive = download(url, dir, cat.max_bytes, sha256.as_deref())?;
            let file = File::open(&archive.0)
                .with_context(|| format!("{url}: cannot reopen the download"))?;
            from_zip(file, url, dir, wanted)
        }
        Source::LocalArchive(path) => {
            let file = File::open(path)
                .with_context(|| format!("--from {}: cannot read", path.display()))?;
            from_zip(file, &path.display().to_string(), dir, wanted)
        }
        Source::MirrorDir(from) => {
            for c in wanted {
                let path = [from.join(&c.name), from.join(&c.member)]
                    .into_iter()
                    .find(|p| p.is_file())
                    .ok_or_else(|| {
                        anyhow!(
                            "--from {}: no file {} (nor {})",
                            from.display(),
                            c.name,
                            c.member
                        )
                    })?;
                let what = path.display().to_string();
                let mut file = File::open(&path).with_context(|| format!("{what}: cannot read"))?;
                install(&mut file, c, dir, &what)?;
            }
            Ok(())
        }
        Source::MirrorUrl(base) => {
            for c in wanted {
                let url = format!("{base}/{}", c.name);
                install(&mut get(&url)?, c, dir, &url)?;
            }
            Ok(())
        }
    }
}

/// Extracts each corpus from a zip archive: the entry at its `member`
/// path or, failing that, the one entry whose file name is its name.
fn from_zip(file: File, what: &str, dir: &Path, wanted: &[&Corpus]) -> anyhow::Result<()> {
    let mut zip = zip::ZipArchive::new(std::io::BufReader::new(file))
        .map_err(|e| anyhow!("{what}: not a zip archive: {e}"))?;
    for c in wanted {
        let entry = entry_name(&zip, c).ok_or_else(|| {
            anyhow!(
                "{what}: the archive has no {} (nor a single file named {})",
                c.member,
                c.name
            )
        })?;
        let mut member = zip
            .by_name(&entry)
            .map_err(|e| anyhow!("{what}: {entry}: {e}"))?;
        install(&mut member, c, dir, &format!("{what}: {entry}"))?;
    }
    Ok(())
}

fn entry_name<R: Read + std::io::Seek>(zip: &zip::ZipArchive<R>, c: &Corpus) -> Option<String> {
    let names: Vec<String> = zip
        .file_names()
        .filter_map(Result::ok)
        .map(|n| n.into_owned())
        .collect();
    if names.contains(&c.member) {
        return Some(c.member.clone());
    }
    let mut same = names
        .into_iter()
        .filter(|n| n.rsplit('/').next() == Some(c.name.as_str()));
    match (same.next(), same.next()) {
        (Some(one), None) => Some(one),
        _ => None,
    }
}

/// Copies `from` into a temporary file beside `dir/NAME`, checks its size
/// and SHA-256 against the catalogue, and renames it into place.
fn install(from: &mut dyn Read, c: &Corpus, dir: &Path, what: &str) -> anyhow::Result<()> {
    let dest = dir.join(&c.name);
    let (file, tmp) = crate::support::files::temp_file(&dest)
        .with_context(|| format!("{}: cannot create a file", dir.display()))?;
    let tmp = Removed(tmp);
    let mut out = Hashing::new(file);
    // One byte past the catalogue's size is enough to know it is not the file.
    std::io::copy(&mut from.take(c.bytes + 1), &mut out)
        .with_context(|| format!("{what}: reading it into {} failed", dir.display()))?;
    let (file, bytes, sum) = out.finish();
    if bytes != c.bytes {
        let size = if bytes > c.bytes {
            format!("more than {} bytes", c.bytes)
        } else {
            format!("{bytes} bytes")
        };
        bail!(
            "{what}: {size}, where the catalogue's {} has {}: not that file",
            c.name,
            c.bytes
        );
    }
    if sum != c.sha256 {
        bail!(
            "{what}: SHA-256 {sum}, where the catalogue's {} has {}: not that file",
            c.name,
            c.sha256
        );
    }
    file.sync_all()
        .with_context(|| format!("{}: cannot write", tmp.0.display()))?;
    drop(file);
    std::fs::rename(&tmp.0, &dest)
        .with_context(|| format!("{}: cannot put it in place", dest.display()))?;
    tmp.kept();
    Ok(())
}

/// Downloads `url` into a temporary file in `dir` (removed when the value
/// is dropped), refusing more than `max` bytes and, when `sha256` is
/// given, other bytes.
fn download(url: &str, dir: &Path, max: u64, sha256: Option<&str>) -> anyhow::Result<Removed> {
    let name = url
        .rsplit('/')
        .next()
        .filter(|n| !n.is_empty())
        .unwrap_or("download");
    let (file, tmp) = crate::support::files::temp_file(&dir.join(name))
        .with_context(|| format!("{}: cannot create a file", dir.display()))?;
    let tmp = Removed(tmp);
    let mut out = Hashing::new(file);
    std::io::copy(&mut get(url)?.take(max + 1), &mut out)
        .with_context(|| format!("{url}: the download broke off"))?;
    let (file, bytes, sum) = out.finish();
    drop(file);
    if bytes > max {
        bail!("{url}: more than {max} bytes (the catalogue's max_bytes): not the archive");
    }
    if let Some(want) = sha256.filter(|w| *w != sum) {
        bail!("{url}: SHA-256 {sum}, where the catalogue says {want}: not the archive");
    }
    Ok(tmp)
}

/// The body of a GET of `url`, when the server answers 200.
fn get(url: &str) -> anyhow::Result<impl Read> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_connect(Some(Duration::from_secs(30)))
        .timeout_recv_response(Some(Duration::from_secs(60)))
        // A transfer that stalls for a minute is given up; a slow one is not.
        .timeout_per_read(Some(Duration::from_secs(60)))
        .user_agent(format!("bench-sudoku/{}", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let response = agent.get(url).call().map_err(|e| anyhow!("{url}: {e}"))?;
    let status = response.status();
    if status != 200 {
        bail!("{url}: the server answered {status}");
    }
    Ok(response.into_body().into_reader())
}

/// A writer that counts and hashes what passes through it.
struct Hashing {
    file: File,
    hash: Sha256,
    bytes: u64,
}

impl Hashing {
    fn new(file: File) -> Self {
        Hashing {
            file,
            hash: Sha256::new(),
            bytes: 0,
        }
    }

    fn finish(self) -> (File, u64, String) {
        (self.file, self.bytes, hex(&self.hash.finalize()))
    }
}

impl Write for Hashing {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf)?;
        self.hash.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// The size and SHA-256 of what `r` reads.
fn digest(mut r: impl Read) -> std::io::Result<(u64, String)> {
    let mut hash = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut bytes = 0u64;
    loop {
        match r.read(&mut buf) {
            Ok(0) => return Ok((bytes, hex(&hash.finalize()))),
            Ok(n) => {
                hash.update(&buf[..n]);
                bytes += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A temporary file removed when this is dropped (an error on the way).
struct Removed(PathBuf);

impl Removed {
    /// The file was renamed into place: nothing to remove.
    fn kept(mut self) {
        self.0 = PathBuf::new();
    }
}

impl Drop for Removed {
    fn drop(&mut self) {
        if !self.0.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_of_known_text() {
        let (n, sum) = digest(&b"abc"[..]).unwrap();
        assert_eq!(n, 3);
        assert_eq!(
            sum,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn from_names_a_source() {
        let cat = Catalogue::built_in();
        assert_eq!(
            Source::of(&cat, None).unwrap(),
            Source::Archive {
                url: cat.archive.clone(),
                sha256: None
            }
        );
        assert_eq!(
            Source::of(&cat, Some("http://127.0.0.1:9/m/")).unwrap(),
            Source::MirrorUrl("http://127.0.0.1:9/m".into())
        );
        assert!(matches!(
            Source::of(&cat, Some("https://h/x.zip")).unwrap(),
            Source::Archive { .. }
        ));
        let dir = std::env::temp_dir();
        assert_eq!(
            Source::of(&cat, Some(dir.to_str().unwrap())).unwrap(),
            Source::MirrorDir(dir)
        );
        let e = Source::of(&cat, Some("/no/such/place"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("--from /no/such/place: "), "{e}");
    }
}
