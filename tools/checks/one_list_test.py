#!/usr/bin/python3
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""The labs are one list: labs.bzl's LABS, and nothing else names a set.

Every tool and test takes the labs from the root's labs.bzl (BUILD files
load it; the rest read labs.txt, which the root BUILD writes from it). This
test fails when a file of the course spells out a lab set of its own: three
or more lab names in a row, quoted or bare, separated only by commas,
spaces or line breaks (a Python or Starlark list, a C++ initializer, a
shell array), anywhere but labs.bzl. It also holds
tools/ci/solved_course_check.sh, which runs outside Bazel and reads labs.bzl
through tools/labs.py (the shell tools' one reader), to the same list as
labs.txt.

Usage (//tools/checks:one_list_test writes the arguments):
    one_list_test.py LABS_TXT SOLVED_COURSE_CHECK FILE...
"""

import os
import re
import subprocess
import sys
import unittest

LABS_TXT = None
SOLVED_CHECK = None
FILES = []

# The file that holds the one list.
ONE_LIST = "labs.bzl"

# How many lab names in a row make a list of labs.
RUN = 3


def read_labs(path):
    with open(path) as f:
        return [line.strip() for line in f if line.strip()]


def copies(text, labs):
    """The runs of RUN or more lab names in `text`, as strings."""
    name = "(?:%s)" % "|".join(re.escape(lab) for lab in labs)
    token = r"""["']?\b%s\b["']?""" % name
    run = r"%s(?:[\s,\\]+%s){%d,}" % (token, token, RUN - 1)
    return [m.group(0) for m in re.finditer(run, text)]


class OneListTest(unittest.TestCase):

    def test_no_file_names_a_lab_set_of_its_own(self):
        labs = read_labs(LABS_TXT)
        found = []
        for path in FILES:
            if os.path.basename(path) == ONE_LIST:
                continue
            try:
                with open(path, encoding="utf-8") as f:
                    text = f.read()
            except UnicodeDecodeError:
                continue  # a picture or another binary file
            for copy in copies(text, labs):
                found.append("%s: %s" % (path, " ".join(copy.split())))
        self.assertEqual(found, [], "lab lists other than labs.bzl's LABS; "
                         "take the labs from labs.bzl (BUILD files) or "
                         "labs.txt (tools/labs.py) instead")

    def test_the_check_finds_a_copy(self):
        labs = ["a_lab", "b_lab", "c_lab", "d_lab"]
        for text in ['LABS = ["a_lab", "b_lab",\n        "c_lab"]',
                     "labs=(a_lab b_lab \\\n  c_lab d_lab)",
                     "{'b_lab', 'c_lab', 'd_lab'}"]:
            self.assertTrue(copies(text, labs), text)
        for text in ['"a_lab": "x", "b_lab": "y", "c_lab": "z"',
                     "a_lab and b_lab, then c_lab",
                     '["a_lab", "b_lab"]', "a_labx b_lab c_lab"]:
            self.assertEqual(copies(text, labs), [], text)

    def test_the_solved_course_check_reads_the_one_list(self):
        listed = subprocess.run(["bash", SOLVED_CHECK, "--list-labs"],
                                stdout=subprocess.PIPE, text=True,
                                check=True).stdout.split()
        self.assertEqual(listed, read_labs(LABS_TXT))


if __name__ == "__main__":
    if len(sys.argv) < 4:
        print("usage: one_list_test.py LABS_TXT SOLVED_COURSE_CHECK FILE...",
              file=sys.stderr)
        sys.exit(2)
    LABS_TXT, SOLVED_CHECK = sys.argv[1], sys.argv[2]
    FILES = sys.argv[3:]
    unittest.main(argv=sys.argv[:1], verbosity=2)
