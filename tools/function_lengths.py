#!/usr/bin/env python3
"""Lists the longest function bodies and the longest files of tare's source folders (issue 16's
size bar: no file over 1,000 lines, no function over 150 lines).

  tools/function_lengths.py [ROOT] [--top N] [--limit LINES]

A function is a definition whose header ends in `{` at namespace level (column 0) or one level
inside a class (two spaces), up to the closing brace at the same indentation; lambdas and nested
blocks count with the function that holds them. Lines are physical lines, header to closing brace.
Prints the N longest functions and files, then "N passed, N failed" against --limit (functions)
and 1,000 (files); exit status 1 when any is over.
"""
import os
import re
import sys

FOLDERS = ("runtime", "kernels", "backends", "converters", "compare", "fuzz", "cli", "format", "api", "include", "python")
FILE_LIMIT = 1000
# A header line: not a control statement, not a type or namespace, ending in "{" (possibly after
# an initializer list or qualifiers).
HEADER = re.compile(r"^( {0,2})(?!(?:if|for|while|switch|else|do|namespace|struct|class|union|enum|return|case)\b)"
                    r"[A-Za-z_~][^;]*\)\s*(?:const\s*)?(?:noexcept\s*)?(?:override\s*)?(?:->\s*[^{;]+)?\{\s*$")


def functions(path):
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    i = 0
    while i < len(lines):
        m = HEADER.match(lines[i])
        if not m:
            i += 1
            continue
        indent = m.group(1)
        # the header may start on earlier lines (a signature wrapped over several lines)
        start = i
        while start > 0 and lines[start - 1].strip() and not lines[start - 1].rstrip().endswith((";", "}", "{", "*/")) \
                and not lines[start - 1].lstrip().startswith(("//", "#")):
            start -= 1
        end = i + 1
        while end < len(lines) and not lines[end].startswith(indent + "}"):
            end += 1
        name = re.sub(r"\s+", " ", " ".join(l.strip() for l in lines[start:i + 1]))
        name = name.split("(")[0].split()[-1] if "(" in name else name
        yield end - start + 1, name, start + 1
        i = end + 1


def main():
    args = sys.argv[1:]
    top, limit, root = 15, 150, "."
    while args:
        a = args.pop(0)
        if a == "--top":
            top = int(args.pop(0))
        elif a == "--limit":
            limit = int(args.pop(0))
        else:
            root = a
    funcs, files = [], []
    for folder in FOLDERS:
        for dirpath, _, names in os.walk(os.path.join(root, folder)):
            for n in sorted(names):
                if not n.endswith((".cc", ".h")):
                    continue
                p = os.path.join(dirpath, n)
                rel = os.path.relpath(p, root)
                files.append((sum(1 for _ in open(p, encoding="utf-8", errors="replace")), rel))
                for length, name, line in functions(p):
                    funcs.append((length, f"{rel}:{line}", name))
    funcs.sort(reverse=True)
    files.sort(reverse=True)
    print(f"longest functions (limit {limit} lines):")
    for length, where, name in funcs[:top]:
        print(f"  {length:5d}  {name}  {where}{'  OVER' if length > limit else ''}")
    print(f"longest files (limit {FILE_LIMIT} lines):")
    for length, rel in files[:top]:
        print(f"  {length:5d}  {rel}{'  OVER' if length > FILE_LIMIT else ''}")
    over = sum(1 for f in funcs if f[0] > limit) + sum(1 for f in files if f[0] > FILE_LIMIT)
    print(f"{len(funcs) + len(files) - over} passed, {over} failed")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
