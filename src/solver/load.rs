//! Loading: a parsed [`Spec`] made into a [`Strategy`] that can run. A
//! built-in engine needs nothing; an external solver has its library
//! loaded or its program started here (once, to read its handshake), and a
//! label is looked up among the solvers the program registered and the
//! `--solvers` files' entries. Parsing ([`Spec::parse`]) touches nothing;
//! everything a spec needs from outside its text happens in this step.

use super::external::{self, Context};
use super::revision::{self, Revision};
use super::spec::{Axes, Spec, SpecError, Target};
use super::strategy::{Builtin, Strategy};

impl Strategy {
    /// Parses a strategy name or spec (see [`super::spec_help`]) and loads
    /// it with default options (see [`Strategy::parse_in`]).
    pub fn parse(spec: &str) -> Result<Self, SpecError> {
        Self::parse_in(spec, &Context::default())
    }

    /// Parses a strategy name or spec ([`Spec::parse`]) and loads it
    /// ([`Strategy::load`]) in `ctx`: an error of either step names the
    /// spec as given.
    pub fn parse_in(spec: &str, ctx: &Context) -> Result<Self, SpecError> {
        let parsed = Spec::parse(spec)?;
        Self::load(&parsed, ctx).map_err(|e| SpecError {
            spec: spec.to_string(),
            why: e.to_string(),
        })
    }

    /// The strategy a spec names, with the labels of `--solvers` files and
    /// the options of external solvers in `ctx`. An external solver is
    /// checked here (its library loaded, its command started and its
    /// handshake read), so that a bad one stops a run before any work. A
    /// built-in spec whose configuration equals a named strategy's takes
    /// that name.
    pub fn load(spec: &Spec, ctx: &Context) -> Result<Self, external::Error> {
        let mut strategy = match &spec.target {
            Target::Builtin(axes) => builtin(axes),
            Target::Label(label) => match ctx.named(label)? {
                Some((label, solver)) => Strategy::external(label, solver),
                None => return Err(external::Error::UnknownStrategy(label.clone())),
            },
            Target::External(e) => {
                let solver = external::load(e, &ctx.options, None)?;
                let label = solver.default_label();
                Strategy::external(label, solver)
            }
        };
        if let Some(label) = &spec.label {
            strategy.relabel(label);
        }
        strategy.set_passes(spec.repeat, spec.warmup);
        if let Some(rev) = &spec.rev {
            strategy.set_revision(Revision {
                id: rev.clone(),
                from: revision::Source::Spec,
            });
        }
        Ok(strategy)
    }
}

/// The built-in strategy of `axes`: a named one under its name, another
/// generic configuration under its canonical spec.
fn builtin(axes: &Axes) -> Strategy {
    match axes.builtin() {
        Builtin::Generic(config) => Strategy::generic(config),
        fixed => Strategy::all()
            .into_iter()
            .find(|s| s.builtin() == Some(&fixed))
            .expect("every engine without axes is a named strategy"),
    }
}
