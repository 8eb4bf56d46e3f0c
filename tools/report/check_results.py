#!/usr/bin/env python3
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""Checks an experiment's results JSON against stated facts.

A lab's chapter says what its experiment shows ("small_new makes one
allocation per call"); a check says the same in a form a test can hold the
experiment to, so that the program and its chapter cannot drift apart
unnoticed. Each check is one string of four words:

    VARIANT METRIC OPERATOR NUMBER      e.g. "fixed mmap_per_call >= 0.99"

VARIANT names a row; "NAME@THREADS" (e.g. "new_shared@2") names the row of
a thread count where a lab has one row per count. OPERATOR is one of
== != < <= > >=. NUMBER is a number, or a count of pages
of the machine that ran the experiment, so that no bound assumes 4 KiB
pages: "pages(262144)" is 262144 bytes in pages of the JSON's
machine.page_bytes, rounded up (64 with 4 KiB pages, 4 with 64 KiB pages),
and "0.5*pages(262144)" a fraction of that. A check fails when its row or
metric is missing or null (not measured): a fact the experiment did not
measure is not a fact it showed.

A fact that holds only on some machines (a version's behaviour) is stated
with its condition, in the same form:

    CHECK where VARIANT METRIC OPERATOR NUMBER
    e.g. "musl_256 madvise_per_call >= 0.5 where musl_256 musl_madv_free == 1"

Where the condition is false the check is shown as "N/A" with the value
that made it so, and neither passes nor fails; where the condition cannot
be judged (its row or metric missing or null), the check fails. A lab states
each such fact once per answer of its condition, so that every machine is
held to one of them.

Usage:
    check_results.py [--lab=NAME] RESULTS_JSON CHECK [CHECK...]

Prints one PASS or FAIL line per check, with the value found. Exit status:
0 when every check passes, 1 when one fails, 2 when the input is unusable
(no such file, not the results format of docs/results_json.md, a malformed
check).
"""

import argparse
import json
import math
import operator
import re
import sys

# The comparisons a check may make: the one list (tools/lab/lab.bzl checks only
# a check's shape and leaves the operator to this table).
OPERATORS = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}

# The top level of the results JSON (docs/results_json.md).
REQUIRED = {
    "lab": str,
    "machine": dict,
    "instruments": dict,
    "rows": list,
    "notes": list,
}


class UnusableInput(Exception):
    """Input the checker cannot judge: exit 2, not a failed check."""


# "pages(BYTES)" or "FACTOR*pages(BYTES)": a bound in pages of the machine.
PAGES = re.compile(r"^(?:([0-9.eE+-]+)\*)?pages\(([0-9]+)\)$")


class Bound:
    """A check's NUMBER: a plain number, or FACTOR x pages of BYTES."""

    def __init__(self, text, number=None, factor=1.0, page_span=None):
        self.text = text
        self.number = number
        self.factor = factor
        self.page_span = page_span  # bytes, for pages(BYTES)

    def value(self, results):
        """The number, or (None, why) when the JSON cannot give it."""
        if self.page_span is None:
            return self.number, None
        page = results["machine"].get("page_bytes")
        if isinstance(page, bool) or not isinstance(page, int) or page <= 0:
            return None, ("'%s' needs the machine's page size, and the JSON's "
                          "machine.page_bytes is %s"
                          % (self.text, json.dumps(page)))
        pages = -(-self.page_span // page)
        return self.factor * pages, None

    def describe(self, results):
        if self.page_span is None:
            return ""
        value, _ = self.value(results)
        return ", bound %s = %s with %s-byte pages" % (
            self.text, repr(value), results["machine"].get("page_bytes"))


def parse_bound(text, number):
    """The NUMBER word of a check, as a Bound."""
    match = PAGES.match(number)
    if match:
        factor = 1.0
        if match.group(1) is not None:
            try:
                factor = float(match.group(1))
            except ValueError:
                raise UnusableInput(
                    "malformed check '%s': '%s' is not a number" %
                    (text, match.group(1))) from None
        if not math.isfinite(factor):
            raise UnusableInput(
                "malformed check '%s': factor is not finite" % text)
        return Bound(number, factor=factor, page_span=int(match.group(2)))
    try:
        bound = float(number)
    except ValueError:
        raise UnusableInput(
            "malformed check '%s': '%s' is not a number or pages(BYTES)" %
            (text, number),
        ) from None
    if not math.isfinite(bound):
        raise UnusableInput("malformed check '%s': bound is not finite" % text)
    return Bound(number, number=bound)


def parse_check(text):
    """Splits one check into ((variant, metric, operator, Bound), condition),
    where condition is a parsed check too, or None."""
    words = text.split()
    if len(words) == 9 and words[4] == "where":
        fact, _ = parse_check(" ".join(words[:4]))
        condition, _ = parse_check(" ".join(words[5:]))
        return fact, condition
    return parse_fact(text, words), None


def parse_fact(text, words):
    """Splits the four words of a check into (variant, metric, operator,
    Bound)."""
    if len(words) != 4:
        raise UnusableInput(
            "malformed check '%s': want 'VARIANT METRIC OPERATOR NUMBER' "
            "[where VARIANT METRIC OPERATOR NUMBER], e.g. "
            "'small_new allocs_per_call == 1'" % text,
        )
    variant, metric, op, number = words
    name, at, threads = variant.partition("@")
    if at and (not name or not threads.isdigit()):
        raise UnusableInput(
            "malformed check '%s': '%s' is not VARIANT or VARIANT@THREADS "
            "(e.g. new_shared@2)" % (text, variant),
        )
    if op not in OPERATORS:
        raise UnusableInput(
            "malformed check '%s': operator '%s' is not one of %s" %
            (text, op, " ".join(OPERATORS)),
        )
    return variant, metric, op, parse_bound(text, number)


def load_results(path, lab):
    """Reads the results JSON and checks its top level."""
    try:
        with open(path, encoding="utf-8") as f:
            results = json.load(f)
    except OSError as e:
        raise UnusableInput("cannot read %s: %s" % (path, e.strerror)) from None
    except ValueError as e:
        raise UnusableInput("%s is not JSON: %s" % (path, e)) from None
    if not isinstance(results, dict):
        raise UnusableInput("%s: the top level is not an object" % path)
    for key, kind in REQUIRED.items():
        if key not in results:
            raise UnusableInput("%s: missing \"%s\"" % (path, key))
        if not isinstance(results[key], kind):
            raise UnusableInput(
                "%s: \"%s\" is a %s, want a %s" %
                (path, key, type(results[key]).__name__, kind.__name__),
            )
    if lab is not None and results["lab"] != lab:
        raise UnusableInput(
            "%s: \"lab\" is \"%s\", want \"%s\"" % (path, results["lab"], lab),
        )
    for i, row in enumerate(results["rows"]):
        if not isinstance(row, dict) or not isinstance(row.get("variant"), str):
            raise UnusableInput("%s: rows[%d] has no \"variant\"" % (path, i))
    return results


def row_name(row, all_rows):
    """A row's name in messages: VARIANT, or VARIANT@THREADS when several
    rows share the variant."""
    same = [r for r in all_rows if r["variant"] == row["variant"]]
    if len(same) > 1:
        return "%s@%s" % (row["variant"], row.get("threads"))
    return row["variant"]


def evaluate(results, check):
    """Returns (passed, message) for one parsed check."""
    variant, metric, op, bound = check
    name, at, threads = variant.partition("@")
    rows = [
        r for r in results["rows"] if r["variant"] == name and
        (not at or r.get("threads") == int(threads))
    ]
    if not rows:
        return False, "no row '%s' (rows: %s)" % (
            variant,
            ", ".join(row_name(r, results["rows"]) for r in results["rows"])
            or "none",
        )
    if len(rows) > 1:
        return False, ("%d rows are called '%s': which one is meant? (name "
                       "one as %s)" % (
                           len(rows),
                           variant,
                           ", ".join(row_name(r, rows) for r in rows),
                       ))
    row = rows[0]
    if metric not in row:
        metrics = [k for k in row if k != "variant"]
        return False, "row '%s' has no metric '%s' (it has: %s)" % (
            variant,
            metric,
            ", ".join(metrics) or "none",
        )
    value = row[metric]
    if value is None:
        return False, ("'%s' of row '%s' is null: the experiment did not "
                       "measure it (see its notes)" % (metric, variant))
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False, "'%s' of row '%s' is %s, not a number" % (
            metric,
            variant,
            json.dumps(value),
        )
    limit, why = bound.value(results)
    if limit is None:
        return False, why
    return OPERATORS[op](value, limit), "actual %s%s" % (
        repr(value), bound.describe(results))


def main(argv):
    parser = argparse.ArgumentParser(
        prog="check_results", description=__doc__.split("\n")[0])
    parser.add_argument("--lab", help="the lab the JSON must be of")
    parser.add_argument("results_json")
    parser.add_argument("checks", nargs="*", metavar="CHECK",
                        help="VARIANT METRIC OPERATOR NUMBER")
    args = parser.parse_args(argv[1:])
    if not args.checks:
        parser.print_usage(sys.stderr)
        print("check_results: no checks given; a test that checks nothing "
              "cannot fail", file=sys.stderr)
        return 2
    lab, path, texts = args.lab, args.results_json, args.checks
    try:
        checks = [parse_check(t) for t in texts]
        results = load_results(path, lab)
    except UnusableInput as e:
        print("check_results: %s" % e, file=sys.stderr)
        return 2
    failed = 0
    not_applicable = 0
    for text, (check, condition) in zip(texts, checks):
        if condition is not None:
            holds, why = evaluate(results, condition)
            if not holds and not why.startswith("actual "):
                passed, message = (
                    False, "its condition cannot be judged: " + why)
            elif not holds:
                print("N/A   %s  (condition false: %s)" %
                      (" ".join(text.split()), why))
                not_applicable += 1
                continue
            else:
                passed, message = evaluate(results, check)
        else:
            passed, message = evaluate(results, check)
        verdict = "PASS" if passed else "FAIL"
        print("%s  %s  (%s)" % (verdict, " ".join(text.split()), message))
        if not passed:
            failed += 1
    if failed:
        print("check_results: %d of %d checks failed on %s (lab %s)" %
              (failed, len(checks), path, results["lab"]))
        for note in results["notes"]:
            print("  note: %s" % note)
        return 1
    if not_applicable == len(checks):
        print("check_results: no check applies to this machine; a test that "
              "checks nothing cannot fail (lab %s)" % results["lab"])
        return 1
    print("check_results: all %d checks passed%s (lab %s)" %
          (len(checks) - not_applicable, ", %d not applicable here" %
           not_applicable if not_applicable else "", results["lab"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
