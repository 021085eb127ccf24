//! A scanned key set in strategy specs: each strategy that takes the key
//! gets the value under a label that stays the same from value to value, so
//! that its rows line up across the values; the others run unchanged.

use super::{LIB_KEYS, SPEC_KEYS};
use crate::solver::external;
use crate::solver::spec::{External, Spec, Target};

/// `strategies` with `key` set to `value` in each that takes it; the ones
/// that do not (a yardstick such as `fast`) run unchanged at every value.
/// Refused when no strategy takes the key.
pub fn set_key(strategies: &[String], key: &str, value: &str) -> Result<Vec<String>, String> {
    let set: Vec<Option<String>> = strategies
        .iter()
        .map(|s| with_key(s, key, value))
        .collect::<Result<_, _>>()?;
    if set.iter().all(Option::is_none) {
        return Err(format!(
            "no strategy takes {key:?} ({}: a built-in strategy with axes takes {}; a lib= \
             solver {})",
            strategies.join(", "),
            SPEC_KEYS.join(", "),
            LIB_KEYS.join(", ")
        ));
    }
    Ok(strategies
        .iter()
        .zip(set)
        .map(|(s, t)| t.unwrap_or_else(|| s.clone()))
        .collect())
}

/// Strategy `spec` with `key` set to `value`, under a label that stays the
/// same from value to value; `None` when the strategy has no such key (a
/// built-in without axes, a `cmd=` solver, a `--solvers` label) or the
/// spec does not parse (the run refuses it before any work); an error when
/// the key does not take the value.
pub fn with_key(spec: &str, key: &str, value: &str) -> Result<Option<String>, String> {
    let Ok(mut typed) = Spec::parse(spec) else {
        return Ok(None);
    };
    let takes = match &typed.target {
        Target::Builtin(axes) => axes.takes_axes() && SPEC_KEYS.contains(&key),
        Target::External(External::Lib(_)) => LIB_KEYS.contains(&key),
        _ => false,
    };
    if !takes {
        return Ok(None);
    }
    let lib = typed.library().and_then(|l| l.path.to_str());
    let label = typed.label.clone().unwrap_or_else(|| label(spec, lib));
    if !typed.set(key, value).map_err(|e| e.to_string())? {
        return Ok(None);
    }
    typed.label = Some(label);
    Ok(Some(typed.to_string()))
}

/// A label for a strategy given without one: a named strategy's name, a
/// library's file stem, or the spec with every character a label may not
/// hold replaced by `-` (at most 64 characters).
pub fn label(spec: &str, lib: Option<&str>) -> String {
    let text = match lib {
        Some(path) => std::path::Path::new(path)
            .file_stem()
            .map_or(path.to_string(), |s| s.to_string_lossy().into_owned()),
        None => spec.to_string(),
    };
    let label: String = text
        .chars()
        .map(|c| if external::label_char(c) { c } else { '-' })
        .take(64)
        .collect();
    if label.is_empty() {
        "solver".into()
    } else {
        label
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `with_key` of a value the key takes.
    fn with_key_(spec: &str, key: &str, value: &str) -> Option<String> {
        with_key(spec, key, value).unwrap()
    }

    #[test]
    fn a_value_the_key_does_not_take_is_an_error_naming_it() {
        let e = with_key("hidden", "prop", "magic").unwrap_err();
        assert!(e.contains("magic"), "{e}");
        let e = set_key(&["fast".into(), "hidden".into()], "prop", "magic").unwrap_err();
        assert!(e.contains("magic"), "{e}");
    }

    #[test]
    fn a_built_in_with_axes_takes_its_keys_under_its_own_label() {
        assert_eq!(
            with_key_("hidden", "prop", "naked").as_deref(),
            Some("hidden,prop=naked,name=hidden")
        );
        // The key's old value goes (the spec written in its canonical
        // order); a given label stays.
        assert_eq!(
            with_key_("prop=naked,branch=max,name=mine", "prop", "locked").as_deref(),
            Some("prop=locked,branch=max,name=mine")
        );
        // An engine without axes, and a key that is not a built-in's.
        assert_eq!(with_key_("fast", "prop", "naked"), None);
        assert_eq!(with_key_("hidden", "config", "1"), None);
    }

    #[test]
    fn a_library_takes_its_keys_under_its_file_stem() {
        assert_eq!(
            with_key_("lib=/x/libtdoku.so,symbol=solve", "config", "7").as_deref(),
            Some("lib=/x/libtdoku.so,symbol=solve,config=7,name=libtdoku")
        );
        assert_eq!(with_key_("lib=/x/libtdoku.so", "prop", "naked"), None);
        // A program takes no key.
        assert_eq!(with_key_("cmd=./solve", "config", "7"), None);
    }

    #[test]
    fn a_label_holds_only_label_characters() {
        assert_eq!(
            label("prop=naked,branch=max", None),
            "prop-naked-branch-max"
        );
        assert_eq!(label("", Some("/x/libfoo.so")), "libfoo");
        assert_eq!(label("", None), "solver");
        assert_eq!(label(&"a".repeat(100), None).len(), 64);
    }

    #[test]
    fn strategies_that_take_no_key_run_unchanged() {
        let specs = vec!["fast".to_string(), "hidden".to_string()];
        assert_eq!(
            set_key(&specs, "prop", "naked"),
            Ok(vec![
                "fast".to_string(),
                "hidden,prop=naked,name=hidden".to_string()
            ])
        );
        let err = set_key(&specs[..1], "prop", "naked").unwrap_err();
        assert!(
            err.starts_with("no strategy takes \"prop\" (fast: a built-in strategy"),
            "{err}"
        );
    }
}
