/*
 * bench_sudoku.h: the C interfaces through which bench-sudoku loads a solver
 * from a shared library (`bench-sudoku run -s 'lib=PATH,...'`).
 *
 * Two interfaces are accepted.
 *
 * 1. The tdoku signature (`-s 'lib=PATH,symbol=NAME'`, the default symbol is
 *    `solve`): one plain function, the one tdoku's run_benchmark compiles its
 *    solvers behind.
 *
 *        size_t NAME(const char *puzzle, size_t limit, uint32_t configuration,
 *                    char *solution, size_t *num_guesses);
 *
 *    It reports the number of solutions and the guess count, nothing else.
 *    The harness may call it from several threads at once; a function that
 *    keeps mutable global state must be run with `reentrant=no` (calls are
 *    then serialised) or `isolate=yes` (one child process per thread).
 *
 * 2. The bench-sudoku interface, version BENCH_SUDOKU_ABI_VERSION
 *    (`-s 'lib=PATH,solver=NAME'`): the library exports one function,
 *    `bench_sudoku_solvers`, listing the solvers it holds. Each solver has a
 *    per-thread state (create / solve / destroy), so a solver whose scratch
 *    memory lives in its state runs on every core without locks, and it can
 *    report backtracks, maximum depth, nodes and single counts, and whether
 *    it stopped early.
 *
 * Both interfaces share these rules:
 *
 *  - `puzzle` points to 81 cell characters, row by row: '1'-'9' for a given,
 *    '.' for a blank, followed by a NUL byte. The harness never passes
 *    anything else (a puzzle file that uses '0' for blanks is converted).
 *  - `limit` (at least 1, never 0) is the number of solutions after which
 *    the solver stops counting: 1 asks for the first solution, 2 also proves
 *    uniqueness.
 *  - `configuration` (tdoku's signature) and the `configuration` of
 *    `create` are the spec's `config=N`, 0 when the spec has none.
 *  - The return value is the number of solutions found, at most `limit`.
 *    Givens that already break a rule have no solution: return 0.
 *  - When it is at least 1, `solution` (81 writable bytes) must hold the
 *    first solution found: 81 characters '1'-'9'. The harness writes no
 *    terminator there and reads no more than 81 bytes. Through the tdoku
 *    signature a solver may leave `solution` unwritten when `limit` is
 *    above 1 (tdoku's own solvers do): the harness then checks the count
 *    only. With `limit` 1, and always through the bench-sudoku interface,
 *    a missing solution is a wrong answer. When the return value is 0 the
 *    harness ignores `solution`.
 *  - `num_guesses` (tdoku's signature) always points to a writable count.
 *  - Nothing the solver says is trusted: every solution is checked against
 *    the rules and the givens (and against the dataset's solution when it
 *    has one), and the count against bench-sudoku's own engine. A wrong grid
 *    or a wrong count is reported as such and makes the run exit 1.
 *  - The harness times each call with its own monotonic clock, around the
 *    call only (formatting the puzzle and reading the solution are outside).
 *  - The harness loads the library with RTLD_LOCAL: its symbols do not
 *    replace those of other libraries. Call your own functions through
 *    static (internal) names all the same: a library that calls its own
 *    exported `solve` may reach another library's `solve`.
 *
 * The counters mean what bench-sudoku's own engines count, so that tables
 * compare like with like:
 *  - guesses: every value tried at a cell that had two or more candidates,
 *    the last one tried included;
 *  - backtracks: guesses undone because their subtree was exhausted (a dead
 *    end, or all its solutions counted); a guess still open when the search
 *    stops at `limit` or at the budget is not undone, so after a complete
 *    search backtracks equal guesses;
 *  - max_depth: the deepest nesting of guesses (the root is 0, the first
 *    guess 1);
 *  - nodes: the root plus one per value placed by the search (guessed, or
 *    forced when the solver does no propagation);
 *  - naked_singles / hidden_singles: cells placed by each rule.
 */
#ifndef BENCH_SUDOKU_H
#define BENCH_SUDOKU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the bench-sudoku interface this header describes. A
 * library states the version it was built against in every descriptor;
 * the harness refuses a descriptor whose version it does not know. */
#define BENCH_SUDOKU_ABI_VERSION 1u

