#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
# order_check.py's own test: it must fail a suite whose verdict depends on
# the order (naming the test and the runs that disagree) and a suite that
# crashes, and pass a suite whose verdicts, failures included, hold in
# every order.
#
# Usage: order_check_test.sh ORDER_CHECK ORDER_FIXTURE CONSISTENT_FIXTURE
set -u
checker="$1"
order_fixture="$2"
consistent="$3"
failures=0

# The program under test, for expect (tools/checks/expect.sh).
subject() { "${checker}" "$@"; }
# shellcheck source=tools/checks/expect.sh
source tools/checks/expect.sh

expect order_dependent 1 '^order_check: Order.NeedsWarm: passed in the suite, but .*failed alone' -- \
  --seeds=1 "${order_fixture}"
expect consistent 0 '^order_check: 9 tests \(4 failed, 3 passed, 2 skipped\), the same verdict in the suite, alone and shuffled with seeds 1,2$' -- \
  --seeds=1,2 "${consistent}"
expect random_seed_printed 0 'shuffled with seeds 7,[0-9]+$' -- --seeds=7,random "${consistent}"
# Sharded: each shard checks the tests GoogleTest's sharding gives it (test
# i of 9 to shard i mod 2), and tells Bazel it shards.
shard_status="${TEST_TMPDIR:-/tmp}/order_check_shard_status"
rm -f "${shard_status}"
TEST_TOTAL_SHARDS=2 TEST_SHARD_INDEX=0 TEST_SHARD_STATUS_FILE="${shard_status}" \
  expect shard_0 0 '^order_check: 5 tests \(.*\) of shard 0 of 2, the same verdict' -- \
  --seeds=1 "${consistent}"
[[ -e "${shard_status}" ]] || fail "shard_0: TEST_SHARD_STATUS_FILE was not touched"
TEST_TOTAL_SHARDS=2 TEST_SHARD_INDEX=1 \
  expect shard_1 0 '^order_check: 4 tests \(.*\) of shard 1 of 2, the same verdict' -- \
  --seeds=1 "${consistent}"
XFAIL_FIXTURE_CRASH=1 expect crash 1 'the whole suite: was killed by SIGABRT, no report' -- \
  --seeds=1 "${consistent}"
expect bad_seeds 2 'is not a list of numbers' -- --seeds=one "${consistent}"
expect not_executable 2 'is not an executable' -- /nonexistent

finish "all cases passed"
