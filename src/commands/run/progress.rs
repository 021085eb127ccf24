//! How `run` shows its progress on standard error: an indicatif bar on a
//! terminal, plain lines at a steady interval in a CI log, or nothing.

use crate::bench::Progress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long the whole run will take: its solves (puzzles × strategies, over
/// every dataset, from the datasets' estimated sizes) against those done so
/// far. Said once after the first batch, and shown as time left by both
/// displays. A budgeted gate's later rounds come on top (within the
/// budget).
pub(super) struct RunEta {
    total: Option<u64>,
    /// Say the estimate (not with `--quiet`).
    say: bool,
    done: AtomicU64,
    started: Instant,
    said: AtomicBool,
}

/// A run shorter than this is not worth an estimate.
const SAY_FROM: Duration = Duration::from_secs(5);

impl RunEta {
    pub(super) fn new(total: Option<u64>, say: bool) -> Arc<Self> {
        Arc::new(RunEta {
            total: total.filter(|&t| t > 0),
            say,
            done: AtomicU64::new(0),
            started: Instant::now(),
            said: AtomicBool::new(false),
        })
    }

    /// Counts `n` solves done; after the first batch of a run long enough,
    /// says how long the whole run should take.
    fn advance(&self, n: u64) {
        let done = self.done.fetch_add(n, Ordering::Relaxed) + n;
        let Some(whole) = self.whole(done) else {
            return;
        };
        if self.say && whole >= SAY_FROM && !self.said.swap(true, Ordering::Relaxed) {
            crate::commands::print_err(&format!(
                "bench-sudoku: this run should take about {} (estimated from its first batch)",
                human(whole)
            ));
        }
    }

    /// The whole run's expected duration after `done` solves.
    fn whole(&self, done: u64) -> Option<Duration> {
        let total = self.total?;
        (done > 0).then(|| self.started.elapsed().mul_f64(total as f64 / done as f64))
    }

    /// The time left, when the run's size is known.
    fn left(&self) -> Option<Duration> {
        let whole = self.whole(self.done.load(Ordering::Relaxed))?;
        Some(whole.saturating_sub(self.started.elapsed()))
    }
}

/// `1 m 05 s`, `42 s`, `1 h 02 m`.
fn human(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 => format!("{} m {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} m", s / 3600, (s % 3600) / 60),
    }
}

/// The progress display `--progress` and `--quiet` ask for, `auto` settled
/// by whether standard error is a terminal.
pub(super) fn mode(quiet: bool, asked: ProgressMode) -> ProgressMode {
    match (quiet, asked) {
        (true, _) => ProgressMode::None,
        (false, ProgressMode::Auto) if std::io::stderr().is_terminal() => ProgressMode::Bar,
        (false, ProgressMode::Auto) => ProgressMode::Plain,
        (false, m) => m,
    }
}

/// The indicatif progress bar on stderr (hidden when not a terminal).
pub(super) struct Bar {
    enabled: bool,
    bar: Mutex<Option<ProgressBar>>,
    eta: Arc<RunEta>,
}

impl Bar {
    pub(super) fn new(enabled: bool, eta: Arc<RunEta>) -> Self {
        Bar {
            enabled,
            bar: Mutex::new(None),
            eta,
        }
    }
}

impl Progress for Bar {
    fn unit_start(&self, dataset: &str, strategy: &str, estimate: Option<u64>) {
        if !self.enabled {
            return;
        }
        let bar = ProgressBar::with_draw_target(estimate, ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{prefix:.bold} [{bar:30}] {human_pos}/{human_len} puzzles  {rate}  {left}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .with_key(
            "rate",
            |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.0}/s", state.per_sec());
            },
        );
        let eta = Arc::clone(&self.eta);
        let style = style
            .with_key(
                "left",
                move |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = match eta.left() {
                        Some(d) => write!(w, "run: {} left", human(d)),
                        None => write!(w, "unit: {} left", human(state.eta())),
                    };
                },
            )
            .progress_chars("=> ");
        bar.set_style(style);
        bar.set_prefix(
            crate::support::text::printable(&format!("{dataset} · {strategy}")).into_owned(),
        );
        if let Ok(mut b) = self.bar.lock() {
            *b = Some(bar);
        }
    }
    fn advance(&self, n: u64) {
        self.eta.advance(n);
        if let Ok(b) = self.bar.lock() {
            if let Some(bar) = b.as_ref() {
                bar.inc(n);
            }
        }
    }
    fn unit_end(&self) {
        if let Ok(mut b) = self.bar.lock() {
            if let Some(bar) = b.take() {
                bar.finish_and_clear();
            }
        }
    }
}

/// How `run` shows its progress (`--progress`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ProgressMode {
    /// A bar on a terminal, plain lines otherwise.
    Auto,
    /// The indicatif bar.
    Bar,
    /// One line every `--progress-interval`.
    Plain,
    /// Nothing.
    None,
}

/// Progress as plain lines on standard error at a steady interval: what a
/// CI log can show (no cursor movement). A line says the elapsed time, the
/// dataset and strategies, puzzles done (of the estimate) and the rate.
pub(super) struct PlainProgress {
    interval: std::time::Duration,
    state: Mutex<PlainState>,
    eta: Arc<RunEta>,
}

struct PlainState {
    unit: String,
    estimate: Option<u64>,
    done: u64,
    started: std::time::Instant,
    unit_started: std::time::Instant,
    last: std::time::Instant,
}

impl PlainProgress {
    pub(super) fn new(interval: std::time::Duration, eta: Arc<RunEta>) -> Self {
        let now = std::time::Instant::now();
        PlainProgress {
            interval,
            eta,
            state: Mutex::new(PlainState {
                unit: String::new(),
                estimate: None,
                done: 0,
                started: now,
                unit_started: now,
                last: now,
            }),
        }
    }
}

impl PlainState {
    fn line(&self) -> String {
        let secs = self.unit_started.elapsed().as_secs_f64().max(1e-9);
        let of = match self.estimate {
            Some(e) if e > 0 => {
                format!("/{e} puzzles ({:.1}%)", self.done as f64 * 100.0 / e as f64)
            }
            _ => " puzzles".to_string(),
        };
        format!(
            "[{:>6.0}s] {}: {}{of}, {:.0}/s",
            self.started.elapsed().as_secs_f64(),
            self.unit,
            self.done,
            self.done as f64 / secs
        )
    }
}

impl Progress for PlainProgress {
    fn unit_start(&self, dataset: &str, strategy: &str, estimate: Option<u64>) {
        if let Ok(mut s) = self.state.lock() {
            s.unit = format!("{dataset} {strategy}");
            s.estimate = estimate;
            s.done = 0;
            s.unit_started = std::time::Instant::now();
            s.last = s.unit_started;
        }
    }
    fn advance(&self, n: u64) {
        self.eta.advance(n);
        if let Ok(mut s) = self.state.lock() {
            s.done += n;
            if s.last.elapsed() >= self.interval {
                s.last = std::time::Instant::now();
                let left = self
                    .eta
                    .left()
                    .map_or(String::new(), |d| format!(", about {} left", human(d)));
                crate::commands::print_err(&format!("{}{left}", s.line()));
            }
        }
    }
    fn unit_end(&self) {
        if let Ok(s) = self.state.lock() {
            // The last line of a unit that took longer than one interval.
            if s.unit_started.elapsed() >= self.interval {
                crate::commands::print_err(&format!("{} done", s.line()));
            }
        }
    }
}
