//! Strategies as data: a named configuration of a built-in engine, or an
//! external solver.
//!
//! A generic strategy is three axes (propagation, branch cell, value order)
//! plus two switches (propagation applied once at the root, guessing allowed).
//! Any combination can be named by a spec string ([`super::spec`] reads
//! one, [`Strategy::load`] makes it a strategy; [`Strategy::parse`] does
//! both). External solvers are specs too (`lib=PATH,…`, `cmd=COMMAND,…`;
//! see [`super::external`]), or labels defined in a `--solvers` file.

use super::revision::{self, Revision};
use super::seam::{Capabilities, ExternalSolver, SolverInstance};
use std::fmt;
use std::sync::Arc;

/// How much inference runs at a search node. Ordered: each level includes
/// the ones before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Propagation {
    /// Nothing: dead ends are found only when the search reaches a cell with
    /// no legal value.
    None,
    /// Forward checking: a placement that leaves a peer with no candidate is
    /// rejected at once.
    Forward,
    /// Naked singles to a fixpoint.
    Naked,
    /// Naked and hidden singles to a fixpoint.
    Hidden,
    /// Hidden + locked candidates (pointing and claiming).
    Locked,
    /// Locked + naked and hidden pairs, triples and quads.
    Subsets,
    /// Subsets + X-wing, swordfish, jellyfish.
    Fish,
    /// Fish + XY-wing, XYZ-wing.
    Wings,
    /// Wings + single-digit chains, bivalue chains and alternating
    /// inference chains: the whole technique ladder of the rater.
    Chains,
}

/// Which empty cell the search branches on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Branch {
    /// First empty cell in row-major order.
    First,
    /// Fewest candidates (scanning stops at a cell with two).
    Mrv,
    /// Most candidates (ties: the first in row-major order).
    Max,
}

/// The order in which a branch cell's candidates are tried.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueOrder {
    Asc,
    Desc,
}

/// The configuration of the generic engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Config {
    /// Propagation applied once before the search (never weaker than `node`).
    pub root: Propagation,
    /// Propagation applied at every search node.
    pub node: Propagation,
    pub branch: Branch,
    pub order: ValueOrder,
    /// When false the engine never guesses: an unfinished grid is `stalled`.
    pub guess: bool,
}

impl Config {
    pub const fn new(node: Propagation, branch: Branch, order: ValueOrder) -> Self {
        Config {
            root: node,
            node,
            branch,
            order,
            guess: true,
        }
    }

    /// The propagation level actually applied at the root.
    pub fn root_level(&self) -> Propagation {
        self.root.max(self.node)
    }

    /// The canonical spec string (`prop=…,branch=…,order=…[,root=…][,guess=no]`).
    pub fn spec(&self) -> String {
        let mut s = format!(
            "prop={},branch={},order={}",
            prop_name(self.node),
            branch_name(self.branch),
            order_name(self.order)
        );
        if self.root_level() != self.node {
            s.push_str(",root=");
            s.push_str(prop_name(self.root_level()));
        }
        if !self.guess {
            s.push_str(",guess=no");
        }
        s
    }
}

/// A built-in engine and its configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// The configurable, instrumented bitmask engine.
    Generic(Config),
    /// The band-bitboard engine tuned for speed (`solver::fast`); it has no
    /// configurable axes.
    Fast,
    /// Exact cover with dancing links (`solver::dlx`), column of fewest
    /// rows first; no configurable axes.
    Dlx,
}

/// What runs a strategy: a built-in engine (static dispatch in the
/// benchmark loop) or an external solver behind the [`ExternalSolver`]
/// seam.
#[derive(Clone, Debug)]
pub enum Engine {
    Builtin(Builtin),
    External(Arc<dyn ExternalSolver>),
}

impl PartialEq for Engine {
    fn eq(&self, other: &Engine) -> bool {
        match (self, other) {
            (Engine::Builtin(a), Engine::Builtin(b)) => a == b,
            (Engine::External(a), Engine::External(b)) => Arc::ptr_eq(a, b) || a.spec() == b.spec(),
            _ => false,
        }
    }
}

