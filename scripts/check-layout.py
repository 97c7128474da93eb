#!/usr/bin/env python3
"""Checks the folder graph of Sources/Procflow against README.md's layout.

The graph is derived from the code: a folder points at another when one of its files uses a
name declared at the top level of a file in the other (a type, a protocol, a typealias, a
function or a constant that is not private). Uses are found by identifier, outside comments and
string literals (a function's name where it is called); members reached through an extension are not seen, which makes the graph
smaller than the truth, never larger.

README.md's "Inside `Sources/Procflow` each folder uses only the ones it points at" block is the
input: one line per folder, `Folder -> A, B (why), C`, or `A, B -> nothing`. The check fails on a
cycle in the derived graph, on an arrow the code has and the README does not list, and on an
arrow the README lists and the code does not have.

    scripts/check-layout.py [--print] [--root DIR]
        --print: the derived arrows, in the README's form; --root: another checkout
"""

import os
import re
import sys

ROOT = (
    sys.argv[sys.argv.index("--root") + 1]
    if "--root" in sys.argv
    else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
)
SOURCES = os.path.join(ROOT, "Sources", "Procflow")
README = os.path.join(ROOT, "README.md")

DECLARATION = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*"
    r"(?:(?:public|internal|package|open|final|nonisolated|indirect)\s+)*"
    r"(?:class|struct|enum|protocol|actor|typealias|func|let|var)\s+"
    r"`?([A-Za-z_][A-Za-z0-9_]*)"
)
PRIVATE = re.compile(r"^(?:@\w+\s+)*(?:private|fileprivate)\b")
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
FREE_CALL = re.compile(r"(?<![.\w])(?<!func )([a-z][A-Za-z0-9_]*)\(")


def strip_comments_and_strings(text):
    """The text with comments and string literals (single-line, multi-line and raw) blanked."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif text[i] == '"' or (text[i] == "#" and re.match(r'#+"', text[i:])):
            hashes = len(text[i:]) - len(text[i:].lstrip("#"))
            j = i + hashes
            quote = '"""' if text.startswith('"""', j) else '"'
            close = quote + "#" * hashes
            j += len(quote)
            while j < n and not text.startswith(close, j):
                if text[j] == "\\" and not hashes:
                    # An interpolation's identifiers count: keep them.
                    if text.startswith("\\(", j):
                        depth, k = 1, j + 2
                        while k < n and depth:
                            depth += {"(": 1, ")": -1}.get(text[k], 0)
                            k += 1
                        out.append(" " + text[j + 2 : k - 1] + " ")
                        j = k
                        continue
                    j += 2
                    continue
                j += 1
            i = j + len(close)
            out.append(" ")
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def swift_files():
    for folder in sorted(os.listdir(SOURCES)):
        path = os.path.join(SOURCES, folder)
        if not os.path.isdir(path):
            continue
        for directory, _, names in os.walk(path):
            for name in sorted(names):
                if name.endswith(".swift"):
                    yield folder, os.path.join(directory, name)


def derive():
    texts = {}
    declared = {}  # name -> set of folders
    for folder, path in swift_files():
        with open(path, encoding="utf-8") as handle:
            text = strip_comments_and_strings(handle.read())
        texts[path] = (folder, text)
        for line in text.splitlines():
            if not line or line[0].isspace() or PRIVATE.match(line):
                continue
            match = DECLARATION.match(line)
            if match:
                declared.setdefault(match.group(1), set()).add(folder)
    edges = {}  # (from, to) -> an example "file uses name"
    for path, (folder, text) in texts.items():
        # A lower-case name is a function's: it counts where it is called, not as a member
        # (`.directory(`), a label (`directory:`) or a local of the same name.
        names = {name for name in IDENTIFIER.findall(text) if name[0].isupper()}
        names |= set(FREE_CALL.findall(text))
        for name in names:
            owners = declared.get(name, set())
            if folder in owners:
                continue
            for owner in owners:
                edges.setdefault((folder, owner), f"{os.path.relpath(path, ROOT)} uses {name}")
    return edges


def listed():
    with open(README, encoding="utf-8") as handle:
        text = handle.read()
    marker = "each folder uses only the ones it points at"
    start = text.find(marker)
    if start < 0:
        sys.exit("check-layout: README.md has no layout arrows (\"" + marker + "\")")
    block = text[text.find("```", start) + 3 :]
    block = block[block.find("\n") + 1 : block.find("```")]
    arrows = set()
    for line in block.splitlines():
        if "->" not in line:
            continue
        sources, targets = line.split("->", 1)
        targets = re.sub(r"\([^)]*\)", "", targets)
        for source in (s.strip() for s in sources.split(",")):
            for target in (t.strip() for t in targets.split(",")):
                if target and target != "nothing":
                    arrows.add((source, target))
    return arrows


def cycle(edges):
    graph = {}
    for source, target in edges:
        graph.setdefault(source, []).append(target)
    state = {}

    def visit(node, trail):
        state[node] = 1
        for target in sorted(graph.get(node, [])):
            if state.get(target) == 1:
                return trail[trail.index(target) :] + [target] if target in trail else [node, target]
            if not state.get(target):
                found = visit(target, trail + [target])
                if found:
                    return found
        state[node] = 2
        return None

    for node in sorted(graph):
        if not state.get(node):
            found = visit(node, [node])
            if found:
                return found
    return None


def main():
    edges = derive()
    if "--print" in sys.argv:
        by_source = {}
        for source, target in edges:
            by_source.setdefault(source, []).append(target)
        for source in sorted(by_source):
            print(f"{source} -> {', '.join(sorted(by_source[source]))}")
        return 0
    problems = []
    loop = cycle(edges)
    if loop:
        steps = [f"{a} -> {b} ({edges[(a, b)]})" for a, b in zip(loop, loop[1:])]
        problems.append("a cycle: " + "; ".join(steps))
    readme = listed()
    for source, target in sorted(set(edges) - readme):
        problems.append(
            f"{source} -> {target} is not in README.md's layout ({edges[(source, target)]})")
    for source, target in sorted(readme - set(edges)):
        problems.append(f"README.md lists {source} -> {target}, which the code does not use")
    for problem in problems:
        print(f"check-layout: {problem}", file=sys.stderr)
    if not problems:
        print(f"check-layout: {len(edges)} arrows between folders, no cycle, as README.md lists")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
