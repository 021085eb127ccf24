#!/usr/bin/env python3
"""The measurements behind docs/PERFORMANCE.md: one function per table.

Run through scripts/performance.sh, which builds what the tables need and
passes the paths; this file measures, formats each table as Markdown, puts
one generated line before it (UTC date and time, CPU model and logical
cores, load average, the command) and writes every block between its
markers in docs/PERFORMANCE.md (`<!-- perf:NAME:begin -->` …
`<!-- perf:NAME:end -->`) through a temporary file renamed over the
document, once every table chosen has been measured.

Every failure (a command's exit status, a missing function in callgrind's
output, a counter that differs between thread counts, a missing marker)
stops the run with a message naming the table and the command, and leaves
the document as it was.
"""

import argparse
import csv
import hashlib
import json
import os
import platform
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "PERFORMANCE.md"
BIN = ROOT / "target" / "release" / "bench-sudoku"
CAPI = ROOT / "target" / "release" / "libbench_sudoku_capi.so"
EXAMPLE = ROOT / "target" / "release" / "examples" / "rust_solver"
HARD = ROOT / "datasets" / "hard.csv"
EASY = ROOT / "datasets" / "easy.csv"

# The five benchmark corpora and the names the tables give them.
CORPORA = [
    ("puzzles2_17_clue", "17-clue"),
    ("puzzles3_magictour_top1465", "top1465"),
    ("puzzles5_forum_hardest_1905_11+", "forum hardest 1905 11+"),
    ("puzzles6_forum_hardest_1106", "forum hardest 1106"),
    ("puzzles7_serg_benchmark", "serg"),
]

# The engine's entry and the timed loop that calls it once per puzzle and
# pass (callgrind tables); the other functions split the harness's cost.
SOLVE = "bench_sudoku::solver::Solver::solve_builtin_with"
TIMED_LOOP = "bench_sudoku::bench::pipeline::solve::solve_pass_builtin"
FINISH = "bench_sudoku::bench::pipeline::order::finish_batch"
REMEASURE = "bench_sudoku::bench::pipeline::remeasure::solve_each"
READ_BACK = "bench_sudoku::report::Report::with_worst"


class Failed(Exception):
    """A step that failed: the message names it."""


class Ctx:
    """What every table may use: paths, the work directory, the CPUs."""

    def __init__(self, args):
        self.corpora = Path(args.corpora)
        self.work = Path(args.work)
        self.tdoku = args.tdoku
        self.cpus = sorted(os.sched_getaffinity(0))
        self.peers_repeat = int(os.environ.get("PEERS_REPEAT", "3"))
        self.count = 0

    def corpus(self, stem):
        return self.corpora / stem

    def fresh(self, name):
        """A new, empty directory under the work directory."""
        self.count += 1
        d = self.work / f"{name}-{self.count}"
        shutil.rmtree(d, ignore_errors=True)
        return d


# --------------------------------------------------------------------------
# Running commands


def shown(cmd):
    """A command as a reader would type it (repository paths made relative)."""
    out = []
    for word in map(str, cmd):
        word = word.replace(str(BIN), "bench-sudoku").replace(str(ROOT) + "/", "")
        out.append(word)
    return shlex.join(out)


