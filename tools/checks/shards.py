# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""Bazel's test sharding for a unittest module.

A py_test with `shard_count = N` is run N times at once, each run told its
share by TEST_SHARD_INDEX and TEST_TOTAL_SHARDS; it must touch
TEST_SHARD_STATUS_FILE to say it shards. unittest knows none of this, so a
slow test module (one that starts a program per test) declares the
load_tests protocol with this function, and each run keeps every N-th test:
the module's time is spread over the machine's cores.

Example:

    from tools.checks import shards

    def load_tests(loader, tests, pattern):
        return shards.this_shard(tests)
"""

import os
import unittest


def _flat(suite):
    for test in suite:
        if isinstance(test, unittest.TestSuite):
            yield from _flat(test)
        else:
            yield test


# this_shard: the tests of `suite` that this run of a sharded test owns,
# in their order (all of them when the test is not sharded).
def this_shard(suite):
    total = int(os.environ.get("TEST_TOTAL_SHARDS", "1"))
    index = int(os.environ.get("TEST_SHARD_INDEX", "0"))
    status = os.environ.get("TEST_SHARD_STATUS_FILE")
    if status:
        with open(status, "a"):
            pass
    tests = sorted(_flat(suite), key=lambda t: t.id())
    return unittest.TestSuite(t for i, t in enumerate(tests)
                              if i % total == index)
