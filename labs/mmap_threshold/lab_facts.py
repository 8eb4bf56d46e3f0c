# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""Lab mmap_threshold's facts for the course's tools (tools/labs.py
`facts()`): its picture's title for tools/plot.py, and the facts its
reference's quick and full runs must share for tools/quick_full_test.py.
The experiment's JSON chooses the picture's panels.
"""

from common.harness import run_facts

# The chapter's question (docs/labs/mmap_threshold.md), the picture's title.
QUESTION = "How many mmap did 1,000 allocations of 256 KiB make?"


def quick_full_facts(results):
    """Whether each loop row made an mmap and a munmap per call, and each
    row's threshold."""
    rows = run_facts.rows_of(results)
    facts = {"headline: dynamic's mmap per call in the loop is":
             run_facts.above(run_facts.headline_value(results), 0.1)}
    for name, row in rows.items():
        if "mmap_per_call" in row:  # a loop row: its system calls, counted
            facts["%s mmap per call" % name] = run_facts.above(
                row["mmap_per_call"], 0.5)
            facts["%s munmap per call" % name] = run_facts.above(
                row["munmap_per_call"], 0.5)
        facts["%s threshold_bytes" % name] = row.get("threshold_bytes")
    return facts


def _flip_fixed(rows, results):
    rows["fixed"]["mmap_per_call"] = 0.001


# A change to a quick run that the comparison must see: the fact it breaks,
# and the change (to the run's rows by variant, and to the run).
QUICK_FULL_FLIPS = {"fixed mmap per call": _flip_fixed}
