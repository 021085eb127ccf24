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