/* The tdoku signature, for declaring or casting function pointers. */
typedef size_t (*bench_sudoku_tdoku_fn)(const char *puzzle, size_t limit,
                                        uint32_t configuration,
                                        char *solution, size_t *num_guesses);

/* Bits of `bench_sudoku_solver.reports`: the counters a solver fills in.
 * A counter whose bit is clear is shown as absent ("—", null), never as 0. */
#define BENCH_SUDOKU_GUESSES        (1u << 0) /* values tried at cells with two or more candidates */
#define BENCH_SUDOKU_BACKTRACKS     (1u << 1) /* guesses undone */
#define BENCH_SUDOKU_MAX_DEPTH      (1u << 2) /* deepest nesting of guesses */
#define BENCH_SUDOKU_NODES          (1u << 3) /* search nodes */
#define BENCH_SUDOKU_NAKED_SINGLES  (1u << 4) /* cells placed as naked singles */
#define BENCH_SUDOKU_HIDDEN_SINGLES (1u << 5) /* cells placed as hidden singles */

/* Values of `bench_sudoku_stats.stopped`. */
#define BENCH_SUDOKU_COMPLETE 0u /* the search ran to its end or to `limit` */
#define BENCH_SUDOKU_GAVE_UP  1u /* it stopped at `max_guesses`: at most that many guesses
                                  * were made (a search that needs exactly that many
                                  * completes); the count is a lower bound */
#define BENCH_SUDOKU_STALLED  2u /* a solver that never guesses could not finish: return
                                    * 0; it may leave the grid as far as it got in
                                    * `solution` ('.' for blanks) */

/* What one call reports besides the count. The harness zeroes the whole
 * struct before every call; the solver fills the counters it declared in
 * `reports` and, when it stopped early, `stopped`. */
typedef struct bench_sudoku_stats {
    uint64_t guesses;
    uint64_t backtracks;
    uint64_t max_depth;
    uint64_t nodes;
    uint64_t naked_singles;
    uint64_t hidden_singles;
    uint32_t stopped;
    uint32_t reserved; /* zero; for later versions */
} bench_sudoku_stats;

/* One solver of a library.
 *
 * Threads: the harness calls `create` once on each thread that will solve,
 * and then calls `solve` with that state from that thread only, one call at
 * a time. States of different threads are used at the same time, so a
 * solver may keep scratch memory in its state but must not share mutable
 * memory between states without locking (or must be run with
 * `reentrant=no`). `destroy` is called once per state after its last
 * `solve`, possibly from another thread, and never with NULL. */
typedef struct bench_sudoku_solver {
    /* BENCH_SUDOKU_ABI_VERSION as the library saw it when it was built. */
    uint32_t abi_version;
    /* sizeof(bench_sudoku_solver) as the library saw it. The harness reads
     * the fields of the version it knows and refuses a descriptor smaller
     * than that version's; a later version may only add fields at the end. */
    uint32_t struct_size;
    /* The name used in `-s 'lib=PATH,solver=NAME'` and in the reports
     * (unless the spec gives `name=LABEL`): letters, digits, '-', '_', '.'. */
    const char *name;
    /* One line for `bench-sudoku strategies`; may be NULL. */
    const char *description;
    /* BENCH_SUDOKU_* counter bits this solver fills in. */
    uint32_t reports;
    /* Zero; for later versions. */
    uint32_t flags;
    /* Makes a thread's state. `configuration` is the spec's `config=N`
     * (0 when absent). Returns NULL when it cannot; the run then stops
     * before any puzzle is timed, or counts the thread's puzzles as
     * crashed when it happens later. */
    void *(*create)(uint32_t configuration);
    /* Frees a state made by `create`. */
    void (*destroy)(void *state);
    /* Solves one puzzle: the rules above. `max_guesses` is the run's guess
     * budget (`--max-guesses`); 0 means none. A solver without a budget may
     * ignore it. */
    size_t (*solve)(void *state, const char *puzzle, size_t limit,
                    uint64_t max_guesses, char *solution,
                    bench_sudoku_stats *stats);
} bench_sudoku_solver;

/* The one symbol of the bench-sudoku interface: returns an array of
 * `*count` pointers to descriptors that stay valid while the library is
 * loaded. The harness calls it once, after loading the library. */
const bench_sudoku_solver *const *bench_sudoku_solvers(size_t *count);

#ifdef __cplusplus
}
#endif

#endif /* BENCH_SUDOKU_H */
