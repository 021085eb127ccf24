//! The standard benchmark corpora: where each comes from, what it is, and
//! the exact bytes it must have ([`Catalogue`]), and fetching them into a
//! directory the user names ([`fetch`]), every file checked against its
//! size and SHA-256 before it is put in place.
//!
//! The built-in catalogue (`catalogue.toml` beside this file) lists the
//! five corpora of tdoku's benchmark data and the public archive they come
//! in; `--catalog FILE` replaces it with another of the same form (a
//! mirror's, or a test's). Nothing here writes to the terminal: the
//! `corpora` command prints what [`fetch`] returns.

pub mod fetch;

pub use fetch::{fetch, Fetched, Source};

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The built-in catalogue, as shipped in the binary.
const BUILT_IN: &str = include_str!("catalogue.toml");

/// Where the corpora come from and what each must be.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Catalogue {
    /// Where the corpora come from, in words.
    pub origin: String,
    /// The zip archive that holds them (an `http://` or `https://` URL).
    pub archive: String,
    /// The archive's SHA-256, when it is known: a download that does not
    /// match is refused before anything is extracted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archive_sha256: Option<String>,
    /// The most bytes one download may have: a wrong URL or a server that
    /// never stops cannot fill the disk.
    #[serde(default = "default_max_bytes")]
    pub max_bytes: u64,
    #[serde(rename = "corpus")]
    pub corpora: Vec<Corpus>,
}

fn default_max_bytes() -> u64 {
    256 << 20
}

/// One corpus: a file of puzzles, one per line.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Corpus {
    /// Its file name in the directory fetched into.
    pub name: String,
    /// Its path in the archive.
    pub member: String,
    pub puzzles: u64,
    /// Its size in bytes.
    pub bytes: u64,
    /// Its SHA-256, lowercase hex.
    pub sha256: String,
    /// What it is, in a line.
    pub about: String,
    /// Who made the list, as its header (or its distributor) says.
    pub source: String,
    /// What is known of its licence.
    pub licence: String,
}

impl Catalogue {
    /// The catalogue built into this binary.
    pub fn built_in() -> Self {
        // Checked by a unit test: the text shipped in the binary parses.
        Self::parse(BUILT_IN, "the built-in catalogue").expect("the built-in catalogue is valid")
    }

    /// Reads a catalogue file (TOML, the built-in one's form).
    pub fn read(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("--catalog {}: cannot read", path.display()))?;
        Self::parse(&text, &format!("--catalog {}", path.display()))
    }

    /// Parses and checks a catalogue; errors start with `what`.
    pub fn parse(text: &str, what: &str) -> anyhow::Result<Self> {
        let cat: Catalogue =
            toml::from_str(text).with_context(|| format!("{what}: not a catalogue"))?;
        cat.check().with_context(|| what.to_string())?;
        Ok(cat)
    }

    /// Names that are plain file names, each once; checksums that are
    /// SHA-256s; an archive that is a URL.
    fn check(&self) -> anyhow::Result<()> {
        if !is_url(&self.archive) {
            bail!(
                "archive {:?} is not an http:// or https:// URL",
                self.archive
            );
        }
        if let Some(sum) = &self.archive_sha256 {
            check_sha256(sum).context("archive_sha256")?;
        }
        if self.corpora.is_empty() {
            bail!("no [[corpus]]");
        }
        for (i, c) in self.corpora.iter().enumerate() {
            if !is_plain_name(&c.name) {
                bail!(
                    "corpus {:?}: a name must be a plain file name (no '/', not starting with '.')",
                    c.name
                );
            }
            if self.corpora[..i].iter().any(|o| o.name == c.name) {
                bail!("corpus {:?} is listed twice", c.name);
            }
            check_sha256(&c.sha256).with_context(|| format!("corpus {:?}: sha256", c.name))?;
            if c.bytes > self.max_bytes {
                bail!(
                    "corpus {:?}: {} bytes, over max_bytes {}",
                    c.name,
                    c.bytes,
                    self.max_bytes
                );
            }
        }
        Ok(())
    }

    /// The corpora named (all when `names` is empty), in catalogue order;
    /// an unknown name is an error that lists the known ones.
    pub fn select(&self, names: &[String]) -> anyhow::Result<Vec<&Corpus>> {
        if let Some(unknown) = names
            .iter()
            .find(|n| !self.corpora.iter().any(|c| &c.name == *n))
        {
            let known: Vec<&str> = self.corpora.iter().map(|c| c.name.as_str()).collect();
            bail!(
                "no corpus {unknown:?} in the catalogue (known: {})",
                known.join(", ")
            );
        }
        Ok(self
            .corpora
            .iter()
            .filter(|c| names.is_empty() || names.contains(&c.name))
            .collect())
    }
}

