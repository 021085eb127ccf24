//! The line protocol between the harness and a solver process, version 1
//! (`docs/SOLVER-PROTOCOL.md` is the specification): the handshake, the
//! requests and the replies, read and written by both sides ([`super::process`]
//! is the harness's side, `bench-sudoku serve` the reference solver).

use super::Error;
use crate::grid::{Grid, CELLS};
use crate::solver::seam::{Answer, Counter, CounterSet};
use crate::solver::spec::{check_label, KeyError};
use crate::solver::{Counters, Status};
use std::io::Write;

/// The first word of both handshake lines.
pub const MAGIC: &str = "bench-sudoku-protocol";
/// The highest protocol version this build speaks.
pub const VERSION: u32 = 1;
/// The longest line either side accepts, newline included.
pub const MAX_LINE: usize = 4096;
/// Requests sent before reading a reply, to a solver that reports `ns`
/// (one at a time otherwise, so that each round trip is timed alone).
pub const PIPELINE: usize = 64;

/// The counters a reply can carry, with their protocol keys.
const KEYS: [(&str, Counter); 4] = [
    ("guesses", Counter::Guesses),
    ("backtracks", Counter::Backtracks),
    ("depth", Counter::MaxDepth),
    ("nodes", Counter::Nodes),
];

/// The counters the protocol can carry.
pub const CARRIED: CounterSet = CounterSet::of(&[
    Counter::Guesses,
    Counter::Backtracks,
    Counter::MaxDepth,
    Counter::Nodes,
]);

/// The harness's handshake line.
pub fn greeting() -> String {
    format!("{MAGIC} {VERSION}\n")
}

/// Reads the harness's handshake line; returns the version it offers.
pub fn parse_greeting(line: &str) -> Result<u32, Error> {
    let mut w = line.split_ascii_whitespace();
    match (w.next(), w.next().map(str::parse::<u32>), w.next()) {
        (Some(MAGIC), Some(Ok(v)), None) if v >= 1 => Ok(v),
        _ => Err(Error::Greeting(clip(line))),
    }
}

/// What a solver says of itself in its handshake line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    pub version: u32,
    pub name: String,
    /// It reports its own time (`ns`).
    pub ns: bool,
    pub counters: CounterSet,
}

impl Hello {
    /// The solver's handshake line.
    pub fn line(&self) -> String {
        let mut reports: Vec<&str> = Vec::new();
        if self.ns {
            reports.push("ns");
        }
        for (key, c) in KEYS {
            if self.counters.has(c) {
                reports.push(key);
            }
        }
        format!(
            "{MAGIC} {} name={} reports={}\n",
            self.version,
            self.name,
            reports.join(",")
        )
    }

    /// Reads a solver's handshake line.
    pub fn parse(line: &str) -> Result<Hello, Error> {
        let bad = |why: Error| Error::Handshake {
            line: clip(line),
            why: Box::new(why),
        };
        let mut words = line.split_ascii_whitespace();
        if let Some("error") = words.clone().next() {
            return Err(Error::Refused(clip(
                line.trim_start().trim_start_matches("error").trim(),
            )));
        }
        if words.next() != Some(MAGIC) {
            return Err(bad(Error::NotHandshake));
        }
        let version: u32 = words
            .next()
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| bad(Error::NoVersion))?;
        if version != VERSION {
            return Err(bad(Error::Version(version)));
        }
        let mut hello = Hello {
            version,
            name: String::new(),
            ns: false,
            counters: CounterSet::NONE,
        };
        let mut seen_reports = false;
        for w in words {
            let (k, v) = w
                .split_once('=')
                .ok_or_else(|| bad(KeyError::NotKeyValue(w.to_string()).into()))?;
            match k {
                "name" => {
                    hello.name = check_label(v).map_err(|e| bad(e.into()))?;
                }
                "reports" => {
                    seen_reports = true;
                    for key in v.split(',').filter(|s| !s.is_empty()) {
                        if key == "ns" {
                            hello.ns = true;
                        } else {
                            let c = KEYS
                                .iter()
                                .find(|(name, _)| *name == key)
                                .map(|&(_, c)| c)
                                .ok_or_else(|| bad(Error::UnknownReport(key.to_string())))?;
                            hello.counters = hello.counters.with(c);
                        }
                    }
                }
                _ => return Err(bad(Error::UnknownField(k.to_string()))),
            }
        }
        if hello.name.is_empty() {
            return Err(bad(Error::NoName));
        }
        if !seen_reports {
            return Err(bad(Error::NoReports));
        }
        Ok(hello)
    }
}

