#!/usr/bin/env python3
"""The layering test (issue 16): reads every `#include "..."` under the source folders and fails on
an edge that the include-rule table of docs/ARCHITECTURE.md ("## Layers") forbids.

The table's rows are `| `folder/` | `target/`, `target/` (except `target/file.h`), `file.h` ... |`:
files under `folder/` may not include anything under a listed folder target, except the named
files, nor a listed file target. Folders and targets may be nested (`runtime/exec/`); a file
under several listed folders obeys every row that names one of them (`runtime/ir/x.h` obeys
the rows of `runtime/` and `runtime/ir/`). The fenced
block ```layering-exceptions``` below the table lists known violations as `FILE INCLUDED` pairs;
they are allowed until removed, and one that no longer occurs fails the test too, so the list
only shrinks.

  check_includes.py SOURCE_ROOT

Prints each forbidden edge (file:line, the include, the rule) and a closing line
"N passed, N failed" (source files without and with a forbidden include, plus stale exceptions);
exit status 1 on any forbidden include or stale exception.
"""
import os
import re
import sys

SOURCE_FOLDERS = ("format", "runtime", "kernels", "backends", "converters", "compare", "fuzz", "cli", "api", "include", "python")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
ROW = re.compile(r"^\|\s*`([a-z_]+(?:/[a-z_]+)*)/`\s*\|(.*)\|\s*$")
TARGET = re.compile(r"`([a-z_]+(?:/[a-z_]+)*(?:/|\.h))`(?:\s*\(except ([^)]*)\))?")


def read_rules(arch_path):
    """{folder: [(target, {excepted files})]} and the set of (file, include) exceptions."""
    text = open(arch_path, encoding="utf-8").read()
    start = text.find("\n## Layers")
    if start < 0:
        sys.exit(f"{arch_path}: no '## Layers' section")
    end = text.find("\n## ", start + 1)
    section = text[start:end if end > 0 else len(text)]
    rules = {}
    for line in section.splitlines():
        m = ROW.match(line)
        if not m:
            continue
        targets = []
        for t in TARGET.finditer(m.group(2)):
            excepted = set(re.findall(r"`([^`]+)`", t.group(2) or ""))
            targets.append((t.group(1), excepted))
        rules[m.group(1)] = targets
    if not rules:
        sys.exit(f"{arch_path}: the '## Layers' section has no rule rows")
    exceptions = set()
    block = re.search(r"```layering-exceptions\n(.*?)```", section, re.S)
    if block:
        for line in block.group(1).splitlines():
            parts = line.split()
            if len(parts) == 2:
                exceptions.add((parts[0], parts[1]))
    return rules, exceptions


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    rules, exceptions = read_rules(os.path.join(root, "docs", "ARCHITECTURE.md"))
    bad_files = set()
    files = 0
    stale = 0
    seen_exceptions = set()
    for folder in SOURCE_FOLDERS:
        for dirpath, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                if not name.endswith((".h", ".cc", ".inc")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                files += 1
                with open(path, encoding="utf-8", errors="replace") as f:
                    for lineno, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        inc = m.group(1)
                        applying = [(f, t) for f, ts in rules.items() if (rel + "/").startswith(f + "/") for t in ts]
                        for rule, (target, excepted) in applying:
                            hit = inc.startswith(target) if target.endswith("/") else inc == target
                            if not hit or inc in excepted:
                                continue
                            if (rel, inc) in exceptions:
                                seen_exceptions.add((rel, inc))
                                continue
                            print(f"FORBIDDEN {rel}:{lineno}: includes \"{inc}\" ({rule}/ may not include {target}"
                                  f"{' except ' + ', '.join(sorted(excepted)) if excepted else ''};"
                                  f" docs/ARCHITECTURE.md, Layers)")
                            bad_files.add(rel)
    for rel, inc in sorted(exceptions - seen_exceptions):
        print(f"STALE exception: {rel} no longer includes \"{inc}\": remove it from docs/ARCHITECTURE.md")
        stale += 1
    # One count per source file (clean or not), plus one failure per stale exception.
    print(f"{files - len(bad_files)} passed, {len(bad_files) + stale} failed")
    return 1 if bad_files or stale else 0


if __name__ == "__main__":
    sys.exit(main())
