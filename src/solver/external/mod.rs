//! External solvers: shared libraries loaded at run time ([`ffi`]: tdoku's
//! C signature and bench-sudoku's own interface, `include/bench_sudoku.h`)
//! and executables speaking the line protocol ([`process`],
//! `docs/SOLVER-PROTOCOL.md`).
//!
//! Both are [`ExternalSolver`]s: the harness times them, verifies every
//! answer and counts their faults exactly as for the built-in engines.
//! Specs:
//!
//! - `lib=PATH[,symbol=NAME|,solver=NAME][,config=N][,name=LABEL][,reentrant=no][,isolate=yes]`
//! - `cmd=COMMAND[,name=LABEL]`
//!
//! Keys come in any order. A value holding a comma is wrapped in single
//! quotes (`cmd='./solver --modes a,b'`); commas inside quotes of either
//! kind never split the spec. Specs are parsed, without loading anything,
//! by [`super::spec`]; [`load`] loads the library or starts the program of
//! one. Every error of this module is an [`Error`].

pub mod ffi;
pub mod process;
pub mod protocol;
#[cfg(unix)]
pub mod reaper;
pub mod solvers_file;

use super::seam::ExternalSolver;
use super::spec::{External, KeyError, Spec, Target};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Labels are spec syntax ([`super::spec`]); they name external solvers in
/// `--solvers` files, registrations and handshakes.
pub use super::spec::{check_label, label_char};

/// A solve given up for a reason that is not the solver's: the environment
/// (no descriptor, no memory, no process left to start one with, or a
/// program that can no longer be run) or the harness stopping (an
/// interrupt). [`abandon`] unwinds out of the solve with it; the run's
/// pipeline (or the command) ends there, and says why, with the status of
/// an error of the run (2) or of an interrupt (130), never as a fault of
/// the solver.
#[derive(Clone, Debug)]
pub struct Abandon {
    pub why: String,
    /// The environment (else the harness stopping).
    pub environment: bool,
}

/// The first solve given up, and why.
static ABANDONED: std::sync::OnceLock<Abandon> = std::sync::OnceLock::new();
/// Raised by the first interrupt: solver processes are stopped at once.
static STOPPING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Gives up the solve in progress: records why (the first reason stays)
/// and unwinds out of it without a panic message.
pub fn abandon(a: Abandon) -> ! {
    let first = ABANDONED.get_or_init(|| a).clone();
    std::panic::resume_unwind(Box::new(first))
}

/// Why a solve was given up, if one was.
pub fn abandoned() -> Option<Abandon> {
    ABANDONED.get().cloned()
}

/// Asks every solver process to be stopped where it is (the user
/// interrupted): an instance waiting for a reply kills its process and
/// gives the solve up ([`abandon`]) within 50 ms.
pub fn stop_solving() {
    STOPPING.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Whether [`stop_solving`] was asked.
pub fn stopping() -> bool {
    STOPPING.load(std::sync::atomic::Ordering::Relaxed)
}

/// How long a puzzle may take an external solver unless `--timeout` says.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Options of external solvers that come from the command line rather than
/// the spec.
#[derive(Clone, Debug)]
pub struct Options {
    /// Per-puzzle time limit (`--timeout`).
    pub timeout: Duration,
    /// The guess budget handed to isolated libraries' child processes.
    pub max_guesses: u64,
    /// The bench-sudoku executable that `isolate=yes` starts as `serve`;
    /// `None`: this process's own executable.
    pub exe: Option<PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            timeout: DEFAULT_TIMEOUT,
            max_guesses: super::DEFAULT_MAX_GUESSES,
            exe: None,
        }
    }
}

/// What loading a spec needs besides the spec.
#[derive(Clone, Debug, Default)]
pub struct Context {
    pub options: Options,
    /// Labels defined in `--solvers` files.
    pub solvers: BTreeMap<String, solvers_file::Entry>,
}

impl Context {
    pub fn new(options: Options) -> Self {
        Context {
            options,
            solvers: BTreeMap::new(),
        }
    }

    /// Adds the labels of a `--solvers` file (a label defined twice is an
    /// error naming both files).
    pub fn load_solvers_file(&mut self, path: &Path) -> Result<(), Error> {
        for entry in solvers_file::read(path)? {
            if let Some(old) = self.solvers.get(&entry.label) {
                return Err(Error::DefinedTwice {
                    file: path.to_path_buf(),
                    label: entry.label,
                    first: old.file.clone(),
                });
            }
            self.solvers.insert(entry.label.clone(), entry);
        }
        Ok(())
    }

