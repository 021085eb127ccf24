//! Solvers in child processes: any executable speaking the line protocol
//! (`cmd=COMMAND`), and libraries isolated in `bench-sudoku serve` children
//! (`lib=…,isolate=yes`). One process per solver thread.
//!
//! Faults are results: a process that dies before answering makes its
//! puzzle `crashed`, one that does not answer within the timeout `timeout`,
//! one whose reply breaks the grammar `protocol_error`; the process is then
//! killed (with its process group) and restarted, and the remaining requests
//! are sent to the new one. Only when three starts in a row fail (the
//! program cannot be run, or breaks the handshake), or three requests in a
//! row time out with no reply between them (each costs the whole timeout:
//! a solver that hangs on every request would otherwise hold the run for
//! the timeout times the puzzles), does an instance stop trying: its
//! remaining puzzles are `crashed` with the reason.

use super::protocol::{self, Hello, Reply};
use super::{Error, Options};
use crate::grid::Grid;
use crate::solver::seam::{Answer, Capabilities, Clock, ExternalSolver, SolverInstance};
use crate::solver::spec::{quote_command, LibSpec};
use crate::solver::{Limits, Status};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Failed starts in a row after which an instance stops restarting.
const MAX_FAILED_STARTS: u32 = 3;
/// Timeouts in a row, with no reply between them, after which an instance
/// stops sending puzzles.
const MAX_TIMEOUTS_IN_ROW: u32 = 3;
/// How long a process may take to exit after `quit`.
const QUIT_GRACE: Duration = Duration::from_secs(1);
/// About how long a pipelined batch of requests should take the solver.
const PIPELINE_BATCH: Duration = Duration::from_millis(1);

/// A solver run as child processes, shared by every thread of a run.
#[derive(Debug)]
pub struct ProcessSolver {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    argv: Vec<String>,
    /// The solver's file: an isolated library, or the command's program or
    /// script ([`command_source`]).
    source: Option<PathBuf>,
    /// The canonical spec (`cmd=…`, or the isolated library's `lib=…`).
    spec: String,
    default_label: String,
    description: String,
    /// The handshake of the first process, which every later one must
    /// repeat (the same reports).
    hello: Hello,
    timeout: Duration,
}

impl ProcessSolver {
    /// `cmd=COMMAND`: starts the command once to read its handshake (a
    /// command that cannot start or answer is an error before any work).
    pub fn command(argv: Vec<String>, options: &Options) -> Result<ProcessSolver, Error> {
        let spec = format!("cmd={}", quote_command(&argv));
        let hello = probe(&argv, options.timeout, &spec)?;
        Ok(ProcessSolver {
            shared: Arc::new(Shared {
                default_label: hello.name.clone(),
                description: format!(
                    "{} (protocol {}, {})",
                    quote_command(&argv),
                    hello.version,
                    reports_text(&hello)
                ),
                source: command_source(&argv),
                argv,
                spec,
                hello,
                timeout: options.timeout,
            }),
        })
    }

    /// `lib=…,isolate=yes`: the library runs in `bench-sudoku serve`
    /// children, one per thread; a crash or a hang in it is counted like a
    /// command's. The library is never loaded into this process.
    pub fn isolated(lib: &LibSpec, options: &Options) -> Result<ProcessSolver, Error> {
        let exe = match &options.exe {
            Some(p) => p.clone(),
            None => std::env::current_exe().map_err(|e| Error::OwnExe(e.to_string()))?,
        };
        let argv = vec![
            exe.display().to_string(),
            "serve".into(),
            "-s".into(),
            lib.spec(false),
            "--max-guesses".into(),
            options.max_guesses.to_string(),
        ];
        let spec = lib.spec(true);
        let hello = probe(&argv, options.timeout, &spec)?;
        Ok(ProcessSolver {
            shared: Arc::new(Shared {
                default_label: lib.default_label(),
                description: format!(
                    "{} in {}, isolated in child processes ({})",
                    lib.default_label(),
                    lib.path.display(),
                    reports_text(&hello)
                ),
                argv,
                source: Some(lib.path.clone()),
                spec,
                hello,
                timeout: options.timeout,
            }),
        })
    }
}

