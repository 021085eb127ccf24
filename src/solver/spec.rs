//! Strategy specs as typed values, and the one parser of their
//! `key=value` syntax: `-s`, the tables and `spec = "…"` strings of
//! `--solvers` files, scans (`run --scan KEY=…`) and `rev=` all read specs
//! through [`Spec::parse`] (or, for a `--solvers` table's keys,
//! [`External::from_pairs`]).
//!
//! Parsing is pure: it reads no file, loads no library and starts no
//! process. A spec naming a library that does not exist parses; loading
//! it ([`Strategy::load`](super::Strategy::load)) is what finds the file,
//! loads the library or starts the program, and says when it cannot.
//!
//! A [`Spec`] writes itself back as its canonical text (`Display`), which
//! parses to the same value: a scan sets a key on the typed value
//! ([`Spec::set`]) and runs the text it writes.

use super::revision;
use super::strategy::{branch_name, order_name, prop_name, NAMED};
use super::strategy::{did_you_mean, names, Branch, Builtin, Config, Propagation, ValueOrder};
use std::fmt;
use std::path::PathBuf;

/// Why a strategy spec was not understood: the spec as given, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad strategy {spec:?}: {why}")]
pub struct SpecError {
    pub spec: String,
    pub why: String,
}

/// What is wrong with a label or with the keys of an external solver's
/// spec. Beside `-s` specs (where it becomes a [`SpecError`]'s reason),
/// these come from `--solvers` files, whose errors name the file and the
/// label around it (`external::Error`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("name={0:?}: a label is 1 to 64 letters, digits, '-', '_', '.', '+', ':' or '@'")]
    Label(String),
    #[error("unterminated {0} quote")]
    Unterminated(char),
    #[error("{0:?} is not key=value")]
    NotKeyValue(String),
    #[error("key {0:?} given twice")]
    KeyTwice(String),
    #[error("give lib= or cmd=, not both")]
    LibAndCmd,
    #[error("an external solver needs lib=PATH or cmd=COMMAND")]
    NoSolver,
    /// A key that a `kind=` spec does not take; `keys`: those it takes.
    #[error("unknown key {key:?} for {kind}= (keys: {})", .keys.join(", "))]
    UnknownKey {
        key: String,
        kind: &'static str,
        keys: &'static [&'static str],
    },
    #[error("give symbol= (tdoku's signature) or solver= (bench-sudoku's interface), not both")]
    SymbolAndSolver,
    #[error("symbol={0:?} is not a C identifier")]
    Symbol(String),
    #[error("config={0:?} is not a number from 0 to {max}", max = u32::MAX)]
    Config(String),
    #[error("{key}={value:?} is not yes or no")]
    YesNo { key: &'static str, value: String },
    #[error("cmd={0:?}: unbalanced quotes")]
    CommandQuotes(String),
    #[error("cmd= is empty")]
    EmptyCommand,
}

/// A strategy spec: what runs, under which label, at which revision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    /// `name=`: the label reports use (else the strategy's own name).
    pub label: Option<String>,
    /// `rev=`: the revision of the solver the run measures.
    pub rev: Option<String>,
    /// `repeat=` and `warmup=`: the measured and discarded passes this
    /// strategy makes, where they differ from the run's.
    pub repeat: Option<u32>,
    pub warmup: Option<u32>,
    pub target: Target,
}

/// The most passes `repeat=` or `warmup=` may ask for (as `--repeat`).
pub const MAX_PASSES: u32 = 1000;

/// What a spec runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A built-in engine: a named base and the axes set on it.
    Builtin(Axes),
    /// A name that no built-in strategy has: the label of a solver the
    /// program registered or of a `--solvers` file's entry, looked up when
    /// the spec is loaded.
    Label(String),
    /// An external solver.
    External(External),
}

/// A built-in strategy: a base from the catalogue and the axes a spec sets
/// on it (`None`: the base's, or the default `prop=hidden,branch=mrv,
/// order=asc` without a base).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Axes {
    /// A name of [`NAMED`]. Only a generic engine's base takes axes: `fast`
    /// and `dlx` stand alone.
    pub base: Option<&'static str>,
    pub prop: Option<Propagation>,
    pub root: Option<Propagation>,
    pub branch: Option<Branch>,
    pub order: Option<ValueOrder>,
    pub guess: Option<bool>,
}

/// An external solver's spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum External {
    /// `lib=PATH,…`: a shared library.
    Lib(LibSpec),
    /// `cmd=COMMAND`: a program speaking the line protocol, as its words.
    Cmd(Vec<String>),
}

/// Which function of a library a `lib=` spec names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// A function with tdoku's signature.
    Tdoku { symbol: String },
    /// A solver listed by `bench_sudoku_solvers`.
    Native { solver: String },
}

