//! `Grid::parse_bytes` on arbitrary bytes: never panics; when it accepts the
//! input, the 81 cells round-trip through `to_line` (and `to_line_zeros`).
#![no_main]

use bench_sudoku::Grid;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(grid) = Grid::parse_bytes(data) else {
        return;
    };
    let line = grid.to_line();
    assert_eq!(line.len(), 81);
    let again = Grid::parse(&line).expect("to_line output parses");
    assert_eq!(again, grid);
    let zeros = grid.to_line_zeros();
    assert_eq!(
        Grid::parse(&zeros).expect("to_line_zeros output parses"),
        grid
    );
    // The accepted input, trimmed, holds exactly the 81 cells in order.
    let trimmed = data.trim_ascii();
    assert_eq!(trimmed.len(), 81);
    for (i, &b) in trimmed.iter().enumerate() {
        let want = if b == b'.' { 0 } else { b - b'0' };
        assert_eq!(grid.get(i), want, "cell {i}");
    }
});