    /// The solver a `--solvers` file (or [`register`]) names `label`, with
    /// its label; one from a file is loaded here, from its keys.
    #[allow(clippy::type_complexity)]
    pub fn named(&self, label: &str) -> Result<Option<(String, Arc<dyn ExternalSolver>)>, Error> {
        if let Some((l, s)) = registered().iter().find(|(l, _)| l == label) {
            return Ok(Some((l.clone(), Arc::clone(s))));
        }
        let Some(entry) = self.solvers.get(label) else {
            return Ok(None);
        };
        let wrap = |why: Error| Error::Entry {
            file: entry.file.clone(),
            label: label.to_string(),
            why: Box::new(why),
        };
        let (name, solver) = entry.solver().map_err(|e| wrap(e.into()))?;
        let base = entry.file.parent().unwrap_or(Path::new("."));
        let solver = load(&solver, &self.options, Some(base)).map_err(wrap)?;
        Ok(Some((name.unwrap_or_else(|| label.to_string()), solver)))
    }

    /// The external solver a spec names, read from the spec alone (nothing
    /// is loaded), with the directory its relative `lib=` path starts from
    /// (a `--solvers` file's); `None` for a built-in, an unknown label or a
    /// `--solvers` entry whose keys are wrong.
    fn external(&self, spec: &Spec) -> Option<(External, Option<PathBuf>)> {
        match &spec.target {
            Target::External(e) => Some((e.clone(), None)),
            Target::Label(label) => {
                let entry = self.solvers.get(label)?;
                let (_, solver) = entry.solver().ok()?;
                Some((solver, entry.file.parent().map(Path::to_path_buf)))
            }
            Target::Builtin(_) => None,
        }
    }
}

/// Solvers registered by the program itself (see [`register`]).
#[allow(clippy::type_complexity)]
static REGISTERED: std::sync::RwLock<Vec<(String, Arc<dyn ExternalSolver>)>> =
    std::sync::RwLock::new(Vec::new());

/// Makes `solver` a strategy named `label` for every command of this
/// process (`-s LABEL`), beside the built-in ones: how a Rust program that
/// implements [`ExternalSolver`] puts its own solver in the tool (see
/// `examples/solvers/rust/main.rs` and `cli::main_with`).
pub fn register(label: &str, solver: Arc<dyn ExternalSolver>) -> Result<(), Error> {
    let label = check_label(label)?;
    if crate::solver::Strategy::named(&label).is_some() {
        return Err(Error::BuiltinName(label));
    }
    let mut list = REGISTERED.write().unwrap_or_else(|e| e.into_inner());
    if list.iter().any(|(l, _)| *l == label) {
        return Err(Error::RegisteredTwice(label));
    }
    list.push((label, solver));
    Ok(())
}

