//! `bench-sudoku serve -s STRATEGY`: the solver side of the line protocol
//! (docs/SOLVER-PROTOCOL.md) for any strategy, built-in or `lib=`. It is the
//! protocol's reference implementation, what `isolate=yes` runs a library
//! in, and a way to put bench-sudoku's engines behind another harness.
//!
//! Replies are written to a buffer and flushed when no request is waiting
//! in the input, so a harness that pipelines its requests gets its replies
//! in few writes, and one that sends them one at a time gets each at once.
//! Each reply carries `ns`, the solve's time on this process's monotonic
//! clock, around the solve only.

use super::args::EngineArgs;
use super::CmdResult;
use crate::solver::external::protocol::{self, Hello};
use crate::solver::{spec_help, Limits};
use clap::Args;
use std::io::{BufRead, BufReader, Read, Write};

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The strategy to serve: a built-in name or spec, lib=…, or a label of
    /// a --solvers file.
    #[arg(short, long, default_value = "fast", long_help = spec_help())]
    pub strategy: String,
    /// The name announced in the handshake [default: the strategy's label].
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    #[command(flatten)]
    pub engine: EngineArgs,
}

pub const SERVE_HELP: &str = "Examples:
  bench-sudoku run datasets/hard.csv -s fast -s 'cmd=bench-sudoku serve -s fast,name=fast-served'
  bench-sudoku serve -s 'lib=./libmysolver.so'       (what -s 'lib=./libmysolver.so,isolate=yes' runs)

The protocol (docs/SOLVER-PROTOCOL.md): the harness sends 'bench-sudoku-protocol 1'; serve
answers 'bench-sudoku-protocol 1 name=NAME reports=ns,…'; then each request line
'PUZZLE LIMIT' gets 'COUNT SOLUTION ns=… guesses=… backtracks=… depth=… nodes=…' (the
counters the strategy reports), or 'error MESSAGE' for a malformed request. 'quit' or the
end of input ends it.

Exit status: 0 at 'quit' or the end of input; 2 when the strategy cannot be loaded or the
harness does not greet it.";

pub fn run(args: &ServeArgs) -> CmdResult {
    // The protocol gets a descriptor of its own before anything is loaded:
    // what a library prints to standard output goes to standard error and
    // can never be read as a reply.
    let mut output = protocol_channel()?;
    let strategy = args
        .engine
        .solvers
        .strategy(&args.strategy, args.engine.max_guesses)?;
    let caps = strategy.capabilities();
    let name = match &args.name {
        Some(n) => crate::solver::external::check_label(n).map_err(anyhow::Error::msg)?,
        None => strategy.name().to_string(),
    };
    // Times come from this process's clock around each solve; counters
    // are the strategy's, as far as the protocol carries them.
    let hello = Hello {
        version: protocol::VERSION,
        name: crate::solver::external::check_label(&name).unwrap_or_else(|_| "served".to_string()),
        ns: true,
        counters: crate::solver::CounterSet::from_bits(
            caps.counters.bits() & protocol::CARRIED.bits(),
        ),
    };
    let mut instance = strategy.instance()?;
    let mut input = BufReader::with_capacity(1 << 16, std::io::stdin().lock());
    let mut line = Vec::with_capacity(128);
    if !read_line(&mut input, &mut line)? {
        return Ok(0);
    }
    if let Err(e) = protocol::parse_greeting(&String::from_utf8_lossy(&line)) {
        let mut buf = Vec::new();
        protocol::push_error(&mut buf, &e.to_string());
        let _ = output.write_all(&buf).and_then(|()| output.flush());
        anyhow::bail!("{e}");
    }
    if !send(&mut output, hello.line().as_bytes())? {
        return Ok(0);
    }
    let mut limits = Limits::first().with_max_guesses(args.engine.max_guesses);
    let mut out = Vec::with_capacity(1 << 16);
    let mut answers = Vec::with_capacity(1);
    while read_line(&mut input, &mut line)? {
        if line == b"quit" {
            break;
        }
        match protocol::parse_request(&line) {
            Ok((puzzle, limit)) => {
                limits.solutions = limit;
                answers.clear();
                instance.solve_batch(std::slice::from_ref(&puzzle), &limits, &mut answers);
                if let Some(a) = answers.pop() {
                    protocol::push_reply(&mut out, &a, a.time_ns, hello.counters);
                }
            }
            Err(e) => protocol::push_error(&mut out, &e.to_string()),
        }
        // Flush only when the next request is not already here.
        if input.buffer().is_empty() {
            if !send(&mut output, &out)? {
                return Ok(0);
            }
            out.clear();
        }
    }
    send(&mut output, &out)?;
    Ok(0)
}

/// Reads the next line without its newline (and `\r`), at most
/// `protocol::MAX_LINE` bytes (the rest of a longer line is read and
/// dropped, so the request is then malformed). False at the end of input.
fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>) -> anyhow::Result<bool> {
    line.clear();
    let n = input
        .by_ref()
        .take(protocol::MAX_LINE as u64)
        .read_until(b'\n', line)?;
    if n == 0 {
        return Ok(false);
    }
    if line.last() == Some(&b'\n') {
        line.pop();
    } else if n == protocol::MAX_LINE {
        // Too long: skip to the end of the line.
        let mut rest = Vec::new();
        input.read_until(b'\n', &mut rest)?;
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    Ok(true)
}

/// Writes and flushes; false when the harness has gone (a closed pipe).
/// The protocol's output: a duplicate of standard output, after which
/// descriptor 1 itself is made a duplicate of standard error.
#[cfg(unix)]
fn protocol_channel() -> anyhow::Result<std::fs::File> {
    use std::os::fd::AsFd;
    let fd = std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .map_err(|e| anyhow::anyhow!("cannot duplicate standard output for the protocol: {e}"))?;
    std::io::stdout().flush()?;
    // SAFETY: dup2(2) on the process's own descriptors 2 and 1, both open
    // (1 was just duplicated, 2 is inherited); it touches no memory. Rust's
    // `stdout()` keeps writing to descriptor 1, now standard error.
    if unsafe { libc::dup2(2, 1) } < 0 {
        anyhow::bail!(
            "cannot point standard output at standard error: {}",
            std::io::Error::last_os_error()
        );
    }
    Ok(std::fs::File::from(fd))
}

#[cfg(not(unix))]
fn protocol_channel() -> anyhow::Result<std::io::Stdout> {
    Ok(std::io::stdout())
}

fn send(out: &mut impl Write, bytes: &[u8]) -> anyhow::Result<bool> {
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(e.into()),
    }
}
