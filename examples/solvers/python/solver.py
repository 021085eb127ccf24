#!/usr/bin/env python3
"""An example Sudoku solver that speaks the bench-sudoku solver protocol, version 1.

The contract is docs/SOLVER-PROTOCOL.md; this file is meant to be read by solver
authors as a complete, working example of it. Standard library only.

Usage:

    bench-sudoku run datasets/hard.csv -s 'cmd=python3 examples/solvers/python/solver.py'

    solver.py           report ns, guesses, backtracks and depth
    solver.py --no-ns   do not report ns: the handshake says
                        reports=guesses,backtracks,depth and replies carry no ns
                        key, so the harness times every puzzle itself (its
                        round-trip clock) and sends requests one at a time

What goes over the pipes (stdout carries the protocol and nothing else):

    harness -> solver   bench-sudoku-protocol 1
    solver  -> harness  bench-sudoku-protocol 1 name=python-example reports=ns,guesses,backtracks,depth
    harness -> solver   4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4...... 2
    solver  -> harness  1 417369825632158947958724316825437169791586432346912758289643571573291684164875293 ns=... guesses=... backtracks=... depth=...
    harness -> solver   quit

A request that cannot be read (wrong length, a character other than 1-9 and
'.', a missing, non-decimal or zero limit) is answered `error MESSAGE` and the
solver carries on with the next request. A puzzle whose givens break a rule
(the same digit twice in a row, column or box) has no solution: `0 -` with all
counters 0.

The solver: a 9-bit candidate mask per cell (bit d-1 set when digit d is still
possible), the 20 peers of every cell precomputed, propagation of naked singles
(a cell with one candidate left) and hidden singles (a digit with one place
left in a row, column or box) to a fixpoint at every search node, then a guess
at the first empty cell with the fewest candidates, trying its digits in
ascending order (depth-first, recursive, counting solutions up to the limit).

The counters, for one request:

    guesses     digits tried at a branch cell (a cell that had two or more
                candidates); every digit tried counts, the last one included.
    backtracks  guesses undone because their subtree was exhausted: a dead end,
                or every solution under it counted. The search stops as soon as
                the limit is reached, and the guesses then still open are not
                undone: backtracks == guesses when the search ran to completion
                (fewer solutions than the limit), backtracks < guesses when the
                limit was reached below a guess.
    depth       the deepest nesting of guesses (0 when no guess was needed).
    ns          nanoseconds of time.perf_counter_ns() around the solve only,
                not around reading the request or writing the reply.

This search (naked + hidden singles, first fewest-candidate cell, ascending
digits) is the one bench-sudoku calls `hidden`, so its counters are meant to
equal that strategy's for the same puzzle and limit.
"""

import os
import sys
import time

# ---------------------------------------------------------------------------
# The grid: cells 0..80 row by row; units 0-8 rows, 9-17 columns, 18-26 boxes.

ALL = 0x1FF  # the nine candidate bits: bit d-1 stands for digit d

