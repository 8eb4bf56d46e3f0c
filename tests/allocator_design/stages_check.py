#!/usr/bin/env python3
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""The capstone's stages are right: every test in exactly one, and the
chapter's table is theirs.

tests/allocator_design/stages.bzl is the one table of the stages; this
checks it against the suite and the chapter:

  - every test of the suite binary (--gtest_list_tests) is in exactly one
    stage: a test no stage takes, or two stages take, is named with the
    stages' filters, so that a new TEST gets a stage;
  - every stage takes at least one test;
  - tools/checks/gtest_run.py's filter_matches(), by which //:board sorts the
    learner's results into stages, takes the tests GoogleTest's own
    --gtest_filter takes (what the stage targets run);
  - the chapter (docs/labs/allocator_design.md) holds the table this
    renders from the stages, line for line ("Your way in").

Usage:
    stages_check.py --suite=BINARY --stages=stages.json --chapter=FILE.md
    stages_check.py --stages=stages.json --markdown   # print the table
(`bazel run //tests/allocator_design:stages_test -- --markdown` prints it.)
Exit status: 0 when all holds, 1 with each problem, 2 for bad arguments.
"""

import argparse
import json
import sys

from tools.checks import gtest_run

# The table's header, as the chapter has it.
TABLE_HEADER = [
    "| stage | what it checks | what it adds | run it "
    "| which lab measured why |",
    "|---|---|---|---|---|",
]


def load_stages(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def markdown_table(stages):
    """The chapter's table of the stages, as lines."""
    lines = list(TABLE_HEADER)
    for stage in stages:
        labs = " and ".join(
            "lab %d ([%s](%s.md))" % (number, lab, lab)
            for number, lab in zip(stage["lab_numbers"], stage["labs"]))
        title = "%d. %s" % (stage["number"], stage["name"])
        if stage["starter"]:
            title += " (the starter passes it)"
        lines.append("| %s | %s | %s | `bazel test %s` | %s: %s |" % (
            title, stage["promises"], stage["adds"], stage["target"], labs,
            stage["why"]))
    return lines


def coverage_problems(suite, stages):
    """What is wrong with how the stages split the suite's tests."""
    problems = []
    every = gtest_run.list_tests(suite)
    if not every:
        return ["%s lists no test" % suite]
    taken = {name: [] for name in every}
    for stage in stages:
        label = "stage %d %s (--gtest_filter=%s)" % (
            stage["number"], stage["name"], stage["filter"])
        names = gtest_run.list_tests(suite, stage["filter"])
        if not names:
            problems.append("%s takes no test of the suite" % label)
        for name in names:
            taken.setdefault(name, []).append(label)
        ours = [n for n in every
                if gtest_run.filter_matches(stage["filter"], n)]
        if sorted(ours) != sorted(names):
            problems.append(
                "%s: GoogleTest takes %s, tools/checks/gtest_run.py's "
                "filter_matches() (the board's) takes %s" % (
                    label, sorted(set(names) - set(ours)) or "no more",
                    sorted(set(ours) - set(names)) or "no more"))
    for name, labels in sorted(taken.items()):
        if not labels:
            problems.append(
                "%s is in no stage: add its suite's name to a stage's tests "
                "in tests/allocator_design/stages.bzl" % name)
        elif len(labels) > 1:
            problems.append("%s is in %d stages: %s" % (
                name, len(labels), "; ".join(labels)))
    return problems


def chapter_problems(chapter, stages):
    """What the chapter's table lacks of the stages' table."""
    with open(chapter, encoding="utf-8") as f:
        text = f.read().splitlines()
    want = markdown_table(stages)
    for start, line in enumerate(text):
        if line == want[0]:
            got = text[start:start + len(want)]
            after = text[start + len(want):start + len(want) + 1]
            if got == want and not (after and after[0].startswith("|")):
                return []
            if got == want:
                return ["%s:%d: the table of the stages has a row more than "
                        "tests/allocator_design/stages.bzl's stages: %s" % (
                            chapter, start + len(want) + 1, after[0])]
            for expected, found in zip(want, got + [""] * len(want)):
                if expected != found:
                    return ["%s:%d: the table of the stages differs from "
                            "tests/allocator_design/stages.bzl's; want\n  %s\n"
                            "got\n  %s\n(print the table: bazel run "
                            "//tests/allocator_design:stages_test -- "
                            "--markdown)" % (
                                chapter, start + 1 + want.index(expected),
                                expected, found)]
    return ["%s has no table of the stages (a line %r, then the rows of "
            "tests/allocator_design/stages.bzl)" % (chapter, want[0])]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--suite", help="a suite binary of the lab")
    parser.add_argument("--stages", required=True, help="stages.json")
    parser.add_argument("--chapter", help="the lab's chapter")
    parser.add_argument("--markdown", action="store_true",
                        help="print the chapter's table and exit")
    args = parser.parse_args(argv[1:])
    stages = load_stages(args.stages)
    if args.markdown:
        print("\n".join(markdown_table(stages)))
        return 0
    if not args.suite or not args.chapter:
        parser.error("--suite and --chapter are needed, or --markdown")
    problems = coverage_problems(args.suite, stages)
    problems += chapter_problems(args.chapter, stages)
    for problem in problems:
        print("FAIL: " + problem)
    if problems:
        return 1
    print("ok: %d stages take every test of the suite once, and the chapter "
          "has their table" % len(stages))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
