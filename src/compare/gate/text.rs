//! The gate's verdict as a person and a machine read it: the terminal's
//! table and lines, `gate.md` (also for `--gate-summary`), and the record
//! in `summary.json`. Each says, per dataset, the smallest change the run
//! could have detected (the interval's half-width).

use super::*;
use crate::results::gate::{BudgetRecord, DatasetVerdict, GateRecord, RoundRecord};
use std::fmt::Write as _;

const HEADER: [&str; 8] = [
    "dataset",
    "pairs",
    "geomean ratio [95% CI]",
    "detectable",
    "median ratio",
    "wins/ties/losses",
    "guesses ratio",
    "verdict",
];

impl Verdict {
    fn headline(&self) -> String {
        let g = &self.gate;
        let mut s = format!(
            "{}: {} vs {} on {} datasets, {} failed, {} not judged, {} undecided{}, {} unchanged, {} improved (threshold ±{}%{})",
            self.word(),
            g.candidate,
            g.base,
            self.rows.len(),
            self.failed(),
            self.not_judged(),
            self.undecided(),
            if g.undecided_passes && self.undecided() > 0 {
                " (passing: --undecided pass)"
            } else {
                ""
            },
            self.count(Decision::Unchanged),
            self.count(Decision::Improved),
            g.threshold,
            if g.fail_on_counters {
                ", counter changes fail"
            } else {
                ""
            }
        );
        if self.incomplete {
            s.push_str("; the run did not complete, so it is not judged");
        }
        s
    }

    /// The table's header: a confidence sequence (CS) with a budget.
    fn header(&self) -> Vec<String> {
        let mut h: Vec<String> = HEADER.iter().map(|s| s.to_string()).collect();
        if self.budget.is_some() {
            h[2] = "geomean ratio [95% CS]".into();
        }
        h
    }

    fn cells(&self) -> Vec<Vec<String>> {
        let mut out = vec![self.header()];
        for r in &self.rows {
            let p = r.paired.as_ref();
            let (ratio, detectable, pairs) = match (&r.estimate, p) {
                (Some(e), _) => (
                    e.text(),
                    format!("±{:.2}%", e.resolution_pct()),
                    e.pairs.to_string(),
                ),
                (None, Some(p)) => (p.ratio_text(), "-".into(), p.pairs.to_string()),
                (None, None) => ("-".into(), "-".into(), "-".into()),
            };
            let first = |f: &dyn Fn(&Paired) -> String| p.map_or("-".to_string(), f);
            out.push(vec![
                r.dataset.clone(),
                pairs,
                ratio,
                detectable,
                first(&|p| p.median_text()),
                first(&|p| format!("{}/{}/{}", p.wins, p.ties, p.losses)),
                first(&|p| {
                    p.guesses_text()
                        .unwrap_or_else(|| crate::report::terminal::ABSENT.to_string())
                }),
                self.cell_verdict(r),
            ]);
        }
        out
    }

    fn cell_verdict(&self, r: &GateRow) -> String {
        if r.failed() {
            format!("FAIL ({})", r.time)
        } else if r.unjudged() {
            "not judged".to_string()
        } else if r.undecided() && !self.gate.undecided_passes {
            "UNDECIDED".to_string()
        } else {
            format!("pass ({})", r.time)
        }
    }

