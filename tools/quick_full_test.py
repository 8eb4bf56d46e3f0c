#!/usr/bin/python3
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""Quick runs tell the full run's story: each lab's headline facts agree.

`bazel run //:tour` runs every lab with --quick, and the tour's summary and
each lab's notes are what a learner reads first; the chapters quote the full
run. This test holds, per lab, the facts of the reference solution's quick
run that must be the full run's too (the sign and verdict of the headline,
the counts, the decisions the memo and notes draw from it), and compares
them on real runs of both, kept in testdata/quick_full/<lab>_{quick,full}.json.

Times are not compared, only what a learner would conclude from them, and
only where the run itself says the machine let it be measured: a lab whose
run notes "this machine was busy" has its timing verdicts excused (the note
tells the learner so), its counts still compared. Where quick mode cannot
show a verdict at all (its rows are too short: smt_siblings' distinct-core
and sibling rows, counter_contention's headline), the quick run must say so
in a note that opens with QUICK_CANNOT_SHOW[lab], and only then is that
verdict excused; a quick run without the note is held to the full run's.

The check must be able to fail: it is run on each lab's pair with one fact
flipped, and on two real quick runs of the sizing this test was written to
end (testdata/quick_full/old_sizing/: jemalloc_adoption's churn at a tenth of
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
import re
import sys
import unittest

from tools import labs

DATA = None

# The labs, in course order (the root's labs.bzl).
LABS = labs.names()

BUSY = "this machine was busy"

# The opening words of the note with which a lab's quick run says which
# verdict quick mode cannot show, and why (the lab's experiment.cc).
QUICK_CANNOT_SHOW = {
    "smt_siblings": "quick mode cannot show the slowdown of two threads on "
                    "distinct cores or on SMT siblings",
    "counter_contention": "quick mode cannot show whether sharing the "
                          "counter costs",
    "allocator_design": "quick mode cannot show whether lab "
                        "jemalloc_adoption's rule recommends yours over "
                        "glibc",
}


class Near:
    """A count per call that another run must match to within `tolerance`."""

    def __init__(self, value, tolerance=0.02):
        self.value, self.tolerance = value, tolerance

    def __eq__(self, other):
        return (isinstance(other, Near) and self.value is not None and
                other.value is not None and
                abs(self.value - other.value) <= self.tolerance)

    def __repr__(self):
        return "%.4f (to %g)" % (self.value, self.tolerance)


def rows_of(results):
    """variant (and threads, where one variant runs at several) -> row."""
    rows = {}
    for row in results.get("rows", []):
        key = row["variant"]
        if any(r["variant"] == key and r is not row for r in results["rows"]):
            key = "%s@%s" % (key, row.get("threads"))
        rows[key] = row
    return rows


def busy(results):
    return any(n.startswith(BUSY) for n in results.get("notes", []))


def says_quick_cannot_show(lab, results):
    """Whether `results` carries the lab's note on what quick mode cannot
    show."""
    words = QUICK_CANNOT_SHOW.get(lab)
    return words is not None and any(
        n.startswith(words) for n in results.get("notes", []))


# A fact whose key starts with this is a timing verdict: compared only when
# neither run was busy and the quick run does not say it cannot show it.
TIMING = "timing verdict: "


def headline_value(results):
    h = results.get("headline") or {}
    return h.get("value")


def sign(x):
    if x is None:
        return "n/a"
    return "positive" if x > 0 else ("zero" if x == 0 else "negative")


def above(x, bound):
    if x is None:
        return "n/a"
    return "above %g" % bound if x > bound else "at most %g" % bound


def allocator_cost(results):
    rows = rows_of(results)
    facts = {"headline: one malloc+free (small_new - small_reuse) is":
             sign(headline_value(results))}
    for name, row in rows.items():
        if "allocs_per_call" in row:
            facts["%s allocs_per_call" % name] = row["allocs_per_call"]
    first = rows["large_new_first_call"]
    facts["large_new_first_call page faults (one per page)"] = (
        first["page_faults_per_call"])
    return facts


def mmap_threshold(results):
    rows = rows_of(results)
    facts = {"headline: dynamic's mmap per call in the loop is":
             above(headline_value(results), 0.1)}
    for name, row in rows.items():
        if "mmap_per_call" in row:  # a loop row: its system calls, counted
            facts["%s mmap per call" % name] = above(row["mmap_per_call"], 0.5)
            facts["%s munmap per call" % name] = above(
                row["munmap_per_call"], 0.5)
        facts["%s threshold_bytes" % name] = row.get("threshold_bytes")
    return facts


def first_call(results):
    rows = rows_of(results)
    cold = rows["cold_first_call"]
    facts = {
        "headline: first call's page faults": headline_value(results),
        "cold_first_call page faults": cold["page_faults_per_call"],
        "prefaulted_first_call page faults":
            rows["prefaulted_first_call"]["page_faults_per_call"],
        "hugepage_first_call page faults at most 2":
            rows["hugepage_first_call"]["page_faults_per_call"] <= 2,
        "warm page faults": rows["warm"]["page_faults_per_call"],
    }
    # A fault is dearer than no fault: the first call is the slower one.
    facts["cold_first_call slower than warm"] = (
        cold["ns_per_call"] > rows["warm"]["ns_per_call"])
    return facts


def counter_contention(results):
    rows = rows_of(results)
    facts = {"rows": sorted(rows)}
    for name, row in rows.items():
        if "allocs_per_call" in row:
            facts["%s allocs_per_call" % name] = row["allocs_per_call"]
        if "transfers_per_round_trip" in row:
            facts["%s transfers per round trip" % name] = (
                row["transfers_per_round_trip"])
    text = (results.get("headline") or {}).get("text") or ""
    facts[TIMING + "headline: shared / off at 2 threads is"] = (
        "within noise" if "within noise" in text
        else above(headline_value(results), 1))
    return facts


def smt_siblings(results):
    rows = rows_of(results)
    same, one = rows["same_cpu"], rows["one_thread"]
    facts = {
        "rows": sorted(rows),
        "same_cpu slowdown": same["slowdown"],
        "one_thread slowdown": one["slowdown"],
        "headline: same_cpu / one_thread time is": above(
            headline_value(results), 1.5),
        # Time-sharing: they waited, they did not run slower.
        "same_cpu / one_thread CPU time within 15%": abs(
            same["cpu_ns_per_call"] / one["cpu_ns_per_call"] - 1) <= 0.15,
    }
    for name, row in rows.items():
        if name not in ("one_thread", "same_cpu"):
            facts[TIMING + "%s slowdown" % name] = row.get("slowdown")
    return facts


def musl_churn(results):
    rows = rows_of(results)
    g, m = rows["glibc_1024"], rows["musl_1024"]
    facts = {
        "headline: musl / glibc CPU time above 1":
            headline_value(results) > 1,
        "musl_1024 sys time above glibc_1024's": m["sys_s"] > g["sys_s"],
        "peak RSS glibc_1024 above musl_1024 by more than 1.5x":
            g["peak_rss_kib"] > 1.5 * m["peak_rss_kib"],
        "peak RSS glibc_256 above musl_256":
            rows["glibc_256"]["peak_rss_kib"]
            > rows["musl_256"]["peak_rss_kib"],
        "musl_1024_recycled munmap per call below a tenth of musl_1024's":
            (rows["musl_1024_recycled"]["munmap_per_call"] <
             m["munmap_per_call"] / 10),
        "glibc_1024 munmap per call below 0.01": g["munmap_per_call"] < 0.01,
    }
    # musl's munmap per call is its share of requests at or above the
    # threshold, and its madvise per call follows from the slot rule
    # (musl_churn.md): the same in both runs, to 0.02.
    for name, row in rows.items():
        if row.get("musl_version") is None:
            continue
        facts["%s munmap per call" % name] = Near(row["munmap_per_call"])
        if row.get("musl_madv_free") is not None:
            facts["%s madvise per call" % name] = Near(row["madvise_per_call"])
    return facts


def memo(results, prefix):
    for note in results.get("notes", []):
        if note.startswith(prefix):
            return note[len(prefix):]
    return None


def jemalloc_adoption(results):
    rows = rows_of(results)
    budget_note = " ".join(results.get("notes", []))
    found = re.search(r"budget ([0-9.]+)x", budget_note)
    if found is None:
        raise ValueError("no memo states the budget (\"budget N.NNx\")")
    budget = float(found.group(1))
    facts = {}
    candidates = set()
    allocators = set()
    for row in rows.values():
        if row.get("malloc_conf") or row.get("rss_ratio") is None:
            if row.get("allocator") and not row.get("malloc_conf"):
                allocators.add(row["allocator"])
            continue
        allocators.add(row["allocator"])
        facts["%s peak RSS against the %.2fx budget" % (
            row["variant"], budget)] = (
                "over" if row["rss_ratio"] > budget else "within")
    for a in sorted(allocators):
        mine = [r for r in rows.values() if r.get("allocator") == a and
                not r.get("malloc_conf") and r.get("rss_ratio") is not None]
        if all(r["rss_ratio"] <= budget for r in mine):
            candidates.add(a)
    facts["allocators within the budget on every workload"] = sorted(candidates)
    head = rows["msgsend_jemalloc"]
    facts["headline row msgsend_jemalloc verdict"] = head["verdict"]
    # The trade the thread's lg_dirty_mult made: dirty_decay_ms:0 gives the
    # memory back and pays in time.
    decay = rows.get("churn_jemalloc_dirty_decay_0")
    if decay is not None:
        facts["dirty_decay_0 peak RSS below jemalloc's by half"] = (
            decay["rss_ratio"] < 0.5)
        facts["dirty_decay_0 verdict"] = decay["verdict"]
    recommended = memo(results, "memo: recommended: ")
    facts["recommendation is a candidate (or nothing fits)"] = (
        recommended in candidates or
        (not candidates and recommended == "nothing fits the budget"))
    return facts


def allocator_design(results):
    # Lab 7's matrix with yours in it: the same memory facts as lab 7 (every
    # row's side of the budget, who fits), and lab 8's own: every row of
    # yours verified, the experiment's answer for yours over glibc, and each
    # trace's utilization against task.h's floor.
    rows = rows_of(results)
    facts = {}
    budget_note = " ".join(results.get("notes", []))
    found = re.search(r"budget ([0-9.]+)x", budget_note)
    if found is None:
        raise ValueError("no memo states the budget (\"budget N.NNx\")")
    budget = float(found.group(1))
    candidates, allocators = set(), set()
    for row in rows.values():
        if row.get("rss_ratio") is None:
            continue
        allocators.add(row["allocator"])
        facts["%s peak RSS against the %.2fx budget" % (
            row["variant"], budget)] = (
                "over" if row["rss_ratio"] > budget else "within")
    for a in sorted(allocators):
        mine = [r for r in rows.values() if r.get("allocator") == a and
                r.get("rss_ratio") is not None]
        if all(r["rss_ratio"] <= budget for r in mine):
            candidates.add(a)
    facts["allocators within the budget on every workload"] = sorted(candidates)
    yours = [r for r in rows.values() if r.get("allocator") == "yours" and
             "allocator_verified" in r]
    if not yours:
        raise ValueError("no matrix row of yours")
    facts["every row of yours verified"] = all(
        r["allocator_verified"] == 1 for r in yours)
    # The lab's answer rests on timing verdicts: excused where a run says
    # the machine was busy.
    duel = memo(results, "memo: yours over glibc")
    if duel is None:
        raise ValueError("no memo answers \"yours over glibc\"")
    facts[TIMING + "yours over glibc"] = (
        "not recommended" if ": not recommended" in duel else
        "recommended" if ": recommended" in duel else duel)
    for name, row in rows.items():
        if name.startswith("trace_") and name.endswith("_yours"):
            facts["%s utilization at least the floor" % name] = (
                row.get("utilization_ok"))
    return facts


FACTS = {name: globals()[name] for name in LABS}


def disagreements(lab, quick, full):
    """The facts of `lab` whose quick value is not the full run's."""
    q, f = FACTS[lab](quick), FACTS[lab](full)
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

    def test_quick_runs_say_what_they_cannot_show(self):
        # The excuse is the quick run's own words, and only the quick run's:
        # a learner reading the quick table is told which verdicts wait for
        # the full run.
        for lab in QUICK_CANNOT_SHOW:
            with self.subTest(lab=lab):
                self.assertTrue(
                    says_quick_cannot_show(lab, load(lab + "_quick.json")),
                    "%s's quick run has no note opening %r" %
                    (lab, QUICK_CANNOT_SHOW[lab]))
                self.assertFalse(
                    says_quick_cannot_show(lab, load(lab + "_full.json")),
                    "%s's full run says quick mode cannot show it" % lab)

    def test_facts_are_not_empty(self):
        # A lab whose facts all came out n/a would agree with anything.
        for lab in LABS:
            full = load(lab + "_full.json")
            facts = FACTS[lab](full)
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

    def test_allocator_cost(self):
        def flip(rows, r):
            r["headline"]["value"] = -r["headline"]["value"]
        self.expect("allocator_cost", flip, "headline")

    def test_mmap_threshold(self):
        def flip(rows, r):
            rows["fixed"]["mmap_per_call"] = 0.001
        self.expect("mmap_threshold", flip, "fixed mmap per call")

    def test_first_call(self):
        def flip(rows, r):
            rows["cold_first_call"]["page_faults_per_call"] = 1
        self.expect("first_call", flip, "cold_first_call page faults")

    def test_counter_contention(self):
        def flip(rows, r):
            rows["reuse_shared@2"]["allocs_per_call"] = 1
        self.expect("counter_contention", flip, "reuse_shared@2 allocs")

    def quiet(self, lab):
        """The lab's pair with neither a busy note nor the quick note."""
        quick, full = load(lab + "_quick.json"), load(lab + "_full.json")
        for r in (quick, full):
            r["notes"] = [n for n in r["notes"] if not n.startswith(BUSY) and
                          not n.startswith(QUICK_CANNOT_SHOW[lab])]
        return quick, full

    def test_counter_contention_headline_when_quiet(self):
        # Quiet runs (no busy note) compare the headline's verdict too,
        # unless the quick run says it cannot show it.
        quick, full = self.quiet("counter_contention")
        quick["headline"].update(value=9.0, text="9.0x")
        full["headline"].update(value=1.1, text="1.1x (within noise)")
        problems = disagreements("counter_contention", quick, full)
        self.assertTrue(any("headline" in p for p in problems), problems)
        quick["notes"].append(QUICK_CANNOT_SHOW["counter_contention"] + ": x")
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
        quick["notes"].append(QUICK_CANNOT_SHOW["smt_siblings"] + ": x")
        problems = disagreements("smt_siblings", quick, full)
        self.assertFalse(any("distinct_cores" in p for p in problems),
                         problems)
        rows_of(quick)["same_cpu"]["slowdown"] = "contention"
        problems = disagreements("smt_siblings", quick, full)
        self.assertTrue(any("same_cpu slowdown" in p for p in problems),
                        problems)

    def test_smt_siblings(self):
        def flip(rows, r):
            rows["same_cpu"]["slowdown"] = "none"
        self.expect("smt_siblings", flip, "same_cpu slowdown")

    def test_musl_churn(self):
        def flip(rows, r):
            rows["glibc_1024"]["peak_rss_kib"] = (
                rows["musl_1024"]["peak_rss_kib"])
        self.expect("musl_churn", flip, "peak RSS glibc_1024 above musl_1024")

    def test_jemalloc_adoption(self):
        def flip(rows, r):
            rows["churn_mimalloc"]["rss_ratio"] = 1.68
        self.expect("jemalloc_adoption", flip,
                    "churn_mimalloc peak RSS against the 1.25x budget")

    def test_allocator_design(self):
        def flip(rows, r):
            rows["churn_yours"]["rss_ratio"] = 1.5
        self.expect("allocator_design", flip,
                    "churn_yours peak RSS against the 1.25x budget")

        # Without the quick note, a flipped answer for yours over glibc is
        # seen; with it, quick mode has said it cannot show that answer.
        quick, full = self.quiet("allocator_design")
        quick["notes"] = [
            n.replace("): recommended.", "): not recommended.")
            for n in quick["notes"]]
        problems = disagreements("allocator_design", quick, full)
        self.assertTrue(any("yours over glibc" in p for p in problems),
                        problems)
        quick["notes"].append(QUICK_CANNOT_SHOW["allocator_design"] + ": x")
        problems = disagreements("allocator_design", quick, full)
        self.assertFalse(any("yours over glibc" in p for p in problems),
                         problems)

        def waste(rows, r):
            rows["trace_phases_yours"]["utilization_ok"] = 0
        self.expect("allocator_design", waste, "trace_phases_yours")

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