/// The keys of a `lib=` spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibSpec {
    /// The library: as the spec writes it; absolute once loading resolved
    /// it (from a `--solvers` file's directory or the working directory).
    pub path: PathBuf,
    pub entry: Entry,
    pub config: u32,
    /// False with `reentrant=no`: calls are made one at a time.
    pub reentrant: bool,
    /// `isolate=yes`: the library runs in child processes.
    pub isolate: bool,
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

/// The keys of a `cmd=` spec.
const CMD_KEYS: [&str; 2] = ["cmd", "name"];

/// The keys of a generic strategy spec (and the external solvers' first
/// keys), for "did you mean".
const SPEC_KEYS: [&str; 11] = [
    "prop", "branch", "order", "root", "guess", "name", "rev", "repeat", "warmup", "lib", "cmd",
];

impl Spec {
    /// Parses a strategy name or spec (see [`super::spec_help`]) without
    /// touching anything outside the text: a name that is no built-in
    /// strategy's is kept as a [`Target::Label`], a library or a program as
    /// written. Every error names what is wrong.
    pub fn parse(text: &str) -> Result<Spec, SpecError> {
        let err = |why: String| SpecError {
            spec: text.to_string(),
            why,
        };
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(err("empty strategy".into()));
        }
        let mut tokens = tokens(trimmed).map_err(|e| err(e.to_string()))?;
        let repeat = take_passes(&mut tokens, "repeat", 1).map_err(err)?;
        let warmup = take_passes(&mut tokens, "warmup", 0).map_err(err)?;
        let rev = take_rev(&mut tokens).map_err(err)?;
        if tokens.len() == 1 && tokens[0].is_empty() {
            return Err(err("empty strategy".into()));
        }
        let (label, target) = target(&tokens).map_err(err)?;
        Ok(Spec {
            label,
            rev,
            repeat,
            warmup,
            target,
        })
    }

    /// Sets `key` to `value` as a spec that gave it would have it (a
    /// scan's values): a built-in's axes, a library's keys, `name`, `rev`.
    /// `Ok(false)` when this spec has no such key (a built-in without axes,
    /// a `cmd=` solver, a label); an error when the key does not take the
    /// value, with the spec written as `SPEC,KEY=VALUE`.
    pub fn set(&mut self, key: &str, value: &str) -> Result<bool, SpecError> {
        let shown = format!("{self},{key}={value}");
        let outcome = match (key, &mut self.target) {
            ("name", _) => match check_label(value) {
                Ok(label) => {
                    self.label = Some(label);
                    Ok(true)
                }
                Err(e) => Err(e.to_string()),
            },
            ("rev", _) => revision::check(value).map(|rev| {
                self.rev = Some(rev);
                true
            }),
            ("repeat", _) => passes_value("repeat", value, 1).map(|n| {
                self.repeat = Some(n);
                true
            }),
            ("warmup", _) => passes_value("warmup", value, 0).map(|n| {
                self.warmup = Some(n);
                true
            }),
            (_, Target::Builtin(axes)) if axes.takes_axes() => axes.set(key, value),
            (_, Target::External(External::Lib(lib))) => {
                lib.set(key, value).map_err(|e| e.to_string())
            }
            _ => Ok(false),
        };
        outcome.map_err(|why| SpecError { spec: shown, why })
    }

    /// The library a `lib=` spec names.
    pub fn library(&self) -> Option<&LibSpec> {
        match &self.target {
            Target::External(External::Lib(lib)) => Some(lib),
            _ => None,
        }
    }
}

/// The canonical text: the engine (a built-in's base and axes, a label, or
/// an external solver's keys), then `name=` and `rev=`.
impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.target {
            Target::Builtin(axes) => write!(f, "{axes}")?,
            Target::Label(label) => f.write_str(label)?,
            Target::External(External::Lib(lib)) => f.write_str(&lib.spec(lib.isolate))?,
            Target::External(External::Cmd(argv)) => write!(f, "cmd={}", quote_command(argv))?,
        }
        if let Some(label) = &self.label {
            write!(f, ",name={label}")?;
        }
        if let Some(rev) = &self.rev {
            write!(f, ",rev={rev}")?;
        }
        if let Some(n) = self.repeat {
            write!(f, ",repeat={n}")?;
        }
        if let Some(n) = self.warmup {
            write!(f, ",warmup={n}")?;
        }
        Ok(())
    }
}

