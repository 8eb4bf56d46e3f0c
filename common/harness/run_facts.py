# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""Reading a lab's results JSON for the facts a quick and a full run must
share: the helpers each lab's labs/<lab>/lab_facts.py writes its
`quick_full_facts()` with, and tools/quick_full_test.py compares them with.

A fact is a key and a value a learner would conclude from a run (a sign, a
side of a bound, a count); two runs agree when every key has the same value
in both. A key that opens with TIMING is a timing verdict, excused where a
run says the machine was busy or the quick run says it cannot show it.

Example:

    from common.harness import run_facts
    def quick_full_facts(results):
        rows = run_facts.rows_of(results)
        return {"headline is": run_facts.sign(
                    run_facts.headline_value(results)),
                "warm page faults": rows["warm"]["page_faults_per_call"]}
"""

import re

# A fact whose key starts with this is a timing verdict: compared only when
# neither run was busy and the quick run does not say it cannot show it.
TIMING = "timing verdict: "


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


def headline_value(results):
    """The headline's value, or None."""
    h = results.get("headline") or {}
    return h.get("value")


def sign(x):
    """"positive", "zero" or "negative"; "n/a" for None."""
    if x is None:
        return "n/a"
    return "positive" if x > 0 else ("zero" if x == 0 else "negative")


def above(x, bound):
    """Which side of `bound` `x` lies on, in words; "n/a" for None."""
    if x is None:
        return "n/a"
    return "above %g" % bound if x > bound else "at most %g" % bound


def memo(results, prefix):
    """The rest of the first note that opens with `prefix`, or None."""
    for note in results.get("notes", []):
        if note.startswith(prefix):
            return note[len(prefix):]
    return None


def budget_facts(results):
    """Lab jemalloc_adoption's memory budget read off a matrix run: each
    default row's side of the budget its memo states ("budget N.NNx"), and
    the allocators within it on every workload (the baseline, whose rows
    carry no ratio, among them). Rows with a MALLOC_CONF are tuning rows,
    not an allocator's default, and are left out. Returns (facts,
    candidates)."""
    found = re.search(r"budget ([0-9.]+)x", " ".join(results.get("notes", [])))
    if found is None:
        raise ValueError("no memo states the budget (\"budget N.NNx\")")
    budget = float(found.group(1))
    defaults = [r for r in rows_of(results).values()
                if r.get("allocator") and not r.get("malloc_conf")]
    facts = {}
    for row in defaults:
        if row.get("rss_ratio") is not None:
            facts["%s peak RSS against the %.2fx budget" % (
                row["variant"], budget)] = (
                    "over" if row["rss_ratio"] > budget else "within")
    candidates = sorted(
        a for a in {r["allocator"] for r in defaults}
        if all(r["rss_ratio"] <= budget for r in defaults
               if r["allocator"] == a and r.get("rss_ratio") is not None))
    facts["allocators within the budget on every workload"] = candidates
    return facts, set(candidates)
