#!/usr/bin/python3
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""tools/mutate/mutate.py's operators, sample and report, on small sources.

No Bazel runs here: the suite runs are tools/mutate/mutate.py's own business.
"""

import unittest

from tools.mutate import mutate

SOURCE = """\
#include <vector>  // 1 < 2
#define kLimit 4
// if (a == b) x = 1;
namespace lab {

int Pick(int a, int b) {
  const char* text = "a < b; x = 7;";
  assert(a >= 0);
  int total = 0;
  if (a < b) {
    total += a;
  }
  while (b != 0) {
    --b;
  }
  Record(total, 3);
  return total == 5 ? 1 : 0;
}

}  // namespace lab
"""


def _of(mutants, operator):
    return [(m.line, m.after.strip()) for m in mutants
            if m.operator == operator]


class OperatorsTest(unittest.TestCase):

    def setUp(self):
        self.mutants = mutate.candidates(SOURCE)

    def test_flip(self):
        self.assertEqual(_of(self.mutants, "flip"), [
            (10, "if (a <= b) {"),
            (13, "while (b == 0) {"),
            (17, "return total != 5 ? 1 : 0;"),
        ])

    def test_constant(self):
        self.assertEqual(_of(self.mutants, "constant"), [
            (9, "int total = 1;"),
            (9, "int total = -1;"),
            (13, "while (b != 1) {"),
            (13, "while (b != -1) {"),
            (16, "Record(total, 4);"),
            (16, "Record(total, 2);"),
            (17, "return total == 6 ? 1 : 0;"),
            (17, "return total == 4 ? 1 : 0;"),
            (17, "return total == 5 ? 2 : 0;"),
            (17, "return total == 5 ? 0 : 0;"),
            (17, "return total == 5 ? 1 : 1;"),
            (17, "return total == 5 ? 1 : -1;"),
        ])

    def test_delete_only_statements_that_compile_without(self):
        # Not the declarations (lines 7, 9) nor the return.
        self.assertEqual(_of(self.mutants, "delete"),
                         [(11, ";"), (14, ";"), (16, ";")])

    def test_negate(self):
        self.assertEqual(_of(self.mutants, "negate"), [
            (10, "if (!(a < b)) {"),
            (13, "while (!(b != 0)) {"),
        ])

    def test_skips_comments_strings_preprocessor_and_asserts(self):
        lines = {m.line for m in self.mutants}
        for skipped in (1, 2, 3, 7, 8):
            self.assertNotIn(skipped, lines)

    def test_ids_in_file_order_and_stable(self):
        again = mutate.candidates(SOURCE)
        self.assertEqual([m.id for m in self.mutants],
                         ["m%03d" % i for i in range(len(self.mutants))])
        self.assertEqual([(m.line, m.after) for m in self.mutants],
                         [(m.line, m.after) for m in again])
        self.assertEqual(
            [(m.line, m.column) for m in self.mutants],
            sorted((m.line, m.column) for m in self.mutants))

    def test_apply_changes_one_line(self):
        m = self.mutants[0]
        changed = mutate.apply(SOURCE, m).split("\n")
        original = SOURCE.split("\n")
        self.assertEqual(
            [i for i in range(len(original)) if changed[i] != original[i]],
            [m.line - 1])

    def test_apply_refuses_another_source(self):
        with self.assertRaises(ValueError):
            mutate.apply(SOURCE.replace("a < b)", "a > b)"),
                         [m for m in self.mutants
                          if m.operator == "flip"][0])

    def test_relocate_follows_a_moved_line(self):
        m = [m for m in self.mutants if m.operator == "negate"][0]
        moved = SOURCE.replace("int total = 0;\n", "int total = 0;\n\n")
        self.assertIn("\n\n  if (!(a < b)) {", mutate.relocate(moved, m))
        self.assertEqual(mutate.relocate(SOURCE, m), mutate.apply(SOURCE, m))
        self.assertIsNone(
            mutate.relocate(SOURCE.replace("a < b)", "a > b)"), m))

    def test_block_comment_and_digit_separator(self):
        masked = mutate.code_mask(["x = 1'000; /* if (a) */ y = 2;",
                                   "/* a < b", "c == d */ z = 'q';"])
        self.assertEqual(masked[0], "x = 1'000; " + " " * 12 + " y = 2;")
        self.assertEqual(masked[1].strip(), "")
        self.assertEqual(masked[2], " " * 10 + "z = ' ';")
        found = mutate.candidates("x = 1'000;\n")
        self.assertEqual([m.operator for m in found], ["delete"])


class SampleTest(unittest.TestCase):

    def setUp(self):
        body = "\n".join(
            "  if (v[%d] < %d) x += f(%d);" % (i, i, i) for i in range(60))
        self.mutants = mutate.candidates("void F() {\n%s\n}\n" % body)

    def test_deterministic_and_sized(self):
        a = mutate.sample(self.mutants, 12, 7)
        self.assertEqual(len(a), 12)
        self.assertEqual([m.id for m in a],
                         [m.id for m in mutate.sample(self.mutants, 12, 7)])
        self.assertNotEqual(
            [m.id for m in a],
            [m.id for m in mutate.sample(self.mutants, 12, 8)])

    def test_stratified_over_operators_and_lines(self):
        # No statement to delete here: its share goes to the others.
        chosen = mutate.sample(self.mutants, 12, 1)
        for op in ("flip", "constant", "negate"):
            lines = sorted(m.line for m in chosen if m.operator == op)
            self.assertEqual(len(lines), 4, op)
            # One from each quarter of the file's lines 2-61.
            for quarter, line in enumerate(lines):
                self.assertLessEqual(2 + 15 * quarter, line)
                self.assertLess(line, 2 + 15 * (quarter + 1))

    def test_small_operator_leaves_its_share(self):
        few = [m for m in self.mutants if m.operator != "negate"]
        few += [m for m in self.mutants if m.operator == "negate"][:1]
        chosen = mutate.sample(few, 13, 1)
        self.assertEqual(len(chosen), 13)
        self.assertEqual(
            sum(1 for m in chosen if m.operator == "flip"), 6)
        self.assertEqual(
            sum(1 for m in chosen if m.operator == "negate"), 1)

    def test_everything_when_the_budget_allows(self):
        self.assertEqual(len(mutate.sample(self.mutants, 10000, 1)),
                         len(self.mutants))


def report_of(mutant, **extra):
    """mutation.json's data for one mutant that survived one suite."""
    data = {
        "lab": "lab", "reference": "solutions/lab/task.cc",
        "sha256": "0" * 64, "seed": "1", "max_mutants": 5,
        "candidates": 1,
        "by_operator": {op: 0 for op in mutate.OPERATORS},
        "mutants": [mutant.as_json()],
        "runs": [{"suite": "main", "date": "today", "outcomes": {
            mutant.id: {"outcome": "survived", "seconds": 3.0}}}],
    }
    data.update(extra)
    return data