/// The labels and solvers registered so far.
#[allow(clippy::type_complexity)]
pub fn registered() -> Vec<(String, Arc<dyn ExternalSolver>)> {
    REGISTERED.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// True when a strategy spec (or a label of a `--solvers` file, or of a
/// solver the program registered) names a solver that runs inside this
/// process: a `lib=` without `isolate=yes`, or a registered Rust solver.
/// Decided from the spec alone: nothing is loaded.
pub fn in_process(spec: &str, ctx: &Context) -> bool {
    let Ok(spec) = Spec::parse(spec) else {
        return false;
    };
    if let Target::Label(label) = &spec.target {
        if registered().iter().any(|(l, _)| l == label) {
            return true;
        }
    }
    matches!(ctx.external(&spec), Some((External::Lib(lib), _)) if !lib.isolate)
}

/// The files a strategy spec (or a label of a `--solvers` file) names as
/// its solver, read from the spec alone (nothing is loaded or started):
/// the `lib=` library, and the `cmd=` program (a path, or found on `PATH`)
/// with every argument that names an existing file (the script of
/// `python3 solver.py`). Each with what it is, for messages.
pub fn solver_files(spec: &str, ctx: &Context) -> Vec<(&'static str, PathBuf)> {
    let Some((solver, base)) = Spec::parse(spec).ok().and_then(|s| ctx.external(&s)) else {
        return Vec::new();
    };
    let mut files = Vec::new();
    match solver {
        External::Lib(lib) => {
            let path = match &base {
                Some(b) if lib.path.is_relative() => b.join(&lib.path),
                _ => lib.path,
            };
            files.push(("the solver library", path));
        }
        External::Cmd(words) => {
            let program = Path::new(&words[0]);
            let found = if words[0].contains('/') {
                Some(program.to_path_buf())
            } else {
                std::env::var_os("PATH").and_then(|path| {
                    std::env::split_paths(&path)
                        .map(|d| d.join(program))
                        .find(|p| p.is_file())
                })
            };
            files.extend(found.map(|p| ("the solver program", p)));
            for w in &words[1..] {
                let p = Path::new(w);
                if !w.is_empty() && p.is_file() {
                    files.push(("the solver's file", p.to_path_buf()));
                }
            }
        }
    }
    files
}

/// Loads the external solver of a spec: the library found (a relative path
/// from `base`, a `--solvers` file's directory, or the working directory)
/// and loaded, or its child processes started once to read the handshake,
/// so that a solver that cannot work stops a run before any work.
pub fn load(
    solver: &External,
    options: &Options,
    base: Option<&Path>,
) -> Result<Arc<dyn ExternalSolver>, Error> {
    match solver {
        External::Lib(lib) => {
            let lib = ffi::resolve(lib, base)?;
            if lib.isolate {
                Ok(Arc::new(process::ProcessSolver::isolated(&lib, options)?))
            } else {
                Ok(Arc::new(ffi::LibSolver::load(lib, options)?))
            }
        }
        External::Cmd(argv) => Ok(Arc::new(process::ProcessSolver::command(
            argv.clone(),
            options,
        )?)),
    }
}

/// Why an external solver (its spec, its label, its `--solvers` file)
/// cannot be used, or why a line of the protocol was refused: the one
/// error type of this module.
///
/// Every variant's text is the whole message a user sees. A variant that
/// wraps another (`why`) writes it into its own text and does not report
/// it as a `source`, so that an error chain printed with `{:#}` says it
/// once.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A label or the keys of a spec.
    #[error(transparent)]
    Key(#[from] KeyError),
    #[error("{0:?} is a built-in strategy's name")]
    BuiltinName(String),
    #[error("{0:?} is registered twice")]
    RegisteredTwice(String),
    /// A name that is no built-in strategy's, nor the label of a registered
    /// solver or of a `--solvers` file's entry.
    #[error("{}", super::spec::unknown_strategy(.0))]
    UnknownStrategy(String),

    // Loading a library.
    /// The library's file cannot be found or loaded (`why`: the system's
    /// or the loader's words).
    #[error("lib={}: {why}", .path.display())]
    Library { path: PathBuf, why: String },
    #[error("lib={}: not a file", .path.display())]
    NotAFile { path: PathBuf },
    #[error("lib={}: no symbol {symbol:?}: {why}", .path.display())]
    NoSymbol {
        path: PathBuf,
        symbol: String,
        why: String,
    },
    #[error(
        "lib={}: no symbol {:?} (solver= needs bench-sudoku's interface, include/bench_sudoku.h; \
         for tdoku's signature use symbol=): {why}",
        .path.display(),
        ffi::abi::REGISTRY
    )]
    NoRegistry { path: PathBuf, why: String },
    #[error("lib={}: {} returned no list", .path.display(), ffi::abi::REGISTRY)]
    NoList { path: PathBuf },
    /// `has`: the solvers the library lists.
    #[error("lib={}: no solver {solver:?} (it has: {})", .path.display(), listed(.has))]
    NoSuchSolver {
        path: PathBuf,
        solver: String,
        has: Vec<String>,
    },
    /// A solver of bench-sudoku's interface whose descriptor or state is
    /// not usable (`why`: one of the five variants below).
    #[error("lib={}: solver {solver:?}: {why}", .path.display())]
    Descriptor {
        path: PathBuf,
        solver: String,
        why: Box<Error>,
    },
    #[error(
        "built for interface version {0}; this bench-sudoku reads version {reads}",
        reads = ffi::abi::VERSION
    )]
    AbiVersion(u32),
    #[error(
        "descriptor of {0} bytes; version {version} has {size}",
        version = ffi::abi::VERSION,
        size = std::mem::size_of::<ffi::abi::Descriptor>()
    )]
    DescriptorSize(u32),
    #[error("unknown reports bits {0:#x}")]
    ReportsBits(u32),
    #[error("create, destroy and solve must all be set")]
    Functions,
    #[error("create({0}) returned NULL")]
    CreateNull(u32),
    /// A solution written by a library whose cell `cell` holds what no
    /// cell may (`holds`: the character, or the byte).
    #[error("{cell} holds {holds}")]
    SolutionCell { cell: String, holds: String },

    // Solver processes.
    #[error("isolate=yes: cannot find bench-sudoku's own executable: {0}")]
    OwnExe(String),
    /// The solver of `spec` could not be started and greeted once.
    #[error("{spec}: {why}")]
    Probe { spec: String, why: Box<Error> },
    /// `environment`: the system refused a resource (no descriptor, no
    /// memory, no process), not a fault of the solver.
    #[error(
        "cannot start {program:?}: {why}{}",
        if *.environment {
            "; the system refused bench-sudoku a resource (not a fault of the solver): raise \
             the limit (ulimit -n, ulimit -u) or free memory"
        } else {
            ""
        }
    )]
    Start {
        program: String,
        why: String,
        environment: bool,
    },
    #[error("no pipes to the process")]
    NoPipes,
    /// A process that failed and was ended: why, then how it ended and the
    /// last line of its standard error, where known.
    #[error("{why}{}", ended(.status, .stderr))]
    Failed {
        why: Box<Error>,
        status: Option<String>,
        stderr: Option<String>,
    },
    #[error("it ended before its handshake")]
    EndedBeforeHandshake,
    #[error("cannot send the handshake ({0})")]
    SendHandshake(String),
    /// No handshake within the timeout (as `humantime` writes it).
    #[error("no handshake within {0}")]
    NoHandshake(String),
    #[error("handshake line too long")]
    HandshakeTooLong,
    #[error("reading its handshake: {0}")]
    ReadHandshake(String),
    #[error("its handshake changed from {from:?} to {to:?}")]
    HandshakeChanged { from: String, to: String },
    #[error("the solver process did not start: {0}")]
    NotStarted(Box<Error>),
    #[error("not restarted after {starts} failed starts in a row; last: {last}")]
    GivenUp { starts: u32, last: Box<Error> },
    #[error(
        "not sent more puzzles after {count} timeouts in a row with no reply between them; \
         last: {last}"
    )]
    TimedOutInARow { count: u32, last: Box<Error> },
    #[error("it stopped reading requests ({0})")]
    StoppedReading(String),
    #[error("bad reply: {0}")]
    BadReply(Box<Error>),
    /// No reply within the timeout (as `humantime` writes it); `stopped`:
    /// the process was found stopped by a signal.
    #[error(
        "no reply within {timeout}{}",
        if *.stopped { " (the process was stopped: SIGSTOP or SIGTSTP)" } else { "" }
    )]
    NoReply { timeout: String, stopped: bool },
    #[error("it ended before answering")]
    EndedBeforeAnswer,
    #[error("a reply line longer than {} bytes", protocol::MAX_LINE)]
    ReplyTooLong,
    #[error("reading its reply: {0}")]
    ReadReply(String),
    #[error("solver processes (cmd=, isolate=yes) need a Unix-like system")]
    Unsupported,

    // The line protocol (a line quoted is clipped: `protocol::clip`).
    #[error("expected the greeting '{magic} VERSION', got {0:?}", magic = protocol::MAGIC)]
    Greeting(String),
    #[error("the solver refused the handshake: {0}")]
    Refused(String),
    #[error("handshake {line:?}: {why}")]
    Handshake { line: String, why: Box<Error> },
    #[error("expected '{} 1 name=… reports=…'", protocol::MAGIC)]
    NotHandshake,
    #[error("no version number")]
    NoVersion,
    #[error("version {0}; the harness offered {offered}", offered = protocol::VERSION)]
    Version(u32),
    #[error("unknown report {0:?} (known: ns, guesses, backtracks, depth, nodes)")]
    UnknownReport(String),
    /// A key the protocol does not have (in a handshake or a reply).
    #[error("unknown key {0:?}")]
    UnknownField(String),
    #[error("no name=")]
    NoName,
    #[error("no reports= (it may be empty: reports=)")]
    NoReports,
    #[error("the request is not UTF-8")]
    RequestUtf8,
    #[error("expected 'PUZZLE LIMIT', got {0:?}")]
    NotRequest(String),
    #[error("puzzle: {0}")]
    Puzzle(String),
    #[error("limit {0:?} is not a number of at least 1")]
    Limit(String),
    #[error("the reply is not UTF-8")]
    ReplyUtf8,
    #[error("expected 'COUNT SOLUTION …' or 'error …', got {0:?}")]
    NotReply(String),
    #[error("count {count} is above the limit of {limit}")]
    AboveLimit { count: u32, limit: u32 },
    #[error("no solution field in {0:?}")]
    NoSolution(String),
    #[error("count 0 with solution {0:?} (expected '-')")]
    ZeroWithSolution(String),
    /// A solution field of 81 digits that is no grid (the grid parser's
    /// words).
    #[error("{0}")]
    SolutionGrid(String),
    #[error("solution {0:?} is not 81 digits 1-9")]
    NotDigits(String),
    /// A key the handshake declared that a reply left out.
    #[error("declared key {0} missing")]
    Missing(&'static str),
    #[error("stopped=stalled with a solution")]
    StalledWithSolution,
    #[error("stopped= given twice")]
    StoppedTwice,
    #[error("stopped={0:?} (expected gave_up or stalled)")]
    Stopped(String),
    #[error("{key}={value:?} is not a number")]
    NotANumber { key: String, value: String },
    #[error("key {0} was not declared in the handshake")]
    Undeclared(String),
    #[error("key {0} given twice")]
    FieldTwice(String),

    // `--solvers` files.
    #[error("--solvers {}: {why}", .file.display())]
    ReadSolvers { file: PathBuf, why: String },
    /// Text that is not TOML (the TOML parser's words).
    #[error("{}: {why}", .file.display())]
    Toml { file: PathBuf, why: String },
    #[error("{}: unknown top-level key {key:?} (expected [solvers.LABEL] tables)", .file.display())]
    TopKey { file: PathBuf, key: String },
    #[error("{}: no [solvers.LABEL] table", .file.display())]
    NoTables { file: PathBuf },
    #[error("{}: 'solvers' must be a table of tables", .file.display())]
    NotTables { file: PathBuf },
    /// What is wrong with the table `[solvers.LABEL]`.
    #[error("{}: [solvers.{label}]: {why}", .file.display())]
    Table {
        file: PathBuf,
        label: String,
        why: Box<Error>,
    },
    #[error("must be a table")]
    NotATable,
    #[error("unknown key {key:?} (keys: {})", .keys.join(", "))]
    TableKey {
        key: String,
        keys: &'static [&'static str],
    },
    #[error("spec = \"…\" stands alone (no other keys)")]
    SpecAlone,
    #[error("spec must be a string")]
    SpecNotString,
    #[error("cmd = [...] must hold strings")]
    CommandNotStrings,
    #[error("cmd = [] is empty")]
    EmptyCommandList,
    /// Words that cannot be joined into one command (shlex's words).
    #[error("cmd: {0}")]
    CommandJoin(String),
    /// A value of the wrong TOML type (`value` as TOML writes it).
    #[error("{key} = {value}: not a {expected}")]
    ValueType {
        key: String,
        value: String,
        expected: &'static str,
    },
    #[error("{}: solver {label:?} is already defined in {}", .file.display(), .first.display())]
    DefinedTwice {
        file: PathBuf,
        label: String,
        first: PathBuf,
    },
    /// The solver a `--solvers` file defines under `label` cannot be used.
    #[error("{}: solver {label:?}: {why}", .file.display())]
    Entry {
        file: PathBuf,
        label: String,
        why: Box<Error>,
    },
}

