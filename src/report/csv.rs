//! `summary.csv`: one row per (dataset, strategy), from a typed record
//! ([`SummaryRow`], written by the `csv` crate with serde). The columns come
//! in the terminal table's order (dataset, strategy, puzzles, solved, the
//! other outcomes, puzzles/s, mean, p50, p90, p99, max, guesses per puzzle,
//! no-guess share, the headline comparison — `compared_with`, `comparison`
//! (its basis), `time_ratio` with its interval and `verdict` in words —,
//! the ratio of means to the fastest with its range over the repeats and
//! whether the strategy left puzzles unfinished), then the remaining fields of
//! `summary.json`'s results, then the paired comparison (`paired_`, empty
//! for the baseline). Numbers are rounded to what they can mean: times to
//! 0.1 ns, rates to whole puzzles per second, means and ratios to four
//! significant decimals; counts are exact. A counter the strategy does not
//! report is an empty cell. Lists are joined with `;`.

use super::{Exporter, Output, Report};
use crate::results::ResultRecord;
use crate::support::cells::neutral;
use serde::Serialize;

pub struct SummaryCsv;

/// One row of `summary.csv`; the field order is the column order.
#[derive(Debug, Default, Serialize)]
pub struct SummaryRow {
    pub dataset: String,
    pub strategy: String,
    pub puzzles: u64,
    pub solved: u64,
    pub no_solution: u64,
    pub multiple: u64,
    pub stalled: u64,
    pub gave_up: u64,
    pub invalid: u64,
    pub crashed: u64,
    pub timeout: u64,
    pub protocol_error: u64,
    pub error: u64,
    pub mismatches: u64,
    pub wrong_answers: u64,
    pub wrong_counts: u64,
    pub skipped: u64,
    pub puzzles_per_sec: u64,
    pub mean_ns: f64,
    pub p50_ns: u64,
    pub p90_ns: u64,
    pub p99_ns: u64,
    pub max_ns: u64,
    pub guesses_mean: Option<f64>,
    pub no_guess_pct: Option<f64>,
    /// The headline comparison ([`super::headline::comparison`]): the
    /// reference (the baseline of a paired run, else the fastest strategy),
    /// the basis (`paired geomean` or `ratio of means (unpaired)`), time /
    /// the reference's time with its 95 % interval (paired only), and the
    /// ratio in words. Empty for the reference itself and for a strategy
    /// with nothing to compare.
    pub compared_with: Option<String>,
    pub comparison: Option<String>,
    pub time_ratio: Option<f64>,
    pub time_ratio_ci_low: Option<f64>,
    pub time_ratio_ci_high: Option<f64>,
    pub verdict: Option<String>,
    /// Ratio of means: mean time / the fastest finished strategy's on the
    /// dataset (unpaired); empty when there is none.
    pub mean_ratio_vs_fastest: Option<f64>,
    /// The range of the per-pass ratios to the fastest (runs with repeats).
    pub mean_ratio_vs_fastest_min: Option<f64>,
    pub mean_ratio_vs_fastest_max: Option<f64>,
    /// The strategy left puzzles unfinished (stalled, gave up, failed, or
    /// answers rejected): its
    /// times are not comparable with the others'.
    pub unfinished: bool,
    /// Too short to time (summary.json's `too_short`): `puzzles_per_sec`
    /// and `wall_ns` are mostly start-up and scheduler noise.
    pub too_short: bool,
    pub p999_ns: u64,
    pub guesses_total: Option<u64>,
    pub guesses_max: Option<u64>,
    pub backtracks_mean: Option<f64>,
    pub backtracks_total: Option<u64>,
    pub backtracks_max: Option<u64>,
    pub max_depth_mean: Option<f64>,
    pub max_depth_max: Option<u64>,
    pub nodes_total: Option<u64>,
    pub naked_singles_total: Option<u64>,
    pub hidden_singles_total: Option<u64>,
    pub locked_eliminations_total: Option<u64>,
    pub subset_eliminations_total: Option<u64>,
    pub fish_eliminations_total: Option<u64>,
    pub wing_eliminations_total: Option<u64>,
    pub chain_eliminations_total: Option<u64>,
    pub threads: usize,
    pub wall_ns: u64,
    pub solve_ns_total: u64,
    pub repeat_spread_pct: f64,
    pub pass_solve_ns: String,
    pub complete: bool,
    pub counters: String,
    pub clock: String,
    pub paired_baseline: Option<String>,
    pub paired_pairs: Option<u64>,
    pub paired_geomean_ratio: Option<f64>,
    pub paired_ci_low: Option<f64>,
    pub paired_ci_high: Option<f64>,
    pub paired_level: Option<f64>,
    pub paired_median_ratio: Option<f64>,
    pub paired_wins: Option<u64>,
    pub paired_ties: Option<u64>,
    pub paired_losses: Option<u64>,
    pub paired_tie_pct: Option<f64>,
    pub paired_guesses_ratio: Option<f64>,
    pub paired_unpaired: Option<u64>,
    pub paired_answers_differ: Option<u64>,
    pub paired_counters_differ: Option<u64>,
    pub paired_method: Option<String>,
    /// Ratio of means: mean time / the baseline's mean time (unpaired).
    pub paired_mean_ratio: Option<f64>,
    /// Puzzles whose answer was rejected, each once (not in `solved`).
    pub rejected: u64,
    pub unstable_answers: u64,
    pub unstable_counters: u64,
    pub repeated: u64,
    pub repeat_far_faster: u64,
}

