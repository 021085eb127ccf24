/* Times a solver library over whole passes of a puzzle file, the way
 * tdoku's run_benchmark does: one clock read before and after each pass,
 * every puzzle solved once a pass (cold: a puzzle's next solve is a whole
 * pass later). The independent check of bench-sudoku's per-puzzle times
 * (scripts/cold-check.sh).
 *
 *   whole-pass LIB.so FILE [ROUNDS] [SYMBOL] [CONFIG]
 *
 * LIB exports tdoku's signature (include/bench_sudoku.h,
 * bench_sudoku_tdoku_fn) under SYMBOL (default "solve"). Prints one line:
 * puzzles, the fastest and the median pass in ns per puzzle by the wall
 * clock (what tdoku's and the sudoku crate's harnesses read), the total of
 * guesses of one pass, then the fastest and the median pass by the thread's
 * CPU time (time the thread was scheduled out does not count: the figure to
 * compare with on a busy machine). */
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

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s LIB.so FILE [ROUNDS] [SYMBOL] [CONFIG]\n", argv[0]);
        return 2;
    }
    int rounds = argc > 3 ? atoi(argv[3]) : 9;
    const char *symbol = argc > 4 ? argv[4] : "solve";
    uint32_t config = argc > 5 ? (uint32_t)atoi(argv[5]) : 0;
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
            if (solve(puzzles + i * 82, 1, config, solution, &g) == 0) {
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
    qsort(pass, (size_t)rounds, sizeof(double), by_value);
    qsort(cpu, (size_t)rounds, sizeof(double), by_value);
    printf("%zu puzzles, fastest %.1f ns/puzzle, median %.1f ns/puzzle, %zu guesses/pass; "
           "thread CPU time (ns/puzzle): fastest %.1f, median %.1f\n",
           n, pass[0], pass[rounds / 2], guesses_total, cpu[0], cpu[rounds / 2]);
    free(pass);
    free(cpu);
    free(puzzles);
    return 0;
}
