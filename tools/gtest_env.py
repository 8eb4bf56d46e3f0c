# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""The environment for a GoogleTest suite run inside another Bazel test.

tools/xfail.py (the known-bad tests) and tools/order_check.py (the order
tests) run a lab's suite as a child of their own Bazel test. The child must
not obey the outer test's variables: it would write the outer test's XML
report (XML_OUTPUT_FILE, GTEST_OUTPUT), run only the outer test's
--test_filter (TESTBRIDGE_TEST_ONLY, GTEST_FILTER), take part in its
sharding and premature-exit protocol (TEST_SHARD_*, TEST_TOTAL_SHARDS,
TEST_PREMATURE_EXIT_FILE), or shuffle as the outer run asked
(GTEST_SHUFFLE, GTEST_RANDOM_SEED) rather than as the checker does.
"""

import os

OUTER_TEST_VARIABLES = (
    "XML_OUTPUT_FILE",
    "TESTBRIDGE_TEST_ONLY",
    "TEST_PREMATURE_EXIT_FILE",
    "TEST_SHARD_INDEX",
    "TEST_TOTAL_SHARDS",
    "TEST_SHARD_STATUS_FILE",
    "GTEST_OUTPUT",
    "GTEST_FILTER",
    "GTEST_SHUFFLE",
    "GTEST_RANDOM_SEED",
)


def inner_suite_environment():
    """This process's environment without the outer test's variables."""
    return {k: v for k, v in os.environ.items() if k not in OUTER_TEST_VARIABLES}
