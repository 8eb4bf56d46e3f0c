# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""Lab musl_churn's facts for the course's tools (tools/labs.py `facts()`):
its picture's title for tools/plot.py, and the facts its reference's quick
and full runs must share for tools/quick_full_test.py. The experiment's
JSON chooses the picture's panels.
"""

from common.harness import run_facts

# The chapter's question (docs/labs/musl_churn.md), the picture's title.
QUESTION = "Where does musl's time go, and what does glibc's speed cost?"


def quick_full_facts(results):
    """Who is slower, who pays in system time and in peak RSS, whose
    recycling saves the munmap, and musl's system calls per call."""
    rows = run_facts.rows_of(results)
    g, m = rows["glibc_1024"], rows["musl_1024"]
    facts = {
        "headline: musl / glibc CPU time above 1":
            run_facts.headline_value(results) > 1,
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
        facts["%s munmap per call" % name] = run_facts.Near(
            row["munmap_per_call"])
        if row.get("musl_madv_free") is not None:
            facts["%s madvise per call" % name] = run_facts.Near(
                row["madvise_per_call"])
    return facts


def _flip_peak_rss(rows, results):
    rows["glibc_1024"]["peak_rss_kib"] = rows["musl_1024"]["peak_rss_kib"]


# A change to a quick run that the comparison must see: the fact it breaks,
# and the change (to the run's rows by variant, and to the run).
QUICK_FULL_FLIPS = {"peak RSS glibc_1024 above musl_1024": _flip_peak_rss}