impl Eq for Engine {}

/// A strategy: a name (the label in every report), the engine behind it
/// and, once known, the revision of the solver it runs
/// ([`super::revision`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Strategy {
    name: String,
    engine: Engine,
    revision: Option<Revision>,
    /// The (measured, warm-up) passes its spec asked for (`repeat=`,
    /// `warmup=`), each `None` where the run's apply.
    passes: (Option<u32>, Option<u32>),
}

/// A named strategy of the catalogue.
pub struct Named {
    pub name: &'static str,
    pub engine: Builtin,
    /// Can need millions of guesses: only useful under the guess budget.
    pub explosive: bool,
    pub description: &'static str,
}

use Branch::*;
use Propagation as P;
use ValueOrder::*;

/// Every named strategy, in the order `strategies` lists them.
pub const NAMED: &[Named] = &[
    Named {
        name: "naive",
        engine: Builtin::Generic(Config::new(P::None, First, Asc)),
        explosive: true,
        description: "textbook backtracker: first empty cell, values 1..9, no propagation",
    },
    Named {
        name: "rowmajor",
        engine: Builtin::Generic(Config {
            root: P::Naked,
            node: P::Forward,
            branch: First,
            order: Asc,
            guess: true,
        }),
        explosive: true,
        description: "naked singles once, then row-major trial and error with forward checking",
    },
    Named {
        name: "mrv",
        engine: Builtin::Generic(Config::new(P::Naked, Mrv, Desc)),
        explosive: false,
        description: "naked singles at every node, fewest-candidate cell, highest digit first",
    },
    Named {
        name: "logic",
        engine: Builtin::Generic(Config {
            root: P::Chains,
            node: P::Chains,
            branch: Mrv,
            order: Asc,
            guess: false,
        }),
        explosive: false,
        description: "the whole technique ladder (singles to chains), never guesses (unfinished grids: stalled)",
    },
    Named {
        name: "hidden",
        engine: Builtin::Generic(Config::new(P::Hidden, Mrv, Asc)),
        explosive: false,
        description: "naked + hidden singles at every node, fewest-candidate cell, ascending",
    },
    Named {
        name: "locked",
        engine: Builtin::Generic(Config::new(P::Locked, Mrv, Asc)),
        explosive: false,
        description: "hidden + locked candidates (pointing, claiming), fewest-candidate cell",
    },
    Named {
        name: "fast",
        engine: Builtin::Fast,
        explosive: false,
        description: "band bitboards: table-driven locked candidates, singles, bivalue branching",
    },
    Named {
        name: "dlx",
        engine: Builtin::Dlx,
        explosive: false,
        description:
            "exact cover, dancing links (Algorithm X): branch on the constraint with fewest options",
    },
];

/// `, did you mean "x"?` when one of `known` is close to `word` (edit
/// distance at most 2, or one a prefix of the other); empty otherwise.
pub fn did_you_mean(word: &str, known: &[&str]) -> String {
    let w = word.to_ascii_lowercase();
    known
        .iter()
        .map(|k| (strsim::damerau_levenshtein(&w, k), *k))
        .filter(|&(d, k)| {
            d <= 2.min(k.len().saturating_sub(1)).max(1)
                || (w.len() >= 3 && (k.starts_with(&w) || w.starts_with(k)))
        })
        .min()
        .map_or(String::new(), |(_, k)| format!(", did you mean {k:?}?"))
}

