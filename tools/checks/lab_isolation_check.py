#!/usr/bin/env python3
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""Checks that every lab stands alone: no lab's package reaches another's.

A lab lives in three packages, labs/<lab>, solutions/<lab> and
tests/<lab>. This reads every file of them that it is given and fails on
each line where one of them names another lab's package:

  an #include "labs/<other>/...", "solutions/<other>/..." or
  "tests/<other>/..." in a C or C++ source;
  a label //labs/<other>..., //solutions/<other>... or //tests/<other>...
  in a BUILD or .bzl file (a dependency, a file, or a visibility that
  lets the other lab in), comments aside.

What two labs share lives in common/ (common/workloads for the workloads
more than one lab runs), where both can reach it. The edges a course
design keeps on purpose are in ALLOWED, each with its reason; one that is
no longer used fails too, so that the list only shrinks.

Example:

    lab_isolation_check.py labs/first_call/experiment.cc ...
    # labs/first_call/experiment.cc:12: includes "labs/allocator_cost/
    # baseline.h", lab allocator_cost's: a lab includes only its own
    # headers and common/'s (move what two labs share to common/)

Exit status: 0 when no lab reaches another, 1 with each offending file and
line, 2 for bad input.
"""

import re
import sys

TREES = ("labs", "solutions", "tests")

# An include of a lab's header, and a label of a lab's package.
INCLUDE = re.compile(r'^\s*#\s*include\s*"(%s)/([\w.\-]+)/' % "|".join(TREES))
LABEL = re.compile(r"//(%s)/([\w.\-]+)[\w:./+\-]*" % "|".join(TREES))

C_ENDINGS = (".h", ".c", ".cc")
BUILD_ENDINGS = ("BUILD", ".bzl")

# The edges kept on purpose, (from lab, to lab): reason.
ALLOWED = {
    # None: labs allocator_design and jemalloc_adoption share
    # common/adoption (the matrix, its workloads and the course's rule).
}


def owner(path):
    """(tree, lab) of a file under labs/, solutions/ or tests/, or None."""
    parts = path.split("/")
    if len(parts) < 3 or parts[0] not in TREES:
        return None
    return parts[0], parts[1]


def offences(path, text):
    """Yields (line number, other lab, what) for each reach into another lab.

    `path` is the file's path from the workspace root; `text` its contents.
    """
    _, lab = owner(path)
    name = path.rsplit("/", 1)[-1]
    is_c = name.endswith(C_ENDINGS)
    is_build = name == "BUILD" or name.endswith(BUILD_ENDINGS)
    for number, line in enumerate(text.splitlines(), 1):
        if is_c:
            m = INCLUDE.match(line)
            if m and m.group(2) != lab:
                quoted = line.strip().split(None, 1)[-1]
                yield number, m.group(2), "includes %s" % quoted
        elif is_build:
            code = line.split("#", 1)[0]
            for m in LABEL.finditer(code):
                if m.group(2) != lab:
                    yield number, m.group(2), "names %s" % m.group(0)


def check(paths, allowed=None):
    """Returns the problem lines for the files `paths` (empty when clean)."""
    allowed = ALLOWED if allowed is None else allowed
    problems = []
    used = set()
    for path in sorted(paths):
        if owner(path) is None:
            continue
        _, lab = owner(path)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, IsADirectoryError):
            continue
        for number, other, what in offences(path, text):
            if (lab, other) in allowed:
                used.add((lab, other))
                continue
            problems.append(
                "%s:%d: %s, lab %s's: a lab reaches only its own packages "
                "and common/ (move what two labs share to common/, e.g. "
                "common/workloads)" % (path, number, what, other))
    for lab, other in sorted(set(allowed) - used):
        problems.append(
            "lab_isolation_check: ALLOWED keeps %s -> %s, which no file uses "
            "any more: delete it" % (lab, other))
    return problems


def main(argv):
    if len(argv) < 2:
        print("usage: lab_isolation_check.py FILE...", file=sys.stderr)
        return 2
    problems = check(argv[1:])
    for problem in problems:
        print(problem)
    if problems:
        print("lab_isolation_check: %d reach(es) into another lab" %
              len(problems))
        return 1
    print("lab_isolation_check: %d files, no lab reaches another "
          "(kept on purpose: %s)" % (len(argv) - 1, "; ".join(
              "%s -> %s" % edge for edge in sorted(ALLOWED))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