/// The solvers a library lists, for a message: `none` when it lists none.
fn listed(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// How a failing process ended, for a message: ` (exit status 1; stderr:
/// …)`, or nothing when neither is known.
fn ended(status: &Option<String>, stderr: &Option<String>) -> String {
    let mut facts = Vec::new();
    if let Some(st) = status {
        facts.push(st.clone());
    }
    if let Some(t) = stderr {
        facts.push(format!("stderr: {t}"));
    }
    if facts.is_empty() {
        String::new()
    } else {
        format!(" ({})", facts.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::Strategy;

    #[test]
    fn bad_external_specs_say_why() {
        let ctx = Context::default();
        let why = |s: &str| Strategy::parse_in(s, &ctx).unwrap_err().why;
        assert!(why("lib=a.so,cmd=b").contains("not both"));
        assert!(why("cmd=./s,symbol=f").contains("unknown key \"symbol\""));
        assert!(why("lib=a.so,lib=b.so").contains("twice"));
        assert!(why("cmd=./s,name=a,b").contains("not key=value"));
        assert!(why("cmd=./s,name=has space").contains("label"));
        assert!(why("lib=/no/such/lib.so").contains("/no/such/lib.so"));
        assert!(why("cmd=/no/such/solver").contains("/no/such/solver"));
    }

    #[test]
    fn labels_are_checked() {
        assert!(check_label("tdoku-v2.1").is_ok());
        for bad in ["", "a,b", "a b", "x'y", &"x".repeat(65)] {
            assert!(check_label(bad).is_err(), "{bad:?}");
        }
    }
}