    /// How the verdict is reached, in one paragraph.
    pub fn method(&self) -> String {
        let interval = match &self.budget {
            None => "geometric mean with a seeded 95% bootstrap interval (whole chunks resampled; one look at \
                     the run's one measurement)"
                .to_string(),
            Some(_) => "geometric mean with a 95% confidence sequence over the chunks of every round (an interval \
                        that holds at every round at once, so that the gate may stop at the first decision: \
                        docs/MEASUREMENT.md §5); median, wins/ties/losses and guesses ratio are the first round's"
                .to_string(),
        };
        let t = self.gate.threshold;
        format!(
            "Paired, in one process: {}. Ratio = {} time / {} time per puzzle; {interval}; wins/ties/losses are the \
             candidate's (a tie is within ±1%); detectable = the interval's half-width, the smallest change the run \
             could tell from none. Time: regressed (fails) when the whole interval lies above +{t}%, improved when \
             below −{t}%, unchanged when within ±{t}%, undecided otherwise ({}). Every dataset goes through \
             bench-sudoku's one judge (docs/RELIABILITY.md), each reason named by its rule: it fails when either \
             side has a rejected answer, a fault, an answer with no solution written or a clock that claims more \
             than the harness measured, when the candidate gave up on more puzzles or solved fewer, when the two \
             sides' answers differ{}. Its time is not judged (exit 2 unless something failed) when the interval \
             rests on fewer than {MIN_BLOCKS} chunks, when either side solved no puzzle, may cache answers or \
             has a clock that claims almost nothing, when the sides are timed by different clocks, or when two \
             self-timed sides leave different time unclaimed.",
            crate::bench::paired::METHOD,
            self.gate.candidate,
            self.gate.base,
            if self.gate.undecided_passes {
                "passing: --undecided pass"
            } else {
                "exit 3 unless something failed or was not judged"
            },
            if self.gate.fail_on_counters {
                ", or when a search counter differs"
            } else {
                " (counter changes are reported, not failed; --fail-on counters fails them)"
            },
        )
    }

    /// The rounds of a budgeted run, in one line.
    fn budget_line(&self) -> Option<String> {
        let b = self.budget.as_ref()?;
        let passes = match b.later_passes {
            Some(p) if b.rounds > 1 => format!(
                "; rounds after the first: {} measured {}, {} (a slow solver)",
                p.repeat,
                if p.repeat == 1 { "pass" } else { "passes" },
                match p.warmup {
                    0 => "no warm-up".to_string(),
                    w => format!("{w} warm-up"),
                }
            ),
            _ => String::new(),
        };
        Some(format!(
            "rounds: {} ({}{passes}) in {} of a {} budget, the longest {}; {}",
            b.rounds,
            if b.isomorphs {
                "new isomorphs each round"
            } else {
                "the same puzzles each round"
            },
            seconds(b.elapsed),
            humantime::format_duration(b.budget),
            seconds(b.longest_round),
            match b.end {
                "decided" => "stopped: every dataset decided".to_string(),
                "budget spent" =>
                    "stopped: another round would not end within the budget".to_string(),
                other => format!("stopped: {other}"),
            }
        ))
    }

    /// Aligned text for the terminal (every cell and line
    /// [`printable`](crate::support::text::printable)).
    pub fn terminal(&self) -> String {
        let cells = self.cells();
        let header: Vec<&str> = cells[0].iter().map(String::as_str).collect();
        let rows: Vec<Vec<String>> = cells[1..].to_vec();
        let all_left: Vec<usize> = (0..header.len()).collect();
        let mut out = String::from("gate:\n");
        out.push_str(&crate::report::terminal::text_table(
            &header, &rows, &all_left,
        ));
        self.reasons(&mut out, "");
        if let Some(line) = self.budget_line() {
            let _ = writeln!(out, "{line}");
        }
        let _ = writeln!(out, "{}", self.method());
        let _ = writeln!(out, "{}", self.headline());
        crate::support::text::printable_lines(&out).into_owned()
    }

    fn reasons(&self, out: &mut String, bullet: &str) {
        for r in &self.rows {
            for f in r.lines(Weight::Fail) {
                let _ = writeln!(out, "{bullet}{}: FAIL: {f}", r.dataset);
            }
            for u in r.lines(Weight::Unjudged) {
                let _ = writeln!(out, "{bullet}{}: not judged: {u}", r.dataset);
            }
            let said = r.time == Decision::Regressed.as_str();
            if let (Some(e), false) = (&r.estimate, said) {
                let _ = writeln!(
                    out,
                    "{bullet}{}: {}: {}; the smallest change this run could detect: ±{:.2}%{}",
                    r.dataset,
                    r.time,
                    e.text(),
                    e.resolution_pct(),
                    if r.undecided() {
                        format!(
                            " (the interval is neither wholly beyond ±{}% nor wholly within it: more \
                             puzzles, or a longer --budget, narrow it)",
                            self.gate.threshold
                        )
                    } else {
                        String::new()
                    }
                );
            }
            for n in r.lines(Weight::Note) {
                let _ = writeln!(out, "{bullet}{}: note: {n}", r.dataset);
            }
        }
    }

