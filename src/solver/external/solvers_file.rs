//! `--solvers FILE.toml`: labels for external solvers, so that a CI job or
//! a team names them once and runs `-s LABEL`.
//!
//! ```toml
//! [solvers.tdoku]
//! lib = "../tdoku/build/libtdoku_shared.so"   # relative to this file
//! symbol = "TdokuSolverDpllTriadSimd"
//! reentrant = false
//!
//! [solvers.python]
//! cmd = "python3 examples/solvers/python/solver.py"   # run in the working directory
//!
//! [solvers.mine]
//! spec = "lib=./libmine.so,solver=mine"        # any spec, as given to -s
//! ```

use super::Error;
use crate::solver::spec::{self, External, KeyError};
use std::path::{Path, PathBuf};

/// One labelled solver of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub label: String,
    /// The spec's `key=value` pairs.
    pub keys: Vec<(String, String)>,
    /// The file that defined it (relative `lib=` paths start from its
    /// directory).
    pub file: PathBuf,
}

impl Entry {
    /// The solver its keys name, and the label their `name=` gives, read
    /// by the spec parser (nothing is loaded). Done when the label is
    /// used, so that an entry no run uses is never refused.
    pub fn solver(&self) -> Result<(Option<String>, External), KeyError> {
        External::from_pairs(&self.keys)
    }
}

/// The keys a `[solvers.LABEL]` table may have, with the spec key each is.
const TABLE_KEYS: [&str; 8] = [
    "spec",
    "lib",
    "symbol",
    "solver",
    "config",
    "reentrant",
    "isolate",
    "cmd",
];

/// Reads a solvers file; every error names the file and the label.
pub fn read(path: &Path) -> Result<Vec<Entry>, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::ReadSolvers {
        file: path.to_path_buf(),
        why: e.to_string(),
    })?;
    parse(&text, path)
}

/// Parses the text of a solvers file read from `path`.
pub fn parse(text: &str, path: &Path) -> Result<Vec<Entry>, Error> {
    let file = || path.to_path_buf();
    let doc: toml::Table = toml::from_str(text).map_err(|e| Error::Toml {
        file: file(),
        why: e.to_string(),
    })?;
    if let Some(k) = doc.keys().find(|k| *k != "solvers") {
        return Err(Error::TopKey {
            file: file(),
            key: k.clone(),
        });
    }
    let Some(solvers) = doc.get("solvers") else {
        return Err(Error::NoTables { file: file() });
    };
    let solvers = solvers
        .as_table()
        .ok_or_else(|| Error::NotTables { file: file() })?;
    let mut out = Vec::new();
    for (label, table) in solvers {
        let bad = |why: Error| Error::Table {
            file: file(),
            label: label.clone(),
            why: Box::new(why),
        };
        spec::check_label(label).map_err(|e| bad(e.into()))?;
        if crate::solver::Strategy::named(label).is_some() {
            return Err(bad(Error::BuiltinName(label.clone())));
        }
        let table = table.as_table().ok_or_else(|| bad(Error::NotATable))?;
        let keys = table_keys(table).map_err(bad)?;
        out.push(Entry {
            label: label.clone(),
            keys,
            file: path.to_path_buf(),
        });
    }
    Ok(out)
}

/// The spec keys of one table.
fn table_keys(table: &toml::Table) -> Result<Vec<(String, String)>, Error> {
    if let Some(k) = table.keys().find(|k| !TABLE_KEYS.contains(&k.as_str())) {
        return Err(Error::TableKey {
            key: k.clone(),
            keys: &TABLE_KEYS,
        });
    }
    if let Some(text) = table.get("spec") {
        if table.len() > 1 {
            return Err(Error::SpecAlone);
        }
        let text = text.as_str().ok_or(Error::SpecNotString)?;
        return Ok(spec::pairs(text)?);
    }
    let mut keys = Vec::new();
    for (k, v) in table {
        let value = match (k.as_str(), v) {
            ("cmd", toml::Value::Array(words)) => {
                let words: Option<Vec<&str>> = words.iter().map(toml::Value::as_str).collect();
                let words = words.ok_or(Error::CommandNotStrings)?;
                if words.is_empty() {
                    return Err(Error::EmptyCommandList);
                }
                shlex::try_join(words).map_err(|e| Error::CommandJoin(e.to_string()))?
            }
            ("reentrant" | "isolate", toml::Value::Boolean(b)) => {
                if *b { "yes" } else { "no" }.to_string()
            }
            ("config", toml::Value::Integer(n)) => n.to_string(),
            ("reentrant" | "isolate" | "config", _) => return Err(wrong_type(k, v)),
            (_, toml::Value::String(s)) => s.clone(),
            (k, v) => return Err(wrong_type(k, v)),
        };
        keys.push((k.clone(), value));
    }
    Ok(keys)
}

/// Value `v` of key `key` is not of the type the key takes.
fn wrong_type(key: &str, v: &toml::Value) -> Error {
    Error::ValueType {
        key: key.to_string(),
        value: v.to_string(),
        expected: match key {
            "reentrant" | "isolate" => "boolean",
            "config" => "number",
            "cmd" => "string or array of strings",
            _ => "string",
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kv(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn tables_become_spec_keys() {
        let text = r#"
            [solvers.tdoku]
            lib = "peers/libtdoku.so"
            symbol = "TdokuSolverDpllTriadSimd"
            reentrant = false
            config = 2

            [solvers.py]
            cmd = ["python3", "my solver.py"]

            [solvers.mine]
            spec = "lib=./libmine.so,solver=mine"
        "#;
        let e = parse(text, Path::new("ci/solvers.toml")).unwrap();
        let by = |l: &str| e.iter().find(|x| x.label == l).unwrap().keys.clone();
        assert_eq!(
            by("tdoku"),
            kv(&[
                ("config", "2"),
                ("lib", "peers/libtdoku.so"),
                ("reentrant", "no"),
                ("symbol", "TdokuSolverDpllTriadSimd"),
            ])
        );
        assert_eq!(by("py"), kv(&[("cmd", "python3 'my solver.py'")]));
        assert_eq!(
            by("mine"),
            kv(&[("lib", "./libmine.so"), ("solver", "mine")])
        );
        assert_eq!(e[0].file, Path::new("ci/solvers.toml"));
    }

    #[test]
    fn mistakes_name_the_file_and_the_label() {
        let p = Path::new("s.toml");
        for (text, why) in [
            (
                "[solvers.a]\nlibb = \"x\"",
                "[solvers.a]: unknown key \"libb\"",
            ),
            ("[solvers.fast]\ncmd = \"x\"", "built-in"),
            (
                "[solvers.a]\nreentrant = \"no\"\nlib=\"x\"",
                "not a boolean",
            ),
            (
                "[solvers.a]\nspec = \"cmd=x\"\nname = \"y\"",
                "unknown key \"name\"",
            ),
            ("[solvers.a]\nspec = \"cmd=x\"\nlib = \"y\"", "stands alone"),
            ("[other]\nx = 1", "unknown top-level key"),
            ("[solvers.\"a b\"]\ncmd = \"x\"", "label"),
            ("[solvers.a\ncmd = \"x\"", "s.toml"),
        ] {
            let e = format!("{:#}", parse(text, p).unwrap_err());
            assert!(e.contains(why) && e.contains("s.toml"), "{text}: {e}");
        }
    }
}
