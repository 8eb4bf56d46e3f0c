#!/usr/bin/env python3
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""Checks the rows of an smt_siblings results JSON against its machine.

Which rows the experiment shows depends on the machine, so a fixed list of
checks (tools/report/check_results.py) cannot say it. Here: one_thread first and
same_cpu last, always; smt_siblings only where machine.smt is true, and
where it is missing, a note that says why and what the reference run saw;
every row with its thread count, its CPUs, and a diagnosis in the table's
words; no row marked misplaced (placement_check.h).

With --starter, the results are the starter's, which picks CPUs 0 and 1
as siblings: on a machine without SMT its smt_siblings row must be there,
marked "(not siblings)" in the cpus column, with a note saying so.

Usage: check_rows.py [--starter] RESULTS_JSON   (exit 0 when all hold)
"""

import json
import sys

WORDS = {"none", "clock", "shared core", "contention", "n/a"}
THREADS = {"one_thread": 1, "distinct_cores": 2, "smt_siblings": 2,
           "same_cpu": 2}


MARKS = ("(not allowed)", "(not siblings)", "(one core)", "(no CPU)")


def problems(results, starter=False):
    rows = results["rows"]
    names = [r["variant"] for r in rows]
    notes = results["notes"]
    smt = results["machine"].get("smt")
    found = []
    if not names or names[0] != "one_thread" or names[-1] != "same_cpu":
        found.append("rows %s: want one_thread first, same_cpu last" % names)
    for name in names:
        if name not in THREADS:
            found.append("unknown row %s" % name)
    for row in rows:
        name = row["variant"]
        if row.get("threads") != THREADS.get(name):
            found.append("%s: threads %s, want %s" %
                         (name, row.get("threads"), THREADS.get(name)))
        if row.get("slowdown") not in WORDS:
            found.append("%s: slowdown %r is not one of %s" %
                         (name, row.get("slowdown"), sorted(WORDS)))
        if not row.get("cpus"):
            found.append("%s: no cpus" % name)
    if starter and smt is False:
        sib = [r for r in rows if r["variant"] == "smt_siblings"]
        if not sib or "(not siblings)" not in sib[0].get("cpus", ""):
            found.append("the starter's smt_siblings row is missing or not "
                         "marked (not siblings): %s" % sib)
        if not [n for n in notes
                if n.startswith("smt_siblings is misplaced")]:
            found.append("no note says the starter's smt_siblings row is "
                         "misplaced")
        return found
    for row in rows:
        if any(mark in row.get("cpus", "") for mark in MARKS):
            found.append("%s is marked misplaced: %s" %
                         (row["variant"], row["cpus"]))
    if "smt_siblings" in names and smt is not True:
        found.append("an smt_siblings row, but machine.smt is %s" % smt)
    if "smt_siblings" not in names:
        why = [n for n in notes if n.startswith("no smt_siblings row")]
        if not why:
            found.append("no smt_siblings row and no note saying why")
        elif smt is False and not ("no SMT" in why[0] and
                                   "reference run" in why[0] and
                                   "x slower" in why[0]):
            found.append("the note %r does not say 'no SMT' and what the "
                         "reference run saw" % why[0])
    return found


def main(argv):
    starter = len(argv) == 3 and argv[1] == "--starter"
    if len(argv) != 2 and not starter:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[-1], encoding="utf-8") as f:
        results = json.load(f)
    found = problems(results, starter)
    for p in found:
        print("FAIL  %s" % p)
    if not found:
        print("check_rows: rows %s fit machine.smt = %s" %
              ([r["variant"] for r in results["rows"]],
               results["machine"].get("smt")))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