/// The spec syntax, for `--help` texts and error messages; the list of
/// names comes from [`NAMED`].
pub fn spec_help() -> String {
    format!(
        "A strategy is a name ({}) or a spec: comma-separated key=value pairs, optionally \
starting from a named strategy. Keys: prop=none|forward|naked|hidden|locked|subsets|fish|wings|chains \
(inference at every node, each level including the ones before it: subsets adds naked and \
hidden pairs/triples/quads, fish X-wing/swordfish/jellyfish, wings XY- and XYZ-wing, chains \
single-digit, bivalue and alternating inference chains), branch=first|mrv|max (branch cell), order=asc|desc (value order), root=<prop> \
(propagation applied once before the search), guess=yes|no. Unset keys default to \
prop=hidden,branch=mrv,order=asc. name=LABEL gives any strategy the label reports use (the same \
strategy twice under two labels makes an A/A run). rev=REVISION records which revision of the \
solver a run measured (default: `git describe --always --dirty` of the work tree holding an \
external solver's file; bench-sudoku's build for the built-in ones). repeat=N and warmup=N give \
one strategy its own measured and discarded passes in place of --repeat and --warmup (a verdict \
holds two strategies against each other only with the same measured passes). Examples: \
'prop=naked,branch=max', 'locked,order=desc', 'hidden,guess=no', 'fast,name=base', \
'cmd=python3 mine.py,repeat=1,warmup=0'.\n\n{}",
        names().join(", "),
        EXTERNAL_HELP
    )
}

/// The external-solver part of the spec help.
const EXTERNAL_HELP: &str = "External solvers (docs/SOLVERS.md): \
'lib=PATH[,symbol=NAME|,solver=NAME][,config=N][,name=LABEL][,reentrant=no][,isolate=yes]' loads \
a shared library: symbol=NAME (default 'solve') is a function with tdoku's signature, \
solver=NAME one of the solvers of bench-sudoku's own interface (include/bench_sudoku.h); \
reentrant=no never calls it from two threads at once; isolate=yes runs it in child processes \
('bench-sudoku serve'), so that a crash or a hang is counted instead of ending the run. \
'cmd=COMMAND[,name=LABEL]' runs COMMAND (split into words like a shell does, never through a \
shell) once per thread and speaks the line protocol of docs/SOLVER-PROTOCOL.md with it. Wrap a \
value holding a comma in single quotes: \"cmd='./solver --modes a,b'\". A label defined in a \
--solvers FILE is a strategy name too.";

impl Strategy {
    /// A strategy running the generic engine with `config`, named canonically.
    pub fn generic(config: Config) -> Self {
        let engine = Builtin::Generic(config);
        let name = NAMED
            .iter()
            .find(|n| n.engine == engine)
            .map(|n| n.name.to_string())
            .unwrap_or_else(|| config.spec());
        Strategy {
            name,
            engine: Engine::Builtin(engine),
            revision: None,
            passes: (None, None),
        }
    }

    /// A named strategy, or `None`.
    pub fn named(name: &str) -> Option<Self> {
        NAMED.iter().find(|n| n.name == name).map(|n| Strategy {
            name: n.name.to_string(),
            engine: Engine::Builtin(n.engine),
            revision: None,
            passes: (None, None),
        })
    }

    /// Every named strategy, in catalogue order.
    pub fn all() -> Vec<Strategy> {
        NAMED
            .iter()
            .map(|n| Strategy {
                name: n.name.to_string(),
                engine: Engine::Builtin(n.engine),
                revision: None,
                passes: (None, None),
            })
            .collect()
    }

    /// A strategy running an external solver under `label`.
    pub fn external(label: impl Into<String>, solver: Arc<dyn ExternalSolver>) -> Self {
        Strategy {
            name: label.into(),
            engine: Engine::External(solver),
            revision: None,
            passes: (None, None),
        }
    }

    /// This strategy under `label` (a spec's `name=`).
    pub(super) fn relabel(&mut self, label: &str) {
        self.name = label.to_string();
    }

    /// The passes its spec asked for: (`repeat=`, `warmup=`), each `None`
    /// where the run's apply.
    pub fn passes(&self) -> (Option<u32>, Option<u32>) {
        self.passes
    }

    /// This strategy with the passes a spec gave.
    pub(super) fn set_passes(&mut self, repeat: Option<u32>, warmup: Option<u32>) {
        self.passes = (repeat, warmup);
    }

