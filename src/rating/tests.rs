use super::*;

const EASY: &str =
    "530070000600195000098000060800060003400803001700020006060000280000419005000080079";

fn rated(p: &str) -> Rating {
    match rate(&Grid::parse(p).unwrap()).unwrap() {
        Outcome::Rated(r) => r,
        other => panic!("{p}: {other:?}"),
    }
}

#[test]
fn an_easy_puzzle_needs_singles_only() {
    let r = rated(EASY);
    assert_eq!(r.class, Class::Easy);
    assert!(r.value <= Value(15));
    for t in Technique::ALL {
        if t > Technique::NakedSingle {
            assert_eq!(r.steps_of(t), 0, "{t:?}");
        }
    }
    assert_eq!(r.total_steps(), 81 - 30);
}

#[test]
fn puzzles_without_one_solution_are_not_rated() {
    let empty = Grid::empty();
    assert_eq!(rate(&empty).unwrap(), Outcome::Unrated(Status::Multiple));
    let mut cells = [0u8; 81];
    cells[0] = 1;
    cells[1] = 1;
    let bad = Grid::from_cells(cells).unwrap();
    assert_eq!(rate(&bad).unwrap(), Outcome::Unrated(Status::Invalid));
}

#[test]
fn a_wrong_oracle_is_caught() {
    let p = Grid::parse(EASY).unwrap();
    let Outcome::Rated(r) = rate(&p).unwrap() else {
        panic!()
    };
    // Swap two digits of the solution: the first placement of either is
    // then reported as unsound.
    let mut cells = *r.solution.cells();
    for v in cells.iter_mut() {
        *v = match *v {
            1 => 2,
            2 => 1,
            x => x,
        };
    }
    let wrong = Grid::from_cells(cells).unwrap();
    let e = grade(&p, None, &mut Solution(wrong), Depth::Guess).unwrap_err();
    assert!(e.to_string().starts_with("unsound"), "{e}");
}

#[test]
fn columns_and_fields_line_up() {
    let r = Ok(Outcome::Rated(rated(EASY)));
    assert_eq!(columns().len(), fields(&r).len());
    assert_eq!(fields(&r)[3], "rated");
    let u = Ok(Outcome::Unrated(Status::Multiple));
    assert_eq!(columns().len(), fields(&u).len());
    assert_eq!(fields(&u)[3], "multiple");
    let bug = Err(Unsound {
        technique: Technique::XWing,
        cell: 0,
        digit: 1,
    });
    assert_eq!(fields(&bug)[3], "unsound");
    assert_eq!(fields(&bug)[0], "");
}

/// For each technique of the ladder (but the hidden quad, which a naked
/// subset of four or fewer cells shows first in all but full units), a
/// puzzle of datasets/hard.csv whose solution path uses it, with that
/// puzzle's rating and hardest technique.
const USES: [(&str, &str, &str, &str); 19] = [
    (
        "full_house",
        "005000080800501097700800200000020000006740800240006105509000000630008500070000000",
        "6.6",
        "aic",
    ),
    (
        "hidden_single_box",
        "000070002090008000082405001100697008078030090209000600030006010000003005500700240",
        "1.2",
        "hidden_single_box",
    ),
    (
        "hidden_single_line",
        "000520000730089060000000780000208000067040200302070150203000800908000327600000500",
        "1.5",
        "hidden_single_line",
    ),
    (
        "naked_single",
        "004001053500400800008360000000010900000204100000690005200003780001806039403000001",
        "2.0",
        "naked_single",
    ),
    (
        "pointing",
        "000000030030000680000506910078090500400207000000000004209080300000000006064070000",
        "2.5",
        "pointing",
    ),
    (
        "claiming",
        "000900007000008060008400529061000050020080000370500000000700000010050093405009000",
        "2.6",
        "claiming",
    ),
    (
        "naked_pair",
        "000008500400070260009050700007300000090015000300089000234000000000000100001004802",
        "3.0",
        "naked_pair",
    ),
    (
        "x_wing",
        "204000100080006030300001050000000900000100006002070010100050004000807000005000078",
        "3.2",
        "x_wing",
    ),
    (
        "hidden_pair",
        "100360000060000040000008320300000500080700060407030900590042000000900400000070000",
        "3.4",
        "hidden_pair",
    ),
    (
        "naked_triple",
        "050000007007009000209000003000080109090005000400100820300000060040008300002016400",
        "3.6",
        "naked_triple",
    ),
    (
        "swordfish",
        "000900040000863000002005800020090000000000400904320600003000000750401900006000010",
        "6.1",
        "xy_chain",
    ),
    (
        "hidden_triple",
        "004073900000800000060000023010600000095004000000902001000500006500020700009400100",
        "4.0",
        "hidden_triple",
    ),
    (
        "xy_wing",
        "700009016090000005000004000004380020000000000900407300060010073020000850000000000",
        "4.2",
        "xy_wing",
    ),
    (
        "xyz_wing",
        "600000042400060005050007000000000807000800060702300000001003050837005000005200700",
        "4.4",
        "xyz_wing",
    ),
    (
        "naked_quad",
        "000002600000060005000100070510900040480000000000005200003650000000079008020000504",
        "4.8",
        "naked_quad",
    ),
    (
        "jellyfish",
        "917300000800024000020000000004600095300000706000000080000900000000005007006700403",
        "6.7",
        "aic",
    ),
    (
        "x_chain",
        "940300208073020400000004000000000000010800700080432000700000800000073501090001070",
        "5.6",
        "x_chain",
    ),
    (
        "xy_chain",
        "070359060050040007030000040769000130300000000081900700000008005000190000006005010",
        "6.2",
        "xy_chain",
    ),
    (
        "aic",
        "005000080800501097700800200000020000006740800240006105509000000630008500070000000",
        "6.6",
        "aic",
    ),
];

