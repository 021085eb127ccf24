//! Verification: every answer checked against the rules, the givens, the
//! dataset's solution and (for external solvers) bench-sudoku's count,
//! off the timed region.

use super::*;

/// Verifies every answer of a chunk (in solve order), appending the
/// outcomes to `out`. With `count_check` (external solvers), each count is
/// also checked against the built-in `fast` engine's, outside the timed
/// region.
pub(super) fn verify(
    records: &[Record],
    chunk: &Chunk,
    count_check: Option<&Limits>,
    out: &mut Vec<PuzzleOutcome>,
) {
    const PLAIN: Extra = Extra {
        note: None,
        unwritten: false,
    };
    let results = records.iter().zip(&chunk.solved);
    if chunk.extra.is_empty() {
        // A built-in engine: nothing beyond the results.
        out.extend(results.map(|(rec, s)| outcome(rec, s, &PLAIN, count_check)));
    } else {
        out.extend(
            results
                .zip(&chunk.extra)
                .map(|((rec, s), x)| outcome(rec, s, x, count_check)),
        );
    }
}

/// Verifies a result and turns it into the aggregator's record. Inlined
/// into [`verify`]'s loop, so that the record is built in place. The answer
/// to an isomorph (`run --transform`) is mapped back and checked against
/// the puzzle and solution as read.
#[inline(always)]
pub(super) fn outcome(
    rec: &Record,
    s: &Solved,
    x: &Extra,
    count_check: Option<&Limits>,
) -> PuzzleOutcome {
    match rec.transformed() {
        None => outcome_of(rec, s, x, count_check),
        Some(t) => {
            let back = Solved {
                result: SolveResult {
                    grid: t.invert(&s.result.grid),
                    ..s.result
                },
                ..*s
            };
            outcome_of(&rec.original(), &back, x, count_check)
        }
    }
}

#[inline(always)]
fn outcome_of(rec: &Record, s: &Solved, x: &Extra, count_check: Option<&Limits>) -> PuzzleOutcome {
    let r = &s.result;
    if r.status.is_fault() {
        return PuzzleOutcome {
            index: rec.index,
            line: rec.line,
            status: r.status,
            solutions: 0,
            time_ns: 0,
            counters: r.counters,
            givens: rec.puzzle.givens() as u8,
            matches_solution: None,
            wrong: None,
            wrong_count: None,
            fault: x.note.clone(),
            repeats: Repeats::default(),
            unverified: false,
        };
    }
    let wrong = match (&x.note, r.solution()) {
        (Some(note), _) => Some(note.to_string()),
        (None, _) if x.unwritten => None,
        (None, Some(g)) if !g.is_solution_of(&rec.puzzle) => Some(
            g.check_solution_of(&rec.puzzle)
                .err()
                .map_or_else(|| "invalid grid".to_string(), |e| e.to_string()),
        ),
        // A pencilmark puzzle: every cell must hold one of its candidates.
        (None, Some(g)) => rec.candidates().and_then(|c| {
            crate::grid::pencilmark::violation(g, c).map(|(cell, d)| {
                format!(
                    "{}={d} is not among the cell's candidates",
                    crate::grid::cell_name(cell)
                )
            })
        }),
        _ => None,
    };
    let matches_solution = match (&rec.solution, r.status) {
        _ if x.unwritten => None,
        (Some(expected), Status::Solved | Status::Multiple) if r.grid != *expected => {
            // A valid solution other than the dataset's (which was checked
            // to solve the puzzle when read) proves that the puzzle has
            // several: the answer is right, there is just nothing to
            // compare it with.
            if wrong.is_none() {
                None
            } else {
                Some(false)
            }
        }
        (Some(_), Status::Solved | Status::Multiple) => Some(true),
        (Some(_), Status::NoSolution | Status::Invalid) => Some(false),
        _ => None,
    };
    let wrong_count = count_check.and_then(|limits| {
        let proven = wrong.is_none() && !x.unwritten;
        SOLVER.with(|solver| {
            solver
                .borrow_mut()
                .count_disagrees(&rec.puzzle, r, limits, proven)
        })
    });
    PuzzleOutcome {
        index: rec.index,
        line: rec.line,
        status: r.status,
        solutions: r.solutions,
        time_ns: s.time_ns,
        counters: r.counters,
        givens: rec.puzzle.givens() as u8,
        matches_solution,
        wrong,
        wrong_count,
        fault: None,
        repeats: repeats(s),
        unverified: x.unwritten,
    }
}

/// What a puzzle's later passes showed beside its first.
#[inline(always)]
fn repeats(s: &Solved) -> Repeats {
    let repeated = s.later_ns != u64::MAX && s.first_ns != u64::MAX;
    Repeats {
        answer_changed: if s.changed.answer { s.changed.pass } else { 0 },
        counters_changed: if s.changed.answer { 0 } else { s.changed.pass },
        repeated,
        far_faster: repeated
            && s.first_ns > 0
            && s.later_ns.saturating_mul(CACHE_FACTOR) <= s.first_ns,
        remeasured: s.remeasured,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_outside_a_pencilmark_puzzles_candidates_is_wrong() {
        let solution = Grid::parse(
            "534678912672195348198342567859761423426853791713924856961537284287419635345286179",
        )
        .unwrap();
        let mut puzzle = solution;
        puzzle.set(0, 0);
        puzzle.set(1, 0);
        // r1c1 may only be 3 or 4 (its digit is 5): the rules alone accept
        // the answer, the candidates do not.
        let mut cands = [0x1ffu16; 81];
        cands[0] = 0b1100;
        let pencil = |cands| {
            Record::plain(0, 1, puzzle).with_more(crate::dataset::More {
                candidates: Some(cands),
                ..Default::default()
            })
        };
        let rec = pencil(cands);
        let solved = Solved::first(
            SolveResult {
                status: Status::Solved,
                solutions: 1,
                grid: solution,
                counters: Default::default(),
                filled: 2,
                conflict: None,
            },
            1,
            true,
        );
        let plain = Extra::default();
        let o = outcome(&rec, &solved, &plain, None);
        assert_eq!(
            o.wrong.as_deref(),
            Some("r1c1=5 is not among the cell's candidates")
        );
        // Within the candidates: right.
        let ok = pencil([0x1ff; 81]);
        assert_eq!(outcome(&ok, &solved, &plain, None).wrong, None);
    }
}