def run(cmd, *, env=None, ok=(0,), stdout=True):
    """Runs cmd from the repository root; its output, or Failed."""
    p = subprocess.run(
        [str(c) for c in cmd],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE if stdout else subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    if p.returncode not in ok:
        tail = "\n".join(p.stderr.strip().splitlines()[-15:])
        raise Failed(f"`{shown(cmd)}` exited with status {p.returncode}:\n{tail}")
    return p


class Timed:
    """A finished process: wall and CPU seconds, peak RSS, exit status."""

    def __init__(self, wall, cpu, rss, code):
        self.wall, self.cpu, self.rss, self.code = wall, cpu, rss, code


def timed(cmd, *, env=None, ok=(0,), work=None):
    """Runs cmd and measures it from outside (wall clock, rusage)."""
    err = tempfile.TemporaryFile(dir=work)
    t0 = time.perf_counter()
    p = subprocess.Popen(
        [str(c) for c in cmd], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err
    )
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    p.returncode = code
    if code not in ok:
        err.seek(0)
        tail = "\n".join(err.read().decode(errors="replace").strip().splitlines()[-15:])
        raise Failed(f"`{shown(cmd)}` exited with status {code}:\n{tail}")
    err.close()
    return Timed(wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss * 1024, code)


def bench(ctx, args, *, prefix=(), env=None, ok=(0,), name="run"):
    """`bench-sudoku run ARGS --out NEW -q`: (summary, meta, Timed, out dir)."""
    out = ctx.fresh(name)
    cmd = [*prefix, BIN, "run", *args, "-q", "--out", out]
    t = timed(cmd, env=env, ok=ok, work=ctx.work)
    summary = load_json(out / "summary.json", cmd)
    meta = load_json(out / "meta.json", cmd)
    return summary, meta, t, out


def load_json(path, cmd):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise Failed(f"`{shown(cmd)}` left no readable {path.name}: {e}")


def one(summary, strategy=None):
    """The result row of a summary (of the named strategy)."""
    rows = summary["results"]
    if strategy is None:
        return rows[0]
    for r in rows:
        if r["strategy"] == strategy:
            return r
    raise Failed(f"no result for strategy {strategy} in summary.json")


def median(xs):
    return statistics.median(list(xs))


def us(ns):
    """Nanoseconds as µs: two decimals below 1 ms, else whole µs."""
    v = ns / 1e3
    return f"{v:,.2f}" if v < 1000 else f"{v:,.0f}"


def rel(path):
    """A path relative to the repository root when that is shorter."""
    r = os.path.relpath(path, ROOT)
    return r if len(r) < len(str(path)) else str(path)


# --------------------------------------------------------------------------
# callgrind


def callgrind(path):
    """PROGRAM TOTALS and, per function, (inclusive cost, [(caller, cost, calls)])."""
    out = run(
        ["callgrind_annotate", "--tree=caller", "--inclusive=yes", "--threshold=100", path]
    ).stdout
    num = lambda s: int(s.replace(",", ""))
    total, callers, funcs = None, [], {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+PROGRAM TOTALS", line)
        if m:
            total = num(m.group(1))
            continue
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+<\s+\S*?:(.*?) \(([\d,]+)x\)", line)
        if m:
            callers.append((m.group(2).strip(), num(m.group(1)), num(m.group(3))))
            continue
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+\*\s+\S*?:(.*?)(?: \[[^\]]*\])?$", line)
        if m:
            funcs.setdefault(m.group(2).strip(), (num(m.group(1)), callers))
        callers = []
    if total is None:
        raise Failed(f"callgrind_annotate {path}: no PROGRAM TOTALS")
    return total, funcs


def need(funcs, name, path):
    if name not in funcs:
        raise Failed(
            f"{path}: no function {name} in callgrind's output (renamed or inlined? "
            "update the names at the top of scripts/performance.py)"
        )
    return funcs[name]


def engine_in_loop(funcs, path):
    """The engine's instructions and calls from the timed loop only."""
    _, callers = need(funcs, SOLVE, path)
    cost = sum(c for who, c, _ in callers if who.endswith(TIMED_LOOP))
    calls = sum(n for who, _, n in callers if who.endswith(TIMED_LOOP))
    if calls == 0:
        raise Failed(f"{path}: {SOLVE} is not called from {TIMED_LOOP}")
    return cost, calls


def valgrind(ctx, name):
    """The callgrind command prefix (one CPU: one thread does everything)."""
    out = ctx.work / f"{name}.callgrind"
    return out, [
        "taskset", "-c", ctx.cpus[0],
        "valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
    ]


# --------------------------------------------------------------------------
# Engines


def strategies(ctx):
    """Every strategy on every corpus, one thread."""
    names = ["naive", "rowmajor", "mrv", "logic", "hidden", "locked", "fast", "dlx"]
    # Subsets where a whole corpus would take minutes: naive and rowmajor
    # run into the guess budget on most sparse puzzles (one pass only),
    # mrv takes milliseconds a puzzle, dlx a quarter of one on 1905.
    subset = {"naive": 20, "rowmajor": 20, "mrv": 1000, "dlx": 10000}
    rows = [
        "| corpus | strategy | puzzles | mean µs | p50 µs | p99 µs | guesses/puzzle | outcomes |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for stem, short in CORPORA:
        for s in names:
            args = [ctx.corpus(stem), "-s", s, "-j", "1", "--no-puzzle-csv"]
            args += ["--warmup", "0" if s in ("naive", "rowmajor") else "1"]
            if s in subset:
                args += ["--limit", str(subset[s])]
            r = one(bench(ctx, args)[0])
            other = ", ".join(
                f"{r[k]:,} {k}" for k in ("multiple", "no_solution", "stalled", "gave_up") if r[k]
            )
            outcome = "all solved" if r["solved"] == r["puzzles"] else f"{r['solved']:,} solved"
            rows.append(
                f"| {short} | {s} | {r['puzzles']:,} | {us(r['mean_ns'])} | {us(r['p50_ns'])} | "
                f"{us(r['p99_ns'])} | {r['guesses_mean']:,.2f} | {outcome}{', ' + other if other else ''} |"
            )
    cmd = (
        "bench-sudoku run CORPUS -s STRATEGY -j 1 --warmup 1 --no-puzzle-csv "
        "(naive, rowmajor: --limit 20 --warmup 0; mrv: --limit 1000; dlx: --limit 10000)"
    )
    return cmd, "\n".join(rows)


def instructions(ctx):
    """The engine's instructions per puzzle, by callgrind."""
    rows = [
        "| strategy | puzzles | instructions/puzzle | guesses/puzzle | nodes/puzzle | instructions/node |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for s in ["logic", "mrv", "hidden", "locked", "dlx", "fast"]:
        out, prefix = valgrind(ctx, f"engine-{s}")
        r = one(bench(ctx, [HARD, "-s", s, "-j", "1", "--no-puzzle-csv"], prefix=prefix)[0])
        cost, calls = engine_in_loop(callgrind(out)[1], out)
        if calls != r["puzzles"]:
            raise Failed(f"{out}: {calls} engine calls in the timed loop for {r['puzzles']} puzzles")
        nodes = r.get("nodes_total") or 0
        per_node = f"{cost / nodes:,.0f}" if nodes else "–"
        rows.append(
            f"| {s} | {r['puzzles']:,} | {cost / calls:,.0f} | {r['guesses_mean']:,.2f} | "
            f"{nodes / r['puzzles']:,.2f} | {per_node} |"
        )
    cmd = (
        f"taskset -c {ctx.cpus[0]} valgrind --tool=callgrind bench-sudoku run datasets/hard.csv "
        "-s STRATEGY -j 1 --no-puzzle-csv (the engine's inclusive cost from the timed loop)"
    )
    return cmd, "\n".join(rows)


def peers(ctx):
    """`fast` against the field: scripts/peers-table.sh as it prints."""
    env = dict(os.environ, REPEAT=str(ctx.peers_repeat))
    cmd = ["scripts/peers-table.sh", ctx.corpora]
    text = run(cmd, env=env).stdout
    lines = []
    for line in text.strip().splitlines():
        # The script's facts about the run become a list; tables stay.
        if re.match(r"(tdoku|fastdoku|sudoku crate|machine|load at end):", line):
            # Paths as a reader of the repository sees them.
            line = "- " + re.sub(r"(/[^\s,()]+)", lambda m: rel(m.group(1)), line)
        lines.append(line)
    named = "".join(
        f"{var}={rel(os.environ[var])} "
        for var in ("TDOKU_DIR", "FASTDOKU_DIR", "FASTDOKU_LIB")
        if os.environ.get(var)
    )
    return f"{named}REPEAT={ctx.peers_repeat} scripts/peers-table.sh {rel(ctx.corpora)}", "\n".join(
        lines
    )


# --------------------------------------------------------------------------
# Harness and scaling


def counters_digest(path):
    """A digest of puzzles.csv without its times: the exact counters."""
    h = hashlib.sha256()
    with open(path, newline="") as f:
        rows = csv.reader(f)
        head = next(rows)
        keep = [i for i, c in enumerate(head) if c != "time_ns"]
        for row in rows:
            h.update("\x1f".join(row[i] for i in keep).encode() + b"\n")
    return h.hexdigest()


def make_csv(ctx, rows, name):
    """datasets/hard.csv repeated to `rows` rows (with solutions), header once."""
    lines = HARD.read_text().splitlines(keepends=True)
    header, body = lines[0], [l for l in lines[1:] if l.strip()]
    path = ctx.work / name
    with open(path, "w") as f:
        f.write(header)
        for _ in range(rows // len(body)):
            f.writelines(body)
        f.writelines(body[: rows % len(body)])
    return path


def whole_pass(ctx, cpu, file):
    """scripts/whole-pass.c on the capi library's fast, pinned: ns/puzzle."""
    return ["taskset", "-c", cpu, ctx.work / "whole-pass", CAPI, file, "3", "bench_sudoku_fast"]


def fastest(text):
    return float(re.search(r"fastest ([0-9.]+) ns/puzzle", text).group(1))


def ceiling_round(ctx, file):
    """The bare engine alone on the first CPU, then on two CPUs at once."""
    a, b = ctx.cpus[0], ctx.cpus[1]
    alone = fastest(run(whole_pass(ctx, a, file)).stdout)
    procs = [
        subprocess.Popen([str(c) for c in whole_pass(ctx, cpu, file)], cwd=ROOT,
                         stdout=subprocess.PIPE, text=True)
        for cpu in (a, b)
    ]
    both = []
    for p in procs:
        out, _ = p.communicate()
        if p.returncode != 0:
            raise Failed(f"`{shown(whole_pass(ctx, '…', file))}` exited with {p.returncode}")
        both.append(fastest(out))
    return alone * (1 / both[0] + 1 / both[1])


def threads(ctx):
    """-j 1 against -j 2 (and one CPU), with the harness's own figures."""
    rounds = 7
    if len(ctx.cpus) < 2:
        raise Failed("the threads table needs at least two CPUs")
    big = make_csv(ctx, 50_000, "hard-50k.csv")
    files = [("17-clue", ctx.corpus("puzzles2_17_clue")), ("hard.csv × 50 (CSV)", big)]
    configs = [("-j 1", (), "1"), (f"-j 1 on one CPU (taskset -c {ctx.cpus[0]})",
                                    ("taskset", "-c", ctx.cpus[0]), "1"), ("-j 2", (), "2")]
    if len(ctx.cpus) > 2:
        configs.append((f"-j {len(ctx.cpus)}", (), str(len(ctx.cpus))))
    got = {}
    ceilings = []
    digests = {}
    runs = 0
    for k in range(rounds):
        for label, file in files:
            order = configs[k % len(configs):] + configs[: k % len(configs)]
            for name, prefix, j in order:
                s, meta, _, out = bench(ctx, [file, "-s", "fast", "-j", j], prefix=prefix)
                r, h = one(s), meta["harness"]
                digests.setdefault(label, set()).add(counters_digest(out / "puzzles.csv"))
                runs += 1
                got.setdefault((label, name), []).append((r, h))
                shutil.rmtree(out)
        ceilings.append(ceiling_round(ctx, files[0][1]))
    for label, d in digests.items():
        if len(d) != 1:
            raise Failed(f"threads: the counters of puzzles.csv differ between runs on {label}")
    rows = [
        "| dataset | run | layout | units wall ms | mean solve ns | speedup over -j 1 | "
        "harness CPU % of the solves | reader ns/puzzle | writer ns/puzzle | mean solve / serial stages |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, _ in files:
        base = [r["wall_ns"] for r, _ in got[(label, "-j 1")]]
        for name, _, _ in configs:
            v = got[(label, name)]
            speed = median(b / r["wall_ns"] for b, (r, _) in zip(base, v))
            serial = median(h["serial_ns_per_puzzle"] for _, h in v)
            mean = median(r["mean_ns"] for r, _ in v)
            rows.append(
                f"| {label} | {name} | {v[0][1]['layout']} | {median(r['wall_ns'] for r, _ in v) / 1e6:.1f} | "
                f"{mean:,.0f} | {speed:.2f} | {median(h['harness_cpu_pct'] for _, h in v):.1f} | "
                f"{median(h['read_ns_per_puzzle'] for _, h in v):.1f} | "
                f"{median(h['write_ns_per_puzzle'] for _, h in v):.1f} | 1/{mean / serial:.0f} |"
            )
    rows.append(
        f"| 17-clue | the bare engine on two CPUs at once (whole-pass.c, capi) | – | – | – | "
        f"**{median(ceilings):.2f}** (ceiling) | – | – | – | – |"
    )
    rows.append("")
    rows.append(
        f"Medians of {rounds} rounds, the runs in turns; the counters of puzzles.csv were identical "
        f"in all {runs} runs. The ceiling ranged {min(ceilings):.2f}–{max(ceilings):.2f} over the rounds."
    )
    cmd = (
        "bench-sudoku run DATASET -s fast -j J (puzzles.csv and reports on), and "
        f"taskset -c CPU whole-pass libbench_sudoku_capi.so 17-clue 3 bench_sudoku_fast alone on "
        f"CPU {ctx.cpus[0]}, then on CPUs {ctx.cpus[0]} and {ctx.cpus[1]} at once"
    )
    return cmd, "\n".join(rows)


def harness_instructions(ctx):
    """What the harness costs per puzzle in instructions, by callgrind."""
    n = 10_000
    file = ctx.corpus("puzzles2_17_clue")
    parts = {}
    for limit in (n, 2 * n):
        out, prefix = valgrind(ctx, f"harness-{limit}")
        bench(ctx, [file, "-s", "fast", "-j", "1", "--limit", str(limit)], prefix=prefix)
        total, funcs = callgrind(out)
        engine, calls = engine_in_loop(funcs, out)
        if calls != limit:
            raise Failed(f"{out}: {calls} engine calls in the timed loop for {limit} puzzles")
        loop = need(funcs, TIMED_LOOP, out)[0] - engine
        finish = need(funcs, FINISH, out)[0]
        remeasure = funcs.get(REMEASURE, (0, []))[0]
        read_back = funcs.get(READ_BACK, (0, []))[0]
        # Re-measured outliers are left out: under callgrind's slowed clock
        # far more times look like outliers than in a native run.
        whole = total - remeasure
        rest = whole - engine - loop - finish - read_back
        parts[limit] = [engine, loop, finish, read_back, rest, whole, remeasure]
    per = [(b - a) / n for a, b in zip(parts[n], parts[2 * n])]
    labels = [
        "the engine (`fast`'s solves)",
        "the clock reads around each solve and the chunk loop",
        "finishing batches: verification, statistics, `puzzles.csv` rows and their write calls",
        "reading `puzzles.csv` back for the report's slowest puzzles",
        "everything else: reading and parsing the dataset, threads, the other reports",
        "**the whole process**",
    ]
    engine = per[0]
    rows = ["| part of the run | instructions/puzzle | / the engine's |", "|---|---:|---:|"]
    for label, v in zip(labels, per):
        rows.append(f"| {label} | {v:,.0f} | {v / engine:.2f} |")
    harness = per[5] - per[0]
    rows.append(f"| of which the harness (all but the engine) | **{harness:,.0f}** | **{harness / engine:.2f}** |")
    rows.append("")
    rows.append(
        f"Not counted: re-measuring outliers ({per[6]:,.0f} instructions a puzzle here), which "
        "callgrind's slowed clock makes far more frequent than a native run does."
    )
    cmd = (
        f"taskset -c {ctx.cpus[0]} valgrind --tool=callgrind bench-sudoku run 17-clue -s fast -j 1 "
        f"--limit N for N = {n:,} and {2 * n:,}; the difference divided by {n:,}"
    )
    return cmd, "\n".join(rows)


def memory(ctx):
    """Peak RSS on 10,000 and 1,000,000 puzzles."""
    # GNU time reports the peak of the command alone: a child forked from
    # this Python process would count the parent's pages it started with.
    rss = ctx.work / "rss"
    rows = [
        "| puzzles | -j | puzzles.csv | peak RSS MB | process wall s |",
        "|---:|---:|---|---:|---:|",
    ]
    for count in (10_000, 1_000_000):
        file = make_csv(ctx, count, f"hard-{count}.csv")
        for j, csv in (("1", "on"), ("2", "on"), ("1", "off")):
            prefix = ["/usr/bin/time", "-f", "%M", "-o", rss]
            extra = ["--no-puzzle-csv"] if csv == "off" else []
            _, _, t, out = bench(ctx, [file, "-s", "fast", "-j", j, *extra], prefix=prefix)
            shutil.rmtree(out)
            kb = int(rss.read_text().split()[-1])
            rows.append(f"| {count:,} | {j} | {csv} | {kb * 1024 / 1e6:.1f} | {t.wall:.2f} |")
        file.unlink()
    cmd = (
        "/usr/bin/time -f %M bench-sudoku run FILE -s fast -j J [--no-puzzle-csv] (FILE: "
        "datasets/hard.csv repeated, made in a temporary directory)"
    )
    return cmd, "\n".join(rows)


def whole_run(ctx):
    """A whole run, start to exit, against its units."""
    rounds = 7
    file = ctx.corpus("puzzles2_17_clue")
    got = {}
    for _ in range(rounds):
        for j in ("1", "2"):
            s, meta, t, out = bench(ctx, [file, "-s", "fast", "-j", j])
            units = one(s)["wall_ns"] / 1e9
            got.setdefault(j, []).append(
                (t.wall, t.cpu, units, t.wall - units, meta["harness"]["harness_cpu_pct"])
            )
            shutil.rmtree(out)
    rows = [
        "| -j | process wall ms | process CPU ms | units wall ms | outside the units ms | harness CPU % of the solves |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for j, v in got.items():
        w, c, u, o, p = (median(x[i] for x in v) for i in range(5))
        rows.append(f"| {j} | {w * 1e3:.1f} | {c * 1e3:.1f} | {u * 1e3:.1f} | {o * 1e3:.1f} | {p:.1f} |")
    rows.append("")
    rows.append(f"Medians of {rounds} rounds; a new results directory each run.")
    return "bench-sudoku run 17-clue -s fast -j J (every output on), timed from outside", "\n".join(rows)


def timer(ctx):
    """What a pair of clock reads costs, and the resolution seen."""
    runs = 9
    cost, res = [], []
    for _ in range(runs):
        _, meta, _, out = bench(ctx, [EASY, "-s", "fast", "--limit", "100", "--no-puzzle-csv"])
        cost.append(meta["timer_overhead_ns"])
        res.append(meta["timer_resolution_ns"])
        shutil.rmtree(out)
    try:
        source = Path("/sys/devices/system/clocksource/clocksource0/current_clocksource").read_text().strip()
    except OSError:
        source = "unknown"
    rows = [
        f"| meta.json | median of {runs} runs | range |",
        "|---|---:|---:|",
        f"| `timer_overhead_ns`: a pair of `Instant::now()` reads | {median(cost):.1f} | {min(cost):.1f}–{max(cost):.1f} |",
        f"| `timer_resolution_ns`: the smallest step seen | {median(res):.0f} | {min(res):.0f}–{max(res):.0f} |",
        "",
        f"Clock source: `{source}`.",
    ]
    return "bench-sudoku run datasets/easy.csv -s fast --limit 100 --no-puzzle-csv", "\n".join(rows)


# --------------------------------------------------------------------------
# External solvers


def external(ctx):
    """scripts/external-overhead.sh, single thread, best of 3 passes."""
    cmd = ["scripts/external-overhead.sh", "--rounds", "5", "--repeat", "3", ctx.corpus("puzzles2_17_clue")]
    text = run(cmd).stdout.strip()
    return shown(cmd).replace(str(ctx.corpora), rel(ctx.corpora)), text


def overhead_rows(text):
    """strategy → wall ns per solve, from scripts/external-overhead.sh's table."""
    got = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and re.match(r"^[0-9.]+$", cells[3]):
            got[cells[0]] = float(cells[3])
    if len(got) != 4:
        raise Failed(f"scripts/external-overhead.sh printed an unexpected table:\n{text}")
    return got


def external_threads(ctx):
    """The same four at -j 1 and -j 2, one pass."""
    file = ctx.corpus("puzzles2_17_clue")
    walls = {}
    for j in ("1", "2"):
        walls[j] = overhead_rows(run(["scripts/external-overhead.sh", "--rounds", "3", "-j", j, file]).stdout)
    rows = [
        "| strategy | wall ns per solve, -j 1 | -j 2 | speedup |",
        "|---|---:|---:|---:|",
    ]
    for s, w1 in walls["1"].items():
        w2 = walls["2"][s]
        rows.append(f"| {s} | {w1:,.1f} | {w2:,.1f} | {w1 / w2:.2f} |")
    cmd = f"scripts/external-overhead.sh --rounds 3 -j J {rel(file)}, J = 1 then 2"
    return cmd, "\n".join(rows)


def supervised(ctx):
    """A library in the run's process: measured in a supervised child, or not."""
    rounds = 7
    file = ctx.corpus("puzzles2_17_clue")
    spec = f"lib={CAPI},solver=fast"
    ways = [
        ("in a supervised child (the default)", None),
        ("in the run's own process (`BENCH_SUDOKU_SUPERVISE=0`)", dict(os.environ, BENCH_SUDOKU_SUPERVISE="0")),
    ]
    got = {}
    for k in range(rounds):
        for name, env in (ways if k % 2 == 0 else ways[::-1]):
            s, _, t, out = bench(ctx, [file, "-s", spec, "-j", "1", "--no-puzzle-csv"], env=env)
            got.setdefault(name, []).append((one(s)["mean_ns"], t.wall, t.cpu))
            shutil.rmtree(out)
    rows = ["| measured | mean ns per call | process wall ms | process CPU ms |", "|---|---:|---:|---:|"]
    for name, _ in ways:
        v = got[name]
        rows.append(
            f"| {name} | {median(x[0] for x in v):,.1f} | {median(x[1] for x in v) * 1e3:.1f} | "
            f"{median(x[2] for x in v) * 1e3:.1f} |"
        )
    rows.append("")
    rows.append(f"Medians of {rounds} rounds, the two in turns.")
    cmd = f"bench-sudoku run 17-clue -s 'lib=target/release/libbench_sudoku_capi.so,solver=fast' -j 1 --no-puzzle-csv"
    return cmd, "\n".join(rows)


def examples(ctx):
    """The example solvers of examples/solvers beside `hidden`."""
    lib = ctx.work / "libexample_solver.so"
    cmd = [
        EXAMPLE, "run", HARD, "-j", "1",
        "-s", "hidden",
        "-s", "cmd=python3 examples/solvers/python/solver.py",
        "-s", "cmd=python3 examples/solvers/python/solver.py --no-ns,name=py-roundtrip",
        "-s", f"lib={lib},solver=example-c",
        "-s", "rust-example",
        "--no-puzzle-csv", "-q",
    ]
    out = ctx.fresh("examples")
    run([*cmd, "--out", out], stdout=False)
    s = load_json(out / "summary.json", cmd)
    rows = [
        "| strategy | mean µs | p50 µs | p99 µs | guesses/puzzle | clock | time / hidden's (paired geomean) |",
        "|---|---:|---:|---:|---:|---|---:|",
    ]
    for r in s["results"]:
        p = r.get("paired")
        ratio = f"{p['geomean_ratio']:.2f}" if p and p.get("pairs") else "–"
        rows.append(
            f"| {r['strategy']} | {us(r['mean_ns'])} | {us(r['p50_ns'])} | {us(r['p99_ns'])} | "
            f"{r['guesses_mean']:,.2f} | {r['clock']} | {ratio} |"
        )
    python = run(["python3", "--version"]).stdout.strip()
    words = shown(cmd[1:]).replace(str(ctx.work), "$TMP")
    return (
        f"cargo run --release --example rust_solver -- {words} ({python}; $TMP/libexample_solver.so "
        "is examples/solvers/c/solver.c built with cc -O2)",
        "\n".join(rows),
    )


def tdoku_threads(ctx):
    """tdoku called from two threads at once, serialised, and isolated."""
    if not ctx.tdoku:
        return "nothing: TDOKU_DIR was not set", (
            "tdoku: **skipped**: TDOKU_DIR was not set (a tdoku source tree fetched outside this "
            "repository; [SOLVERS.md](SOLVERS.md#side-by-side-with-tdoku-and-the-sudoku-crate))."
        )
    file = ctx.corpus("puzzles2_17_clue")
    base = f"lib={ctx.tdoku},symbol=TdokuSolverDpllTriadSimd"
    specs = [("`lib=…,symbol=TdokuSolverDpllTriadSimd`", base),
             ("`…,reentrant=no`", base + ",reentrant=no"),
             ("`…,isolate=yes`", base + ",isolate=yes")]
    got = {}
    for _ in range(3):
        for label, spec in specs:
            s, _, t, out = bench(ctx, [file, "-s", spec, "-j", "2", "--no-puzzle-csv"], ok=(0, 1))
            r = one(s)
            got.setdefault(label, []).append((r["wrong_answers"], r["wrong_counts"], t.code, 1e9 / r["puzzles_per_sec"]))
            shutil.rmtree(out)
    rows = ["| spec | wrong grids | wrong counts | exit status | wall ns per solve |", "|---|---:|---:|---:|---:|"]
    for label, _ in specs:
        v = got[label]
        col = lambda i: ", ".join(f"{x[i]:,}" for x in v)
        rows.append(
            f"| {label} | {col(0)} | {col(1)} | {col(2)} | {min(x[3] for x in v):,.0f}–{max(x[3] for x in v):,.0f} |"
        )
    return "bench-sudoku run 17-clue -s SPEC -j 2 --no-puzzle-csv, three runs each", "\n".join(rows)


# --------------------------------------------------------------------------
# Generator


def generate(ctx):
    """How fast `generate` goes."""
    jobs = [
        (["-n", "10000", "--seed", "1"], 10_000, "puzzles"),
        (["--grids", "1000000", "--seed", "1"], 1_000_000, "grids"),
        (["--hard-for", "fast", "-n", "8", "--seed", "1"], 8, "puzzles"),
    ]
    rows = [
        "| command | made | wall s | CPU s | wall per item | what came out |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for args, count, what in jobs:
        out = ctx.work / "generated.csv"
        t = timed([BIN, "generate", *args, "-o", out], work=ctx.work)
        per = t.wall / count
        per = f"{per * 1e6:,.1f} µs" if per < 1e-3 else f"{per:,.2f} s"
        if what == "grids":
            made = sum(1 for l in open(out) if len(l.strip()) == 81)
            note = "complete grids"
        else:
            with open(out) as f:
                body = [l for l in f if not l.startswith("#")]
            rows_ = list(csv.DictReader(body))
            made = len(rows_)
            clues = [int(r["clues"]) for r in rows_]
            guesses = [int(r["guesses"]) for r in rows_]
            strat = "fast" if "--hard-for" in args else "hidden"
            note = (
                f"{min(clues)}–{max(clues)} clues; guesses under `{strat}` mean "
                f"{statistics.mean(guesses):,.1f}, max {max(guesses):,}"
            )
        if made != count:
            raise Failed(f"`bench-sudoku generate {shlex.join(args)}` wrote {made} {what}, not {count}")
        out.unlink()
        rows.append(
            f"| `generate {' '.join(args)}` | {made:,} | {t.wall:.2f} | {t.cpu:.2f} | {per} | {note} |"
        )
    return f"bench-sudoku generate ARGS -o FILE (every core)", "\n".join(rows)


# --------------------------------------------------------------------------
# The tables, in the document's order: name, function, what must be built.

TABLES = [
    ("strategies", strategies, []),
    ("instructions", instructions, []),
    ("peers", peers, ["tdoku"]),
    ("threads", threads, ["capi", "whole-pass"]),
    ("harness-instructions", harness_instructions, []),
    ("memory", memory, []),
    ("whole-run", whole_run, []),
    ("timer", timer, []),
    ("external", external, ["capi"]),
    ("external-threads", external_threads, ["capi"]),
    ("supervised", supervised, ["capi"]),
    ("examples", examples, ["example", "c-example"]),
    ("tdoku-threads", tdoku_threads, ["tdoku"]),
    ("generate", generate, []),
]


def chosen(only):
    names = [n for n, _, _ in TABLES]
    if not only:
        return names
    want = [w.strip() for w in only.split(",") if w.strip()]
    bad = [w for w in want if w not in names]
    if bad:
        raise Failed(f"no table {', '.join(bad)} (tables: {', '.join(names)})")
    return [n for n in names if n in want]


def markers(text):
    return re.findall(r"^<!-- perf:([a-z0-9-]+):begin -->$", text, flags=re.M)


def check_doc(text):
    """Every table has exactly one pair of markers, and every marker a table."""
    names = [n for n, _, _ in TABLES]
    found = markers(text)
    for n in names:
        if found.count(n) != 1 or len(re.findall(f"^<!-- perf:{n}:end -->$", text, flags=re.M)) != 1:
            raise Failed(f"{DOC.relative_to(ROOT)}: needs one <!-- perf:{n}:begin --> … <!-- perf:{n}:end --> pair")
    extra = sorted(set(found) - set(names))
    if extra:
        raise Failed(f"{DOC.relative_to(ROOT)}: markers of unknown tables: {', '.join(extra)}")


def splice(text, name, block):
    """text with the lines between NAME's markers replaced by block."""
    begin, end = f"<!-- perf:{name}:begin -->\n", f"<!-- perf:{name}:end -->\n"
    i = text.index(begin) + len(begin)
    j = text.index(end, i)
    return text[:i] + block.rstrip("\n") + "\n" + text[j:]


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def load():
    return f"{os.getloadavg()[0]:.2f}"


def main():
    # Output piped into `head` ends quietly, as a shell tool's does.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--list", action="store_true", help="print the chosen tables' names")
    ap.add_argument("--needs", action="store_true", help="print what the chosen tables need built")
    ap.add_argument("--only", default="")
    ap.add_argument("--print", action="store_true", help="print the blocks, leave the document")
    ap.add_argument("--corpora")
    ap.add_argument("--work")
    ap.add_argument("--tdoku")
    args = ap.parse_args()
    try:
        names = chosen(args.only)
        if args.list:
            print("\n".join(names))
            return 0
        if args.needs:
            print("\n".join(sorted({x for n, _, need in TABLES if n in names for x in need})))
            return 0
        ctx = Ctx(args)
        for stem, _ in CORPORA:
            if not ctx.corpus(stem).is_file():
                raise Failed(f"no corpus {ctx.corpus(stem)} (set BENCH_SUDOKU_CORPORA)")
        text = DOC.read_text()
        check_doc(text)
        machine = f"{cpu_model()}, {os.cpu_count()} logical cores"
        funcs = {n: f for n, f, _ in TABLES}
        blocks = {}
        for name in names:
            start, load0 = datetime.now(timezone.utc), load()
            t0 = time.perf_counter()
            print(f"performance: {name} (load average {load0})", file=sys.stderr, flush=True)
            try:
                cmd, table = funcs[name](ctx)
            except Failed as e:
                raise Failed(f"table '{name}': {e}")
            end = datetime.now(timezone.utc)
            span = f"{start:%Y-%m-%d %H:%M}" + ("" if f"{end:%H:%M}" == f"{start:%H:%M}" else f"–{end:%H:%M}")
            line = (
                f"_Measured {span} UTC on {machine}, load average "
                f"{load0} at the start and {load()} at the end, by `scripts/performance.sh --only "
                f"{name}`: `{cmd}`._"
            )
            blocks[name] = f"{line}\n\n{table}\n"
            print(f"performance: {name} took {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
        if args.print:
            for name in names:
                print(f"<!-- perf:{name}:begin -->\n{blocks[name]}<!-- perf:{name}:end -->\n")
            return 0
        text = DOC.read_text()
        check_doc(text)
        for name in names:
            text = splice(text, name, blocks[name])
        fd, tmp = tempfile.mkstemp(dir=DOC.parent, prefix=".PERFORMANCE.md.")
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, DOC)
        print(f"performance: wrote {len(names)} table(s) into {DOC.relative_to(ROOT)}", file=sys.stderr)
        return 0
    except Failed as e:
        print(f"performance: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