/// Splits off the `key=` of a strategy's passes (`repeat`, `warmup`): its
/// checked value, if given once.
fn take_passes(tokens: &mut Vec<String>, key: &str, least: u32) -> Result<Option<u32>, String> {
    let is_key = |t: &String| t.split_once('=').is_some_and(|(k, _)| k.trim() == key);
    let given: Vec<String> = tokens.iter().filter(|t| is_key(t)).cloned().collect();
    let first = match given.as_slice() {
        [] => return Ok(None),
        [one] => one,
        _ => return Err(format!("{key}= is given twice")),
    };
    let n = passes_value(
        key,
        first.split_once('=').map_or("", |(_, v)| v.trim()),
        least,
    )?;
    tokens.retain(|t| !is_key(t));
    if tokens.is_empty() {
        return Err(format!(
            "{key}={n} gives a strategy's passes: give the strategy too, e.g. 'cmd=./mine,{key}={n}'"
        ));
    }
    Ok(Some(n))
}

/// The value of `repeat=` or `warmup=`: a whole number from `least` to
/// [`MAX_PASSES`].
fn passes_value(key: &str, value: &str, least: u32) -> Result<u32, String> {
    value
        .parse::<u32>()
        .ok()
        .filter(|n| (least..=MAX_PASSES).contains(n))
        .ok_or_else(|| format!("{key}={value:?}: give a whole number from {least} to {MAX_PASSES}"))
}

/// Splits off the `rev=` key: its checked value, if given once.
fn take_rev(tokens: &mut Vec<String>) -> Result<Option<String>, String> {
    let is_rev = |t: &String| t.split_once('=').is_some_and(|(k, _)| k.trim() == "rev");
    let revs: Vec<String> = tokens.iter().filter(|t| is_rev(t)).cloned().collect();
    let first = match revs.as_slice() {
        [] => return Ok(None),
        [one] => one,
        _ => return Err("rev= is given twice".into()),
    };
    let value = first.split_once('=').map_or("", |(_, v)| v.trim());
    let value = value
        .strip_prefix('\'')
        .and_then(|v| v.strip_suffix('\''))
        .unwrap_or(value);
    let rev = revision::check(value)?;
    tokens.retain(|t| !is_rev(t));
    if tokens.is_empty() {
        return Err(format!(
            "rev={rev} gives a strategy's revision: give the strategy too, e.g. 'lib=./libmine.so,rev={rev}'"
        ));
    }
    Ok(Some(rev))
}

/// What the tokens of a spec (its `rev=` taken off) run, with the label a
/// `name=` gives: a built-in's name or a label alone, an external solver
/// (a `lib=` or `cmd=` key among them, every token `key=value`), another
/// strategy under `name=`, or a built-in's axes.
fn target(tokens: &[String]) -> Result<(Option<String>, Target), String> {
    if let [one] = tokens {
        if !one.contains('=') {
            if let Some(n) = NAMED.iter().find(|n| n.name == one) {
                let axes = Axes {
                    base: Some(n.name),
                    ..Axes::default()
                };
                return Ok((None, Target::Builtin(axes)));
            }
            if let Ok(label) = check_label(one) {
                return Ok((None, Target::Label(label)));
            }
        }
    }
    let external = tokens
        .iter()
        .filter_map(|t| t.split_once('='))
        .any(|(k, _)| matches!(k.trim(), "lib" | "cmd"));
    if external {
        let (label, external) = pairs_of(tokens)
            .and_then(|pairs| External::from_pairs(&pairs))
            .map_err(|e| e.to_string())?;
        return Ok((label, Target::External(external)));
    }
    if let Some(relabelled) = relabelled(tokens)? {
        return Ok(relabelled);
    }
    Ok((None, Target::Builtin(axes(tokens)?)))
}

/// `name=LABEL` with another strategy: that strategy under the label (the
/// same one twice under two labels makes an A/A run); `None` where no
/// token is `name=`.
fn relabelled(tokens: &[String]) -> Result<Option<(Option<String>, Target)>, String> {
    let mut label: Option<String> = None;
    let mut rest: Vec<String> = Vec::new();
    for tok in tokens {
        match tok.split_once('=') {
            Some((k, v)) if k.trim() == "name" => {
                if label.is_some() {
                    return Err("name= is given twice".into());
                }
                label = Some(check_label(v.trim()).map_err(|e| e.to_string())?);
            }
            _ => rest.push(tok.clone()),
        }
    }
    let Some(label) = label else {
        return Ok(None);
    };
    if rest.is_empty() {
        return Err(format!(
            "name={label} labels a strategy: give one too, e.g. 'fast,name={label}'"
        ));
    }
    let (_, target) = target(&rest)?;
    Ok(Some((Some(label), target)))
}