def expect_note_kept(test, data, text):
    """A note written in the report's text is read back from it."""
    import os
    import tempfile
    path = os.path.join(tempfile.mkdtemp(
        dir=os.environ.get("TEST_TMPDIR")), "mutation.md")
    with open(path, "w") as f:
        f.write(text.replace(mutate.UNEXAMINED, "equivalent: why."))
    test.assertIn("equivalent: why.",
                  mutate.render(data, mutate.read_notes(path)))


class ReportTest(unittest.TestCase):

    def test_survivor_notes_are_kept(self):
        m = mutate.candidates("void F() {\n  x |= 1;\n}\n")[0]
        data = report_of(m)
        text = mutate.render(data, {})
        self.assertIn("- m000 (line 2, delete): `x \\|= 1;` → `;`: " +
                      mutate.UNEXAMINED, text)
        expect_note_kept(self, data, text)

    def test_later_outcomes_are_this_report_s_own(self):
        m = mutate.candidates("void F() {\n  x |= 1;\n}\n")[0]
        data = report_of(m)
        import os
        import tempfile
        path = os.path.join(tempfile.mkdtemp(
            dir=os.environ.get("TEST_TMPDIR")), "mutation.md")
        with open(path, "w") as f:
            f.write(mutate.render(data, {}).replace(
                mutate.UNEXAMINED, "equivalent: why. [old: survived]"))
        data["runs"].append({"suite": "branch", "date": "today", "outcomes": {
            "m000": {"outcome": "killed", "seconds": 1.0}}})
        text = mutate.render(data, mutate.read_notes(path))
        self.assertIn("equivalent: why. [branch: killed]", text)
        self.assertNotIn("old: survived", text)


