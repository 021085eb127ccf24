//! A scanned key set in strategy specs: each strategy that takes the key
//! gets the value under a label that stays the same from value to value, so
//! that its rows line up across the values; the others run unchanged.

use super::{LIB_KEYS, SPEC_KEYS};
use crate::solver::{external, Builtin, Strategy};

/// `strategies` with `key` set to `value` in each that takes it; the ones
/// that do not (a yardstick such as `fast`) run unchanged at every value.
/// Refused when no strategy takes the key.
pub fn set_key(strategies: &[String], key: &str, value: &str) -> Result<Vec<String>, String> {
    let set: Vec<Option<String>> = strategies.iter().map(|s| with_key(s, key, value)).collect();
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
/// built-in without axes, a `cmd=` solver, a `--solvers` label).
pub fn with_key(spec: &str, key: &str, value: &str) -> Option<String> {
    // (key, value) tokens; a bare first token (a built-in's base name) has
    // an empty key.
    let keys: Vec<(String, String)> = if external::is_external(spec) {
        let keys = external::split_spec(spec).ok()?;
        let lib = keys.iter().any(|(k, _)| k == "lib");
        if !lib || !LIB_KEYS.contains(&key) {
            return None;
        }
        keys
    } else {
        let generic = Strategy::parse(spec)
            .ok()
            .is_some_and(|s| matches!(s.builtin(), Some(Builtin::Generic(_))));
        if !generic || !SPEC_KEYS.contains(&key) {
            return None;
        }
        spec.split(',')
            .map(|t| match t.trim().split_once('=') {
                Some((k, v)) => (k.trim().to_string(), v.trim().to_string()),
                None => (String::new(), t.trim().to_string()),
            })
            .collect()
    };
    let lib = keys
        .iter()
        .find(|(k, _)| k == "lib")
        .map(|(_, v)| v.as_str());
    let label = keys
        .iter()
        .find(|(k, _)| k == "name")
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| label(spec, lib));
    let mut out: Vec<String> = keys
        .iter()
        .filter(|(k, _)| k != key && k != "name")
        .map(|(k, v)| match (k.is_empty(), v.contains(',')) {
            (true, _) => v.clone(),
            (false, true) => format!("{k}='{v}'"),
            (false, false) => format!("{k}={v}"),
        })
        .collect();
    out.push(format!("{key}={value}"));
    out.push(format!("name={label}"));
    Some(out.join(","))
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

    #[test]
    fn a_built_in_with_axes_takes_its_keys_under_its_own_label() {
        assert_eq!(
            with_key("hidden", "prop", "naked").as_deref(),
            Some("hidden,prop=naked,name=hidden")
        );
        // The key's old value goes; a given label stays.
        assert_eq!(
            with_key("prop=naked,branch=max,name=mine", "prop", "locked").as_deref(),
            Some("branch=max,prop=locked,name=mine")
        );
        // An engine without axes, and a key that is not a built-in's.
        assert_eq!(with_key("fast", "prop", "naked"), None);
        assert_eq!(with_key("hidden", "config", "1"), None);
    }

    #[test]
    fn a_library_takes_its_keys_under_its_file_stem() {
        assert_eq!(
            with_key("lib=/x/libtdoku.so,symbol=solve", "config", "7").as_deref(),
            Some("lib=/x/libtdoku.so,symbol=solve,config=7,name=libtdoku")
        );
        assert_eq!(with_key("lib=/x/libtdoku.so", "prop", "naked"), None);
        // A program takes no key.
        assert_eq!(with_key("cmd=./solve", "config", "7"), None);
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
