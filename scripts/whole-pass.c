/* Times a solver library over whole passes of a puzzle file, the way
 * tdoku's run_benchmark does: one clock read before and after each pass,
 * every puzzle solved once a pass (cold: a puzzle's next solve is a whole
 * pass later). The independent check of bench-sudoku's per-puzzle times
 * (scripts/cold-check.sh).
 *
 *   whole-pass LIB.so FILE [ROUNDS] [SYMBOL] [CONFIG] [LIMIT]
 *
 * LIB exports tdoku's signature (include/bench_sudoku.h,
 * bench_sudoku_tdoku_fn) under SYMBOL (default "solve"); LIMIT is the
 * solution limit of every call (default 1: the first solution; 2: also
 * prove uniqueness). Prints one line: puzzles, the fastest and the median
 * pass in ns per puzzle by the wall clock (what tdoku's and the sudoku
 * crate's harnesses read), the total of guesses of one pass, then the
 * fastest and the median pass by the thread's CPU time (time the thread was
 * scheduled out does not count: the figure to compare with on a busy
 * machine), then what the answers were.
 *
 * The answers are checked after the timed passes, in one more pass that is
 * not timed: every puzzle must have a solution (the corpora are all
 * solvable), every grid written must be complete, keep the givens and break
 * no rule, and a call with LIMIT 1 must write one. A call with a higher
 * limit may leave the grid unwritten (tdoku's signature allows that): its
 * count is what can be checked. The line ends with the number of grids
 * checked, of answers without a grid, of puzzles counted with two or more
 * solutions, and a digest (FNV-1a) of the per-puzzle counts in file order,
 * so that two libraries' counts can be compared puzzle by puzzle. A wrong
 * answer ends the program with status 1. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef size_t (*tdoku_fn)(const char *, size_t, uint32_t, char *, size_t *);

static double now_ns(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* 1 when `grid` (81 bytes '1'..'9') is a solution of `puzzle` (givens
 * '1'..'9', anything else blank): every given kept, every row, column and
 * box holding each digit once. */
static int solves(const char *puzzle, const char *grid) {
    for (int i = 0; i < 81; i++) {
        if (grid[i] < '1' || grid[i] > '9') return 0;
        if (puzzle[i] >= '1' && puzzle[i] <= '9' && puzzle[i] != grid[i]) return 0;
    }
    for (int u = 0; u < 9; u++) {
        int row = 0, col = 0, box = 0;
        for (int k = 0; k < 9; k++) {
            int r = 9 * u + k;
            int c = 9 * k + u;
            int b = 27 * (u / 3) + 3 * (u % 3) + 9 * (k / 3) + k % 3;
            row |= 1 << (grid[r] - '1');
            col |= 1 << (grid[c] - '1');
            box |= 1 << (grid[b] - '1');
        }
        if (row != 511 || col != 511 || box != 511) return 0;
    }
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s LIB.so FILE [ROUNDS] [SYMBOL] [CONFIG] [LIMIT]\n", argv[0]);
        return 2;
    }
    int rounds = argc > 3 ? atoi(argv[3]) : 9;
    const char *symbol = argc > 4 ? argv[4] : "solve";
    uint32_t config = argc > 5 ? (uint32_t)atoi(argv[5]) : 0;
    size_t limit = argc > 6 ? (size_t)atoi(argv[6]) : 1;
    if (limit < 1) {
        fprintf(stderr, "LIMIT must be at least 1\n");
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW);
    if (!lib) {
        fprintf(stderr, "%s\n", dlerror());
        return 2;
    }
    tdoku_fn solve = (tdoku_fn)dlsym(lib, symbol);
    if (!solve) {
        fprintf(stderr, "%s: no symbol %s\n", argv[1], symbol);
        return 2;
    }
    FILE *f = fopen(argv[2], "r");
    if (!f) {
        perror(argv[2]);
        return 2;
    }
    size_t cap = 1024, n = 0;
    char *puzzles = malloc(cap * 82);
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || strlen(line) < 81) continue;
        if (n == cap) puzzles = realloc(puzzles, (cap *= 2) * 82);
        memcpy(puzzles + n * 82, line, 81);
        puzzles[n * 82 + 81] = 0;
        n++;
    }
    fclose(f);
    if (n == 0 || rounds < 1) {
        fprintf(stderr, "%s: no puzzles\n", argv[2]);
        return 2;
    }
    char solution[82];
    double *pass = malloc(sizeof(double) * (size_t)rounds);
    double *cpu = malloc(sizeof(double) * (size_t)rounds);
    size_t guesses_total = 0;
    for (int r = -1; r < rounds; r++) { /* round -1 warms the code up */
        size_t guesses_pass = 0;
        double c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
        double t0 = now_ns(CLOCK_MONOTONIC);
        for (size_t i = 0; i < n; i++) {
            size_t g = 0;
            if (solve(puzzles + i * 82, limit, config, solution, &g) == 0) {
                fprintf(stderr, "puzzle %zu: no solution\n", i);
                return 1;
            }
            guesses_pass += g;
        }
        double t = now_ns(CLOCK_MONOTONIC) - t0;
        double c = now_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
        if (r >= 0) {
            pass[r] = t / (double)n;
            cpu[r] = c / (double)n;
        }
        guesses_total = guesses_pass;
    }
    /* The answers, untimed. */
    size_t grids = 0, unwritten = 0, multiple = 0;
    uint64_t digest = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        const char *puzzle = puzzles + i * 82;
        size_t g = 0;
        memset(solution, 0, sizeof solution);
        size_t count = solve(puzzle, limit, config, solution, &g);
        if (count == 0 || count > limit) {
            fprintf(stderr, "puzzle %zu: %zu solutions counted (limit %zu)\n", i + 1, count, limit);
            return 1;
        }
        int written = 0;
        for (int k = 0; k < 81; k++) written |= solution[k] != 0;
        if (written) {
            if (!solves(puzzle, solution)) {
                fprintf(stderr, "puzzle %zu: the grid written is not a solution: %.81s\n", i + 1, solution);
                return 1;
            }
            grids++;
        } else if (limit == 1) {
            fprintf(stderr, "puzzle %zu: no solution written\n", i + 1);
            return 1;
        } else {
            unwritten++;
        }
        multiple += count >= 2;
        digest = (digest ^ (uint64_t)count) * 1099511628211ULL;
    }
    qsort(pass, (size_t)rounds, sizeof(double), by_value);
    qsort(cpu, (size_t)rounds, sizeof(double), by_value);
    printf("%zu puzzles, fastest %.1f ns/puzzle, median %.1f ns/puzzle, %zu guesses/pass; "
           "thread CPU time (ns/puzzle): fastest %.1f, median %.1f; "
           "limit %zu: %zu grids checked, %zu without a grid, %zu with 2+ solutions, "
           "counts digest %016llx\n",
           n, pass[0], pass[rounds / 2], guesses_total, cpu[0], cpu[rounds / 2], limit, grids,
           unwritten, multiple, (unsigned long long)digest);
    free(pass);
    free(cpu);
    free(puzzles);
    return 0;
}
