#!/usr/bin/env python3
"""Checks the structural rules of ARCHITECTURE.md on the source tree, and prints what breaks them.

1. Layers. ARCHITECTURE.md's code map lists the top-level modules of src/ in layer order,
   each with the modules it imports. A module imports another when it names it, or an item
   in it, by a `crate::` path or a `super::` path (in `use` declarations and in expressions
   alike; comments and strings aside). Every top-level module of src/ has a row; a module
   imports only modules of the rows above its own; its row's imports column names exactly
   the modules it imports.
2. No import cycle: between any two modules (files: src/a/b.rs and src/a/b/mod.rs are
   `a::b`; a module and the modules inside it are one unit) the imports run one way. Cycles
   are the strongly connected components of the graph with more than one module.
3. No long function: every `fn` of src/ (tests excluded) fits in LIMIT lines (default 80),
   counted from its `fn` line to its closing brace, but for the engines' hot paths listed in
   HOT_PATHS below.
4. The environment is read in `commands` (and `cli`) alone: no other module of src/ (tests
   excluded) calls `std::env::var`, `var_os`, `vars`, `set_var` or `remove_var`, but for
   `PATH`, which is read where an external solver's program is looked up, as a shell does.

usage: scripts/check-structure.py [--limit N] [--graph]
  --graph  also print every top-level module's imports
Exit status: 0 when every rule holds, 1 otherwise.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SRC = os.path.join(ROOT, "src")


def module_of(path):
    rel = os.path.relpath(path, SRC)[:-3].split(os.sep)
    if rel[-1] == "mod":
        rel = rel[:-1]
    if rel in (["lib"], ["main"]):
        return ()
    return tuple(rel)


def strip_comments_and_strings(text):
    """The code with comments and string literals blanked (lines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 8]) and (i == 0 or not text[i - 1].isalnum()):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            end = '"' + hashes
            j = text.find(end, i + 2 + len(hashes))
            j = n if j < 0 else j + len(end)
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i:i + 4]):
            m = re.match(r"'(\\.[^']*|[^\\'])'", text[i:])
            out.append("' '")
            i += len(m.group(0))
        else:
            out.append(c)
            i += 1
    return "".join(out)