/// Appends the request line of `puzzle` with solution limit `limit`.
#[inline]
pub fn push_request(buf: &mut Vec<u8>, puzzle: &Grid, limit: u32) {
    buf.extend(
        puzzle
            .cells()
            .iter()
            .map(|&v| if v == 0 { b'.' } else { b'0' + v }),
    );
    buf.push(b' ');
    buf.extend_from_slice(itoa::Buffer::new().format(limit.max(1)).as_bytes());
    buf.push(b'\n');
}

/// Reads a request line (without its newline): the puzzle and the limit.
pub fn parse_request(line: &[u8]) -> Result<(Grid, u32), Error> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let text = std::str::from_utf8(line).map_err(|_| Error::RequestUtf8)?;
    let mut w = text.split(' ');
    let (Some(p), Some(l), None) = (w.next(), w.next(), w.next()) else {
        return Err(Error::NotRequest(clip(text)));
    };
    let grid = Grid::parse(p).map_err(|e| Error::Puzzle(e.to_string()))?;
    let limit = l
        .parse::<u32>()
        .ok()
        .filter(|&n| n >= 1)
        .ok_or_else(|| Error::Limit(l.to_string()))?;
    Ok((grid, limit))
}

/// Appends the reply line of an answer: its count, its first solution, and
/// the keys of `reports` (with `ns` when `ns` is given).
pub fn push_reply(buf: &mut Vec<u8>, answer: &Answer, ns: Option<u64>, reports: CounterSet) {
    let r = &answer.result;
    if r.status.is_fault() {
        let why = answer.note.as_deref().unwrap_or(r.status.as_str());
        return push_error(buf, why);
    }
    let mut n = itoa::Buffer::new();
    let stalled = r.status == Status::Stalled;
    let count = if stalled { 0 } else { r.solutions };
    buf.extend_from_slice(n.format(count).as_bytes());
    buf.push(b' ');
    if count > 0 && !answer.unwritten {
        buf.extend(r.grid.cells().iter().map(|&v| b'0' + v));
    } else {
        buf.push(b'-');
    }
    let mut key = |k: &str, v: u64| {
        buf.push(b' ');
        buf.extend_from_slice(k.as_bytes());
        buf.push(b'=');
        buf.extend_from_slice(n.format(v).as_bytes());
    };
    if let Some(ns) = ns {
        key("ns", ns);
    }
    for (k, c) in KEYS {
        if reports.has(c) {
            key(k, c.get(&r.counters));
        }
    }
    match r.status {
        Status::GaveUp => buf.extend_from_slice(b" stopped=gave_up"),
        Status::Stalled => buf.extend_from_slice(b" stopped=stalled"),
        _ => {}
    }
    buf.push(b'\n');
}

/// Appends an `error MESSAGE` line (the message on one line).
pub fn push_error(buf: &mut Vec<u8>, message: &str) {
    let _ = write!(buf, "error ");
    let one_line: String = message
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(MAX_LINE - 16)
        .collect();
    buf.extend_from_slice(one_line.as_bytes());
    buf.push(b'\n');
}

/// A reply as the harness reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// The solver's answer.
    Answer {
        count: u32,
        solution: Option<Grid>,
        /// The solver's own time, when it reports one.
        ns: Option<u64>,
        counters: Counters,
        /// `gave_up` or `stalled` when the solver said it stopped early.
        stopped: Option<Status>,
    },
    /// `error MESSAGE`.
    Error(String),
}

/// Reads a reply line (without its newline) to a request with limit
/// `limit`, from a solver that introduced itself with `hello`. A line that
/// breaks the grammar is an `Err` with what is wrong.
pub fn parse_reply(line: &[u8], hello: &Hello, limit: u32) -> Result<Reply, Error> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let text = std::str::from_utf8(line).map_err(|_| Error::ReplyUtf8)?;
    if let Some(msg) = text.strip_prefix("error") {
        if msg.is_empty() || msg.starts_with(' ') {
            return Ok(Reply::Error(msg.trim().to_string()));
        }
    }
    let mut words = text.split_ascii_whitespace();
    let (count, solution) = head(&mut words, text, limit)?;
    let mut f = Fields::default();
    for w in words {
        f.take(w, hello)?;
    }
    if let Some(c) = hello.counters.iter().find(|&c| !f.seen.has(c)) {
        let key = KEYS.iter().find(|(_, k)| *k == c).map_or("?", |&(n, _)| n);
        return Err(Error::Missing(key));
    }
    if hello.ns && f.ns.is_none() {
        return Err(Error::Missing("ns"));
    }
    if f.stopped == Some(Status::Stalled) && count > 0 {
        return Err(Error::StalledWithSolution);
    }
    Ok(Reply::Answer {
        count,
        solution,
        ns: f.ns,
        counters: f.counters,
        stopped: f.stopped,
    })
}

