# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""Lab counter_contention's facts for the course's tools (tools/labs.py
`facts()`): its picture's title and design for tools/plot.py, and the
facts its reference's quick and full runs must share for
tools/quick_full_test.py.
"""

from common.harness import run_facts

# The chapter's question (docs/labs/counter_contention.md), the picture's
# title.
QUESTION = ("Can the instrument that counts allocations make one allocation "
            "look several times dearer than it is?")

# The picture (tools/plot.py `PICTURES`): one line per counting mode against
# the thread count, the learner's mode thicker, a column per run.
PICTURE = "modes"

# What the picture says under its legend, whatever the run.
PICTURE_NOTES = [
    "Allocating calls (the new rows). Every counting mode counts the same "
    "allocations: a gap between a mode and off, beyond the noise, is that "
    "counter's own cost.",
]

# The opening words of the quick run's note saying which verdict quick mode
# cannot show (experiment.cc).
QUICK_CANNOT_SHOW = "quick mode cannot show whether sharing the counter costs"


def quick_full_facts(results):
    """The rows, each count of allocations and of transfers, and the
    headline's verdict (a timing one)."""
    rows = run_facts.rows_of(results)
    facts = {"rows": sorted(rows)}
    for name, row in rows.items():
        if "allocs_per_call" in row:
            facts["%s allocs_per_call" % name] = row["allocs_per_call"]
        if "transfers_per_round_trip" in row:
            facts["%s transfers per round trip" % name] = (
                row["transfers_per_round_trip"])
    text = (results.get("headline") or {}).get("text") or ""
    facts[run_facts.TIMING + "headline: shared / off at 2 threads is"] = (
        "within noise" if "within noise" in text
        else run_facts.above(run_facts.headline_value(results), 1))
    return facts


def _flip_allocs(rows, results):
    rows["reuse_shared@2"]["allocs_per_call"] = 1


# A change to a quick run that the comparison must see: the fact it breaks,
# and the change (to the run's rows by variant, and to the run).
QUICK_FULL_FLIPS = {"reuse_shared@2 allocs": _flip_allocs}
