# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""Lab allocator_cost's facts for the course's tools (tools/labs.py
`facts()`): its picture's title for tools/plot.py, and the facts its
reference's quick and full runs must share for tools/quick_full_test.py.
The experiment's JSON chooses the picture's panels.
"""

from common.harness import run_facts

# The chapter's question (docs/labs/allocator_cost.md), the picture's title.
QUESTION = "What does one malloc+free cost?"


def quick_full_facts(results):
    """The sign of one malloc+free, every count of allocations, and the
    first call's page faults (one per page)."""
    rows = run_facts.rows_of(results)
    facts = {"headline: one malloc+free (small_new - small_reuse) is":
             run_facts.sign(run_facts.headline_value(results))}
    for name, row in rows.items():
        if "allocs_per_call" in row:
            facts["%s allocs_per_call" % name] = row["allocs_per_call"]
    first = rows["large_new_first_call"]
    facts["large_new_first_call page faults (one per page)"] = (
        first["page_faults_per_call"])
    return facts


def _flip_headline(rows, results):
    results["headline"]["value"] = -results["headline"]["value"]


# A change to a quick run that the comparison must see: the fact it breaks,
# and the change (to the run's rows by variant, and to the run).
QUICK_FULL_FLIPS = {"headline": _flip_headline}
