# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""Lab jemalloc_adoption's facts for the course's tools (tools/labs.py
`facts()`): its picture's title and design for tools/plot.py, and the
facts its reference's quick and full runs must share for
tools/quick_full_test.py.
"""

from common.harness import run_facts

# The chapter's question (docs/labs/jemalloc_adoption.md), the picture's
# title.
QUESTION = "How do you decide on an allocator?"

# What a ratio is relative to, on its axis ("x glibc"); in the matrix, the
# allocator every other one is drawn against.
RATIO_BASE = "glibc"

# The picture (tools/plot.py `PICTURES`): small multiples, one row per
# workload, time as a ratio to glibc with its interval beside the peak-RSS
# ratio, the memory budget as a line, the recommendation named.
PICTURE = "matrix"


def quick_full_facts(results):
    """Each row's side of the memory budget, the allocators within it
    everywhere, the headline row's verdict, the decay trade, and that the
    memo recommends one of those allocators."""
    rows = run_facts.rows_of(results)
    facts, candidates = run_facts.budget_facts(results)
    head = rows["msgsend_jemalloc"]
    facts["headline row msgsend_jemalloc verdict"] = head["verdict"]
    # The trade the thread's lg_dirty_mult made: dirty_decay_ms:0 gives the
    # memory back and pays in time.
    decay = rows.get("churn_jemalloc_dirty_decay_0")
    if decay is not None:
        facts["dirty_decay_0 peak RSS below jemalloc's by half"] = (
            decay["rss_ratio"] < 0.5)
        facts["dirty_decay_0 verdict"] = decay["verdict"]
    recommended = run_facts.memo(results, "memo: recommended: ")
    facts["recommendation is a candidate (or nothing fits)"] = (
        recommended in candidates or
        (not candidates and recommended == "nothing fits the budget"))
    return facts


def _flip_mimalloc(rows, results):
    rows["churn_mimalloc"]["rss_ratio"] = 1.68


# A change to a quick run that the comparison must see: the fact it breaks,
# and the change (to the run's rows by variant, and to the run).
QUICK_FULL_FLIPS = {
    "churn_mimalloc peak RSS against the 1.25x budget": _flip_mimalloc,
}
