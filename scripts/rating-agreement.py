#!/usr/bin/env python3
"""How well `bench-sudoku rate` agrees with an independent rater: HoDoKu's
score, from the `hodoku-py` package (a Python port of HoDoKu's solver and
rater) installed in a virtual environment outside this repository.

The sample spans easy to extreme: puzzles made by `bench-sudoku generate`
at several settings (written to a temporary directory), plus every k-th
puzzle of the standard corpora that have one solution, read in place. Each
puzzle is rated by both; the figure is Spearman's rank correlation between
bench-sudoku's rating and HoDoKu's score (ties take their mean rank), with
the number of puzzles, and the same per source. Nothing is installed or
written into the repository; HoDoKu's scores can be kept in a cache file
(HoDoKu takes seconds on the hardest puzzles).

usage: scripts/rating-agreement.py VENV [--corpora DIR] [--per N] [--seed S]
           [--offset K] [--cache FILE] [--jobs J] [--bin PATH] [--table]
  VENV      a virtual environment with hodoku-py installed
            (python3 -m venv VENV && VENV/bin/pip install hodoku-py)
  --corpora the standard corpora (default: $BENCH_SUDOKU_CORPORA or
            ../shared/corpora)
  --per N   puzzles per source (default 40)
  --seed S  the first generated source's seed (the others S+1, S+2)
  --offset K  start each corpus sample at its K-th puzzle (another sample)
  --table   print the per-source table as Markdown
Exit status: 0 when the correlation was measured, 1 on a failure.
"""

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

# The generated sources: label and `generate` arguments (each with its seed).
GENERATED = [
    ("generated, 36 clues", ["--min-clues", "36"]),
    ("generated, minimal", ["--minimal"]),
    ("generated, ≥ 10 guesses", ["--minimal", "--min-guesses", "10"]),
]

# The corpora sampled (the serg benchmark's puzzles have several solutions).
CORPORA = [
    ("17-clue", "puzzles2_17_clue"),
    ("top1465", "puzzles3_magictour_top1465"),
    ("forum hardest 1905 11+", "puzzles5_forum_hardest_1905_11+"),
    ("forum hardest 1106", "puzzles6_forum_hardest_1106"),
]

HODOKU = r"""
import sys, json
from hodoku.api import Solver
s = Solver()
for line in sys.stdin:
    p = line.strip()
    if p:
        r = s.rate(p)
        print(json.dumps({"puzzle": p, "score": r.score, "level": r.level.name}), flush=True)
"""


def ranks(xs):
    """Ranks 1..n, ties given their mean rank."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(xs, ys):
    """Pearson's correlation of the ranks."""
    rx, ry = ranks(xs), ranks(ys)
    n = len(xs)
    mx, my = sum(rx) / n, sum(ry) / n
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    vx = sum((a - mx) ** 2 for a in rx)
    vy = sum((b - my) ** 2 for b in ry)
    return cov / (vx * vy) ** 0.5 if vx and vy else float("nan")


def sample_corpus(path, per, offset):
    """Every k-th puzzle line of a corpus from the `offset`-th, `per` of them."""
    with open(path) as f:
        lines = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    step = max(1, len(lines) // per)
    return [l.replace(".", "0") for l in lines[offset % step::step][:per]]


def generated(binary, args, per, seed, tmp):
    out = os.path.join(tmp, f"gen-{seed}.csv")
    cmd = [binary, "generate", "-n", str(per), "--seed", str(seed), "-q", "--out", out] + args
    subprocess.run(cmd, check=True)
    with open(out) as f:
        return [row["puzzle"] for row in csv.DictReader(f)]


def rate_ours(binary, puzzles, tmp):
    path = os.path.join(tmp, "sample.txt")
    with open(path, "w") as f:
        f.write("\n".join(puzzles) + "\n")
    out = subprocess.run([binary, "rate", path, "-q"], check=True, capture_output=True, text=True)
    rows = list(csv.DictReader(out.stdout.splitlines()))
    return {r["puzzle"]: r for r in rows}


def rate_hodoku(venv, puzzles, cache_path, jobs):
    cache = {}
    if cache_path and os.path.exists(cache_path):
        with open(cache_path) as f:
            for line in f:
                d = json.loads(line)
                cache[d["puzzle"]] = d
    todo = sorted({p for p in puzzles if p not in cache})
    python = os.path.join(venv, "bin", "python")
    chunks = [todo[i::jobs] for i in range(jobs)]

    def run(chunk):
        if not chunk:
            return []
        out = subprocess.run([python, "-c", HODOKU], input="\n".join(chunk) + "\n",
                             check=True, capture_output=True, text=True)
        return [json.loads(l) for l in out.stdout.splitlines()]

    with ThreadPoolExecutor(jobs) as ex:
        for got in ex.map(run, chunks):
            for d in got:
                cache[d["puzzle"]] = d
    if cache_path:
        with open(cache_path + ".tmp", "w") as f:
            for d in cache.values():
                f.write(json.dumps(d) + "\n")
        os.replace(cache_path + ".tmp", cache_path)
    return cache


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("venv")
    ap.add_argument("--corpora", default=os.environ.get("BENCH_SUDOKU_CORPORA",
                                                        os.path.join(ROOT, "..", "shared", "corpora")))
    ap.add_argument("--per", type=int, default=40)
    ap.add_argument("--seed", type=int, default=4401)
    ap.add_argument("--offset", type=int, default=0)
    ap.add_argument("--cache")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "bench-sudoku"))
    ap.add_argument("--table", action="store_true")
    a = ap.parse_args()
    if not os.path.exists(os.path.join(a.venv, "bin", "python")):
        sys.exit(f"{a.venv}: not a virtual environment (no bin/python)")
    with tempfile.TemporaryDirectory(prefix="rating-agreement.") as tmp:
        sources = []
        for i, (label, args) in enumerate(GENERATED):
            sources.append((label, generated(a.bin, args, a.per, a.seed + i, tmp)))
        for label, name in CORPORA:
            sources.append((label, sample_corpus(os.path.join(a.corpora, name), a.per, a.offset)))
        everything = [p for _, ps in sources for p in ps]
        ours = rate_ours(a.bin, everything, tmp)
        theirs = rate_hodoku(a.venv, everything, a.cache, a.jobs)
    pairs, rows = [], []
    for label, ps in sources:
        xs = [float(ours[p]["rating"]) for p in ps if ours[p]["outcome"] == "rated"]
        ys = [theirs[p]["score"] for p in ps if ours[p]["outcome"] == "rated"]
        pairs += list(zip(xs, ys))
        classes = sorted({ours[p]["class"] for p in ps})
        rows.append((label, len(xs), min(xs), max(xs), min(ys), max(ys), spearman(xs, ys), classes))
    rho = spearman([x for x, _ in pairs], [y for _, y in pairs])
    if a.table:
        print("| source | puzzles | rating | HoDoKu score | ρ within | classes |")
        print("|---|---:|---|---|---:|---|")
        for label, n, lo, hi, slo, shi, r, cl in rows:
            print(f"| {label} | {n} | {lo:.1f}–{hi:.1f} | {slo}–{shi} | {r:.2f} | {', '.join(cl)} |")
        print(f"| **all** | **{len(pairs)}** | | | **{rho:.3f}** | |")
    else:
        for label, n, lo, hi, slo, shi, r, cl in rows:
            print(f"{label:28} n={n:4}  rating {lo:.1f}-{hi:.1f}  hodoku {slo}-{shi}  rho {r:.2f}  {','.join(cl)}")
        print(f"all: Spearman rho = {rho:.3f}, n = {len(pairs)}")


if __name__ == "__main__":
    main()
