# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""The labs of the course, in course order, and each lab's own facts, for
the Python tools and tests.

The one list is `LABS` in the root's labs.bzl; the root BUILD writes it to
labs.txt (`//:labs_txt`), one lab a line, and this library carries that file
in its runfiles. A tool or test that goes over the labs calls `names()`,
never a list of its own (`//tools:one_list_test` fails on one).

What the tools know of one lab lives in its package, in
labs/<lab>/lab_facts.py (the `:lab_facts` library that `lab_starter`
declares, carried here in the runfiles for every lab of `LABS`): the
chapter's question and the picture's design for tools/plot.py, the facts a
quick and a full run must share for tools/quick_full_test.py. `facts(lab)`
loads that file; the central tools hold only the generic machinery.

Example:

    from tools import labs
    for lab in labs.names():
        print(lab)                     # allocator_cost, mmap_threshold, ...
        print(labs.facts(lab).QUESTION)  # "What does one malloc+free cost?"
"""

import importlib.util
import os
import re

# The root of the runfiles tree (the workspace's files), beside the tools
# package, in the binary or test that depends on this library.
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)

# labs.txt, at that root.
LABS_TXT = os.path.join(ROOT, "labs.txt")

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