class InternalFilesTest(unittest.TestCase):
    """A reference that includes pieces of solutions/<lab>/internal/."""

    def setUp(self):
        import os
        import tempfile
        self.repo = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        internal = os.path.join(self.repo, "solutions", "lab", "internal")
        os.makedirs(internal)
        self.files = {
            "solutions/lab/task.cc":
                '#include "solutions/lab/internal/b.h"\nvoid F() {\n'
                '  x |= 1;\n}\n',
            "solutions/lab/internal/b.h": "void G() {\n  y = 2;\n}\n",
            "solutions/lab/internal/a.h": "void H() {\n  Call();\n}\n",
            "solutions/lab/internal/README.md": "if (a < b) x = 1;\n",
        }
        for path, text in self.files.items():
            with open(os.path.join(self.repo, path), "w") as f:
                f.write(text)

    def test_files_task_first_then_internal_by_name(self):
        self.assertEqual(mutate.reference_files(self.repo, "lab"), [
            "solutions/lab/task.cc", "solutions/lab/internal/a.h",
            "solutions/lab/internal/b.h"])

    def test_common_source_the_reference_includes_comes_last(self):
        import os
        os.makedirs(os.path.join(self.repo, "common", "shared"))
        with open(os.path.join(self.repo, "solutions/lab/task.cc"), "a") as f:
            f.write('namespace lab {\n#include "common/shared/rule.inc"\n}\n')
        self.assertEqual(mutate.reference_files(self.repo, "lab"), [
            "solutions/lab/task.cc", "solutions/lab/internal/a.h",
            "solutions/lab/internal/b.h", "common/shared/rule.inc"])

    def test_candidates_numbered_across_files_each_with_its_file(self):
        paths = mutate.reference_files(self.repo, "lab")
        found = mutate.candidates_of([(p, self.files[p]) for p in paths])
        self.assertEqual([m.id for m in found],
                         ["m%03d" % i for i in range(len(found))])
        self.assertEqual(
            [(m.file, m.line, m.operator) for m in found],
            [(None, 3, "delete"), (None, 3, "constant"),
             (None, 3, "constant"),
             ("solutions/lab/internal/a.h", 2, "delete"),
             ("solutions/lab/internal/b.h", 2, "delete"),
             ("solutions/lab/internal/b.h", 2, "constant"),
             ("solutions/lab/internal/b.h", 2, "constant")])
        # task.cc's mutants are as they were: no file in their JSON.
        self.assertNotIn("file", found[0].as_json())
        self.assertEqual(found[3].as_json()["file"],
                         "solutions/lab/internal/a.h")
        self.assertEqual(
            [m.as_json() for m in found[:3]],
            [m.as_json() for m in mutate.candidates(
                self.files["solutions/lab/task.cc"])])

    def test_a_mutant_is_written_to_its_own_file_then_undone(self):
        import os
        paths = mutate.reference_files(self.repo, "lab")
        found = mutate.candidates_of([(p, self.files[p]) for p in paths])
        seen = []

        class FakeScratch(object):
            root = self.repo

            def test(self, target, timeout):
                texts = {}
                for path in paths:
                    with open(os.path.join(self.root, path)) as f:
                        texts[path] = f.read()
                seen.append(texts)
                return "killed" if len(seen) > 1 else "survived", 1.0, 1.0

        run = mutate.run_suite("lab", self.repo, paths[0],
                               [found[2], found[3]], FakeScratch())
        self.assertEqual(run["outcomes"][found[3].id]["outcome"], "killed")
        # The reference alone, then each mutant in its own file only.
        self.assertEqual(seen[0], {p: self.files[p] for p in paths})
        changed = [[p for p in paths if texts[p] != self.files[p]]
                   for texts in seen]
        self.assertEqual(changed, [[], ["solutions/lab/task.cc"],
                                   ["solutions/lab/internal/a.h"]])
        self.assertIn("\n  ;\n", seen[2]["solutions/lab/internal/a.h"])
        for path in paths:
            with open(os.path.join(self.repo, path)) as f:
                self.assertEqual(f.read(), self.files[path])

    def test_report_names_the_file_and_keeps_its_note(self):
        m = mutate.candidates_of([
            ("solutions/lab/task.cc", "int x;\n"),
            ("solutions/lab/internal/a.h", "void F() {\n  x |= 1;\n}\n")])[0]
        data = report_of(m, internal=["solutions/lab/internal/a.h"])
        text = mutate.render(data, {})
        self.assertIn("with `solutions/lab/internal/a.h`", text)
        self.assertIn("| m000 | internal/a.h:2 | delete |", text)
        self.assertIn("- m000 (line 2 of internal/a.h, delete): "
                      "`x \\|= 1;` → `;`: " + mutate.UNEXAMINED, text)
        expect_note_kept(self, data, text)


if __name__ == "__main__":
    unittest.main()
