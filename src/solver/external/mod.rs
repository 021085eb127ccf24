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
//! kind never split the spec.

pub mod ffi;
pub mod process;
pub mod protocol;
#[cfg(unix)]
pub mod reaper;
pub mod solvers_file;

use super::seam::ExternalSolver;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

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

/// The external-solver part of the spec help.
pub const SPEC_HELP: &str = "External solvers (docs/SOLVERS.md): \
'lib=PATH[,symbol=NAME|,solver=NAME][,config=N][,name=LABEL][,reentrant=no][,isolate=yes]' loads \
a shared library: symbol=NAME (default 'solve') is a function with tdoku's signature, \
solver=NAME one of the solvers of bench-sudoku's own interface (include/bench_sudoku.h); \
reentrant=no never calls it from two threads at once; isolate=yes runs it in child processes \
('bench-sudoku serve'), so that a crash or a hang is counted instead of ending the run. \
'cmd=COMMAND[,name=LABEL]' runs COMMAND (split into words like a shell does, never through a \
shell) once per thread and speaks the line protocol of docs/SOLVER-PROTOCOL.md with it. Wrap a \
value holding a comma in single quotes: \"cmd='./solver --modes a,b'\". A label defined in a \
--solvers FILE is a strategy name too.";

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

/// What parsing an external spec needs besides the spec.
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
    pub fn load_solvers_file(&mut self, path: &Path) -> anyhow::Result<()> {
        for entry in solvers_file::read(path)? {
            if let Some(old) = self.solvers.get(&entry.label) {
                anyhow::bail!(
                    "{}: solver {:?} is already defined in {}",
                    path.display(),
                    entry.label,
                    old.file.display()
                );
            }
            self.solvers.insert(entry.label.clone(), entry);
        }
        Ok(())
    }

    /// The solver a `--solvers` file (or [`register`]) names `label`; one
    /// from a file is made from its spec.
    #[allow(clippy::type_complexity)]
    pub fn named(&self, label: &str) -> Result<Option<(String, Arc<dyn ExternalSolver>)>, String> {
        if let Some((l, s)) = registered().iter().find(|(l, _)| l == label) {
            return Ok(Some((l.clone(), Arc::clone(s))));
        }
        let Some(entry) = self.solvers.get(label) else {
            return Ok(None);
        };
        let mut keys = entry.keys.clone();
        if !keys.iter().any(|(k, _)| k == "name") {
            keys.push(("name".into(), label.to_string()));
        }
        let base = entry.file.parent().unwrap_or(Path::new("."));
        let (label, solver) = build(&keys, self, Some(base))
            .map_err(|e| format!("{}: solver {label:?}: {e}", entry.file.display()))?;
        Ok(Some((label, solver)))
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
pub fn register(label: &str, solver: Arc<dyn ExternalSolver>) -> Result<(), String> {
    let label = check_label(label)?;
    if crate::solver::Strategy::named(&label).is_some() {
        return Err(format!("{label:?} is a built-in strategy's name"));
    }
    let mut list = REGISTERED.write().unwrap_or_else(|e| e.into_inner());
    if list.iter().any(|(l, _)| *l == label) {
        return Err(format!("{label:?} is registered twice"));
    }
    list.push((label, solver));
    Ok(())
}

/// The labels and solvers registered so far.
#[allow(clippy::type_complexity)]
pub fn registered() -> Vec<(String, Arc<dyn ExternalSolver>)> {
    REGISTERED.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// The keys of a `lib=` spec.
pub const LIB_KEYS: [&str; 7] = [
    "lib",
    "symbol",
    "solver",
    "config",
    "name",
    "reentrant",
    "isolate",
];

/// True when a spec names an external solver (a `lib=` or `cmd=` key).
pub fn is_external(spec: &str) -> bool {
    split_spec(spec).is_ok_and(|keys| keys.iter().any(|(k, _)| k == "lib" || k == "cmd"))
}

/// True when a strategy spec (or a label of a `--solvers` file, or of a
/// solver the program registered) names a solver that runs inside this
/// process: a `lib=` without `isolate=yes`, or a registered Rust solver.
/// Decided from the spec alone: nothing is loaded.
pub fn in_process(spec: &str, ctx: &Context) -> bool {
    if registered().iter().any(|(l, _)| l == spec) {
        return true;
    }
    let keys = match ctx.solvers.get(spec) {
        Some(entry) => entry.keys.clone(),
        None => match split_spec(spec) {
            Ok(keys) => keys,
            Err(_) => return false,
        },
    };
    let get = |k: &str| {
        keys.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    get("lib").is_some() && !matches!(get("isolate"), Some("yes" | "true" | "1"))
}

/// The files a strategy spec (or a label of a `--solvers` file) names as
/// its solver, read from the spec alone (nothing is loaded or started):
/// the `lib=` library, and the `cmd=` program (a path, or found on `PATH`)
/// with every argument that names an existing file (the script of
/// `python3 solver.py`). Each with what it is, for messages.
pub fn solver_files(spec: &str, ctx: &Context) -> Vec<(&'static str, PathBuf)> {
    let (keys, base) = match ctx.solvers.get(spec) {
        Some(entry) => (
            entry.keys.clone(),
            entry.file.parent().map(Path::to_path_buf),
        ),
        None => match split_spec(spec) {
            Ok(keys) => (keys, None),
            Err(_) => return Vec::new(),
        },
    };
    let get = |k: &str| {
        keys.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    let mut files = Vec::new();
    if let Some(lib) = get("lib") {
        let path = PathBuf::from(lib);
        let path = match &base {
            Some(b) if path.is_relative() => b.join(path),
            _ => path,
        };
        files.push(("the solver library", path));
    }
    if let Some(words) = get("cmd").and_then(|c| split_words(c).ok()) {
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
    files
}

/// Builds the external solver of a spec; returns its label and the solver.
pub fn parse(spec: &str, ctx: &Context) -> Result<(String, Arc<dyn ExternalSolver>), String> {
    let keys = split_spec(spec)?;
    build(&keys, ctx, None)
}

/// Builds a solver from its keys; relative `lib=` paths are taken from
/// `base` (a `--solvers` file's directory) or the working directory.
fn build(
    keys: &[(String, String)],
    ctx: &Context,
    base: Option<&Path>,
) -> Result<(String, Arc<dyn ExternalSolver>), String> {
    let mut seen: Vec<&str> = Vec::new();
    for (k, _) in keys {
        if seen.contains(&k.as_str()) {
            return Err(format!("key {k:?} given twice"));
        }
        seen.push(k);
    }
    let get = |k: &str| {
        keys.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    let label = match get("name") {
        Some(l) => Some(check_label(l)?),
        None => None,
    };
    match (get("lib"), get("cmd")) {
        (Some(_), Some(_)) => Err("give lib= or cmd=, not both".into()),
        (Some(path), None) => {
            reject_unknown(keys, &LIB_KEYS, "lib")?;
            let spec = ffi::LibSpec::from_keys(path, &get, base)?;
            if spec.isolate {
                let solver = process::ProcessSolver::isolated(&spec, &ctx.options)?;
                let label = label.unwrap_or_else(|| spec.default_label());
                Ok((label, Arc::new(solver)))
            } else {
                let solver = ffi::LibSolver::load(spec, &ctx.options)?;
                let label = label.unwrap_or_else(|| solver.default_label());
                Ok((label, Arc::new(solver)))
            }
        }
        (None, Some(cmd)) => {
            reject_unknown(keys, &["cmd", "name"], "cmd")?;
            let argv = split_words(cmd)?;
            let solver = process::ProcessSolver::command(argv, &ctx.options)?;
            let label = label.unwrap_or_else(|| solver.default_label());
            Ok((label, Arc::new(solver)))
        }
        (None, None) => Err("an external solver needs lib=PATH or cmd=COMMAND".into()),
    }
}

fn reject_unknown(keys: &[(String, String)], allowed: &[&str], kind: &str) -> Result<(), String> {
    match keys.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
        Some((k, _)) => Err(format!(
            "unknown key {k:?} for {kind}= (keys: {})",
            allowed.join(", ")
        )),
        None => Ok(()),
    }
}

/// A label for reports: not empty, printable, no comma or quote (it is a
/// A character a label may hold: a letter, a digit or one of `-_.+:@`.
pub fn label_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '+' | ':' | '@')
}

/// `-s` value and a file-name part).
pub fn check_label(label: &str) -> Result<String, String> {
    let ok = !label.is_empty() && label.len() <= 64 && label.chars().all(label_char);
    if ok {
        Ok(label.to_string())
    } else {
        Err(format!(
            "name={label:?}: a label is 1 to 64 letters, digits, '-', '_', '.', '+', ':' or '@'"
        ))
    }
}

/// Splits a spec at the commas outside quotes into its tokens, each trimmed
/// and as written (quotes kept): joining them with commas gives the spec
/// back.
pub fn tokens(spec: &str) -> Result<Vec<String>, String> {
    let mut tokens = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    for c in spec.chars() {
        match (quote, c) {
            (None, ',') => tokens.push(std::mem::take(&mut cur)),
            (None, '\'' | '"') => {
                quote = Some(c);
                cur.push(c);
            }
            (Some(q), c) if c == q => {
                quote = None;
                cur.push(c);
            }
            _ => cur.push(c),
        }
    }
    if let Some(q) = quote {
        return Err(format!("unterminated {q} quote"));
    }
    tokens.push(cur);
    Ok(tokens.into_iter().map(|t| t.trim().to_string()).collect())
}

/// Splits a spec into `key=value` pairs at the commas outside quotes; a
/// value wholly wrapped in single quotes loses them.
pub fn split_spec(spec: &str) -> Result<Vec<(String, String)>, String> {
    tokens(spec)?
        .into_iter()
        .map(|t| {
            let (k, v) = t
                .split_once('=')
                .ok_or_else(|| format!("{t:?} is not key=value"))?;
            let v = v.trim();
            let unwrapped = v
                .strip_prefix('\'')
                .and_then(|x| x.strip_suffix('\''))
                .filter(|x| !x.contains('\''));
            Ok((k.trim().to_string(), unwrapped.unwrap_or(v).to_string()))
        })
        .collect()
}

/// Splits a command into words the way a POSIX shell does (quotes,
/// backslashes), without expanding anything.
pub fn split_words(cmd: &str) -> Result<Vec<String>, String> {
    let words = shlex::split(cmd).ok_or_else(|| format!("cmd={cmd:?}: unbalanced quotes"))?;
    if words.is_empty() {
        return Err("cmd= is empty".into());
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_split_at_commas_outside_quotes() {
        let kv = |s: &str| split_spec(s).unwrap();
        assert_eq!(
            kv("lib=./a.so,symbol=f,config=3"),
            [("lib", "./a.so"), ("symbol", "f"), ("config", "3")]
                .map(|(k, v)| (k.to_string(), v.to_string()))
        );
        assert_eq!(
            kv("cmd='./s --modes a,b',name=x")[0].1,
            "./s --modes a,b",
            "single quotes around a value are removed"
        );
        assert_eq!(
            kv("cmd=python3 'my, solver.py'")[0].1,
            "python3 'my, solver.py'",
            "inner quotes stay for the word split"
        );
        assert_eq!(kv(r#"cmd=./s "a,b""#).len(), 1);
        assert!(split_spec("cmd='./s").is_err());
        assert!(split_spec("lib=x,oops").is_err());
    }

    #[test]
    fn commands_split_like_a_shell() {
        assert_eq!(
            split_words(r#"python3 "my solver.py" --x 'a b' c\ d"#).unwrap(),
            ["python3", "my solver.py", "--x", "a b", "c d"]
        );
        assert!(split_words("").is_err());
        assert!(split_words("'open").is_err());
    }

    #[test]
    fn external_specs_are_recognised() {
        assert!(is_external("lib=./x.so"));
        assert!(is_external("name=x,cmd=./s"));
        assert!(!is_external("prop=naked,branch=max"));
        assert!(!is_external("locked"));
    }

    #[test]
    fn bad_external_specs_say_why() {
        let ctx = Context::default();
        let why = |s: &str| parse(s, &ctx).unwrap_err();
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
