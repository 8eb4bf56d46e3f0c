#!/usr/bin/env python3
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""Passes only when a lab's suite rejects an implementation for the right \
reason.

Two modes (tools/lab/lab.bzl's lab_tests chooses; xfail_test_test.sh tests
this):

  Named (a known-bad solution):
      xfail.py --suite=BAD --reference=SOLUTION [--only_if=PROBE] PATTERN...
    Each PATTERN is a GoogleTest name or --gtest_filter pattern without ':'
    (e.g. "PrepareBufferTest.EveryPageIsPresentForWriting" or
    "Sizes/PrepareBufferSizeTest.FirstCallMakesNoPageFault/*"). For each, the
    matching tests run alone (--gtest_filter) in BAD and in the reference
    suite SOLUTION. The verdict is "rejected" only when every matched test
    fails on BAD and passes on SOLUTION. Anything else is not a rejection and
    fails this test, with the reason:
      - a named test that passed on BAD (this names it);
      - a pattern that matches no test (a typo in the BUILD file);
      - a crash, a timeout-kill or a run that wrote no report;
      - a named test that fails on the reference too: the machine cannot run
        that check (ptrace refused, no fault counter), so BAD failing it
        proves nothing about BAD;
      - a named test skipped on BAD only.
    A named test the suite skips on both (a check this build or machine
    cannot make, e.g. a fault count under ThreadSanitizer, whose shadow
    memory faults) is listed and set aside: the rejection then rests on the
    other named tests, and at least one of them must fail.

  Whole suite (the starter):
      xfail.py --suite=STARTER
    The suite must run to the end and report at least one failed test; a
    passing suite or a crash fails this test.

--only_if=PROBE makes the expectation conditional: PROBE is a program that
exits 0 when the condition under which BAD must be rejected holds on this
machine, 1 when it does not, and anything else when it cannot tell; its
first line of output is the reason. When the condition does not hold, this
test passes and prints why, without running the suite; when the probe
cannot tell, this test fails (an unanswered question is not a pass).
"""

import argparse
import os
import subprocess
import sys
import tempfile

from tools.checks import gtest_run


def run_filtered(binary, gtest_filter, workdir):
    """The suite, whole or with --gtest_filter=`gtest_filter`: a SuiteRun."""
    flags = [] if gtest_filter is None else ["--gtest_filter=" + gtest_filter]
    return gtest_run.run_suite(binary, flags, workdir)


def check_condition(probe):
    """Returns (holds, reason); exits when the probe cannot tell."""
    proc = subprocess.run(
        [probe], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False
    )
    text = proc.stdout.decode("utf-8", "replace").strip()
    reason = text.split("\n")[0] if text else "(the probe printed nothing)"
    if proc.returncode in (0, 1):
        return proc.returncode == 0, reason
    print(text)
    print(
        "xfail: the condition probe {} could not tell (exit {}): {}".format(
            probe, proc.returncode, reason
        ),
        file=sys.stderr,
    )
    sys.exit(1)


def whole_suite(suite, workdir):
    run = run_filtered(suite, None, workdir)
    failed = sorted(n for n, r in run.verdicts.items() if r == gtest_run.FAILED)
    for name in failed:
        print("failed: " + name)
    if not run.clean():
        print(run.tail())
        print(
            "xfail: the suite did not run to the end ({}); a crash is not a "
            "rejection.".format(run.describe_exit()),
            file=sys.stderr,
        )
        return 1
    if not failed:
        print(
            "xfail: the suite passed, but it must reject this implementation.",
            file=sys.stderr,
        )
        return 1
    print("xfail: rejected as expected ({} tests failed).".format(len(failed)))
    return 0


def named(suite, reference, patterns, workdir):
    problems = []
    rejected = []
    set_aside = []
    for pattern in patterns:
        if not pattern or ":" in pattern or pattern.startswith("-"):
            problems.append(
                "'{}' is not one test name or positive pattern".format(pattern)
            )
            continue
        bad = run_filtered(suite, pattern, workdir)
        if not bad.clean():
            print(bad.tail())
            problems.append(
                "{}: the suite did not run to the end ({}); a crash is not a "
                "rejection".format(pattern, bad.describe_exit())
            )
            continue
        if not bad.ran:
            problems.append("{} matches no test of the suite".format(pattern))
            continue
        good = run_filtered(reference, pattern, workdir)
        for name, result in sorted(bad.verdicts.items()):
            if result == "passed":
                problems.append(
                    "{} passed, but this implementation must fail it".format(
                        name)
                )
            elif result == "skipped":
                if good.clean() and good.verdicts.get(name) == "skipped":
                    set_aside.append(name)
                else:
                    problems.append(
                        "{} was skipped on this implementation but not on the "
                        "reference; a skipped test rejects nothing".format(name)
                    )
            elif not good.clean() or good.verdicts.get(name) != "passed":
                print(good.tail())
                problems.append(
                    "{} fails on the reference solution too ({}, {}): the "
                    "machine cannot run this check, so failing it proves "
                    "nothing".format(
                        name, good.verdicts.get(
                            name, gtest_run.NOT_RUN), good.describe_exit()
                    )
                )
            else:
                rejected.append(name)
    for name in rejected:
        print("failed as named (and passes on the reference): " + name)
    for name in set_aside:
        print("set aside, skipped on the reference too (this build cannot "
              "make the check): " + name)
    if not rejected and not problems:
        problems.append(
            "no named test could run here ({} skipped on both): nothing "
            "rejected this implementation".format(len(set_aside))
        )
    if problems:
        for problem in problems:
            print("xfail: " + problem, file=sys.stderr)
        print(
            "xfail: not rejected as named ({} problem(s) above).".format(
                len(problems)
            ),
            file=sys.stderr,
        )
        return 1
    if set_aside:
        print("xfail: rejected as expected by {} named tests "
              "({} set aside).".format(len(rejected), len(set_aside)))
    else:
        print("xfail: rejected as expected by all {} named tests.".format(
            len(rejected)))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--suite", required=True,
                        help="the GoogleTest binary to reject")
    parser.add_argument(
        "--reference", help="the same suite on the reference solution")
    parser.add_argument(
        "--only_if", help="a probe: exit 0 when rejection is expected")
    parser.add_argument("patterns", nargs="*", help="tests the suite must fail")
    args = parser.parse_args()

    for binary in (args.suite, args.reference, args.only_if):
        if binary is not None and not os.access(binary, os.X_OK):
            print(
                "xfail: {} is not an executable".format(binary),
                file=sys.stderr)
            return 2
    if args.patterns and args.reference is None:
        print("xfail: named tests need --reference", file=sys.stderr)
        return 2
    if args.only_if is not None:
        holds, reason = check_condition(args.only_if)
        if not holds:
            print(
                "xfail: not expected to be rejected on this machine, not run: "
                + reason
            )
            return 0
        print("xfail: the condition holds here: " + reason)
    workdir = os.environ.get("TEST_TMPDIR") or tempfile.gettempdir()
    if args.patterns:
        return named(args.suite, args.reference, args.patterns, workdir)
    return whole_suite(args.suite, workdir)


if __name__ == "__main__":
    sys.exit(main())