/// `x` rounded to `places` decimals (an exact decimal in the CSV text).
fn round(x: f64, places: i32) -> f64 {
    let f = 10f64.powi(places);
    (x * f).round() / f
}

impl SummaryRow {
    /// The row of `r`, one of `results` (its references are among them),
    /// filled a group of columns at a time.
    pub fn of(results: &[ResultRecord], r: &ResultRecord) -> Self {
        let mut row = Self::outcomes(r);
        row.set_comparison(results, r);
        row.set_effort(r);
        row.set_paired(results, r);
        row
    }

    /// The unit, its outcomes, its rate, times and guesses: the terminal
    /// table's columns up to the comparison (the others empty).
    fn outcomes(r: &ResultRecord) -> Self {
        let r4 = |x: f64| round(x, 4);
        SummaryRow {
            dataset: neutral(&r.dataset).into_owned(),
            strategy: neutral(&r.strategy).into_owned(),
            puzzles: r.puzzles,
            solved: r.solved,
            no_solution: r.no_solution,
            multiple: r.multiple,
            stalled: r.stalled,
            gave_up: r.gave_up,
            invalid: r.invalid,
            crashed: r.crashed,
            timeout: r.timeout,
            protocol_error: r.protocol_error,
            error: r.error,
            mismatches: r.mismatches,
            wrong_answers: r.wrong_answers,
            wrong_counts: r.wrong_counts,
            skipped: r.skipped,
            puzzles_per_sec: r.puzzles_per_sec.round() as u64,
            mean_ns: round(r.mean_ns, 1),
            p50_ns: r.p50_ns,
            p90_ns: r.p90_ns,
            p99_ns: r.p99_ns,
            max_ns: r.max_ns,
            guesses_mean: r.guesses_mean.map(r4),
            no_guess_pct: r.no_guess_pct.map(r4),
            ..Self::default()
        }
    }

    /// The headline comparison, the ratio of means to the fastest with its
    /// range, and whether the strategy left puzzles unfinished or was
    /// timed too briefly.
    fn set_comparison(&mut self, results: &[ResultRecord], r: &ResultRecord) {
        let fastest = super::terminal::fastest_mean(results, &r.dataset);
        let range = super::terminal::relative_range(results, r);
        let c = super::headline::comparison(results, r);
        let r4 = |x: f64| round(x, 4);
        self.compared_with = c.as_ref().map(|c| neutral(&c.vs).into_owned());
        self.comparison = c.as_ref().map(|c| c.basis.as_str().to_string());
        self.time_ratio = c.as_ref().map(|c| r4(c.ratio));
        self.time_ratio_ci_low = c.as_ref().and_then(|c| c.ci.map(|(lo, _)| r4(lo)));
        self.time_ratio_ci_high = c.as_ref().and_then(|c| c.ci.map(|(_, hi)| r4(hi)));
        self.verdict = c.as_ref().map(|c| c.words.clone());
        self.mean_ratio_vs_fastest = (r.puzzles > 0 && fastest.is_finite() && fastest > 0.0)
            .then(|| r4(r.mean_ns / fastest));
        self.mean_ratio_vs_fastest_min = range.map(|(lo, _)| r4(lo));
        self.mean_ratio_vs_fastest_max = range.map(|(_, hi)| r4(hi));
        self.unfinished = super::terminal::unfinished(r);
        self.too_short = r.short_timing();
    }

