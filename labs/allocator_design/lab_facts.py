# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""Lab allocator_design's facts for the course's tools (tools/labs.py
`facts()`): its picture's title and design for tools/plot.py, and the
facts its reference's quick and full runs must share for
tools/quick_full_test.py.
"""

from common.harness import run_facts

# The chapter's question (docs/labs/allocator_design.md), the picture's
# title.
QUESTION = ("Can you build an allocator that lab 7's own rule recommends "
            "over glibc?")

# What a ratio is relative to, on its axis ("x glibc"); in the matrix, the
# allocator every other one is drawn against.
RATIO_BASE = "glibc"

# The picture (tools/plot.py `PICTURES`): lab jemalloc_adoption's matrix,
# with yours in it.
PICTURE = "matrix"

# Your allocator's row in the matrix, the one lab jemalloc_adoption's
# Recommend() judges against glibc: `bazel run //:board` shows that
# decision, from the tour's JSON (tools/board.py).
DECISION_ROW = "yours"

# The opening words of the quick run's note saying which verdict quick mode
# cannot show (experiment.cc).
QUICK_CANNOT_SHOW = ("quick mode cannot show whether lab jemalloc_adoption's "
                     "rule recommends yours over glibc")


def quick_full_facts(results):
    """Lab 7's matrix with yours in it: the same memory facts as lab 7
    (every row's side of the budget, who fits), and lab 8's own: every row
    of yours verified, the experiment's answer for yours over glibc, and
    each trace's utilization against task.h's floor."""
    rows = run_facts.rows_of(results)
    facts, _ = run_facts.budget_facts(results)
    yours = [r for r in rows.values() if r.get("allocator") == "yours" and
             "allocator_verified" in r]
    if not yours:
        raise ValueError("no matrix row of yours")
    facts["every row of yours verified"] = all(
        r["allocator_verified"] == 1 for r in yours)
    # The lab's answer rests on timing verdicts: excused where a run says
    # the machine was busy.
    duel = run_facts.memo(results, "memo: yours over glibc")
    if duel is None:
        raise ValueError("no memo answers \"yours over glibc\"")
    facts[run_facts.TIMING + "yours over glibc"] = (
        "not recommended" if ": not recommended" in duel else
        "recommended" if ": recommended" in duel else duel)
    for name, row in rows.items():
        if name.startswith("trace_") and name.endswith("_yours"):
            facts["%s utilization at least the floor" % name] = (
                row.get("utilization_ok"))
    return facts


def _flip_churn_yours(rows, results):
    rows["churn_yours"]["rss_ratio"] = 1.5


def _flip_waste(rows, results):
    rows["trace_phases_yours"]["utilization_ok"] = 0


# A change to a quick run that the comparison must see: the fact it breaks,
# and the change (to the run's rows by variant, and to the run).
QUICK_FULL_FLIPS = {
    "churn_yours peak RSS against the 1.25x budget": _flip_churn_yours,
    "trace_phases_yours": _flip_waste,
}