/// A generic engine's spec: an optional named base, then `key=value` axes
/// (`prop`, `root`, `branch`, `order`, `guess`), each at most once.
fn axes(tokens: &[String]) -> Result<Axes, String> {
    let mut axes = Axes::default();
    let mut seen: Vec<&str> = Vec::new();
    for (i, tok) in tokens.iter().enumerate() {
        let Some((key, value)) = tok.split_once('=') else {
            if i == 0 {
                axes.base = Some(base(tok)?);
                continue;
            }
            return Err(format!(
                "{tok:?} is not key=value (a base strategy may only come first)"
            ));
        };
        let (key, value) = (key.trim(), value.trim());
        // A key given twice would silently keep the last value.
        let axis = if key == "propagation" { "prop" } else { key };
        if seen.contains(&axis) {
            return Err(format!("key {axis:?} given twice"));
        }
        seen.push(axis);
        if !axes.set(key, value)? {
            return Err(format!(
                "unknown key {key:?}{} (keys: prop, branch, order, root, guess; \
                 an external solver is lib=PATH,… or cmd=COMMAND,…)",
                did_you_mean(key, &SPEC_KEYS)
            ));
        }
    }
    Ok(axes)
}

/// The named generic strategy `tok`, the base a spec's axes change.
fn base(tok: &str) -> Result<&'static str, String> {
    match NAMED.iter().find(|n| n.name == tok) {
        Some(n) if matches!(n.engine, Builtin::Generic(_)) => Ok(n.name),
        Some(_) => Err(format!(
            "strategy {tok:?} has no axes to set (use it alone)"
        )),
        None => Err(unknown_strategy(tok)),
    }
}

/// Why `name` names no strategy, with the built-in names.
pub fn unknown_strategy(name: &str) -> String {
    format!(
        "unknown strategy {name:?}{} (known: {})",
        did_you_mean(name, &names()),
        names().join(", ")
    )
}

impl Axes {
    /// Whether the spec may set axes: no base, or a generic engine's.
    pub fn takes_axes(&self) -> bool {
        self.base.is_none_or(|b| {
            NAMED
                .iter()
                .any(|n| n.name == b && matches!(n.engine, Builtin::Generic(_)))
        })
    }

    /// Sets axis `key` (`prop` or `propagation`, `root`, `branch`, `order`,
    /// `guess`) to `value`; `Ok(false)` for any other key.
    pub fn set(&mut self, key: &str, value: &str) -> Result<bool, String> {
        match key {
            "prop" | "propagation" => {
                self.prop = Some(parse_prop(value).ok_or_else(|| bad_value(key, value))?);
            }
            "root" => self.root = Some(parse_prop(value).ok_or_else(|| bad_value(key, value))?),
            "branch" => {
                self.branch = Some(match value {
                    "first" => Branch::First,
                    "mrv" => Branch::Mrv,
                    "max" => Branch::Max,
                    _ => return Err(bad_value(key, value)),
                })
            }
            "order" => {
                self.order = Some(match value {
                    "asc" => ValueOrder::Asc,
                    "desc" => ValueOrder::Desc,
                    _ => return Err(bad_value(key, value)),
                })
            }
            "guess" => {
                self.guess = Some(match value {
                    "yes" | "true" | "1" => true,
                    "no" | "false" | "0" => false,
                    _ => return Err(bad_value(key, value)),
                })
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The engine: the base's (`fast`, `dlx`, or a generic configuration)
    /// with the axes set; the root propagation is the one given, else the
    /// base's extra one (`rowmajor`), never weaker than the node's.
    pub fn builtin(&self) -> Builtin {
        let base = self.base.and_then(|b| NAMED.iter().find(|n| n.name == b));
        let mut config = match base.map(|n| n.engine) {
            Some(Builtin::Generic(c)) => c,
            Some(fixed) => return fixed,
            None => Config::new(Propagation::Hidden, Branch::Mrv, ValueOrder::Asc),
        };
        let base_root = (config.root > config.node).then_some(config.root);
        config.node = self.prop.unwrap_or(config.node);
        config.branch = self.branch.unwrap_or(config.branch);
        config.order = self.order.unwrap_or(config.order);
        config.guess = self.guess.unwrap_or(config.guess);
        config.root = self
            .root
            .or(base_root)
            .unwrap_or(config.node)
            .max(config.node);
        Builtin::Generic(config)
    }
}

/// `base,prop=…,branch=…,order=…,root=…,guess=…` with the keys set; an
/// empty value writes the default axes.
impl fmt::Display for Axes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = self.base.iter().map(|b| b.to_string()).collect();
        parts.extend(self.prop.map(|p| format!("prop={}", prop_name(p))));
        parts.extend(self.branch.map(|b| format!("branch={}", branch_name(b))));
        parts.extend(self.order.map(|o| format!("order={}", order_name(o))));
        parts.extend(self.root.map(|p| format!("root={}", prop_name(p))));
        parts.extend(
            self.guess
                .map(|g| format!("guess={}", if g { "yes" } else { "no" })),
        );
        if parts.is_empty() {
            return f
                .write_str(&Config::new(Propagation::Hidden, Branch::Mrv, ValueOrder::Asc).spec());
        }
        f.write_str(&parts.join(","))
    }
}

impl External {
    /// Reads the keys of an external solver's spec (values unquoted): the
    /// label its `name=` gives, and the solver. Keys come in any order,
    /// each once; a `lib=` takes [`LIB_KEYS`], a `cmd=` `name` besides.
    pub fn from_pairs(pairs: &[(String, String)]) -> Result<(Option<String>, External), KeyError> {
        let mut seen: Vec<&str> = Vec::new();
        for (k, _) in pairs {
            if seen.contains(&k.as_str()) {
                return Err(KeyError::KeyTwice(k.clone()));
            }
            seen.push(k);
        }
        let get = |k: &str| {
            pairs
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.as_str())
        };
        let label = get("name").map(check_label).transpose()?;
        let external = match (get("lib"), get("cmd")) {
            (Some(_), Some(_)) => return Err(KeyError::LibAndCmd),
            (Some(path), None) => {
                reject_unknown(pairs, &LIB_KEYS, "lib")?;
                External::Lib(LibSpec::from_keys(path, &get)?)
            }
            (None, Some(cmd)) => {
                reject_unknown(pairs, &CMD_KEYS, "cmd")?;
                External::Cmd(split_words(cmd)?)
            }
            (None, None) => return Err(KeyError::NoSolver),
        };
        Ok((label, external))
    }
}