/// An `http://` or `https://` URL.
pub fn is_url(s: &str) -> bool {
    s.starts_with("http://") || s.starts_with("https://")
}

fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && !name.contains(['/', '\\', '\0'])
        && name.chars().all(|c| !c.is_control())
}

fn check_sha256(sum: &str) -> anyhow::Result<()> {
    if sum.len() != 64
        || !sum
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        bail!("{sum:?} is not a SHA-256 (64 lowercase hex digits)");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_catalogue_lists_the_five_corpora() {
        let cat = Catalogue::built_in();
        let names: Vec<&str> = cat.corpora.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "puzzles2_17_clue",
                "puzzles3_magictour_top1465",
                "puzzles5_forum_hardest_1905_11+",
                "puzzles6_forum_hardest_1106",
                "puzzles7_serg_benchmark"
            ]
        );
        assert!(cat.archive.starts_with("https://"));
        for c in &cat.corpora {
            assert_eq!(c.member, format!("data/{}", c.name));
        }
    }

    #[test]
    fn a_catalogue_is_checked() {
        let good = "origin = \"o\"\narchive = \"http://127.0.0.1:1/a.zip\"\n[[corpus]]\nname = \"a\"\nmember = \"a\"\npuzzles = 1\nbytes = 82\nsha256 = \"0000000000000000000000000000000000000000000000000000000000000000\"\nabout = \"\"\nsource = \"\"\nlicence = \"\"\n";
        assert!(Catalogue::parse(good, "t").is_ok());
        for (from, to, says) in [
            ("name = \"a\"", "name = \"../a\"", "plain file name"),
            ("name = \"a\"", "name = \".a\"", "plain file name"),
            ("\"http://127.0.0.1:1/a.zip\"", "\"file:///a.zip\"", "URL"),
            ("sha256 = \"0000", "sha256 = \"00", "SHA-256"),
            ("bytes = 82", "bytes = 1000000000", "max_bytes"),
            ("about = \"\"", "about = \"\"\nextra = 1", "not a catalogue"),
        ] {
            let bad = good.replace(from, to);
            let e = format!("{:#}", Catalogue::parse(&bad, "t").unwrap_err());
            assert!(e.contains(says), "{to}: {e}");
        }
        let twice = format!("{good}{}", &good[good.find("[[corpus]]").unwrap()..]);
        let e = format!("{:#}", Catalogue::parse(&twice, "t").unwrap_err());
        assert!(e.contains("listed twice"), "{e}");
    }

    #[test]
    fn select_names_the_unknown() {
        let cat = Catalogue::built_in();
        assert_eq!(cat.select(&[]).unwrap().len(), 5);
        let one = cat.select(&["puzzles6_forum_hardest_1106".into()]).unwrap();
        assert_eq!(one[0].puzzles, 375);
        let e = cat.select(&["nope".into()]).unwrap_err().to_string();
        assert!(
            e.contains("\"nope\"") && e.contains("puzzles2_17_clue"),
            "{e}"
        );
    }
}