UNITS = (
    [[r * 9 + c for c in range(9)] for r in range(9)]
    + [[r * 9 + c for r in range(9)] for c in range(9)]
    + [
        [(br + i // 3) * 9 + bc + i % 3 for i in range(9)]
        for br in (0, 3, 6)
        for bc in (0, 3, 6)
    ]
)

# PEERS[cell]: the 20 other cells that share a row, column or box with it.
PEERS = [
    tuple(sorted({p for unit in UNITS if cell in unit for p in unit} - {cell}))
    for cell in range(81)
]

# BIT[d]: the mask of digit d (BIT[0] = 0, so an empty cell adds nothing).
BIT = [0] + [1 << (d - 1) for d in range(1, 10)]
# DIGIT[mask]: the digit of a single-bit mask.
DIGIT = {1 << (d - 1): d for d in range(1, 10)}
# COUNT[mask]: how many candidates a mask holds (int.bit_count needs 3.10+).
COUNT = [bin(m).count("1") for m in range(ALL + 1)]


# ---------------------------------------------------------------------------
# Propagation. `cands[cell]` is the candidate mask of an empty cell and 0 for a
# filled one; `values[cell]` is the digit of a filled cell and 0 for an empty
# one. `queue` holds cells that have become naked singles and are not placed yet.


def place(cands, values, cell, digit, queue):
    """Puts `digit` in `cell` and removes it from the peers' candidates.

    Peers left with one candidate are queued; returns False as soon as a peer
    is left with none (a contradiction)."""
    bit = BIT[digit]
    values[cell] = digit
    cands[cell] = 0
    for p in PEERS[cell]:
        c = cands[p]
        if c & bit:
            c ^= bit
            cands[p] = c
            if c & (c - 1) == 0:  # at most one candidate left
                if c == 0:
                    return False
                queue.append(p)
    return True


def propagate(cands, values, queue):
    """Places naked and hidden singles until none is left.

    Returns False on a contradiction: a cell without candidates, or a digit
    with no place left in a unit that does not already hold it."""
    while True:
        # Naked singles: a cell whose mask has one bit.
        while queue:
            cell = queue.pop()
            c = cands[cell]
            if c == 0:
                continue  # placed meanwhile (a cell emptied by a removal returned False)
            if not place(cands, values, cell, DIGIT[c], queue):
                return False
        # Hidden singles: one sweep over the 27 units.
        progress = False
        for unit in UNITS:
            once = twice = placed = 0
            for cell in unit:
                c = cands[cell]
                if c:
                    twice |= once & c  # digits seen in two or more cells
                    once |= c  # digits seen in at least one cell
                else:
                    placed |= BIT[values[cell]]
            if once | placed != ALL:
                return False  # some digit can go nowhere in this unit
            hidden = once & ~twice  # digits with exactly one place
            while hidden:
                bit = hidden & -hidden  # lowest digit first
                hidden ^= bit
                for cell in unit:
                    if cands[cell] & bit:
                        break
                else:
                    # A placement earlier in this sweep took the digit's only place.
                    return False
                if not place(cands, values, cell, DIGIT[bit], queue):
                    return False
                progress = True
        if not progress and not queue:
            return True


def choose(cands):
    """The first empty cell with the fewest candidates, or -1 when none is empty.

    After propagation every empty cell has at least two candidates, so the scan
    stops at the first cell with exactly two."""
    best, best_n = -1, 10
    for cell in range(81):
        c = cands[cell]
        if c:
            n = COUNT[c]
            if n < best_n:
                best, best_n = cell, n
                if n == 2:
                    break
    return best


# ---------------------------------------------------------------------------
# Search.


class Search:
    """One solve: the solutions counted so far, the first one, and the counters."""

    def __init__(self, limit):
        self.limit = limit
        self.count = 0
        self.first = None  # the first solution, as a list of 81 digits
        self.guesses = 0
        self.backtracks = 0
        self.depth = 0

    def run(self, cands, values, level):
        """Searches below a propagated node with `level` open guesses above it.

        Returns True when the limit has been reached: the whole search stops
        and the guesses still open are left as they are (not backtracked)."""
        cell = choose(cands)
        if cell < 0:  # no empty cell: a solution
            self.count += 1
            if self.count == 1:
                self.first = values[:]
            return self.count >= self.limit
        mask = cands[cell]
        level += 1  # the guesses at this cell are nested one deeper
        if level > self.depth:
            self.depth = level
        while mask:
            bit = mask & -mask  # ascending digits
            mask ^= bit
            self.guesses += 1
            # Each guess works on its own copy, so undoing it is just dropping it.
            c2, v2, queue = cands[:], values[:], []
            if place(c2, v2, cell, DIGIT[bit], queue) and propagate(c2, v2, queue):
                if self.run(c2, v2, level):
                    return True
            # This guess's subtree is exhausted (dead end, or its solutions counted).
            self.backtracks += 1
        return False


def solve(puzzle, limit):
    """Solves an 81-character puzzle ('1'-'9' givens, '.' blanks).

    Returns (count, first solution as an 81-digit string or None, search)."""
    search = Search(limit)
    values = [0 if ch == "." else ord(ch) - 48 for ch in puzzle]
    # Givens that break a rule: no solution, and no search at all.
    for cell, v in enumerate(values):
        if v and any(values[p] == v for p in PEERS[cell]):
            return 0, None, search
    # Each empty cell starts with the digits none of its peers holds.
    cands = [0] * 81
    queue = []
    for cell in range(81):
        if values[cell] == 0:
            used = 0
            for p in PEERS[cell]:
                used |= BIT[values[p]]
            c = ALL & ~used
            cands[cell] = c
            if c & (c - 1) == 0:
                if c == 0:
                    return 0, None, search  # an empty cell with no candidate
                queue.append(cell)
    if propagate(cands, values, queue):
        search.run(cands, values, 0)
    if search.count == 0:
        return 0, None, search
    return search.count, "".join(map(str, search.first)), search


# ---------------------------------------------------------------------------
# The protocol.

NAME = "python-example"
CELL_CHARS = frozenset("123456789.")


def read_line(stdin):
    """The next line without its '\\n' (and a '\\r' before it), or None at end of input."""
    raw = stdin.readline()
    if not raw:
        return None
    if raw.endswith(b"\n"):
        raw = raw[:-1]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
    # Lines are ASCII; a byte that is not becomes U+FFFD, which no check accepts.
    return raw.decode("ascii", errors="replace")


def parse_request(line):
    """(puzzle, limit) from 'PUZZLE LIMIT'; raises ValueError with the reason."""
    if not line:
        raise ValueError("empty line (expected 'PUZZLE LIMIT')")
    if not line.isascii():
        raise ValueError("request is not ASCII")
    fields = line.split(" ")  # fields are separated by single spaces
    if len(fields) == 1:
        raise ValueError("missing limit (expected 'PUZZLE LIMIT')")
    if len(fields) != 2:
        raise ValueError(f"expected 2 fields 'PUZZLE LIMIT', found {len(fields)}")
    puzzle, limit_text = fields
    if len(puzzle) != 81:
        raise ValueError(f"puzzle has {len(puzzle)} characters, expected 81")
    for i, ch in enumerate(puzzle):
        if ch not in CELL_CHARS:
            raise ValueError(
                f"bad character {ascii(ch)} at position {i + 1} (expected 1-9 or .)"
            )
    if not limit_text:
        raise ValueError("missing limit (expected 'PUZZLE LIMIT')")
    if not limit_text.isdigit():  # ASCII digits only: the line is ASCII
        raise ValueError(f"invalid limit {ascii(limit_text[:40])} (expected a decimal number)")
    limit = int(limit_text)
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit_text}")
    return puzzle, limit


def answer(line, report_ns):
    """The reply line to one request line (without the newline)."""
    try:
        puzzle, limit = parse_request(line)
    except ValueError as why:
        return f"error {why}"
    # The clock covers the solve only: not parsing the request, not writing the reply.
    start = time.perf_counter_ns()
    count, solution, search = solve(puzzle, limit)
    ns = time.perf_counter_ns() - start
    fields = [str(count), solution or "-"]
    if report_ns:
        fields.append(f"ns={ns}")
    fields += [
        f"guesses={search.guesses}",
        f"backtracks={search.backtracks}",
        f"depth={search.depth}",
    ]
    return " ".join(fields)


def main(argv):
    report_ns = True
    for arg in argv:
        if arg == "--no-ns":
            report_ns = False
        else:
            # stdout is for the protocol only: complaints go to stderr.
            print(f"solver.py: unknown argument {arg!r} (usage: solver.py [--no-ns])",
                  file=sys.stderr)
            return 2

    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer

    def send(text):
        stdout.write(text.encode("ascii") + b"\n")
        # Flush after every reply. The harness may send several requests before
        # it reads (up to 64 when ns is reported), or exactly one and then wait
        # for its reply (without ns). The protocol asks for a flush at the
        # latest once every request read so far is answered, or the harness
        # waits (until its timeout) for a reply sitting in our buffer. Flushing
        # every reply meets that in every case without having to know whether
        # more input is already waiting, and costs one write per puzzle.
        stdout.flush()

    # 1. Handshake: the harness names the highest version it speaks.
    hello = read_line(stdin)
    fields = hello.split(" ") if hello is not None else []
    if (
        len(fields) != 2
        or fields[0] != "bench-sudoku-protocol"
        or not (fields[1].isascii() and fields[1].isdigit())
        or int(fields[1]) < 1
    ):
        got = "end of input" if hello is None else ascii(hello[:80])
        send(f"error unsupported protocol: expected 'bench-sudoku-protocol N' "
             f"with N >= 1, got {got}")
        return 1
    reports = "ns,guesses,backtracks,depth" if report_ns else "guesses,backtracks,depth"
    send(f"bench-sudoku-protocol 1 name={NAME} reports={reports}")

    # 2. Requests, answered one line each, in order, until quit or end of input.
    while True:
        line = read_line(stdin)
        if line is None or line == "quit":
            return 0
        send(answer(line, report_ns))


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:
        # The harness closed our stdout (it stopped us): nobody is listening.
        # Point stdout at nothing so the interpreter's final flush stays quiet.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
