#!/usr/bin/env python3
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""Checks that a GoogleTest suite's verdicts do not depend on test order.

A suite test that passes only after another test warmed the heap (or fails
only after another one disturbed it) gives a learner a verdict about the
test order, not about their code. This runs the suite

  1. whole, in its declared order,
  2. shuffled, with each of the given seeds (--gtest_shuffle),
  3. one test at a time (--gtest_filter=NAME), each in its own process,

and passes only when every test has the same verdict (passed, failed or
skipped) in every run. It says nothing about whether the verdicts are
right: that is the suite's job (and tools/checks/xfail.py's for a rejected
implementation).
A crash in any run fails this check.

Sharded (Bazel's shard_count), shard K of N checks the tests GoogleTest's
own sharding gives shard K: runs 1 and 2 are that shard's tests, in their
declared order and shuffled, and run 3 each of them alone. Any order is a
fair test of order, and the shards together run each test in all three,
each shard in 1/N of the time.

Usage:
    order_check.py [--seeds=1,2,random] SUITE_BINARY

A seed "random" is drawn from the clock and printed, so that CI explores new
orders over time and a failure can still be replayed
(--gtest_shuffle --gtest_random_seed=N).
"""

import argparse
import os
import sys
import tempfile
import time

from tools.checks import gtest_run


def shard_environment():
    """The suite's environment for this shard's runs 1 and 2, or None.

    Bazel gives a sharded test TEST_TOTAL_SHARDS and TEST_SHARD_INDEX, and
    asks it to touch TEST_SHARD_STATUS_FILE to say it shards; GoogleTest
    reads the same two numbers as GTEST_TOTAL_SHARDS and GTEST_SHARD_INDEX.
    """
    total = os.environ.get("TEST_TOTAL_SHARDS")
    if not total or int(total) <= 1:
        return None
    status = os.environ.get("TEST_SHARD_STATUS_FILE")
    if status:
        open(status, "a").close()
    return gtest_run.inner_suite_environment(
        GTEST_TOTAL_SHARDS=total,
        GTEST_SHARD_INDEX=os.environ.get("TEST_SHARD_INDEX", "0"))


def run(binary, flags, workdir, env=None):
    """Runs the suite with `flags`; returns ({name: verdict}, problem)."""
    suite_run = gtest_run.run_suite(binary, flags, workdir, env=env)
    if suite_run.problem is not None:
        return None, "%s, %s:\n%s" % (
            suite_run.describe_exit(), suite_run.problem, suite_run.tail(30))
    if not suite_run.clean():
        return suite_run.verdicts, suite_run.describe_exit()
    return suite_run.verdicts, None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", default="1,2,random",
                        help="comma-separated --gtest_random_seed values, or "
                        "'random'")
    parser.add_argument("suite")
    args = parser.parse_args()
    if not os.access(args.suite, os.X_OK):
        print("order_check: %s is not an executable" %
              args.suite, file=sys.stderr)
        return 2
    try:
        seeds = [
            1 + int(time.time() * 1000) % 99999 if s == "random" else int(s)
            for s in args.seeds.split(",") if s
        ]
    except ValueError:
        print("order_check: --seeds=%s is not a list of numbers" % args.seeds,
              file=sys.stderr)
        return 2
    workdir = os.environ.get("TEST_TMPDIR") or tempfile.gettempdir()

    problems = []
    shard = shard_environment()
    whole, problem = run(args.suite, [], workdir, env=shard)
    if problem:
        print("order_check: the whole suite: %s" % problem, file=sys.stderr)
        return 1
    if not whole:
        print("order_check: the suite ran no test", file=sys.stderr)
        return 1
    runs = {}
    for seed in seeds:
        label = "shuffled (seed %d)" % seed
        runs[label], problem = run(
            args.suite, [
                "--gtest_shuffle", "--gtest_random_seed=%d" %
                seed], workdir, env=shard)
        if problem:
            problems.append("%s: %s" % (label, problem))
    for name in sorted(whole):
        alone, problem = run(args.suite, ["--gtest_filter=" + name], workdir)
        if problem:
            problems.append("%s alone: %s" % (name, problem))
        runs.setdefault("alone", {}).update(alone or {})

    for name, verdict in sorted(whole.items()):
        differ = []
        for label, verdicts in runs.items():
            other = (verdicts or {}).get(name, "not run")
            if other != verdict:
                differ.append("%s %s" % (other, label))
        if differ:
            problems.append("%s: %s in the suite, but %s" % (
                name, verdict, ", ".join(differ)))
    counts = {}
    for verdict in whole.values():
        counts[verdict] = counts.get(verdict, 0) + 1
    summary = ", ".join("%d %s" % (n, v) for v, n in sorted(counts.items()))
    if problems:
        for problem in problems:
            print("order_check: " + problem, file=sys.stderr)
        print("order_check: %d verdict(s) depend on the order (%s in the suite)"
              % (len(problems), summary), file=sys.stderr)
        return 1
    print("order_check: %d tests (%s)%s, the same verdict in the suite, "
          "alone and shuffled with seeds %s" % (
              len(whole), summary,
              "" if shard is None else " of shard %s of %s" % (
                  shard["GTEST_SHARD_INDEX"], shard["GTEST_TOTAL_SHARDS"]),
              ",".join(str(s) for s in seeds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
