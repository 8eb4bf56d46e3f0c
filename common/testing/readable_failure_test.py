# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""A failed message check prints the message as text.

Runs //common/testing:readable_failure_demo, whose every check fails on purpose
on a message that starts "Picked", and reads GoogleTest's failure messages:
each test must have failed, and its message must hold the text "Picked
nothing", never the same text printed as a list of chars ('P' (80, 0x50), ...).

Usage: readable_failure_test.py DEMO_BINARY
"""

import sys
import tempfile

from tools import gtest_run

TESTS = (
    "ReadableFailureDemo.StringViewMatcher",
    "ReadableFailureDemo.StringViewEquality",
    "ReadableFailureDemo.StatusOr",
)
TEXT = "Picked nothing"
AS_CHARS = "(80, 0x50)"  # 'P' printed as a char of a container


def problems(run):
    """What is wrong with the demo's run, one line each."""
    if not run.clean():
        return ["the demo %s: %s\n%s" %
                (run.describe_exit(), run.problem, run.tail())]
    found = []
    for name in TESTS:
        test = run.ran.get(name)
        if test is None:
            found.append("%s did not run" % name)
        elif test.verdict != gtest_run.FAILED:
            found.append("%s %s; it must fail on purpose" %
                         (name, test.verdict))
        elif TEXT not in test.message or AS_CHARS in test.message:
            found.append("%s's failure does not show %r as text:\n%s" %
                         (name, TEXT, test.message))
    return found


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as workdir:
        run = gtest_run.run_suite(argv[1], [], workdir)
    found = problems(run)
    for problem in found:
        print("FAIL: " + problem)
    if found:
        return 1
    for name in TESTS:
        print("ok: %s shows the message as text:\n%s" %
              (name, run.ran[name].message))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