fn reject_unknown(
    pairs: &[(String, String)],
    allowed: &'static [&'static str],
    kind: &'static str,
) -> Result<(), KeyError> {
    match pairs.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
        Some((k, _)) => Err(KeyError::UnknownKey {
            key: k.clone(),
            kind,
            keys: allowed,
        }),
        None => Ok(()),
    }
}

impl LibSpec {
    /// Reads the keys of a `lib=` spec (`path`: the `lib=` value).
    fn from_keys<'a>(
        path: &str,
        get: &dyn Fn(&str) -> Option<&'a str>,
    ) -> Result<LibSpec, KeyError> {
        let yes_no = |key: &'static str, default: bool| match get(key) {
            None => Ok(default),
            Some(v) => yes_no(key, v),
        };
        let entry = match (get("symbol"), get("solver")) {
            (Some(_), Some(_)) => return Err(KeyError::SymbolAndSolver),
            (Some(s), None) => Entry::Tdoku {
                symbol: check_symbol(s)?,
            },
            (None, Some(s)) => Entry::Native {
                solver: s.to_string(),
            },
            (None, None) => Entry::Tdoku {
                symbol: "solve".into(),
            },
        };
        Ok(LibSpec {
            path: PathBuf::from(path),
            entry,
            config: get("config").map_or(Ok(0), parse_config)?,
            reentrant: yes_no("reentrant", true)?,
            isolate: yes_no("isolate", false)?,
        })
    }

    /// Sets one of the keys a scan may vary (`lib`, `symbol`, `solver`,
    /// `config`, `reentrant`, `isolate`); `Ok(false)` for any other. A
    /// `symbol=` replaces tdoku's signature's function, and a `solver=`
    /// the interface's solver, but neither replaces the other once given.
    fn set(&mut self, key: &str, value: &str) -> Result<bool, KeyError> {
        match key {
            "lib" => self.path = PathBuf::from(value),
            "symbol" => {
                if matches!(self.entry, Entry::Native { .. }) {
                    return Err(KeyError::SymbolAndSolver);
                }
                self.entry = Entry::Tdoku {
                    symbol: check_symbol(value)?,
                };
            }
            "solver" => {
                if matches!(&self.entry, Entry::Tdoku { symbol } if symbol != "solve") {
                    return Err(KeyError::SymbolAndSolver);
                }
                self.entry = Entry::Native {
                    solver: value.to_string(),
                };
            }
            "config" => self.config = parse_config(value)?,
            "reentrant" => self.reentrant = yes_no("reentrant", value)?,
            "isolate" => self.isolate = yes_no("isolate", value)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The label when the spec gives no `name=`: the symbol or solver name.
    pub fn default_label(&self) -> String {
        match &self.entry {
            Entry::Tdoku { symbol } => symbol.clone(),
            Entry::Native { solver } => solver.clone(),
        }
    }

    /// The canonical spec; with `isolate` false, what `serve` loads in an
    /// isolated child.
    pub fn spec(&self, isolate: bool) -> String {
        let mut s = format!("lib={}", quote_value(&self.path.display().to_string()));
        match &self.entry {
            Entry::Tdoku { symbol } => s.push_str(&format!(",symbol={symbol}")),
            Entry::Native { solver } => s.push_str(&format!(",solver={}", quote_value(solver))),
        }
        if self.config != 0 {
            s.push_str(&format!(",config={}", self.config));
        }
        if !self.reentrant {
            s.push_str(",reentrant=no");
        }
        if isolate {
            s.push_str(",isolate=yes");
        }
        s
    }
}

fn yes_no(key: &'static str, value: &str) -> Result<bool, KeyError> {
    match value {
        "yes" | "true" | "1" => Ok(true),
        "no" | "false" | "0" => Ok(false),
        _ => Err(KeyError::YesNo {
            key,
            value: value.to_string(),
        }),
    }
}

fn parse_config(value: &str) -> Result<u32, KeyError> {
    value
        .parse::<u32>()
        .map_err(|_| KeyError::Config(value.to_string()))
}

fn check_symbol(s: &str) -> Result<String, KeyError> {
    let ok = !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit());
    if ok {
        Ok(s.to_string())
    } else {
        Err(KeyError::Symbol(s.to_string()))
    }
}