    /// The rest of `summary.json`'s results: the search counters, the wall
    /// and solve times, the passes, the counters and clock reported, and
    /// the answers rejected or unstable over the repeats.
    fn set_effort(&mut self, r: &ResultRecord) {
        let r4 = |x: f64| round(x, 4);
        let join = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(";");
        self.p999_ns = r.p999_ns;
        self.guesses_total = r.guesses_total;
        self.guesses_max = r.guesses_max;
        self.backtracks_mean = r.backtracks_mean.map(r4);
        self.backtracks_total = r.backtracks_total;
        self.backtracks_max = r.backtracks_max;
        self.max_depth_mean = r.max_depth_mean.map(r4);
        self.max_depth_max = r.max_depth_max;
        self.nodes_total = r.nodes_total;
        self.naked_singles_total = r.naked_singles_total;
        self.hidden_singles_total = r.hidden_singles_total;
        self.locked_eliminations_total = r.locked_eliminations_total;
        self.subset_eliminations_total = r.subset_eliminations_total;
        self.fish_eliminations_total = r.fish_eliminations_total;
        self.wing_eliminations_total = r.wing_eliminations_total;
        self.chain_eliminations_total = r.chain_eliminations_total;
        self.threads = r.threads;
        self.wall_ns = r.wall_ns;
        self.solve_ns_total = r.solve_ns_total;
        self.repeat_spread_pct = round(r.repeat_spread_pct, 2);
        self.pass_solve_ns = join(&r.pass_solve_ns);
        self.complete = r.complete;
        self.counters = r.counters.names().join(";");
        self.clock = r.clock.as_str().to_string();
        self.rejected = r.rejected;
        self.unstable_answers = r.unstable_answers;
        self.unstable_counters = r.unstable_counters;
        self.repeated = r.repeated;
        self.repeat_far_faster = r.repeat_far_faster;
    }

    /// The paired comparison with the baseline (empty for the baseline and
    /// in runs that were not interleaved) and the ratio of means to it.
    fn set_paired(&mut self, results: &[ResultRecord], r: &ResultRecord) {
        let p = r.paired.as_ref();
        let r4 = |x: f64| round(x, 4);
        self.paired_baseline = p.map(|p| neutral(&p.baseline).into_owned());
        self.paired_pairs = p.map(|p| p.pairs);
        self.paired_geomean_ratio = p.map(|p| r4(p.geomean_ratio));
        self.paired_ci_low = p.map(|p| r4(p.ci_low));
        self.paired_ci_high = p.map(|p| r4(p.ci_high));
        self.paired_level = p.map(|p| p.level);
        self.paired_median_ratio = p.map(|p| r4(p.median_ratio));
        self.paired_wins = p.map(|p| p.wins);
        self.paired_ties = p.map(|p| p.ties);
        self.paired_losses = p.map(|p| p.losses);
        self.paired_tie_pct = p.map(|p| p.tie_pct);
        self.paired_guesses_ratio = p.and_then(|p| p.guesses_ratio.map(r4));
        self.paired_unpaired = p.map(|p| p.unpaired);
        self.paired_answers_differ = p.map(|p| p.answers_differ);
        self.paired_counters_differ = p.map(|p| p.counters_differ);
        self.paired_method = p.map(|p| p.method.clone());
        self.paired_mean_ratio = super::headline::mean_ratio_to_baseline(results, r).map(r4);
    }
}

