/*
 * solver.c: an example external solver for bench-sudoku, in C.
 *
 * It exports both interfaces of include/bench_sudoku.h:
 *
 *   solve()                  the tdoku signature, the default symbol of
 *                            `-s 'lib=PATH'`: count, first solution, guesses.
 *   bench_sudoku_solvers()   the bench-sudoku interface, with one solver,
 *                            "example-c" (`-s 'lib=PATH,solver=example-c'`),
 *                            which also reports backtracks and depth and
 *                            honours the run's guess budget.
 *
 * The algorithm. Each cell holds a 9-bit mask of its candidates (bit d-1
 * for digit d). Placing a digit removes it from the cell's 20 peers (its
 * row, column and box); a peer left with one candidate is placed in turn
 * (a naked single) and a peer left with none is a dead end. When no single
 * is left, the search branches on the empty cell with the fewest
 * candidates and tries its digits in ascending order, each on a copy of
 * the board.
 *
 * Threads: nothing here is global except constant data. `solve` keeps its
 * boards on the stack; "example-c" keeps them in its per-thread state.
 *
 * Build: `make` in this directory (see the Makefile).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../../include/bench_sudoku.h"

#define CELLS 81
#define ALL_DIGITS 0x1FFu
#define BIT(d) ((uint16_t)(1u << ((d) - 1)))

/* A guess fills one more cell and a full grid needs no guess, so guesses
 * nest at most 80 deep: 82 boards hold the root and every level. */
#define MAX_BOARDS 82

typedef struct board {
    uint16_t cand[CELLS]; /* candidates; for a filled cell, its digit's bit */
    uint8_t digit[CELLS]; /* 1-9, or 0 for an empty cell */
} board;

/* Cells left with a single candidate, waiting to be placed. A cell's mask
 * only shrinks, so it becomes single at most once: 81 slots are enough. */
typedef struct queue {
    uint8_t cell[CELLS];
    int len;
} queue;

/* One call's parameters and results. */
typedef struct search {
    size_t limit;         /* stop after this many solutions */
    uint64_t max_guesses; /* guess budget; 0 means none */
    char *solution;       /* receives the first solution */
    size_t count;         /* solutions found */
    uint64_t guesses;     /* values tried at cells with 2+ candidates */
    uint64_t backtracks;  /* guesses whose subtree was exhausted */
    uint64_t max_depth;   /* deepest nesting of guesses */
    bool gave_up;         /* stopped at max_guesses */
} search;

static bool is_single(unsigned mask)
{
    return mask != 0 && (mask & (mask - 1)) == 0;
}

static int count_bits(unsigned mask)
{
    int n = 0;
    for (; mask != 0; mask &= mask - 1)
        n++;
    return n;
}

/* The digit of a mask with exactly one bit set. */
static int digit_of(unsigned single)
{
    int d = 1;
    while ((single & 1u) == 0) {
        single >>= 1;
        d++;
    }
    return d;
}

/* Removes `bit` from the candidates of an empty cell. Returns false when
 * the cell is left with none; queues it when it is left with one. */
static bool eliminate(board *b, int cell, uint16_t bit, queue *q)
{
    if (b->digit[cell] != 0 || (b->cand[cell] & bit) == 0)
        return true;
    b->cand[cell] &= (uint16_t)~bit;
    if (b->cand[cell] == 0)
        return false;
    if (is_single(b->cand[cell]))
        q->cell[q->len++] = (uint8_t)cell;
    return true;
}

/* Puts digit d in cell and removes it from the cell's peers (all of them,
 * even after a dead end, so that the board stays consistent). Returns
 * false when a peer is left without candidates. */
static bool assign(board *b, int cell, int d, queue *q)
{
    uint16_t bit = BIT(d);
    int row = cell / 9, col = cell % 9;
    int box = (row / 3) * 27 + (col / 3) * 3; /* the box's top-left cell */
    bool ok = true;

    b->digit[cell] = (uint8_t)d;
    b->cand[cell] = bit;
    for (int i = 0; i < 9; i++) {
        ok = eliminate(b, row * 9 + i, bit, q) && ok;
        ok = eliminate(b, i * 9 + col, bit, q) && ok;
        ok = eliminate(b, box + (i / 3) * 9 + i % 3, bit, q) && ok;
    }
    return ok;
}

/* Places queued naked singles until none is left. False on a dead end. */
static bool propagate(board *b, queue *q)
{
    while (q->len > 0) {
        int cell = q->cell[--q->len];
        if (b->digit[cell] != 0)
            continue; /* a given placed after it was queued */
        if (!assign(b, cell, digit_of(b->cand[cell]), q))
            return false;
    }
    return true;
}

/* Places digit d in cell, then every naked single that follows. */
static bool place(board *b, int cell, int d)
{
    queue q = { .len = 0 };
    return assign(b, cell, d, &q) && propagate(b, &q);
}

/* Loads a puzzle and places its naked singles. False when the puzzle has
 * no solution: two equal givens in a row, column or box, or a dead end. */