/// Starts `argv` once to read its handshake; an error names `spec`.
fn probe(argv: &[String], timeout: Duration, spec: &str) -> Result<Hello, Error> {
    imp::probe(argv, timeout).map_err(|why| Error::Probe {
        spec: spec.to_string(),
        why: Box::new(why),
    })
}

/// The file a command is: its program when given as a path
/// (`./solver`, `build/solver`), else the first argument naming an
/// existing file (the script of `python3 solver.py`), else the program
/// found on `PATH`.
fn command_source(argv: &[String]) -> Option<PathBuf> {
    let program = argv.first()?;
    if program.contains('/') {
        return Path::new(program).canonicalize().ok();
    }
    if let Some(script) = argv[1..]
        .iter()
        .map(Path::new)
        .find(|p| !p.as_os_str().is_empty() && p.is_file())
    {
        return script.canonicalize().ok();
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

fn reports_text(h: &Hello) -> String {
    let mut r: Vec<&str> = Vec::new();
    if h.ns {
        r.push("own time");
    } else {
        r.push("round-trip time");
    }
    let names = h.counters.names();
    if names.is_empty() {
        r.push("no counters");
    }
    let mut s = r.join(", ");
    if !names.is_empty() {
        s.push_str(", ");
        s.push_str(&names.join(", "));
    }
    s
}

impl ExternalSolver for ProcessSolver {
    fn default_label(&self) -> String {
        self.shared.default_label.clone()
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            counters: self.shared.hello.counters,
            clock: if self.shared.hello.ns {
                Clock::Solver
            } else {
                Clock::RoundTrip
            },
            trace: false,
            budget: false,
        }
    }

    fn spec(&self) -> String {
        self.shared.spec.clone()
    }

    fn source(&self) -> Option<PathBuf> {
        self.shared.source.clone()
    }

    fn description(&self) -> String {
        self.shared.description.clone()
    }

    fn instance(&self) -> anyhow::Result<Box<dyn SolverInstance>> {
        Ok(Box::new(imp::Instance::new(Arc::clone(&self.shared))))
    }
}

/// What one reply (or its absence) means for its puzzle.
fn answer_of(puzzle: &Grid, reply: Reply) -> Answer {
    match reply {
        Reply::Error(msg) => Answer::fault(puzzle, Status::Error, format!("solver error: {msg}")),
        Reply::Answer {
            count,
            solution,
            ns,
            counters,
            stopped,
        } => {
            let mut a = Answer::counted(puzzle, count, solution.unwrap_or(*puzzle), counters);
            match stopped {
                Some(Status::Stalled) => {
                    a.result.status = Status::Stalled;
                    a.result.conflict = None;
                }
                Some(Status::GaveUp) => {
                    a.result.status = Status::GaveUp;
                    a.result.conflict = None;
                }
                _ => {}
            }
            a.time_ns = ns;
            a
        }
    }
}

#[cfg(unix)]
mod imp {
    use super::super::reaper;
    use super::*;
    use std::io::{Read, Write};
    use std::os::fd::AsRawFd;
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
    use std::time::Instant;

    /// Starts `argv`, reads its handshake, and shuts it down.
    pub(super) fn probe(argv: &[String], timeout: Duration) -> Result<Hello, Error> {
        let p = Running::start(argv, timeout, None)?;
        let hello = p.hello.clone();
        p.shutdown();
        Ok(hello)
    }

    /// Why no reply line could be read.
    enum ReadFail {
        Timeout,
        /// The harness is stopping ([`super::super::stop_solving`]).
        Stopped,
        /// The process closed its output (it exited, most likely).
        Eof,
        TooLong,
        Io(std::io::Error),
    }

    /// One running solver process.
    struct Running {
        child: Child,
        stdin: Option<ChildStdin>,
        stdout: ChildStdout,
        /// Unread output: `buf[start..]`.
        buf: Vec<u8>,
        start: usize,
        /// The tail of its stderr.
        stderr: super::super::reaper::Tail,
        hello: Hello,
        /// Reads give up when the harness is stopping (a process of a
        /// run's instance, not the one started to read the handshake).
        abandonable: bool,
    }

    /// Gives the solve up: the user interrupted.
    fn interrupted() -> ! {
        super::super::abandon(super::super::Abandon {
            why: "interrupted".into(),
            environment: false,
        })
    }

    /// Why `program` could not be started, and whether that is an error of
    /// the run rather than of the solver: the environment (no descriptor,
    /// no memory, no process: EMFILE, ENFILE, ENOMEM, EAGAIN) or a program
    /// that cannot be run (it does not exist, is not executable).
    fn start_error(program: &str, e: &std::io::Error) -> (Error, bool) {
        let environment = matches!(
            e.raw_os_error(),
            Some(libc::EMFILE | libc::ENFILE | libc::ENOMEM | libc::EAGAIN)
        );
        let unrunnable = matches!(
            e.raw_os_error(),
            Some(
                libc::ENOENT
                    | libc::EACCES
                    | libc::ENOEXEC
                    | libc::ENOTDIR
                    | libc::ELOOP
                    | libc::ETXTBSY
                    | libc::EPERM
            )
        );
        let why = Error::Start {
            program: program.to_string(),
            why: e.to_string(),
            environment,
        };
        (why, environment || unrunnable)
    }

    impl Running {
        /// Starts a process and reads its handshake within `timeout`; with
        /// `expect`, its reports must equal those of the first process.
        fn start(
            argv: &[String],
            timeout: Duration,
            expect: Option<&Hello>,
        ) -> Result<Running, Error> {
            let mut cmd = Command::new(&argv[0]);
            cmd.args(&argv[1..])
                // A supervised run's board is its measuring process's alone.
                .env_remove("BENCH_SUDOKU_BOARD")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            // Its own process group (a Ctrl-C in the terminal reaches the
            // harness only, which then stops its solvers itself; killing
            // the group also ends what the solver started), and more: see
            // `reaper`.
            let mut child = match reaper::spawn(&mut cmd) {
                Ok(c) => c,
                Err(e) => {
                    let (why, of_the_run) = start_error(&argv[0], &e);
                    // A restart (the first start read the handshake): the
                    // run stops there, as an error of the run.
                    if of_the_run && expect.is_some() {
                        super::super::abandon(super::super::Abandon {
                            why: format!("a solver process could not be started: {why}"),
                            environment: true,
                        });
                    }
                    return Err(why);
                }
            };
            let (Some(stdin), Some(stdout), Some(err)) =
                (child.stdin.take(), child.stdout.take(), child.stderr.take())
            else {
                kill_group(&mut child);
                return Err(Error::NoPipes);
            };
            let stderr = reaper::Tail::drain(err);
            let p = Running {
                child,
                stdin: Some(stdin),
                stdout,
                buf: Vec::with_capacity(1 << 16),
                start: 0,
                stderr,
                hello: Hello {
                    version: 0,
                    name: String::new(),
                    ns: false,
                    counters: crate::solver::CounterSet::NONE,
                },
                abandonable: expect.is_some(),
            };
            p.handshake(timeout, expect)
        }

        /// Sends the greeting and reads the solver's handshake within
        /// `timeout`; with `expect`, its reports must equal those of the
        /// first process.
        fn handshake(
            mut self,
            timeout: Duration,
            expect: Option<&Hello>,
        ) -> Result<Running, Error> {
            let greeting = protocol::greeting();
            if let Err(e) = self.write(greeting.as_bytes()) {
                // A closed pipe: it ended (or closed its input) first.
                let why = if e.kind() == std::io::ErrorKind::BrokenPipe {
                    Error::EndedBeforeHandshake
                } else {
                    Error::SendHandshake(e.to_string())
                };
                return Err(self.failure(why));
            }
            let line = match self.read_line(Instant::now() + timeout) {
                Ok((line, _)) => String::from_utf8_lossy(&line).into_owned(),
                Err(ReadFail::Timeout) => {
                    let within = humantime::format_duration(timeout).to_string();
                    return Err(self.failure(Error::NoHandshake(within)));
                }
                Err(ReadFail::Stopped) => {
                    self.kill();
                    interrupted()
                }
                Err(ReadFail::Eof) => return Err(self.failure(Error::EndedBeforeHandshake)),
                Err(ReadFail::TooLong) => return Err(self.failure(Error::HandshakeTooLong)),
                Err(ReadFail::Io(e)) => {
                    return Err(self.failure(Error::ReadHandshake(e.to_string())))
                }
            };
            let hello = match Hello::parse(line.trim_end()) {
                Ok(h) => h,
                Err(e) => return Err(self.failure(e)),
            };
            if let Some(first) = expect {
                if (hello.ns, hello.counters) != (first.ns, first.counters) {
                    return Err(self.failure(Error::HandshakeChanged {
                        from: first.line().trim_end().to_string(),
                        to: hello.line().trim_end().to_string(),
                    }));
                }
            }
            self.hello = hello;
            Ok(self)
        }

        fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
            match self.stdin.as_mut() {
                Some(w) => w.write_all(bytes).and_then(|()| w.flush()),
                None => Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe)),
            }
        }

        /// The next line of output (without its newline) and when it
        /// arrived, waiting until `deadline` at most.
        fn read_line(&mut self, deadline: Instant) -> Result<(Vec<u8>, Instant), ReadFail> {
            let mut arrived = Instant::now();
            loop {
                if let Some(i) = memchr::memchr(b'\n', &self.buf[self.start..]) {
                    let line = self.buf[self.start..self.start + i].to_vec();
                    self.start += i + 1;
                    return Ok((line, arrived));
                }
                if self.buf.len() - self.start > protocol::MAX_LINE {
                    return Err(ReadFail::TooLong);
                }
                if self.start > 0 {
                    self.buf.drain(..self.start);
                    self.start = 0;
                }
                let now = Instant::now();
                if now >= deadline {
                    return Err(ReadFail::Timeout);
                }
                // In slices: a process that died while something it
                // started holds its output open never gives end of file.
                let slice = (deadline - now).min(Duration::from_millis(50));
                if self.abandonable && super::super::stopping() {
                    return Err(ReadFail::Stopped);
                }
                if !wait_readable(&self.stdout, slice).map_err(ReadFail::Io)? {
                    if matches!(self.child.try_wait(), Ok(Some(_))) {
                        return Err(ReadFail::Eof);
                    }
                    continue; // the deadline is checked above
                }
                let old = self.buf.len();
                self.buf.resize(old + (1 << 16), 0);
                let n = match self.stdout.read(&mut self.buf[old..]) {
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => 0,
                    Err(e) => {
                        self.buf.truncate(old);
                        return Err(ReadFail::Io(e));
                    }
                };
                self.buf.truncate(old + n);
                arrived = Instant::now();
                if n == 0 {
                    return Err(ReadFail::Eof);
                }
            }
        }

        /// Ends the process after a fault and says how it ended, with the
        /// last line of its stderr: `why (exit status 1; stderr: …)`.
        fn failure(mut self, why: Error) -> Error {
            let status = reap(&mut self.child);
            // What it started and moved out of its group goes too.
            reaper::sweep();
            Error::Failed {
                why: Box::new(why),
                status,
                stderr: stderr_tail(&self.stderr),
            }
        }

        /// Kills the process with its group at once (the harness is
        /// stopping), and what it moved out of its group.
        fn kill(mut self) {
            kill_group(&mut self.child);
            reaper::sweep();
        }

        /// Asks the process to quit, and kills it when it does not.
        fn shutdown(mut self) {
            let _ = self.write(b"quit\n");
            self.stdin = None;
            let until = Instant::now() + QUIT_GRACE;
            loop {
                match self.child.try_wait() {
                    Ok(Some(_)) => {
                        // Whatever it left in its group goes too.
                        return kill_group(&mut self.child);
                    }
                    Ok(None) if Instant::now() < until => {
                        std::thread::sleep(Duration::from_millis(2))
                    }
                    _ => return kill_group(&mut self.child),
                }
            }
        }
    }

    /// Waits until `r` has output (or end of file) for at most `wait`;
    /// false when the time ran out.
    fn wait_readable(r: &ChildStdout, wait: Duration) -> std::io::Result<bool> {
        let mut fds = libc::pollfd {
            fd: r.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // Rounded up, so that a wait never ends just before its deadline.
        let ms = wait.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32;
        // SAFETY: `fds` is one valid, initialised pollfd for the duration of
        // the call, and its count is 1.
        let n = unsafe { libc::poll(&mut fds, 1, ms) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                return Ok(false);
            }
            return Err(e);
        }
        Ok(n > 0)
    }

    /// Kills the child's process group (the child leads it) and reaps it.
    fn kill_group(child: &mut Child) {
        if let Ok(pid) = i32::try_from(child.id()) {
            // SAFETY: kill(2) with a negative pid signals that process
            // group; the child was started as the leader of its own group,
            // and it has not been reaped yet (we hold its `Child`), so the
            // id cannot have been reused.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        let _ = child.kill();
        let _ = child.wait();
        reaper::reaped(child);
    }

    /// How a process that is failing ended: waits a moment for it to exit
    /// by itself (a crash being reported), then kills its group.
    fn reap(child: &mut Child) -> Option<String> {
        let until = Instant::now() + Duration::from_millis(200);
        let status = loop {
            match child.try_wait() {
                Ok(Some(st)) => {
                    // Whatever it started goes too.
                    kill_group(child);
                    break Some(st);
                }
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(1)),
                _ => {
                    kill_group(child);
                    break None;
                }
            }
        };
        status.map(|st| match (st.code(), st.signal()) {
            (Some(c), _) => format!("exit status {c}"),
            (None, Some(sig)) => format!("killed by signal {sig}{}", signal_name(sig)),
            _ => st.to_string(),
        })
    }

    /// " (SIGSEGV)", and for SIGSYS what it means here.
    fn signal_name(sig: i32) -> String {
        if sig == libc::SIGSYS {
            return " (SIGSYS: a system call bench-sudoku refuses solvers, such as a stop or a \
                    signal aimed at bench-sudoku)"
                .to_string();
        }
        let name = crate::shield::signal_name(sig);
        if name.starts_with("SIG") {
            format!(" ({name})")
        } else {
            String::new()
        }
    }

    /// The last non-empty line of a solver's stderr.
    fn stderr_tail(tail: &reaper::Tail) -> Option<String> {
        let buf = tail.bytes(Duration::from_millis(200));
        let text = String::from_utf8_lossy(&buf);
        text.lines()
            .rev()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(protocol::clip)
    }

    /// One thread's solver process, restarted after every fault.
    pub(super) struct Instance {
        shared: Arc<Shared>,
        process: Option<Running>,
        /// Starts in a row that failed.
        failed_starts: u32,
        /// Requests in a row that timed out, with no reply between them.
        timeouts_in_row: u32,
        /// Set when the instance gave up restarting: why.
        given_up: Option<Error>,
        requests: Vec<u8>,
        /// Running mean of the solver's own times (exponential, 1/16).
        mean_ns: Option<f64>,
    }

    impl Instance {
        pub(super) fn new(shared: Arc<Shared>) -> Instance {
            Instance {
                shared,
                process: None,
                failed_starts: 0,
                timeouts_in_row: 0,
                given_up: None,
                requests: Vec::new(),
                mean_ns: None,
            }
        }

        /// Makes sure a process runs; `Err` with why when none can.
        fn ensure_running(&mut self) -> Result<(), Error> {
            if let Some(why) = &self.given_up {
                return Err(why.clone());
            }
            if self.process.is_some() {
                return Ok(());
            }
            match Running::start(
                &self.shared.argv,
                self.shared.timeout,
                Some(&self.shared.hello),
            ) {
                Ok(p) => {
                    self.process = Some(p);
                    Ok(())
                }
                Err(e) => {
                    self.failed_starts += 1;
                    if self.failed_starts >= MAX_FAILED_STARTS {
                        self.given_up = Some(Error::GivenUp {
                            starts: MAX_FAILED_STARTS,
                            last: Box::new(e.clone()),
                        });
                    }
                    Err(Error::NotStarted(Box::new(e)))
                }
            }
        }

        /// Counts a fault's timeout; at [`MAX_TIMEOUTS_IN_ROW`] in a row the
        /// instance gives up (its remaining puzzles are `crashed`, with why).
        fn count_timeout(&mut self, status: Status, why: &Error) {
            if status != Status::Timeout {
                return;
            }
            self.timeouts_in_row += 1;
            if self.timeouts_in_row >= MAX_TIMEOUTS_IN_ROW && self.given_up.is_none() {
                self.given_up = Some(Error::TimedOutInARow {
                    count: self.timeouts_in_row,
                    last: Box::new(why.clone()),
                });
            }
        }

        /// Ends the running process after a fault; returns how it ended.
        fn fail(&mut self, why: Error) -> Error {
            match self.process.take() {
                Some(p) => p.failure(why),
                None => why,
            }
        }
    }

    impl Drop for Instance {
        fn drop(&mut self) {
            if let Some(p) = self.process.take() {
                p.shutdown();
            }
        }
    }

    impl SolverInstance for Instance {
        fn solve(&mut self, puzzle: &Grid, limits: &Limits) -> Answer {
            let mut out = Vec::with_capacity(1);
            self.solve_batch(std::slice::from_ref(puzzle), limits, &mut out);
            out.pop().expect("one answer per puzzle")
        }

        fn solve_batch(&mut self, puzzles: &[Grid], limits: &Limits, out: &mut Vec<Answer>) {
            let limit = limits.solutions.max(1);
            // Requests before this index go one at a time: a fault happened
            // while several were in flight, and a solver may hold replies
            // in its output buffer, so which one caused it is not known.
            let mut careful_until = 0;
            // That fault, until the requests sent again one at a time show
            // which puzzle causes it; if none does, it is counted on the
            // first request that had no reply (its position in `out`).
            let mut pending: Option<(usize, Status, String)> = None;
            let base = out.len();
            let mut i = 0;
            while i < puzzles.len() {
                if super::super::stopping() {
                    if let Some(p) = self.process.take() {
                        p.kill();
                    }
                    interrupted();
                }
                if i >= careful_until {
                    settle(&mut pending, puzzles, base, out);
                }
                if let Err(why) = self.ensure_running() {
                    out.push(Answer::fault(&puzzles[i], Status::Crashed, why.to_string()));
                    i += 1;
                    continue;
                }
                let depth = if i < careful_until { 1 } else { self.depth() };
                let end = (i + depth).min(puzzles.len());
                let sent = match self.send(&puzzles[i..end], limit) {
                    Ok(t) => t,
                    Err(why) => {
                        out.push(Answer::fault(&puzzles[i], Status::Crashed, why.to_string()));
                        i += 1;
                        continue;
                    }
                };
                let fault;
                (i, fault) = self.read_replies(puzzles, (i, end), limit, sent, out);
                let Some((status, why)) = fault else { continue };
                let why = self.fail(why);
                self.count_timeout(status, &why);
                if end - i > 1 {
                    // Several requests in flight: sent again one at a time
                    // to the restarted solver, and the fault kept until
                    // they show whose it is.
                    let note = format!(
                        "{why} [{} requests were in flight; sent again one at a time, none \
                         failed: counted on the first that had no reply]",
                        end - i
                    );
                    pending = Some((i, status, note));
                    careful_until = end;
                } else {
                    // Its own fault: the one kept, if any, was this.
                    pending = None;
                    out.push(Answer::fault(&puzzles[i], status, why.to_string()));
                    i += 1;
                }
            }
            settle(&mut pending, puzzles, base, out);
        }
    }

    impl Instance {
        /// Writes the requests of `puzzles` in one write; when it was sent,
        /// or why the solver could not take it (it is then restarted).
        fn send(&mut self, puzzles: &[Grid], limit: u32) -> Result<Instant, Error> {
            self.requests.clear();
            for p in puzzles {
                protocol::push_request(&mut self.requests, p, limit);
            }
            let p = self.process.as_mut().expect("running");
            let sent = Instant::now();
            match p.write(&self.requests) {
                Ok(()) => Ok(sent),
                Err(e) => Err(self.fail(Error::StoppedReading(e.to_string()))),
            }
        }

        /// Reads the replies to the requests `from..end` sent at `sent`,
        /// pushing each answer; returns the first request left without one
        /// and the fault that stopped the reading, if any (a bad reply is
        /// its own puzzle's fault: pushed, and not returned).
        fn read_replies(
            &mut self,
            puzzles: &[Grid],
            (from, end): (usize, usize),
            limit: u32,
            sent: Instant,
            out: &mut Vec<Answer>,
        ) -> (usize, Option<(Status, Error)>) {
            let timeout = self.shared.timeout;
            let mut last = sent;
            for (i, puzzle) in puzzles.iter().enumerate().take(end).skip(from) {
                let p = self.process.as_mut().expect("running");
                let (line, arrived) = match p.read_line(last + timeout) {
                    Ok(read) => read,
                    Err(fail) => return (i, Some(self.read_fault(fail, timeout))),
                };
                match protocol::parse_reply(&line, &p.hello, limit) {
                    Ok(reply) => {
                        let mut a = answer_of(puzzle, reply);
                        match a.time_ns {
                            Some(ns) => self.learn(ns),
                            // Round trip: one request in flight.
                            None => a.time_ns = Some((arrived - last).as_nanos() as u64),
                        }
                        self.failed_starts = 0;
                        self.timeouts_in_row = 0;
                        out.push(a);
                        last = arrived;
                    }
                    // The n-th reply answers the n-th request: this fault
                    // is this puzzle's whatever is in flight.
                    Err(e) => {
                        let why = self.fail(Error::BadReply(Box::new(e)));
                        out.push(Answer::fault(
                            puzzle,
                            Status::ProtocolError,
                            why.to_string(),
                        ));
                        return (i + 1, None);
                    }
                }
            }
            (end, None)
        }

        /// The fault of a reply that did not come; an interrupt ends the
        /// solves here.
        fn read_fault(&mut self, fail: ReadFail, timeout: Duration) -> (Status, Error) {
            match fail {
                ReadFail::Timeout => {
                    let stopped = self
                        .process
                        .as_ref()
                        .is_some_and(|p| reaper::stopped(p.child.id()));
                    let timeout = humantime::format_duration(timeout).to_string();
                    (Status::Timeout, Error::NoReply { timeout, stopped })
                }
                ReadFail::Stopped => {
                    if let Some(p) = self.process.take() {
                        p.kill();
                    }
                    interrupted()
                }
                ReadFail::Eof => (Status::Crashed, Error::EndedBeforeAnswer),
                ReadFail::TooLong => (Status::ProtocolError, Error::ReplyTooLong),
                ReadFail::Io(e) => (Status::Crashed, Error::ReadReply(e.to_string())),
            }
        }
    }

    /// Counts a fault that happened with several requests in flight and that
    /// the requests sent again one at a time did not show again: on the
    /// first request that had no reply (replacing the answer it got when
    /// sent again), so that no death of a solver process goes uncounted.
    fn settle(
        pending: &mut Option<(usize, Status, String)>,
        puzzles: &[Grid],
        base: usize,
        out: &mut [Answer],
    ) {
        if let Some((k, status, why)) = pending.take() {
            if let Some(a) = out.get_mut(base + k) {
                *a = Answer::fault(&puzzles[k], status, why);
            }
        }
    }

    impl Instance {
        /// How many requests to have in flight: one at a time for a solver
        /// that does not time itself (each round trip is timed alone) or
        /// that is slow (pipelining gains nothing there, and a solver may
        /// hold replies until it has answered everything it read, which
        /// must not push a reply past the timeout); up to
        /// [`protocol::PIPELINE`] while a batch takes about
        /// [`PIPELINE_BATCH`].
        fn depth(&self) -> usize {
            if !self.shared.hello.ns {
                return 1;
            }
            match self.mean_ns {
                None => 1,
                Some(mean) => {
                    let fit = PIPELINE_BATCH.as_nanos() as f64 / mean.max(1.0);
                    (fit as usize).clamp(1, protocol::PIPELINE)
                }
            }
        }

        /// Adds a solve time to the running mean that sets the depth.
        fn learn(&mut self, ns: u64) {
            let ns = ns as f64;
            self.mean_ns = Some(match self.mean_ns {
                None => ns,
                Some(m) => m + (ns - m) / 16.0,
            });
        }
    }
}