impl Exporter for SummaryCsv {
    fn name(&self) -> &'static str {
        "summary.csv"
    }
    fn render(&self, report: &Report) -> anyhow::Result<Vec<Output>> {
        let mut w = csv::Writer::from_writer(Vec::new());
        for r in &report.results {
            w.serialize(SummaryRow::of(&report.results, r))?;
        }
        if report.results.is_empty() {
            // The header alone: serde writes it with the first row.
            w.write_record(COLUMNS)?;
        }
        let bytes = w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?;
        Ok(vec![Output::new("summary.csv", bytes)])
    }
}

/// The column names, in order (the header row): the fields of
/// [`SummaryRow`] (a test keeps the two the same).
pub const COLUMNS: [&str; 82] = [
    "dataset",
    "strategy",
    "puzzles",
    "solved",
    "no_solution",
    "multiple",
    "stalled",
    "gave_up",
    "invalid",
    "crashed",
    "timeout",
    "protocol_error",
    "error",
    "mismatches",
    "wrong_answers",
    "wrong_counts",
    "skipped",
    "puzzles_per_sec",
    "mean_ns",
    "p50_ns",
    "p90_ns",
    "p99_ns",
    "max_ns",
    "guesses_mean",
    "no_guess_pct",
    "compared_with",
    "comparison",
    "time_ratio",
    "time_ratio_ci_low",
    "time_ratio_ci_high",
    "verdict",
    "mean_ratio_vs_fastest",
    "mean_ratio_vs_fastest_min",
    "mean_ratio_vs_fastest_max",
    "unfinished",
    "too_short",
    "p999_ns",
    "guesses_total",
    "guesses_max",
    "backtracks_mean",
    "backtracks_total",
    "backtracks_max",
    "max_depth_mean",
    "max_depth_max",
    "nodes_total",
    "naked_singles_total",
    "hidden_singles_total",
    "locked_eliminations_total",
    "subset_eliminations_total",
    "fish_eliminations_total",
    "wing_eliminations_total",
    "chain_eliminations_total",
    "threads",
    "wall_ns",
    "solve_ns_total",
    "repeat_spread_pct",
    "pass_solve_ns",
    "complete",
    "counters",
    "clock",
    "paired_baseline",
    "paired_pairs",
    "paired_geomean_ratio",
    "paired_ci_low",
    "paired_ci_high",
    "paired_level",
    "paired_median_ratio",
    "paired_wins",
    "paired_ties",
    "paired_losses",
    "paired_tie_pct",
    "paired_guesses_ratio",
    "paired_unpaired",
    "paired_answers_differ",
    "paired_counters_differ",
    "paired_method",
    "paired_mean_ratio",
    "rejected",
    "unstable_answers",
    "unstable_counters",
    "repeated",
    "repeat_far_faster",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_the_rows_fields_in_the_terminal_tables_order() {
        let r: ResultRecord = serde_json::from_str(
            &std::fs::read_to_string(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/results/run/summary.json"
            ))
            .unwrap(),
        )
        .map(|v: serde_json::Value| serde_json::from_value(v["results"][0].clone()).unwrap())
        .unwrap();
        let mut w = csv::Writer::from_writer(Vec::new());
        w.serialize(SummaryRow::of(std::slice::from_ref(&r), &r))
            .unwrap();
        let text = String::from_utf8(w.into_inner().unwrap()).unwrap();
        assert_eq!(text.lines().next().unwrap(), COLUMNS.join(","));
        // The terminal table's columns lead, in its order.
        let lead: Vec<&str> = super::super::terminal::COLUMNS
            .iter()
            .map(|c| match *c {
                "puzzles/s" => "puzzles_per_sec",
                "mean" => "mean_ns",
                "p50" => "p50_ns",
                "p90" => "p90_ns",
                "p99" => "p99_ns",
                "max" => "max_ns",
                "guesses/puzzle" => "guesses_mean",
                "no-guess" => "no_guess_pct",
                other => other,
            })
            .filter(|c| *c != "other")
            .collect();
        let positions: Vec<usize> = lead
            .iter()
            .map(|c| {
                COLUMNS
                    .iter()
                    .position(|k| k == c)
                    .unwrap_or_else(|| panic!("{c}"))
            })
            .collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");
    }
}
