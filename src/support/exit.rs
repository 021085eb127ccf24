//! Exit statuses: one type and one table. `run --help` shows the table
//! ([`help_text`]) and docs/RELIABILITY.md holds it between markers
//! ([`markdown_table`]; `tests/links.rs` keeps the two the same). Every
//! command ends with one of these; each command's own `--help` says when.

/// How a command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Everything asked for was done and checked out.
    Ok,
    /// Something failed: a rejected answer, a fault, a regression.
    Failed,
    /// An error, or a verdict that could not be given (not judged).
    Error,
    /// A gate that could not decide.
    Undecided,
    /// A thread panicked.
    Panic,
    /// A call into a library in the process did not return in time.
    Hang,
    /// A library in the process ended the process itself.
    SolverExit,
    /// Interrupted (SIGINT, SIGTERM, SIGHUP).
    Interrupted,
    /// The measuring process died of this signal.
    Signal(i32),
}

impl Exit {
    /// The process's exit status.
    pub const fn code(self) -> i32 {
        match self {
            Exit::Ok => 0,
            Exit::Failed => 1,
            Exit::Error => 2,
            Exit::Undecided => 3,
            Exit::Panic => 70,
            Exit::Hang => 124,
            Exit::SolverExit => 125,
            Exit::Interrupted => 130,
            Exit::Signal(n) => 128 + n,
        }
    }
}

/// The statuses by name, for code that matches on them.
pub const EXIT_UNDECIDED: i32 = Exit::Undecided.code();
pub const EXIT_PANIC: i32 = Exit::Panic.code();
pub const EXIT_HANG: i32 = Exit::Hang.code();
pub const EXIT_SOLVER_EXIT: i32 = Exit::SolverExit.code();
pub const EXIT_INTERRUPTED: i32 = Exit::Interrupted.code();

/// Every status `run` ends with, and what it means (the same statuses, in
/// the same sense, for every command).
pub const TABLE: [(&str, &str); 11] = [
    (
        "0",
        "every puzzle was measured and every answer of every pass verified; with `--gate`, every \
         dataset **unchanged** (the whole 95 % interval within ±threshold: equivalence shown) or \
         **improved** (the whole interval below −threshold), or undecided with `--undecided pass`",
    ),
    (
        "1",
        "a rejected answer (wrong grid, mismatch with the dataset, wrong count, an answer that \
         changed between passes), a fault of an external solver (`crashed`, `timeout`, \
         `protocol_error`, `error`), or a gate that failed: a dataset or one of its difficulty \
         classes **regressed** (the whole interval above +threshold), answers that differ between \
         the sides, or (with `--fail-on counters`) a search counter that differs",
    ),
    (
        "2",
        "an error: bad arguments, an unreadable or malformed dataset, a solver that cannot be \
         loaded or started, a solver process the system cannot start during the run (too many \
         open files, no memory, no process left: the environment, not the solver) or whose \
         program can no longer be run, an output that would replace an input (a dataset, a \
         `--solvers` file, a solver's library, program or script), a results directory another \
         command holds, a failed write; or, with `--gate`, nothing failed but a dataset could not \
         be judged (fewer than 10 chunks of puzzles, a side that solved nothing, sides timed by \
         different clocks, a side that cannot be believed)",
    ),
    (
        "3",
        "with `--gate`: nothing failed and every dataset was judged, but a dataset is \
         **undecided**: its interval is neither wholly beyond ±threshold nor wholly within it \
         (the run could not tell; `--budget` measures until it can, `--undecided pass` makes \
         this 0). The verdict says so and states the smallest change the run could have detected",
    ),
    (
        "70",
        "a thread of the run panicked (a bug, in bench-sudoku or in an in-process solver)",
    ),
    (
        "124",
        "a call into a solver loaded in-process (`lib=` without `isolate=yes`) did not return \
         within `--timeout`",
    ),
    (
        "125",
        "a solver loaded in-process ended the process itself (`exit()`, `_exit()`, from a call \
         or from its initialisers), whatever status it gave",
    ),
    (
        "128 + N",
        "the measuring process died of signal N: 139 SIGSEGV, 134 SIGABRT, 135 SIGBUS, 136 \
         SIGFPE, 132 SIGILL (a crash of a solver loaded in-process), 137 SIGKILL (e.g. the \
         out-of-memory killer)",
    ),
    (
        "159",
        "(128 + SIGSYS) a solver loaded in-process tried to stop or signal bench-sudoku (the \
         shield refused the call and the measuring process ended; the message says what it tried)",
    ),
    (
        "130",
        "interrupted (SIGINT, SIGTERM or SIGHUP); solver processes are stopped at once",
    ),
    (
        "",
        "every status but 0, 1 and 3 keeps what was measured before the stop, with \
         `\"complete\": false` in meta.json",
    ),
];

/// The table as Markdown (docs/RELIABILITY.md holds it between
/// `<!-- exit-status:begin -->` and `<!-- exit-status:end -->`).
pub fn markdown_table() -> String {
    let mut s = String::from("| status | meaning |\n|---:|---|\n");
    for (status, meaning) in TABLE.iter().filter(|(st, _)| !st.is_empty()) {
        s.push_str(&format!("| {status} | {meaning} |\n"));
    }
    s
}

/// The table as `--help` text: one status a line, Markdown marks left
/// out.
pub fn help_text() -> String {
    let mut s = String::from("Exit status:\n");
    for (status, meaning) in TABLE {
        let plain = meaning.replace("**", "").replace('`', "");
        match status {
            "" => s.push_str(&wrap(&format!("{plain}."), "  ", "  ")),
            _ => s.push_str(&wrap(&plain, &format!("  {status:>7}  "), &" ".repeat(11))),
        }
    }
    s
}

/// `text` in lines of at most 96 characters, the first after `first`, the
/// others after `rest`.
fn wrap(text: &str, first: &str, rest: &str) -> String {
    let mut out = String::new();
    let mut line = first.to_string();
    let mut empty = true;
    for word in text.split_whitespace() {
        if !empty && line.chars().count() + 1 + word.chars().count() > 96 {
            out.push_str(line.trim_end());
            out.push('\n');
            line = rest.to_string();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_the_tables() {
        let listed: Vec<&str> = TABLE.iter().map(|t| t.0).collect();
        for e in [
            Exit::Ok,
            Exit::Failed,
            Exit::Error,
            Exit::Undecided,
            Exit::Panic,
            Exit::Hang,
            Exit::SolverExit,
            Exit::Interrupted,
        ] {
            assert!(listed.contains(&e.code().to_string().as_str()), "{e:?}");
        }
        assert_eq!(Exit::Signal(libc_sigsys()).code(), 159);
        assert!(help_text().contains("    124  a call into a solver"));
        assert!(markdown_table().starts_with("| status | meaning |\n|---:|---|\n| 0 |"));
    }

    fn libc_sigsys() -> i32 {
        31
    }
}