    /// GitHub-flavoured Markdown (for a CI job summary).
    pub fn markdown(&self) -> String {
        let esc = crate::support::text::md_cell;
        let mut out = format!(
            "### bench-sudoku gate: {} vs {}\n\n",
            esc(&self.gate.candidate),
            esc(&self.gate.base)
        );
        for (i, row) in self.cells().iter().enumerate() {
            let cells: Vec<String> = row.iter().map(|c| esc(c)).collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
            if i == 0 {
                let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---|");
            }
        }
        out.push('\n');
        let mut reasons = String::new();
        self.reasons(&mut reasons, "- ");
        if let Some(line) = self.budget_line() {
            let _ = writeln!(reasons, "- {line}");
        }
        if !reasons.is_empty() {
            out.push_str(&esc_lines(&reasons));
            out.push('\n');
        }
        let _ = writeln!(out, "{}\n", self.method());
        let _ = writeln!(out, "**{}**", self.headline());
        out
    }

    /// The verdict as `summary.json` holds it (`budgeted`: the rounds'
    /// evidence behind [`Verdict::budget`], for each dataset's rounds).
    pub fn record(&self, budgeted: Option<&Budgeted>) -> GateRecord {
        let g = &self.gate;
        GateRecord {
            base: g.base.clone(),
            candidate: g.candidate.clone(),
            threshold_pct: g.threshold,
            fail_on_counters: g.fail_on_counters,
            undecided: if g.undecided_passes { "pass" } else { "fail" }.into(),
            verdict: self.word().into(),
            exit_code: self.exit_code(),
            interval: if self.budget.is_some() {
                "confidence sequence"
            } else {
                "bootstrap"
            }
            .into(),
            budget: self.budget.as_ref().map(|b| BudgetRecord {
                budget_s: b.budget.as_secs_f64(),
                rounds: b.rounds,
                elapsed_s: b.elapsed.as_secs_f64(),
                longest_round_s: b.longest_round.as_secs_f64(),
                ended: b.end.into(),
                isomorphs: b.isomorphs,
                later_repeat: b.later_passes.map(|p| p.repeat),
                later_warmup: b.later_passes.map(|p| p.warmup),
            }),
            datasets: self
                .rows
                .iter()
                .map(|r| dataset_record(r, budgeted.and_then(|b| b.evidence(&r.dataset))))
                .collect(),
        }
    }
}

fn dataset_record(r: &GateRow, evidence: Option<&Evidence>) -> DatasetVerdict {
    let e = r.estimate.as_ref();
    let p = r.paired.as_ref();
    DatasetVerdict {
        dataset: r.dataset.clone(),
        time: r.time.into(),
        failed: r.failed(),
        ratio: e.map(|e| e.ratio),
        ci_low: e.map(|e| e.low),
        ci_high: e.map(|e| e.high),
        level: e.map(|e| e.level),
        half_width_pct: e.map(Estimate::resolution_pct),
        pairs: e.map_or(p.map_or(0, |p| p.pairs), |e| e.pairs),
        chunks: e.map_or(p.map_or(0, |p| p.blocks.0), |e| e.chunks),
        rounds: evidence.map_or(1, |ev| ev.rounds().0),
        failures: r.lines(Weight::Fail),
        unjudged: r.lines(Weight::Unjudged),
        notes: r.lines(Weight::Note),
        reasons: r
            .findings
            .0
            .iter()
            .map(crate::results::gate::Reason::of)
            .collect(),
        round_list: evidence.map_or_else(Vec::new, |ev| {
            ev.round_facts
                .iter()
                .map(|f| RoundRecord {
                    round: f.round,
                    transform: f.transform,
                    pairs: f.pairs,
                    chunks: f.chunks,
                    ratio: f.ratio,
                    seconds: f.seconds,
                })
                .collect()
        }),
    }
}

/// `57.3 s`, or `420 ms` below a second.
fn seconds(d: std::time::Duration) -> String {
    if d.as_secs_f64() < 1.0 {
        format!("{} ms", d.as_millis())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

fn esc_lines(s: &str) -> String {
    s.lines()
        .map(crate::support::text::md_cell)
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}
