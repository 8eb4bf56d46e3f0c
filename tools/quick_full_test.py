#!/usr/bin/python3
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""Quick runs tell the full run's story: each lab's headline facts agree.

`bazel run //:tour` runs every lab with --quick, and the tour's summary and
each lab's notes are what a learner reads first; the chapters quote the full
run. Each lab states, in its labs/<lab>/lab_facts.py (`quick_full_facts()`,
written with common/harness/run_facts.py), the facts of the reference solution's
quick run that must be the full run's too (the sign and verdict of the
headline, the counts, the decisions the memo and notes draw from it); this
test compares them on real runs of both, kept in
testdata/quick_full/<lab>_{quick,full}.json.

Times are not compared, only what a learner would conclude from them, and
only where the run itself says the machine let it be measured: a lab whose
run notes "this machine was busy" has its timing verdicts excused (the note
tells the learner so), its counts still compared. Where quick mode cannot
show a verdict at all (its rows are too short: smt_siblings' distinct-core
and sibling rows, counter_contention's headline), the quick run must say so
in a note that opens with the lab's QUICK_CANNOT_SHOW, and only then is that
verdict excused; a quick run without the note is held to the full run's.

The check must be able to fail: it is run on each lab's pair with one fact
flipped (each lab's QUICK_FULL_FLIPS, at least one), and on two real quick
runs of the sizing this test was written to end
(testdata/quick_full/old_sizing/: jemalloc_adoption's churn at a tenth of
the full count, whose RSS ratios to glibc's crossed the budget the other way;
musl_churn at 24,576 iterations, where glibc_256 peaked below musl_256).

Usage (//tools:quick_full_test writes the arguments): quick_full_test.py DIR
(DIR, or a file in it, holds <lab>_quick.json, <lab>_full.json and
old_sizing/).

Example:
  python3 tools/quick_full_test.py tools/testdata/quick_full
"""

import copy
import json
import os
import sys
import unittest

from tools import labs
from common.harness.run_facts import TIMING, rows_of

DATA = None

# The labs, in course order (the root's labs.bzl).
LABS = labs.names()

BUSY = "this machine was busy"


def busy(results):
    return any(n.startswith(BUSY) for n in results.get("notes", []))


def cannot_show_words(lab):
    """The opening words of the lab's quick note on what quick mode cannot
    show, or None."""
    return getattr(labs.facts(lab), "QUICK_CANNOT_SHOW", None)


def says_quick_cannot_show(lab, results):
    """Whether `results` carries the lab's note on what quick mode cannot
    show."""
    words = cannot_show_words(lab)
    return words is not None and any(
        n.startswith(words) for n in results.get("notes", []))


def facts_of(lab, results):
    """The facts of `lab`'s run `results` (labs/<lab>/lab_facts.py)."""
    return labs.facts(lab).quick_full_facts(results)


def disagreements(lab, quick, full):
    """The facts of `lab` whose quick value is not the full run's."""
    q, f = facts_of(lab, quick), facts_of(lab, full)
    if busy(quick) or busy(full) or says_quick_cannot_show(lab, quick):
        q = {k: v for k, v in q.items() if not k.startswith(TIMING)}
        f = {k: v for k, v in f.items() if not k.startswith(TIMING)}
    out = []
    for key in sorted(set(q) | set(f)):
        if q.get(key, "absent") != f.get(key, "absent"):
            out.append("%s: %s: quick %r, full %r" %
                       (lab, key, q.get(key, "absent"), f.get(key, "absent")))
    return out


def load(name):
    with open(os.path.join(DATA, name)) as f:
        return json.load(f)


class QuickFullTest(unittest.TestCase):

    def test_every_lab_has_both_runs(self):
        for lab in LABS:
            for mode in ("quick", "full"):
                results = load("%s_%s.json" % (lab, mode))
                self.assertEqual(results["lab"], lab)

    def test_quick_tells_the_full_runs_story(self):
        for lab in LABS:
            with self.subTest(lab=lab):
                problems = disagreements(lab, load(lab + "_quick.json"),
                                         load(lab + "_full.json"))
                self.assertEqual(problems, [], "\n".join(problems))

    def test_every_lab_states_its_facts(self):
        # A lab without labs/<lab>/lab_facts.py fails here, the file named.
        for lab in LABS:
            with self.subTest(lab=lab):
                try:
                    facts = labs.facts(lab)
                except labs.MissingFacts as e:
                    self.fail(str(e))
                self.assertTrue(callable(getattr(
                    facts, "quick_full_facts", None)),
                    "labs/%s/lab_facts.py has no quick_full_facts(results)"
                    % lab)
                self.assertTrue(getattr(facts, "QUICK_FULL_FLIPS", None),
                                "labs/%s/lab_facts.py has no "
                                "QUICK_FULL_FLIPS: a change the comparison "
                                "must see" % lab)

    def test_a_missing_facts_file_is_named(self):
        with self.assertRaisesRegex(labs.MissingFacts,
                                    "no labs/no_such_lab/lab_facts.py"):
            labs.facts("no_such_lab")

    def test_quick_runs_say_what_they_cannot_show(self):
        # The excuse is the quick run's own words, and only the quick run's:
        # a learner reading the quick table is told which verdicts wait for
        # the full run.
        for lab in [lab for lab in LABS if cannot_show_words(lab)]:
            with self.subTest(lab=lab):
                self.assertTrue(
                    says_quick_cannot_show(lab, load(lab + "_quick.json")),
                    "%s's quick run has no note opening %r" %
                    (lab, cannot_show_words(lab)))
                self.assertFalse(
                    says_quick_cannot_show(lab, load(lab + "_full.json")),
                    "%s's full run says quick mode cannot show it" % lab)

    def test_facts_are_not_empty(self):
        # A lab whose facts all came out n/a would agree with anything.
        for lab in LABS:
            full = load(lab + "_full.json")
            facts = facts_of(lab, full)
            if busy(full):  # its timing verdicts are never compared
                facts = {k: v for k, v in facts.items()
                         if not k.startswith(TIMING)}
            self.assertGreaterEqual(len(facts), 4, lab)
            self.assertNotIn("n/a", facts.values(), lab)


class TheCheckCanFailTest(unittest.TestCase):
    """Each lab's pair with one headline fact flipped must disagree."""

    def flipped(self, lab, flip):
        quick = load(lab + "_quick.json")
        broken = copy.deepcopy(quick)
        flip(rows_of(broken), broken)
        return disagreements(lab, broken, load(lab + "_full.json"))

    def expect(self, lab, flip, fact):
        problems = self.flipped(lab, flip)
        self.assertTrue(any(fact in p for p in problems),
                        "%s: flipping %r went unseen: %s"
                        % (lab, fact, problems))

    def test_every_labs_flips(self):
        # Each lab's own changes to its quick run (its QUICK_FULL_FLIPS).
        for lab in LABS:
            for fact, flip in labs.facts(lab).QUICK_FULL_FLIPS.items():
                with self.subTest(lab=lab, fact=fact):
                    self.expect(lab, flip, fact)

    def quiet(self, lab):
        """The lab's pair with neither a busy note nor the quick note."""
        quick, full = load(lab + "_quick.json"), load(lab + "_full.json")
        for r in (quick, full):
            r["notes"] = [n for n in r["notes"] if not n.startswith(BUSY) and
                          not n.startswith(cannot_show_words(lab))]
        return quick, full

    def test_counter_contention_headline_when_quiet(self):
        # Quiet runs (no busy note) compare the headline's verdict too,
        # unless the quick run says it cannot show it.
        quick, full = self.quiet("counter_contention")
        quick["headline"].update(value=9.0, text="9.0x")
        full["headline"].update(value=1.1, text="1.1x (within noise)")
        problems = disagreements("counter_contention", quick, full)
        self.assertTrue(any("headline" in p for p in problems), problems)
        quick["notes"].append(cannot_show_words("counter_contention") + ": x")
        problems = disagreements("counter_contention", quick, full)
        self.assertFalse(any("headline" in p for p in problems), problems)

    def test_smt_siblings_verdicts_when_quiet(self):
        # Quiet runs compare distinct_cores' verdict, unless the quick run
        # says it cannot show it; same_cpu's is compared either way.
        quick, full = self.quiet("smt_siblings")
        rows_of(quick)["distinct_cores"]["slowdown"] = "none"
        rows_of(full)["distinct_cores"]["slowdown"] = "shared core"
        problems = disagreements("smt_siblings", quick, full)
        self.assertTrue(any("distinct_cores slowdown" in p for p in problems),
                        problems)
        quick["notes"].append(cannot_show_words("smt_siblings") + ": x")
        problems = disagreements("smt_siblings", quick, full)
        self.assertFalse(any("distinct_cores" in p for p in problems),
                         problems)
        rows_of(quick)["same_cpu"]["slowdown"] = "contention"
        problems = disagreements("smt_siblings", quick, full)
        self.assertTrue(any("same_cpu slowdown" in p for p in problems),
                        problems)

    def test_allocator_design_answer_when_quiet(self):
        # Without the quick note, a flipped answer for yours over glibc is
        # seen; with it, quick mode has said it cannot show that answer.
        quick, full = self.quiet("allocator_design")
        quick["notes"] = [
            n.replace("): recommended.", "): not recommended.")
            for n in quick["notes"]]
        problems = disagreements("allocator_design", quick, full)
        self.assertTrue(any("yours over glibc" in p for p in problems),
                        problems)
        quick["notes"].append(cannot_show_words("allocator_design") + ": x")
        problems = disagreements("allocator_design", quick, full)
        self.assertFalse(any("yours over glibc" in p for p in problems),
                         problems)

    def test_the_old_sizing_fails(self):
        # Real quick runs before the labs' quick sizes were changed.
        problems = disagreements(
            "jemalloc_adoption",
            load("old_sizing/jemalloc_adoption_quick.json"),
            load("jemalloc_adoption_full.json"))
        for fact in ("churn_mimalloc peak RSS", "churn_tcmalloc peak RSS",
                     "treemap_tcmalloc peak RSS",
                     "allocators within the budget on every workload"):
            self.assertTrue(any(fact in p for p in problems), (fact, problems))
        problems = disagreements(
            "musl_churn", load("old_sizing/musl_churn_quick.json"),
            load("musl_churn_full.json"))
        self.assertTrue(any("glibc_256 above musl_256" in p for p in problems),
                        problems)
        self.assertTrue(
            any("glibc_1024 above musl_1024" in p for p in problems),
            problems)

    def test_a_missing_row_is_a_clear_error(self):
        quick = load("musl_churn_quick.json")
        quick["rows"] = [
            r for r in quick["rows"] if r["variant"] != "musl_1024"]
        with self.assertRaises(KeyError):
            disagreements("musl_churn", quick, load("musl_churn_full.json"))


if __name__ == "__main__":
    if len(sys.argv) != 2 or not os.path.exists(sys.argv[1]):
        print("usage: quick_full_test.py DIR (DIR, or a file in it, holds "
              "<lab>_quick.json and <lab>_full.json)", file=sys.stderr)
        sys.exit(2)
    DATA = os.path.abspath(sys.argv[1])
    if not os.path.isdir(DATA):
        DATA = os.path.dirname(DATA)
    unittest.main(argv=sys.argv[:1], verbosity=2)
