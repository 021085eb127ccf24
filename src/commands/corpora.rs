//! `bench-sudoku corpora`: the standard benchmark corpora — listed (name,
//! puzzles, source, checksum, licence), and fetched with `corpora fetch
//! DIR` from their public source into a directory the user names, each
//! file checked against its SHA-256 ([`crate::corpora`]).

use super::CmdResult;
use crate::corpora::{fetch, Catalogue, Corpus, Source};
use clap::{Args, Subcommand};
use std::fmt::Write as _;
use std::path::PathBuf;

pub const CORPORA_HELP: &str = "Examples:
  bench-sudoku corpora                            (name, puzzles, source, SHA-256, licence)
  bench-sudoku corpora fetch corpora              (all five into ./corpora, from tdoku's archive)
  bench-sudoku corpora fetch corpora puzzles6_forum_hardest_1106
  bench-sudoku corpora fetch corpora --from ~/Downloads/data.zip      (a downloaded archive)
  bench-sudoku corpora fetch corpora --from /mnt/mirror/corpora       (a directory of the files)
  bench-sudoku corpora fetch corpora --from https://mirror.example/c/ (each file at URL/NAME)
  bench-sudoku run corpora/puzzles6_forum_hardest_1106 -s fast -s 'lib=./libmysolver.so'

The corpora are five files of tdoku's benchmark data (github.com/t-dillon/tdoku, whose data.zip
holds them, at a pinned commit). Every file is checked against the catalogue's size and SHA-256
before it takes its name: a download that breaks off or does not match leaves no file under a
corpus's name (only a hidden temporary file while it runs). A corpus already in DIR with the
right bytes is kept; one with other bytes is refused unless --force. --catalog FILE replaces the
built-in list with another of its form (TOML: origin, archive, optional archive_sha256 and
max_bytes, and [[corpus]] tables with name, member, puzzles, bytes, sha256, about, source,
licence).

HTTPS proxies are taken from HTTPS_PROXY / ALL_PROXY (and NO_PROXY).

Exit status: 0 when the list was printed or every corpus asked for is in DIR with its
catalogue's bytes; 2 when the catalogue cannot be read, a name is unknown, the source cannot
be reached or read, a file does not match its checksum, or DIR cannot be written.";

#[derive(Debug, Args)]
pub struct CorporaArgs {
    /// A catalogue (TOML, the built-in one's form) that replaces the
    /// built-in list of corpora and where they come from.
    #[arg(long, value_name = "FILE", global = true)]
    pub catalog: Option<PathBuf>,
    /// Print the catalogue as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(subcommand)]
    pub action: Option<CorporaAction>,
}

#[derive(Debug, Subcommand)]
pub enum CorporaAction {
    /// Fetch the corpora into DIR from their public source (or --from),
    /// each checked against its SHA-256.
    #[command(after_help = CORPORA_HELP)]
    Fetch(FetchArgs),
}

#[derive(Debug, Args)]
pub struct FetchArgs {
    /// The directory to put the corpora in (created when missing).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Only these corpora [default: all of the catalogue].
    #[arg(value_name = "NAME")]
    pub names: Vec<String>,
    /// Where to read them from instead of the catalogue's archive: a zip
    /// archive (a file, or a URL ending in .zip), a directory holding the
    /// files (NAME, or data/NAME as in the archive), or a URL under which
    /// each file is URL/NAME.
    #[arg(long, value_name = "PATH_OR_URL")]
    pub from: Option<String>,
    /// Replace a file in DIR that has a corpus's name but other bytes.
    #[arg(long)]
    pub force: bool,
}

pub fn run(args: &CorporaArgs) -> CmdResult {
    let cat = match &args.catalog {
        Some(path) => Catalogue::read(path)?,
        None => Catalogue::built_in(),
    };
    match &args.action {
        None if args.json => {
            super::print_out(&format!("{}\n", serde_json::to_string_pretty(&cat)?))?
        }
        None => super::print_text(&listing(&cat))?,
        Some(CorporaAction::Fetch(f)) => {
            let source = Source::of(&cat, f.from.as_deref())?;
            super::print_err(&format!(
                "bench-sudoku: fetching from {}",
                source.describe()
            ));
            let fetched = fetch(&cat, &f.dir, &source, &f.names, f.force)?;
            let mut out = String::new();
            for c in &fetched {
                let how = if c.written {
                    "fetched, SHA-256 checked"
                } else {
                    "already there, SHA-256 checked"
                };
                let _ = writeln!(out, "{}  {} puzzles  ({how})", c.path.display(), c.puzzles);
            }
            super::print_text(&out)?;
        }
    }
    Ok(0)
}

/// The catalogue for a person: a table, then each corpus's source, SHA-256
/// and licence.
fn listing(cat: &Catalogue) -> String {
    let mut s = format!(
        "Standard corpora: {}\narchive: {}\n\n",
        cat.origin, cat.archive
    );
    let width = cat
        .corpora
        .iter()
        .map(|c| c.name.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let _ = writeln!(
        s,
        "{:width$}  {:>8}  {:>9}  what it is",
        "name", "puzzles", "bytes"
    );
    for c in &cat.corpora {
        let _ = writeln!(
            s,
            "{:width$}  {:>8}  {:>9}  {}",
            c.name, c.puzzles, c.bytes, c.about
        );
    }
    for c in &cat.corpora {
        details(&mut s, c);
    }
    s.push_str(
        "\nFetch them: bench-sudoku corpora fetch DIR (then: bench-sudoku run DIR/NAME ...)\n",
    );
    s
}

fn details(s: &mut String, c: &Corpus) {
    let _ = write!(
        s,
        "\n{}\n  sha256   {}\n  source   {}\n  licence  {}\n  in the archive: {}\n",
        c.name, c.sha256, c.source, c.licence, c.member
    );
}