/// A value as a spec holds it: wrapped in single quotes when it has a
/// comma or a quote of either kind.
fn quote_value(v: &str) -> String {
    if v.contains([',', '"', '\'']) && !v.contains('\'') {
        format!("'{v}'")
    } else {
        v.to_string()
    }
}

/// A command as a spec shows it: words joined by spaces, quoted where a
/// shell would need it, and wrapped in single quotes when it has a comma.
pub fn quote_command(argv: &[String]) -> String {
    let joined =
        shlex::try_join(argv.iter().map(String::as_str)).unwrap_or_else(|_| argv.join(" "));
    if joined.contains(',') && !joined.contains('\'') {
        format!("'{joined}'")
    } else {
        joined
    }
}

/// A character a label may hold: a letter, a digit or one of `-_.+:@`.
pub fn label_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '+' | ':' | '@')
}

/// A label for reports: 1 to 64 [`label_char`]s (no comma or quote: it is
/// a `-s` value and a file-name part).
pub fn check_label(label: &str) -> Result<String, KeyError> {
    let ok = !label.is_empty() && label.len() <= 64 && label.chars().all(label_char);
    if ok {
        Ok(label.to_string())
    } else {
        Err(KeyError::Label(label.to_string()))
    }
}

/// Splits a spec at the commas outside quotes (of either kind) into its
/// tokens, each trimmed and as written (quotes kept).
fn tokens(spec: &str) -> Result<Vec<String>, KeyError> {
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
        return Err(KeyError::Unterminated(q));
    }
    tokens.push(cur);
    Ok(tokens.into_iter().map(|t| t.trim().to_string()).collect())
}

/// A token as a `key=value` pair, its key and value trimmed and a value
/// wholly wrapped in single quotes unwrapped; `None` for a bare word.
fn pair(token: &str) -> Option<(String, String)> {
    let (k, v) = token.split_once('=')?;
    let v = v.trim();
    let unwrapped = v
        .strip_prefix('\'')
        .and_then(|x| x.strip_suffix('\''))
        .filter(|x| !x.contains('\''));
    Some((k.trim().to_string(), unwrapped.unwrap_or(v).to_string()))
}

/// The `key=value` pairs of a spec that holds nothing else (a `--solvers`
/// file's `spec = "…"`).
pub fn pairs(spec: &str) -> Result<Vec<(String, String)>, KeyError> {
    pairs_of(&tokens(spec)?)
}

/// The tokens as `key=value` pairs; an error names the first that is not.
fn pairs_of(tokens: &[String]) -> Result<Vec<(String, String)>, KeyError> {
    tokens
        .iter()
        .map(|t| pair(t).ok_or_else(|| KeyError::NotKeyValue(t.clone())))
        .collect()
}

/// Splits a command into words the way a POSIX shell does (quotes,
/// backslashes), without expanding anything.
pub fn split_words(cmd: &str) -> Result<Vec<String>, KeyError> {
    let words = shlex::split(cmd).ok_or_else(|| KeyError::CommandQuotes(cmd.to_string()))?;
    if words.is_empty() {
        return Err(KeyError::EmptyCommand);
    }
    Ok(words)
}

fn parse_prop(v: &str) -> Option<Propagation> {
    use Propagation as P;
    Some(match v {
        "none" => P::None,
        "forward" | "fc" => P::Forward,
        "naked" => P::Naked,
        "hidden" => P::Hidden,
        "locked" => P::Locked,
        "subsets" => P::Subsets,
        "fish" => P::Fish,
        "wings" => P::Wings,
        "chains" => P::Chains,
        _ => return None,
    })
}