/// A reply's `COUNT SOLUTION`: the count (at most `limit`) and the grid
/// (`-` with a count of 0).
fn head<'a>(
    words: &mut impl Iterator<Item = &'a str>,
    text: &str,
    limit: u32,
) -> Result<(u32, Option<Grid>), Error> {
    let count: u32 = words
        .next()
        .and_then(|w| w.parse().ok())
        .ok_or_else(|| Error::NotReply(clip(text)))?;
    if count > limit {
        return Err(Error::AboveLimit { count, limit });
    }
    let sol = words.next().ok_or_else(|| Error::NoSolution(clip(text)))?;
    let solution = match (count, sol) {
        (0, "-") => None,
        (0, _) => return Err(Error::ZeroWithSolution(clip(sol))),
        (_, s) if s.len() == CELLS && s.bytes().all(|b| (b'1'..=b'9').contains(&b)) => {
            Some(Grid::parse(s).map_err(|e| Error::SolutionGrid(e.to_string()))?)
        }
        (_, s) => return Err(Error::NotDigits(clip(s))),
    };
    Ok((count, solution))
}

/// The `KEY=VALUE` fields of a reply read so far.
#[derive(Default)]
struct Fields {
    counters: Counters,
    ns: Option<u64>,
    stopped: Option<Status>,
    seen: CounterSet,
}

impl Fields {
    /// Takes one field: `stopped=…`, `ns=…` or a counter declared in the
    /// handshake, each at most once.
    fn take(&mut self, w: &str, hello: &Hello) -> Result<(), Error> {
        let (k, v) = w
            .split_once('=')
            .ok_or_else(|| KeyError::NotKeyValue(clip(w)))?;
        if k == "stopped" {
            if self.stopped.is_some() {
                return Err(Error::StoppedTwice);
            }
            self.stopped = Some(match v {
                "gave_up" => Status::GaveUp,
                "stalled" => Status::Stalled,
                _ => return Err(Error::Stopped(v.to_string())),
            });
            return Ok(());
        }
        let value: u64 = v.parse().map_err(|_| Error::NotANumber {
            key: k.to_string(),
            value: clip(v),
        })?;
        if k == "ns" {
            if !hello.ns {
                return Err(Error::Undeclared(k.to_string()));
            }
            if self.ns.replace(value).is_some() {
                return Err(Error::FieldTwice(k.to_string()));
            }
            return Ok(());
        }
        let c = KEYS
            .iter()
            .find(|(name, _)| *name == k)
            .map(|&(_, c)| c)
            .ok_or_else(|| Error::UnknownField(k.to_string()))?;
        if !hello.counters.has(c) {
            return Err(Error::Undeclared(k.to_string()));
        }
        if self.seen.has(c) {
            return Err(Error::FieldTwice(k.to_string()));
        }
        self.seen = self.seen.with(c);
        match c {
            Counter::Guesses => self.counters.guesses = value,
            Counter::Backtracks => self.counters.backtracks = value,
            Counter::MaxDepth => self.counters.max_depth = value.min(u32::MAX as u64) as u32,
            Counter::Nodes => self.counters.nodes = value,
            // KEYS names only the four above.
            _ => unreachable!("not a protocol key"),
        }
        Ok(())
    }
}

