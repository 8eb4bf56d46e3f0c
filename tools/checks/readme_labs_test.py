#!/usr/bin/python3
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""The two lists of labs a reader sees hold every lab of labs.bzl.

README.md's "The labs" table and docs/README.md's syllabus are prose, one
row per lab in words of its own, so they are written by hand, not made from
labs.bzl. This test makes that edit one that cannot be forgotten: it fails,
naming the lab and the file, when a lab of labs.txt (written from labs.bzl's
LABS) has no row there, when a row names a lab that is not in the course, when
the rows are out of course order, and when the count of labs in either
file's opening sentence ("in eight C++ labs", "Eight labs on") is not the
number of labs.

Usage (//tools/checks:readme_labs_test writes the arguments):
    readme_labs_test.py LABS_TXT README_MD DOCS_README_MD
"""

import re
import sys
import unittest

LABS_TXT = README = SYLLABUS = None

# The count of labs as the opening sentences write it.
NUMBERS = ["zero", "one", "two", "three", "four", "five", "six", "seven",
           "eight", "nine", "ten", "eleven", "twelve", "thirteen",
           "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
           "nineteen", "twenty"]


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def read_labs(path):
    return [line.strip() for line in read(path).splitlines() if line.strip()]


def section(text, heading):
    """The lines under the markdown heading `heading`, to the next one."""
    lines = text.splitlines()
    start = lines.index(heading) + 1
    end = next((i for i in range(start, len(lines))
                if lines[i].startswith("#")), len(lines))
    return lines[start:end]


def readme_rows(text):
    """README.md's "The labs": each row's lab, "| `lab` | ... |"."""
    return [m.group(1) for line in section(text, "## The labs")
            for m in [re.match(r"\| `([a-z0-9_]+)` \|", line)] if m]


def syllabus_rows(text):
    """docs/README.md's syllabus: (number, lab) of each
    "| 1 | [lab](labs/lab.md) |" row."""
    rows = []
    for line in section(text, "## Syllabus"):
        m = re.match(r"\| (\d+) \| \[([a-z0-9_]+)\]\(labs/([a-z0-9_]+)\.md\)",
                     line)
        if m:
            rows.append((int(m.group(1)), m.group(2), m.group(3)))
    return rows


class ReadmeLabsTest(unittest.TestCase):

    def setUp(self):
        self.labs = read_labs(LABS_TXT)
        self.assertTrue(self.labs, "no lab in %s" % LABS_TXT)

    def check_rows(self, path, rows):
        for lab in self.labs:
            self.assertIn(lab, rows, "lab %s of labs.bzl has no row in %s: "
                          "add it (docs/adding_a_lab.md, section 9)"
                          % (lab, path))
        for lab in rows:
            self.assertIn(lab, self.labs, "%s has a row for %s, which is "
                          "not in labs.bzl" % (path, lab))
        self.assertEqual(rows, self.labs, "%s's rows are not in labs.bzl's "
                         "order" % path)

    def test_readme_lists_every_lab(self):
        self.check_rows("README.md", readme_rows(read(README)))

    def test_syllabus_lists_every_lab_numbered(self):
        rows = syllabus_rows(read(SYLLABUS))
        self.check_rows("docs/README.md", [lab for _, lab, _ in rows])
        for i, (number, lab, chapter) in enumerate(rows, 1):
            self.assertEqual((number, chapter), (i, lab),
                             "docs/README.md: row %d (%s) is numbered %d "
                             "and links labs/%s.md" % (i, lab, number,
                                                       chapter))

    def test_opening_sentences_count_the_labs(self):
        word = NUMBERS[len(self.labs)]
        sentences = [
            (README, r"\bin %s C\+\+ labs\b" % word,
             "README.md's first sentence must say 'in %s C++ labs'" % word),
            (SYLLABUS, r"\b%s labs on\b" % word.title(),
             "docs/README.md's first sentence must say '%s labs on'"
             % word.title())]
        for path, pattern, message in sentences:
            self.assertTrue(re.search(pattern, read(path)),
                            "%s (labs.bzl has %d)" % (message,
                                                      len(self.labs)))

    def test_the_readers_find_rows(self):
        self.assertEqual(readme_rows("## The labs\n| `a_lab` | x |\n"
                                     "| `b_lab` | y |\n## Next\n"
                                     "| `c_lab` | z |\n"), ["a_lab", "b_lab"])
        self.assertEqual(syllabus_rows("## Syllabus\n| 1 | [a](labs/a.md) |"
                                       "\n| 2 | [b](labs/c.md) |\n"),
                         [(1, "a", "a"), (2, "b", "c")])


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print("usage: readme_labs_test.py LABS_TXT README_MD DOCS_README_MD",
              file=sys.stderr)
        sys.exit(2)
    LABS_TXT, README, SYLLABUS = sys.argv[1:]
    unittest.main(argv=sys.argv[:1], verbosity=2)
