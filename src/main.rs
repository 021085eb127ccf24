fn main() {
    std::process::exit(bench_sudoku::cli::main());
}
