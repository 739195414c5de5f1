#!/usr/bin/env python3
"""The layering invariants of the serving crates that Cargo cannot check (ARCHITECTURE.md,
"Invariants"): no import cycle between the files of a crate, and no API group importing another
group. Prints each violation and exits 1; prints a one-line summary and exits 0 otherwise.

A file's imports are the `crate::`, `super::` and `self::` paths it names outside its unit tests,
each resolved to the longest module prefix that is a file. Crate-level direction (platform ←
api, agents ← serve) is Cargo's: a dependency the other way does not build.
"""

import os
import re
import sys

CRATES = ["serve/platform/src", "serve/api/src", "serve/agents/src", "serve/src"]
# In the API crate, these top-level modules are groups; the others are shared by groups.
API_GROUPS = {"aviation", "batch", "climate", "conflict", "consumer_prices", "intelligence"}


def modules(root):
    """Module path (tuple) -> file, for every .rs file under root."""
    found = {}
    for directory, _, names in os.walk(root):
        for name in names:
            if name.endswith(".rs"):
                parts = os.path.relpath(os.path.join(directory, name), root)[:-3].split("/")
                if parts[-1] in ("mod", "lib", "main"):
                    parts = parts[:-1]
                found[tuple(parts)] = os.path.join(directory, name)
    return found


def split_top(body):
    depth, current, parts = 0, "", []
    for ch in body:
        depth += ch == "{"
        depth -= ch == "}"
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return [p.strip() for p in parts if p.strip()]


def expand(prefix, body, out):
    """`a::{b, c::{d}}` -> a::b, a::c::d."""
    for part in split_top(body):
        m = re.match(r"^([\w:]*?)(?:::)?\{(.*)\}$", part, re.S)
        if m:
            expand(prefix + (m.group(1) + "::" if m.group(1) else ""), m.group(2), out)
        else:
            out.append(prefix + part.split(" as ")[0].strip())


def imports(module, path, files):
    source = re.sub(r"//[^\n]*", "", open(path, encoding="utf-8").read())
    source = re.sub(r"#\[cfg\(test\)\]\s*mod tests\s*\{.*", "", source, flags=re.S)
    named = []
    for m in re.finditer(r"\b(crate|super|self)::((?:\w+::)*)\{((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}", source, re.S):
        expand(m.group(1) + "::" + m.group(2), m.group(3), named)
    named += [m.group(0) for m in re.finditer(r"\b(?:crate|super|self)::(?:\w+::)*\w+", source)]
    is_dir = os.path.basename(path) in ("mod.rs", "lib.rs", "main.rs")
    found = set()
    for p in named:
        segs = p.split("::")
        here = list(module) if is_dir else list(module[:-1])
        if segs[0] == "crate":
            base, segs = [], segs[1:]
        else:
            base = here
            while segs and segs[0] in ("super", "self"):
                if segs[0] == "super":
                    base = base[:-1]
                segs = segs[1:]
        full = base + [s for s in segs if s != "self"]
        for n in range(len(full), 0, -1):
            if tuple(full[:n]) in files:
                if tuple(full[:n]) != module:
                    found.add(tuple(full[:n]))
                break
    return found


def cycles(graph):
    """The strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on_stack, out, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted("/".join(c) for c in component))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    problems, checked = [], 0
    for crate in CRATES:
        files = modules(os.path.join(root, crate))
        graph = {m: imports(m, p, files) for m, p in files.items()}
        checked += len(files)
        for component in cycles(graph):
            problems.append(f"{crate}: import cycle between {', '.join(component)}")
        if crate == "serve/api/src":
            for module, targets in graph.items():
                for target in targets:
                    if module and target and module[0] in API_GROUPS and target[0] in API_GROUPS and module[0] != target[0]:
                        problems.append(f"{crate}: group {module[0]} imports group {target[0]} ({'/'.join(module)})")
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"import layers: {checked} files in {len(CRATES)} crates, no cycle, no group importing another")
    return 0


if __name__ == "__main__":
    sys.exit(main())