def test_free(code):
    """The code without `#[cfg(test)] mod … { … }` blocks."""
    out, i = [], 0
    for m in re.finditer(r"#\[cfg\(test\)\]\s*(pub(\([a-z]+\))?\s+)?mod\s+\w+\s*\{", code):
        if m.start() < i:
            continue
        out.append(code[i:m.start()])
        depth, j = 0, m.end() - 1
        while j < len(code):
            if code[j] == "{":
                depth += 1
            elif code[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        out.append("\n" * code.count("\n", m.start(), j + 1))
        i = j + 1
    out.append(code[i:])
    return "".join(out)


def use_paths(code):
    """Every path a `use` declaration names (groups expanded), as lists of segments."""
    paths = []
    for m in re.finditer(r"\buse\s+([^;]+);", code):
        paths.extend(expand(m.group(1).replace("\n", " ")))
    return paths


def expand(tree):
    tree = tree.strip()
    depth = 0
    for k, ch in enumerate(tree):
        if ch == "{":
            if depth == 0:
                prefix = tree[:k].rstrip(": ").strip()
                inner = tree[k + 1:tree.rfind("}")]
                out = []
                for part in split_top(inner):
                    for p in expand(part):
                        out.append((prefix.split("::") if prefix else []) + p)
                return out
            depth += 1
        elif ch == "}":
            depth -= 1
    path = re.sub(r"\s+as\s+\w+$", "", tree).strip()
    return [[s.strip() for s in path.split("::") if s.strip()]] if path else []


def split_top(inner):
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    parts.append(cur)
    return [p for p in parts if p.strip()]


def resolve(segments, here, modules):
    """The module a path names (its longest prefix that is a module), or None."""
    if not segments:
        return None
    if segments[0] == "crate":
        base, rest = (), segments[1:]
    elif segments[0] == "super":
        base, rest = here, segments
        while rest and rest[0] == "super":
            base, rest = base[:-1], rest[1:]
    elif segments[0] == "self":
        base, rest = here, segments[1:]
    else:
        return None
    best = None
    path = base
    if path in modules:
        best = path
    for s in rest:
        path = path + (s,)
        if path in modules:
            best = path
        else:
            break
    return best


def related(a, b):
    return a[: len(b)] == b or b[: len(a)] == a


def imports():
    files = {}
    for d, _, names in os.walk(SRC):
        for f in names:
            # A `tests.rs` is a module's unit tests (declared under
            # `#[cfg(test)]`): test code may build its inputs with a higher
            # layer, as integration tests do.
            if f.endswith(".rs") and f != "tests.rs":
                p = os.path.join(d, f)
                files[module_of(p)] = p
    modules = set(files)
    graph = {m: set() for m in modules}
    for m, p in files.items():
        code = test_free(strip_comments_and_strings(open(p, encoding="utf-8").read()))
        paths = use_paths(code)
        for q in re.finditer(r"\b((?:crate|super|self)(?:::\w+)+)", code):
            paths.append(q.group(1).split("::"))
        for segs in paths:
            t = resolve(segs, m, modules)
            if t is not None and t != () and not related(t, m):
                graph[m].add(t)
    return graph


ENV_READERS = ("commands", "cli")
ENV_CALL = re.compile(r"\benv::(var|var_os|vars|vars_os|set_var|remove_var)\b")


def environment_reads():
    """Every call that reads or changes the environment outside `commands` and `cli`."""
    found = []
    for d, _, names in os.walk(SRC):
        for f in sorted(names):
            p = os.path.join(d, f)
            if not f.endswith(".rs") or f == "tests.rs" or module_of(p)[:1] in [(m,) for m in ENV_READERS]:
                continue
            text = open(p, encoding="utf-8").read()
            lines = text.split("\n")
            code = test_free(strip_comments_and_strings(text))
            for m in ENV_CALL.finditer(code):
                line = code.count("\n", 0, m.start())
                if '"PATH"' not in lines[line]:
                    found.append((os.path.relpath(p, ROOT), line + 1, lines[line].strip()))
    return found


def cycles(graph):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


# The engines' hot paths, where a function is one search loop that splitting would slow
# down (every call on it is in the timed region): file, function.
HOT_PATHS = {
    ("src/solver/engine.rs", "solve_at"),
    ("src/solver/fast/mod.rs", "solve_impl"),
    ("src/solver/fast/mod.rs", "search"),
    ("src/solver/fast/mod.rs", "propagate"),
    ("src/solver/dlx.rs", "search"),
    # The answer check of every solve (AVX2: one routine of intrinsics).
    ("src/grid/verify.rs", "is_solution_avx2"),
}


def long_functions(limit):
    out = []
    for d, _, names in os.walk(SRC):
        for f in sorted(names):
            # A module's tests in a file of their own (`mod tests;` under
            # `#[cfg(test)]`) are tests.
            if not f.endswith(".rs") or f == "tests.rs":
                continue
            p = os.path.join(d, f)
            rel = os.path.relpath(p, ROOT)
            lines = test_free(strip_comments_and_strings(open(p, encoding="utf-8").read())).split("\n")
            i = 0
            while i < len(lines):
                m = re.match(r"(\s*)(pub(\([a-z]+\))?\s+)?(const\s+)?(unsafe\s+)?fn\s+(\w+)", lines[i])
                if m and not lines[i].rstrip().endswith(";"):
                    # From the line of `fn` to its body's closing brace.
                    depth, j, opened = 0, i, False
                    while j < len(lines):
                        depth += lines[j].count("{") - lines[j].count("}")
                        opened = opened or "{" in lines[j]
                        if opened and depth <= 0:
                            break
                        j += 1
                    if j - i + 1 > limit and (rel, m.group(6)) not in HOT_PATHS:
                        out.append((rel, i + 1, m.group(6), j - i + 1))
                    i = j
                i += 1
    return out


def layer_table():
    """The code map of ARCHITECTURE.md: [(module, {imports})] in layer order."""
    text = open(os.path.join(ROOT, "ARCHITECTURE.md"), encoding="utf-8").read()
    at = text.index("| module | job | imports |")
    rows = []
    for line in text[at:].split("\n")[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        names = re.findall(r"`(\w+)`", cells[0])
        if not names:
            continue
        imports = set()
        if cells[-1] != "—" and not cells[-1].startswith("everything above"):
            # The imports column: its backticked names, remarks in parentheses left out.
            imports = set(re.findall(r"`(\w+)`", re.sub(r"\([^)]*\)", "", cells[-1])))
        rows.append((names[0], imports, cells[-1].startswith("everything above")))
    return rows


def top_level(graph):
    """The imports between top-level modules (the crate root's files left out)."""
    top = {}
    for m, targets in graph.items():
        if not m:
            continue
        for t in targets:
            if t and t[0] != m[0]:
                top.setdefault(m[0], set()).add(t[0])
        top.setdefault(m[0], set())
    return top


def layer_problems(graph):
    out = []
    rows = layer_table()
    order = [r[0] for r in rows]
    top = top_level(graph)
    for m in sorted(set(top) - set(order)):
        out.append(f"layers: src/{m} has no row in ARCHITECTURE.md's code map")
    for m in sorted(set(order) - set(top)):
        out.append(f"layers: ARCHITECTURE.md's code map has a row for `{m}`, which src/ does not have")
    for name, documented, everything in rows:
        if name not in top:
            continue
        top[name].discard(name)
        mine = order.index(name)
        for t in sorted(top[name]):
            if t in order and order.index(t) > mine:
                out.append(f"layers: `{name}` imports `{t}`, a module of a row below its own")
        if not everything and documented != top[name]:
            extra = sorted(top[name] - documented)
            said = sorted(documented - top[name])
            out.append(
                f"layers: the code map's imports of `{name}` are not the code's"
                + (f"; it also imports {', '.join(extra)}" if extra else "")
                + (f"; it does not import {', '.join(said)}" if said else "")
            )
    return out, top


def main():
    args = sys.argv[1:]
    limit = 80
    if "--limit" in args:
        limit = int(args[args.index("--limit") + 1])
    graph = imports()
    problems, top = layer_problems(graph)
    if "--graph" in args:
        for m in sorted(top):
            print(m, "->", ", ".join(sorted(top[m])))
    bad = len(problems)
    for p in problems:
        print(p)
    for comp in cycles(graph):
        bad += 1
        names = ["::".join(m) for m in comp]
        print("import cycle:", " <-> ".join(names))
        for a in comp:
            for b in comp:
                if b in graph[a]:
                    print(f"  {'::'.join(a)} imports {'::'.join(b)}")
    for path, line, text in environment_reads():
        bad += 1
        print(f"environment read outside commands: {path}:{line} {text}")
    for path, line, name, n in long_functions(limit):
        bad += 1
        print(f"long function: {path}:{line} {name} ({n} lines, limit {limit})")
    if bad:
        return 1
    print(
        f"layers as ARCHITECTURE.md's code map says; no import cycle in src/; "
        f"no function over {limit} lines outside the engines' hot paths; "
        f"the environment read in commands alone"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