#[test]
fn every_rung_of_the_ladder_is_used_soundly_on_a_generated_puzzle() {
    for (t, p, value, hardest) in USES {
        let r = rated(p);
        let t = Technique::parse(t).unwrap();
        assert!(r.steps_of(t) > 0, "{t:?} not used on {p}");
        assert_eq!(r.value.to_string(), value, "{p}");
        assert_eq!(r.hardest.name(), hardest, "{p}");
        assert!(!r.beyond_ladder());
        assert_eq!(r.class, Class::of(r.value));
    }
}

#[test]
fn beyond_the_ladder_trials_then_nested_trials() {
    // Stalls the ladder; one round of trials finishes it.
    let r =
        rated("090007050004030008805200040000800400001050030700000000000900000100500020200008600");
    assert_eq!(
        (r.hardest, r.value, r.class),
        (Technique::Trial, Value(75), Class::Diabolical)
    );
    assert!(r.beyond_ladder());
    // Needs trials inside trials.
    let r =
        rated("800000000070090200003600000050007000000045700000100030001000068008500010090000400");
    assert_eq!(r.hardest, Technique::NestedTrial);
    assert_eq!(r.class, Class::Extreme);
    assert!(r.steps_of(Technique::NestedTrial) > 0 && r.steps_of(Technique::Guess) == 0);
}

#[test]
fn ratings_are_sound_and_repeat_on_generated_puzzles() {
    use crate::generate::{generate_vec, GenConfig};
    // Minimal puzzles, and puzzles needing guesses under `hidden`.
    for (seed, min_guesses) in [(11, 0), (12, 8)] {
        let cfg = GenConfig {
            count: 12,
            seed,
            min_guesses,
            threads: 1,
            ..GenConfig::default()
        };
        let mut rater = Rater::new();
        for p in generate_vec(&cfg).unwrap() {
            // Every removal is checked against the solution inside.
            let a = rater.rate(&p.puzzle, None).unwrap();
            let b = rater.rate(&p.puzzle, None).unwrap();
            assert_eq!(a, b);
            let Outcome::Rated(r) = a else {
                panic!("{:?}", p.puzzle)
            };
            assert_eq!(r.solution, p.solution);
        }
    }
}

#[test]
fn puzzles_with_several_solutions_are_checked_against_all_of_them() {
    // A minimal puzzle less one clue has several solutions; the ladder and
    // the trials remove only what no solution has.
    let p = Grid::parse(USES[6].1).unwrap();
    let mut cells = *p.cells();
    let first = cells.iter().position(|&v| v != 0).unwrap();
    cells[first] = 0;
    let loose = Grid::from_cells(cells).unwrap();
    assert_eq!(rate(&loose).unwrap(), Outcome::Unrated(Status::Multiple));
    let mut solver = Solver::new();
    let mut oracle = Solutions::new(&loose, None, &mut solver);
    let g = grade(&loose, None, &mut oracle, Depth::Nested)
        .unwrap()
        .unwrap();
    assert!(!g.solved);
    // An oracle that knows only one of the solutions would fault a sound
    // removal sooner or later; this one never does, and a wrong one is
    // caught: claim a digit no solution has.
    let mut solver = Solver::new();
    let mut oracle = Solutions::new(&p, None, &mut solver);
    let c = (0..81).find(|&c| p.get(c) == 0).unwrap();
    let wrong = (1..=9u8)
        .find(|&d| d != rated(USES[6].1).solution.get(c))
        .unwrap();
    assert_eq!(oracle.contradicts(c, 1 << (wrong - 1)), None);
    let right = rated(USES[6].1).solution.get(c);
    assert_eq!(oracle.contradicts(c, 1 << (right - 1)), Some(right));
}
