# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""The labs of the course, in course order, and each lab's own facts, for
the Python tools and tests.

The one list is `LABS` in the root's labs.bzl; the root BUILD writes it to
labs.txt (`//:labs_txt`), one lab a line, and this library carries that file
in its runfiles. A tool or test that goes over the labs calls `names()`,
never a list of its own (`//tools/checks:one_list_test` fails on one).

What the tools know of one lab lives in its package, in
labs/<lab>/lab_facts.py (the `:lab_facts` library that `lab_starter`
declares, carried here in the runfiles for every lab of `LABS`): the
chapter's question and the picture's design for tools/plot/plot.py, the
facts a quick and a full run must share for
tools/report/quick_full_test.py. `facts(lab)` loads that file; the central
tools hold only the generic machinery.

The shell tools, which run outside Bazel where there is no labs.txt, read
the list through this file too: `python3 tools/labs.py` prints LABS of the
labs.bzl beside it, one lab a line (`from_bzl()`), so no script carries a
parser of its own; `--with FACT` keeps the labs whose lab_facts.py sets
FACT (tools/ci/solved_course_check.sh's SOLVED_ALONE).

Example:

    from tools import labs
    for lab in labs.names():
        print(lab)                     # allocator_cost, mmap_threshold, ...
        print(labs.facts(lab).QUESTION)  # "What does one malloc+free cost?"
"""

import ast
import importlib.util
import os
import re
import sys

# The root of the runfiles tree (the workspace's files), beside the tools
# package, in the binary or test that depends on this library.
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)

# labs.txt, at that root.
LABS_TXT = os.path.join(ROOT, "labs.txt")

# labs.bzl, the one list, at that root.
LABS_BZL = os.path.join(ROOT, "labs.bzl")

# Where a lab's facts are, relative to the root.
FACTS_FILE = os.path.join("labs", "%s", "lab_facts.py")

# Each lab's facts module, loaded once.
_FACTS = {}


class MissingFacts(LookupError):
    """A lab whose labs/<lab>/lab_facts.py is not there."""


# names: the labs, in course order.
def names():
    with open(LABS_TXT) as f:
        labs = [line.strip() for line in f if line.strip()]
    if not labs:
        raise SystemExit("labs: %s lists no lab" % LABS_TXT)
    return labs


# from_bzl: the labs of labs.bzl itself, in course order: its `LABS = [...]`
# read by Python's own parser (Starlark's list literal is Python's), for the
# shell tools that run outside Bazel.
def from_bzl(path=LABS_BZL):
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and
                isinstance(node.targets[0], ast.Name) and
                node.targets[0].id == "LABS"):
            labs = ast.literal_eval(node.value)
            if labs:
                return labs
    raise SystemExit("labs: %s has no LABS list" % path)


# facts: the module labs/<lab>/lab_facts.py, or MissingFacts naming the
# file.
def facts(lab):
    if lab in _FACTS:
        return _FACTS[lab]
    relative = FACTS_FILE % lab
    path = os.path.join(ROOT, relative)
    if not re.fullmatch(r"[a-z0-9_]+", str(lab)) or not os.path.isfile(path):
        raise MissingFacts(
            "lab %s has no %s: every lab declares its facts there, its "
            "question, its picture and its quick-versus-full facts "
            "(docs/adding_a_lab.md, section 9)" % (lab, relative))
    spec = importlib.util.spec_from_file_location(
        "alloclab_lab_facts_" + lab, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _FACTS[lab] = module
    return module


# python3 -m tools.labs [--with FACT], from the root of the course (where
# `common`, which lab_facts.py imports, is a package as it is under Bazel):
# the labs of labs.bzl, one a line (the shell tools' one reader of the
# list); with --with, only those whose lab_facts.py sets FACT to a true
# value.
if __name__ == "__main__":
    chosen = from_bzl()
    if sys.argv[1:2] == ["--with"] and len(sys.argv) == 3:
        chosen = [lab for lab in chosen
                  if getattr(facts(lab), sys.argv[2], False)]
    elif len(sys.argv) > 1:
        raise SystemExit("usage: python3 -m tools.labs [--with FACT]")
    for lab in chosen:
        print(lab)
    sys.exit(0)
