# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""Lab first_call's facts for the course's tools (tools/labs.py `facts()`):
its picture's title for tools/plot.py, and the facts its reference's quick
and full runs must share for tools/quick_full_test.py. The experiment's
JSON chooses the picture's panels.
"""

from common.harness import run_facts

# The chapter's question (docs/labs/first_call.md), the picture's title.
QUESTION = ("Why does the first call in a fresh process cost 1.5–5x more, "
            "and how can a program pay that cost before it matters?")


def quick_full_facts(results):
    """Each first call's page faults, and that the cold first call is the
    slower one."""
    rows = run_facts.rows_of(results)
    cold = rows["cold_first_call"]
    facts = {
        "headline: first call's page faults":
            run_facts.headline_value(results),
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


def _flip_cold(rows, results):
    rows["cold_first_call"]["page_faults_per_call"] = 1


# A change to a quick run that the comparison must see: the fact it breaks,
# and the change (to the run's rows by variant, and to the run).
QUICK_FULL_FLIPS = {"cold_first_call page faults": _flip_cold}
