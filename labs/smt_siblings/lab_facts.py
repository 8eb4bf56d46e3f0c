# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""Lab smt_siblings's facts for the course's tools (tools/labs.py
`facts()`): its picture's title and words for tools/plot.py, and the facts
its reference's quick and full runs must share for
tools/quick_full_test.py. The experiment's JSON chooses the picture's
panels.
"""

from common.harness import run_facts

# The chapter's question (docs/labs/smt_siblings.md), the picture's title.
QUESTION = ("When threads slow each other down, is it waiting, a slower "
            "clock, or a shared core?")

# The lab's own words for a metric, where the course's say too little.
LABELS = {
    "time_ratio": "wall time per call",
    "cpu_ns_per_call": "CPU time per call",
}

# What a ratio is relative to, on its axis ("x one_thread").
RATIO_BASE = "one_thread"

# Solved alone too, not only with every lab (tools/solved_course_check.sh's
# rounds): its starter's experiment row is the one a solved lab once turned
# red, so the course checks that solving this lab alone keeps //... green.
SOLVED_ALONE = True

# The opening words of the quick run's note saying which verdict quick mode
# cannot show (experiment.cc).
QUICK_CANNOT_SHOW = ("quick mode cannot show the slowdown of two threads on "
                     "distinct cores or on SMT siblings")


def quick_full_facts(results):
    """same_cpu's verdict (time-shared: waiting, not a slower clock), and
    every other row's (timing ones)."""
    rows = run_facts.rows_of(results)
    same, one = rows["same_cpu"], rows["one_thread"]
    facts = {
        "rows": sorted(rows),
        "same_cpu slowdown": same["slowdown"],
        "one_thread slowdown": one["slowdown"],
        "headline: same_cpu / one_thread time is": run_facts.above(
            run_facts.headline_value(results), 1.5),
        # Time-sharing: they waited, they did not run slower.
        "same_cpu / one_thread CPU time within 15%": abs(
            same["cpu_ns_per_call"] / one["cpu_ns_per_call"] - 1) <= 0.15,
    }
    for name, row in rows.items():
        if name not in ("one_thread", "same_cpu"):
            facts[run_facts.TIMING + "%s slowdown" % name] = row.get(
                "slowdown")
    return facts


def _flip_same_cpu(rows, results):
    rows["same_cpu"]["slowdown"] = "none"


# A change to a quick run that the comparison must see: the fact it breaks,
# and the change (to the run's rows by variant, and to the run).
QUICK_FULL_FLIPS = {"same_cpu slowdown": _flip_same_cpu}