    /// This strategy at the revision a spec gave (`rev=`).
    pub(super) fn set_revision(&mut self, revision: Revision) {
        self.revision = Some(revision);
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The revision of the solver, once given (`rev=`) or resolved
    /// ([`Strategy::resolve_revision`]).
    pub fn revision(&self) -> Option<&Revision> {
        self.revision.as_ref()
    }

    /// Settles the revision of a strategy whose spec gave no `rev=`: an
    /// external solver takes `run` (`run --revision`) when given, else
    /// `git describe` of the work tree holding its file, else stays
    /// unknown; a built-in strategy is at bench-sudoku's build.
    pub fn resolve_revision(&mut self, run: Option<&str>) {
        if self.revision.is_some() {
            return;
        }
        self.revision = match &self.engine {
            Engine::Builtin(_) => Some(revision::of_build()),
            Engine::External(e) => match run {
                Some(id) => Some(Revision {
                    id: id.to_string(),
                    from: revision::Source::Run,
                }),
                None => e.source().and_then(|f| revision::describe(&f)),
            },
        };
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The built-in engine behind this strategy, if it is one.
    pub fn builtin(&self) -> Option<&Builtin> {
        match &self.engine {
            Engine::Builtin(b) => Some(b),
            Engine::External(_) => None,
        }
    }

    /// What the strategy reports and which clock times it.
    pub fn capabilities(&self) -> Capabilities {
        match &self.engine {
            Engine::Builtin(Builtin::Generic(_)) => Capabilities::BUILTIN,
            Engine::Builtin(Builtin::Fast | Builtin::Dlx) => Capabilities::FIXED_ENGINE,
            Engine::External(e) => e.capabilities(),
        }
    }

    /// Which compiled build of its engine this strategy runs on this CPU,
    /// for engines that have several (`fast`: see [`super::fast::Path`]);
    /// `None` for the others. Results and counters are the same on every
    /// path; times are not.
    pub fn code_path(&self) -> Option<&'static str> {
        match &self.engine {
            Engine::Builtin(Builtin::Fast) => Some(super::fast::Path::detect().name()),
            _ => None,
        }
    }

    /// `builtin`, or the kind of external solver (`lib`, `cmd`, …).
    pub fn kind(&self) -> String {
        match &self.engine {
            Engine::Builtin(_) => "builtin".to_string(),
            Engine::External(e) => {
                let spec = e.spec();
                spec.split_once('=')
                    .map_or("external", |(k, _)| k)
                    .to_string()
            }
        }
    }

    /// The one-line description of a named strategy, an external solver's
    /// own, or the spec itself.
    pub fn description(&self) -> String {
        if let Engine::External(e) = &self.engine {
            return e.description();
        }
        NAMED
            .iter()
            .find(|n| n.name == self.name)
            .map(|n| n.description.to_string())
            .unwrap_or_else(|| format!("custom strategy {}", self.axes()))
    }

    /// The axes as `prop=…,branch=…,order=…`; `engine=fast` for the fast
    /// engine; an external solver's spec.
    pub fn axes(&self) -> String {
        match &self.engine {
            Engine::Builtin(Builtin::Generic(c)) => c.spec(),
            Engine::Builtin(Builtin::Fast) => "engine=fast".to_string(),
            Engine::Builtin(Builtin::Dlx) => "engine=dlx".to_string(),
            Engine::External(e) => e.spec(),
        }
    }

    /// True for strategies that can need millions of guesses per puzzle.
    pub fn explosive(&self) -> bool {
        NAMED
            .iter()
            .find(|n| n.name == self.name)
            .map(|n| n.explosive)
            .unwrap_or(match self.engine {
                Engine::Builtin(Builtin::Generic(c)) => c.node < P::Naked,
                Engine::Builtin(Builtin::Fast | Builtin::Dlx) | Engine::External(_) => false,
            })
    }

    /// A new instance of this strategy for the calling thread, behind the
    /// seam (the benchmark loop runs built-in engines directly instead).
    pub fn instance(&self) -> anyhow::Result<Box<dyn SolverInstance>> {
        match &self.engine {
            Engine::Builtin(b) => Ok(Box::new(BuiltinInstance {
                solver: super::Solver::new(),
                builtin: *b,
            })),
            Engine::External(e) => e.instance(),
        }
    }
}

/// A built-in engine behind the [`SolverInstance`] seam.
struct BuiltinInstance {
    solver: super::Solver,
    builtin: Builtin,
}

impl SolverInstance for BuiltinInstance {
    fn solve(&mut self, puzzle: &crate::Grid, limits: &super::Limits) -> super::Answer {
        super::Answer {
            result: self.solver.solve_builtin(
                puzzle,
                &self.builtin,
                limits,
                &mut super::NoopObserver,
            ),
            time_ns: None,
            note: None,
            unwritten: false,
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

/// Names of the catalogue, in order.
pub fn names() -> Vec<&'static str> {
    NAMED.iter().map(|n| n.name).collect()
}

pub fn prop_name(p: Propagation) -> &'static str {
    match p {
        P::None => "none",
        P::Forward => "forward",
        P::Naked => "naked",
        P::Hidden => "hidden",
        P::Locked => "locked",
        P::Subsets => "subsets",
        P::Fish => "fish",
        P::Wings => "wings",
        P::Chains => "chains",
    }
}

pub fn branch_name(b: Branch) -> &'static str {
    match b {
        First => "first",
        Mrv => "mrv",
        Max => "max",
    }
}

pub fn order_name(o: ValueOrder) -> &'static str {
    match o {
        Asc => "asc",
        Desc => "desc",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_strategies_parse() {
        for n in names() {
            assert_eq!(Strategy::parse(n).unwrap().name(), n);
        }
    }

    #[test]
    fn specs_canonicalise() {
        let s = Strategy::parse("prop=locked,branch=mrv,order=asc").unwrap();
        assert_eq!(s.name(), "locked");
        let s = Strategy::parse("locked,order=desc").unwrap();
        assert_eq!(s.name(), "prop=locked,branch=mrv,order=desc");
        let s = Strategy::parse(" prop = naked , branch = max ").unwrap();
        assert_eq!(s.name(), "prop=naked,branch=max,order=asc");
        let s = Strategy::parse("prop=chains,guess=no").unwrap();
        assert_eq!(s.name(), "logic");
        let s = Strategy::parse("hidden,guess=no").unwrap();
        assert_eq!(s.name(), "prop=hidden,branch=mrv,order=asc,guess=no");
        let s = Strategy::parse("prop=fish").unwrap();
        assert_eq!(s.name(), "prop=fish,branch=mrv,order=asc");
        let s = Strategy::parse("prop=forward,root=naked,branch=first").unwrap();
        assert_eq!(s.name(), "rowmajor");
        let s = Strategy::parse("rowmajor,branch=mrv").unwrap();
        assert_eq!(s.name(), "prop=forward,branch=mrv,order=asc,root=naked");
        // Round trip of the canonical form.
        assert_eq!(Strategy::parse(s.name()).unwrap(), s);
    }

    #[test]
    fn bad_specs_say_why() {
        let e = Strategy::parse("fastest").unwrap_err();
        assert!(e.why.contains("unknown strategy"), "{e}");
        let e = Strategy::parse("prop=magic").unwrap_err();
        assert!(e.why.contains("prop=\"magic\""), "{e}");
        let e = Strategy::parse("hidden,mrv").unwrap_err();
        assert!(e.why.contains("key=value"), "{e}");
        let e = Strategy::parse("colour=red").unwrap_err();
        assert!(e.why.contains("unknown key"), "{e}");
        assert!(Strategy::parse("").is_err());
        let e = Strategy::parse("fast,order=desc").unwrap_err();
        assert!(e.why.contains("no axes"), "{e}");
    }

    #[test]
    fn fast_is_named() {
        let s = Strategy::parse("fast").unwrap();
        assert_eq!(s.engine(), &Engine::Builtin(Builtin::Fast));
        assert_eq!(s.axes(), "engine=fast");
        assert!(!s.explosive());
    }
}