/// A line shortened for an error message.
pub fn clip(s: &str) -> String {
    const MAX: usize = 120;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(MAX).collect();
        t.push('…');
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::{Limits, Solver, Strategy};

    const PUZZLE: &str =
        "800000000070090200003600000050007000000045700000100030001000068008500010090000400";

    fn hello(reports: &str) -> Hello {
        Hello::parse(&format!("{MAGIC} 1 name=t reports={reports}")).unwrap()
    }

    #[test]
    fn handshakes_round_trip_and_refuse_what_is_wrong() {
        let h = Hello {
            version: 1,
            name: "x-1".into(),
            ns: true,
            counters: CARRIED,
        };
        assert_eq!(
            h.line(),
            "bench-sudoku-protocol 1 name=x-1 reports=ns,guesses,backtracks,depth,nodes\n"
        );
        assert_eq!(Hello::parse(h.line().trim_end()).unwrap(), h);
        let empty = hello("");
        assert!(!empty.ns && empty.counters == CounterSet::NONE);
        for bad in [
            "hello 1 name=x reports=",
            "bench-sudoku-protocol 2 name=x reports=",
            "bench-sudoku-protocol 1 reports=ns",
            "bench-sudoku-protocol 1 name=x",
            "bench-sudoku-protocol 1 name=x reports=speed",
            "bench-sudoku-protocol 1 name=x reports= colour=red",
        ] {
            assert!(Hello::parse(bad).is_err(), "{bad}");
        }
        assert!(Hello::parse("error no version I know")
            .unwrap_err()
            .to_string()
            .contains("no version I know"));
        assert_eq!(parse_greeting("bench-sudoku-protocol 3\n"), Ok(3));
        assert!(parse_greeting("bench-sudoku-protocol").is_err());
    }

    #[test]
    fn requests_round_trip() {
        let g = Grid::parse(PUZZLE).unwrap();
        let mut buf = Vec::new();
        push_request(&mut buf, &g, 2);
        assert_eq!(buf.len(), 84);
        assert_eq!(parse_request(&buf[..83]).unwrap(), (g, 2));
        assert!(parse_request(b"123 1").is_err());
        assert!(parse_request(&buf[..81]).is_err(), "no limit");
        let mut zero = buf[..82].to_vec();
        zero.push(b'0');
        assert!(parse_request(&zero)
            .unwrap_err()
            .to_string()
            .contains("limit"));
    }

    #[test]
    fn replies_of_serve_read_back_exactly() {
        let g = Grid::parse(PUZZLE).unwrap();
        let mut solver = Solver::new();
        let limits = Limits::uniqueness();
        let strategy = Strategy::named("locked").unwrap();
        let answer = solver.answer(&g, &strategy, &limits);
        let mut buf = Vec::new();
        push_reply(&mut buf, &answer, Some(1234), CARRIED);
        let line = &buf[..buf.len() - 1];
        let r = parse_reply(line, &hello("ns,guesses,backtracks,depth,nodes"), 2).unwrap();
        let c = answer.result.counters;
        assert_eq!(
            r,
            Reply::Answer {
                count: 1,
                solution: Some(answer.result.grid),
                ns: Some(1234),
                counters: Counters {
                    guesses: c.guesses,
                    backtracks: c.backtracks,
                    max_depth: c.max_depth,
                    nodes: c.nodes,
                    ..Counters::default()
                },
                stopped: None,
            }
        );
    }

    #[test]
    fn replies_that_break_the_grammar_say_why() {
        let sol =
            "812753649943682175675491283154237896369845721287169534521974368438526917796318452";
        let h = hello("guesses");
        let ok = format!("1 {sol} guesses=3");
        assert!(parse_reply(ok.as_bytes(), &h, 1).is_ok());
        for (line, why) in [
            (format!("2 {sol} guesses=3"), "above the limit"),
            (format!("1 {sol}"), "missing"),
            (format!("1 {sol} guesses=3 guesses=4"), "twice"),
            (format!("1 {sol} guesses=3 depth=1"), "not declared"),
            (format!("1 {sol} guesses=x"), "not a number"),
            (format!("1 {sol} speed=3"), "unknown key"),
            ("1 - guesses=0".to_string(), "not 81 digits"),
            (format!("0 {sol} guesses=0"), "expected '-'"),
            ("yes".to_string(), "expected 'COUNT"),
            (String::new(), "expected 'COUNT"),
        ] {
            let e = parse_reply(line.as_bytes(), &h, 1).unwrap_err().to_string();
            assert!(e.contains(why), "{line}: {e}");
        }
        assert_eq!(
            parse_reply(b"error cannot parse this", &h, 1),
            Ok(Reply::Error("cannot parse this".into()))
        );
        assert!(matches!(
            parse_reply(b"0 - guesses=9 stopped=gave_up", &h, 1),
            Ok(Reply::Answer {
                stopped: Some(Status::GaveUp),
                ..
            })
        ));
    }
}
