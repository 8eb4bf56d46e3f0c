#!/usr/bin/env python3
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""//:lab_isolation_test's checker can fail: on small files, no Bazel
inside. Each reach into another lab is named with its file and line; a
lab's own files, common/'s, comments and kept edges are not."""

import os
import tempfile
import unittest

from tools import lab_isolation_check as check


class OffencesTest(unittest.TestCase):

    def offences(self, path, text):
        return list(check.offences(path, text))

    def test_an_include_of_another_labs_header(self):
        self.assertEqual(
            self.offences("labs/first_call/experiment.cc",
                          '#include "common/instruments/clock.h"\n'
                          '#include "labs/first_call/task.h"\n'
                          '#include "labs/allocator_cost/baseline.h"\n'),
            [(3, "allocator_cost",
              'includes "labs/allocator_cost/baseline.h"')])

    def test_a_label_of_another_labs_package(self):
        self.assertEqual(
            self.offences("tests/smt_siblings/BUILD",
                          '    deps = ["//labs/smt_siblings:task_header",\n'
                          '            "//common/workloads:record_line",\n'
                          '            "//solutions/first_call:task"],\n'),
            [(3, "first_call", "names //solutions/first_call:task")])

    def test_comments_and_prose_are_not_reaches(self):
        self.assertEqual(
            self.offences("labs/counter_contention/BUILD",
                          "# runs //labs/allocator_cost's record line\n"),
            [])
        self.assertEqual(
            self.offences("labs/smt_siblings/rows.h",
                          "// (labs/allocator_cost/baseline.h)\n"), [])


class CheckTest(unittest.TestCase):

    def write(self, root, path, text):
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)
        return path

    def test_names_the_file_and_line_and_lists_stale_kept_edges(self):
        with tempfile.TemporaryDirectory() as root:
            cwd = os.getcwd()
            os.chdir(root)
            try:
                bad = self.write(root, "labs/b_lab/task.cc",
                                 '#include "labs/a_lab/task.h"\n')
                problems = check.check([bad], allowed={("c_lab", "a_lab"):
                                                       "kept"})
            finally:
                os.chdir(cwd)
        self.assertEqual(len(problems), 2, problems)
        self.assertTrue(problems[0].startswith(
            'labs/b_lab/task.cc:1: includes "labs/a_lab/task.h", lab '
            "a_lab's"), problems[0])
        self.assertIn("c_lab -> a_lab, which no file uses", problems[1])


if __name__ == "__main__":
    unittest.main(verbosity=2)