fn bad_value(key: &str, value: &str) -> String {
    let allowed = match key {
        "branch" => "first, mrv, max",
        "order" => "asc, desc",
        "guess" => "yes, no",
        _ => "none, forward, naked, hidden, locked, subsets, fish, wings, chains",
    };
    let options: Vec<&str> = allowed.split(", ").collect();
    format!(
        "{key}={value:?} is not one of {allowed}{}",
        did_you_mean(value, &options)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_round_trip_through_their_canonical_text() {
        for text in [
            "fast",
            "dlx",
            "locked",
            "locked,order=desc",
            " prop = naked , branch = max ",
            "propagation=fish",
            "rowmajor,branch=mrv",
            "prop=forward,root=naked,branch=first",
            "hidden,guess=no",
            "prop=chains,guess=false",
            "fast,name=base",
            "name=b,locked,rev=v1.2",
            "tdoku",
            "tdoku,name=t2,rev=abc123",
            "lib=./libx.so",
            "lib='/a dir/with,comma.so',solver=mine,config=3,reentrant=no,isolate=yes,name=m",
            "isolate=yes,lib=x.so,symbol=f,rev=r1",
            "cmd=python3 solver.py",
            "cmd='./s --modes a,b',name=x",
            r#"cmd=python3 "my solver.py""#,
            "cmd=python3 s.py,repeat=1,warmup=0",
            "fast,repeat=5",
            "warmup=2,tdoku,name=t",
        ] {
            let spec = Spec::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            let canonical = spec.to_string();
            let again = Spec::parse(&canonical).unwrap_or_else(|e| panic!("{canonical}: {e}"));
            assert_eq!(again, spec, "{text} -> {canonical}");
            assert_eq!(again.to_string(), canonical, "{text}");
        }
        let s = Spec::parse(" prop = naked , branch = max ,name=x").unwrap();
        assert_eq!(s.to_string(), "prop=naked,branch=max,name=x");
        let s = Spec::parse("rev=r1,cmd='./s --modes a,b'").unwrap();
        assert_eq!(s.to_string(), "cmd=./s --modes 'a,b',rev=r1");
        assert_eq!(
            s.target,
            Target::External(External::Cmd(vec![
                "./s".into(),
                "--modes".into(),
                "a,b".into()
            ]))
        );
    }

    #[test]
    fn every_bad_spec_says_what_is_wrong() {
        for (text, why) in [
            ("", "empty strategy"),
            ("  ", "empty strategy"),
            (
                "fast,repeat=0",
                "repeat=\"0\": give a whole number from 1 to 1000",
            ),
            (
                "fast,warmup=x",
                "warmup=\"x\": give a whole number from 0 to 1000",
            ),
            ("fast,repeat=1,repeat=2", "repeat= is given twice"),
            (
                "repeat=2",
                "repeat=2 gives a strategy's passes: give the strategy too",
            ),
            (
                "fastest,order=desc",
                "unknown strategy \"fastest\", did you mean \"fast\"?",
            ),
            ("fast,order=desc", "strategy \"fast\" has no axes"),
            ("prop=magic", "prop=\"magic\" is not one of none,"),
            (
                "branch=left",
                "branch=\"left\" is not one of first, mrv, max",
            ),
            ("order=up", "order=\"up\" is not one of asc, desc"),
            ("guess=maybe", "guess=\"maybe\" is not one of yes, no"),
            ("root=all", "root=\"all\" is not one of"),
            (
                "hidden,mrv",
                "\"mrv\" is not key=value (a base strategy may only come first)",
            ),
            ("colour=red", "unknown key \"colour\""),
            ("prp=naked", "did you mean \"prop\"?"),
            ("prop=naked,propagation=hidden", "key \"prop\" given twice"),
            ("a b", "unknown strategy \"a b\""),
            ("name=x", "name=x labels a strategy: give one too"),
            ("name=a,name=b,fast", "name= is given twice"),
            ("fast,name=a b", "name=\"a b\": a label is"),
            ("rev=a,rev=b,fast", "rev= is given twice"),
            (
                "rev=x",
                "rev=x gives a strategy's revision: give the strategy too",
            ),
            ("fast,rev=a b", "rev=\"a b\": a revision is"),
            ("cmd='./s", "unterminated ' quote"),
            ("lib=a.so,cmd=b", "give lib= or cmd=, not both"),
            ("lib=a.so,lib=b.so", "key \"lib\" given twice"),
            ("lib=a.so,oops", "\"oops\" is not key=value"),
            (
                "cmd=./s,symbol=f",
                "unknown key \"symbol\" for cmd= (keys: cmd, name)",
            ),
            ("lib=a.so,colour=red", "unknown key \"colour\" for lib="),
            (
                "lib=a.so,symbol=f,solver=g",
                "give symbol= (tdoku's signature) or solver=",
            ),
            (
                "lib=a.so,symbol=a b",
                "symbol=\"a b\" is not a C identifier",
            ),
            (
                "lib=a.so,config=-1",
                "config=\"-1\" is not a number from 0 to 4294967295",
            ),
            (
                "lib=a.so,reentrant=maybe",
                "reentrant=\"maybe\" is not yes or no",
            ),
            ("lib=a.so,isolate=2", "isolate=\"2\" is not yes or no"),
            ("lib=a.so,name=a b", "name=\"a b\": a label is"),
            ("cmd=", "cmd= is empty"),
            ("cmd=./s\\", "cmd=\"./s\\\\\": unbalanced quotes"),
        ] {
            let e = Spec::parse(text).unwrap_err();
            assert_eq!(e.spec, text, "the error names the spec as given");
            assert!(e.why.contains(why), "{text:?}: {e}");
        }
    }

    #[test]
    fn parsing_touches_nothing_outside_the_text() {
        let s = Spec::parse("lib=/no/such/lib.so,solver=x").unwrap();
        assert_eq!(s.library().unwrap().path, PathBuf::from("/no/such/lib.so"));
        let s = Spec::parse("lib=relative/libnone.so,isolate=yes").unwrap();
        assert_eq!(
            s.library().unwrap().path,
            PathBuf::from("relative/libnone.so")
        );
        let s = Spec::parse("cmd=/no/such/solver --fast").unwrap();
        assert_eq!(
            s.target,
            Target::External(External::Cmd(vec![
                "/no/such/solver".into(),
                "--fast".into()
            ]))
        );
        // A name no built-in has: a label, looked up when loaded.
        let s = Spec::parse("no-such-solver,rev=1").unwrap();
        assert_eq!(s.target, Target::Label("no-such-solver".into()));
        assert_eq!(s.rev.as_deref(), Some("1"));
        // Loading is where the files are looked for.
        let e = crate::solver::Strategy::parse("lib=/no/such/lib.so,solver=x").unwrap_err();
        assert!(e.why.contains("/no/such/lib.so"), "{e}");
        let e = crate::solver::Strategy::parse("no-such-solver").unwrap_err();
        assert!(e.why.contains("unknown strategy"), "{e}");
    }

    #[test]
    fn a_key_is_set_on_the_typed_value() {
        let mut s = Spec::parse("locked").unwrap();
        assert!(s.set("prop", "naked").unwrap());
        s.label = Some("locked".into());
        assert_eq!(s.to_string(), "locked,prop=naked,name=locked");
        let mut s = Spec::parse("prop=locked,branch=max").unwrap();
        assert!(s.set("prop", "none").unwrap());
        assert_eq!(s.to_string(), "prop=none,branch=max");
        let mut s = Spec::parse("lib=./l.so,config=2").unwrap();
        assert!(s.set("config", "7").unwrap());
        assert!(!s.set("prop", "naked").unwrap(), "a library has no axes");
        assert_eq!(s.to_string(), "lib=./l.so,symbol=solve,config=7");
        for (text, key) in [("fast", "prop"), ("cmd=./s", "config"), ("tdoku", "prop")] {
            let mut s = Spec::parse(text).unwrap();
            assert!(!s.set(key, "1").unwrap(), "{text} takes no {key}");
        }
        let e = Spec::parse("hidden")
            .unwrap()
            .set("prop", "magic")
            .unwrap_err();
        assert_eq!(e.spec, "hidden,prop=magic");
        assert!(e.why.contains("prop=\"magic\""), "{e}");
        let mut s = Spec::parse("lib=./l.so,solver=mine").unwrap();
        assert!(s.set("symbol", "f").unwrap_err().why.contains("not both"));
        assert!(s.set("solver", "other").unwrap());
        assert!(s
            .set("isolate", "maybe")
            .unwrap_err()
            .why
            .contains("yes or no"));
    }

    #[test]
    fn solvers_file_specs_split_at_commas_outside_quotes() {
        let kv = |s: &str| pairs(s).unwrap();
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
        assert!(pairs("cmd='./s").is_err());
        assert!(pairs("lib=x,oops").is_err());
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
        let external = |s: &str| matches!(Spec::parse(s).unwrap().target, Target::External(_));
        assert!(external("lib=./x.so"));
        assert!(external("name=x,cmd=./s"));
        assert!(!external("prop=naked,branch=max"));
        assert!(!external("locked"));
    }
}