#[cfg(not(unix))]
mod imp {
    use super::*;

    pub(super) fn probe(_argv: &[String], _timeout: Duration) -> Result<Hello, Error> {
        Err(Error::Unsupported)
    }

    pub(super) struct Instance;

    impl Instance {
        pub(super) fn new(_shared: Arc<Shared>) -> Instance {
            Instance
        }
    }

    impl SolverInstance for Instance {
        fn solve(&mut self, puzzle: &Grid, _limits: &Limits) -> Answer {
            Answer::fault(puzzle, Status::Crashed, "not supported on this system")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_shown_as_specs_that_read_back() {
        let argv = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(quote_command(&argv(&["python3", "s.py"])), "python3 s.py");
        for words in [
            argv(&["python3", "s.py"]),
            argv(&["./s", "--modes", "a,b"]),
            argv(&["my solver", "x"]),
            argv(&["./s", "it's", "a,b"]),
        ] {
            let spec = format!("cmd={},name=x", quote_command(&words));
            let keys = crate::solver::spec::pairs(&spec).unwrap();
            assert_eq!(keys.len(), 2, "{spec}");
            assert_eq!(
                crate::solver::spec::split_words(&keys[0].1).unwrap(),
                words,
                "{spec}"
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_command_that_is_not_a_solver_is_refused_with_its_reason() {
        let opts = Options {
            timeout: Duration::from_secs(5),
            ..Options::default()
        };
        let e = ProcessSolver::command(vec!["true".into()], &opts)
            .unwrap_err()
            .to_string();
        assert!(e.contains("ended before its handshake"), "{e}");
        let e = ProcessSolver::command(vec!["/no/such/solver".into()], &opts)
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot start"), "{e}");
        let sh = |script: &str| vec!["sh".to_string(), "-c".to_string(), script.to_string()];
        let e = ProcessSolver::command(sh("echo hello; echo oops >&2"), &opts)
            .unwrap_err()
            .to_string();
        assert!(e.contains("handshake") && e.contains("stderr: oops"), "{e}");
        let quick = Options {
            timeout: Duration::from_millis(200),
            ..Options::default()
        };
        let e = ProcessSolver::command(sh("sleep 5"), &quick)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no handshake within"), "{e}");
    }
}
