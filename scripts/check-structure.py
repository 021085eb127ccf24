#!/usr/bin/env python3
"""Checks two rules of ARCHITECTURE.md on the source tree, and prints what breaks them.

1. No import cycle: every file of src/ is a module (src/a/b.rs and src/a/b/mod.rs are
   `a::b`); a module imports another when it names it, or an item in it, by a `crate::`
   path or a `super::` path (in `use` declarations and in expressions alike). A module and
   the modules inside it are one unit (a parent and its children may use each other's
   items); between any other two modules the imports must run one way. Cycles are found
   as the strongly connected components of the graph with more than one module.
2. No long function in the command, report and pipeline layers: every `fn` in
   src/commands/, src/report/ and src/bench/pipeline/ (tests excluded) fits in LIMIT
   lines (default 80), counted from its `fn` line to its closing brace.

usage: scripts/check-structure.py [--limit N] [--graph]
  --graph  also print every module's imports
Exit status: 0 when both rules hold, 1 otherwise.
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
            if f.endswith(".rs"):
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


def long_functions(limit):
    out = []
    for layer in ("commands", "report", os.path.join("bench", "pipeline")):
        for d, _, names in os.walk(os.path.join(SRC, layer)):
            for f in sorted(names):
                if not f.endswith(".rs"):
                    continue
                p = os.path.join(d, f)
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
                        if j - i + 1 > limit:
                            out.append((os.path.relpath(p, ROOT), i + 1, m.group(6), j - i + 1))
                        i = j
                    i += 1
    return out


def main():
    args = sys.argv[1:]
    limit = 80
    if "--limit" in args:
        limit = int(args[args.index("--limit") + 1])
    graph = imports()
    if "--graph" in args:
        for m in sorted(graph):
            print("::".join(m), "->", ", ".join(sorted("::".join(t) for t in graph[m])))
    bad = 0
    for comp in cycles(graph):
        bad += 1
        names = ["::".join(m) for m in comp]
        print("import cycle:", " <-> ".join(names))
        for a in comp:
            for b in comp:
                if b in graph[a]:
                    print(f"  {'::'.join(a)} imports {'::'.join(b)}")
    for path, line, name, n in long_functions(limit):
        bad += 1
        print(f"long function: {path}:{line} {name} ({n} lines, limit {limit})")
    if bad:
        return 1
    print(f"no import cycle in src/; no function over {limit} lines in commands/, report/, bench/pipeline/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