static bool load(board *b, const char *puzzle)
{
    queue q = { .len = 0 };
    bool ok = true;

    for (int i = 0; i < CELLS; i++) {
        b->cand[i] = ALL_DIGITS;
        b->digit[i] = 0;
    }
    /* Givens first, singles after: a cell queued now may be a later given. */
    for (int i = 0; i < CELLS && puzzle[i] != '\0'; i++) {
        if (puzzle[i] < '1' || puzzle[i] > '9')
            continue; /* a blank */
        int d = puzzle[i] - '0';
        if ((b->cand[i] & BIT(d)) == 0)
            return false; /* a peer is a given with the same digit */
        ok = assign(b, i, d, &q) && ok;
    }
    return ok && propagate(b, &q);
}

/* The empty cell with the fewest candidates, or -1 when the grid is full. */
static int fewest_candidates(const board *b)
{
    int best = -1, best_n = 10;
    for (int i = 0; i < CELLS; i++) {
        if (b->digit[i] != 0)
            continue;
        int n = count_bits(b->cand[i]);
        if (n < best_n) {
            best = i;
            best_n = n;
            if (n == 2)
                break; /* propagation leaves no cell with fewer */
        }
    }
    return best;
}

/* Searches boards[depth] (fully propagated, no dead end), using the boards
 * above it as scratch. Returns when the subtree is exhausted, the limit is
 * reached or the budget is spent. */
static void search_from(search *s, board *boards, unsigned depth)
{
    const board *b = &boards[depth];
    int cell = fewest_candidates(b);

    if (cell < 0) { /* full grid: a solution */
        s->count++;
        if (s->count == 1)
            for (int i = 0; i < CELLS; i++)
                s->solution[i] = (char)('0' + b->digit[i]);
        return;
    }
    for (int d = 1; d <= 9; d++) {
        if ((b->cand[cell] & BIT(d)) == 0)
            continue;
        if (s->max_guesses != 0 && s->guesses >= s->max_guesses) {
            s->gave_up = true;
            return;
        }
        s->guesses++;
        if (depth + 1 > s->max_depth)
            s->max_depth = depth + 1;

        board *child = &boards[depth + 1];
        *child = *b;
        if (place(child, cell, d))
            search_from(s, boards, depth + 1);
        if (s->gave_up || s->count >= s->limit)
            return; /* this guess is not undone: the search stops here */
        s->backtracks++;
    }
}

/* One solve: s holds the parameters; boards is MAX_BOARDS of scratch. */
static void run(search *s, board *boards, const char *puzzle)
{
    if (s->limit == 0)
        return; /* the contract says limit >= 1; 0 asks for nothing */
    if (load(&boards[0], puzzle))
        search_from(s, boards, 0);
}

/* ---- Interface 1: the tdoku signature -------------------------------- */

size_t solve(const char *puzzle, size_t limit, uint32_t configuration,
             char *solution, size_t *num_guesses)
{
    board boards[MAX_BOARDS]; /* about 20 KB of stack */
    search s = { .limit = limit, .max_guesses = 0, .solution = solution };

    (void)configuration; /* this solver has no variants */
    run(&s, boards, puzzle);
    if (num_guesses != NULL)
        *num_guesses = (size_t)s.guesses;
    return s.count;
}

/* ---- Interface 2: bench_sudoku_solvers ------------------------------- */

/* One thread's state: the configuration and the search's scratch boards,
 * allocated once per thread rather than on every call. */
typedef struct example_state {
    uint32_t configuration;
    board boards[MAX_BOARDS];
} example_state;

static void *example_create(uint32_t configuration)
{
    example_state *st = malloc(sizeof *st);
    if (st != NULL)
        st->configuration = configuration;
    return st; /* NULL tells the harness we could not */
}

static void example_destroy(void *state)
{
    free(state);
}

static size_t example_solve(void *state, const char *puzzle, size_t limit,
                            uint64_t max_guesses, char *solution,
                            bench_sudoku_stats *stats)
{
    example_state *st = state;
    search s = { .limit = limit, .max_guesses = max_guesses,
                 .solution = solution };

    run(&s, st->boards, puzzle);
    /* The harness zeroed *stats; fill in what `reports` declares. */
    stats->guesses = s.guesses;
    stats->backtracks = s.backtracks;
    stats->max_depth = s.max_depth;
    if (s.gave_up)
        stats->stopped = BENCH_SUDOKU_GAVE_UP;
    return s.count;
}

static const bench_sudoku_solver example_c = {
    .abi_version = BENCH_SUDOKU_ABI_VERSION,
    .struct_size = (uint32_t)sizeof(bench_sudoku_solver),
    .name = "example-c",
    .description = "example C solver: naked singles, fewest-candidate cell",
    .reports = BENCH_SUDOKU_GUESSES | BENCH_SUDOKU_BACKTRACKS |
               BENCH_SUDOKU_MAX_DEPTH,
    .flags = 0,
    .create = example_create,
    .destroy = example_destroy,
    .solve = example_solve,
};

static const bench_sudoku_solver *const solvers[] = { &example_c };

const bench_sudoku_solver *const *bench_sudoku_solvers(size_t *count)
{
    *count = sizeof solvers / sizeof solvers[0];
    return solvers;
}
