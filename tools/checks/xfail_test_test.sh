#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
# xfail.py's own test: on a fixture suite built as a reference and as a bad
# implementation, it must pass a rejection by the named tests and fail, with
# a message that says why, every other outcome (a named test that passes, a
# crash, a failure the reference shares, a skip, a name that matches
# nothing, a passing suite). The conditional expectation runs both answers
# of its probe, so neither path is first run on a learner's machine.
#
# Usage: xfail_test_test.sh XFAIL BAD REFERENCE \
#          PROBE_HOLDS PROBE_ABSENT PROBE_UNKNOWN
set -u
xfail="$1"
bad="$2"
reference="$3"
holds="$4"
absent="$5"
unknown="$6"
failures=0

# The program under test, for expect (tools/checks/expect.sh).
subject() { "${xfail}" "$@"; }
# shellcheck source=tools/checks/expect.sh
source tools/checks/expect.sh

named=(--suite="${bad}" --reference="${reference}")

expect rejected 0 'rejected as expected by all 4 named tests' -- \
  "${named[@]}" Fixture.Rejects Fixture.AlsoRejects 'Sizes/FixtureParam.Rejects/*'
expect named_test_passed 1 'Fixture.Passes passed, but this implementation must fail it' -- \
  "${named[@]}" Fixture.Rejects Fixture.Passes
expect pattern_with_a_pass 1 'Fixture.Passes passed' -- \
  "${named[@]}" 'Fixture.*Rej*' 'Fixture.P*'
XFAIL_FIXTURE_CRASH=1 expect crash 1 'Fixture.Crashes: the suite did not run to the end \(was killed by SIGABRT\)' -- \
  "${named[@]}" Fixture.Crashes
XFAIL_FIXTURE_BROKEN_MACHINE=1 expect reference_fails_too 1 'Fixture.FailsOnBoth fails on the reference solution too' -- \
  "${named[@]}" Fixture.FailsOnBoth
# A test skipped on both builds is a check this build cannot make: set
# aside, with the rejection resting on the others; alone it rejects nothing.
expect skip_alone 1 'no named test could run here \(1 skipped on both\)' -- \
  "${named[@]}" Fixture.Skips
expect skip_set_aside 0 'rejected as expected by 1 named tests \(1 set aside\)' -- \
  "${named[@]}" Fixture.Rejects Fixture.Skips
expect skip_on_bad_only 1 'Fixture.SkipsOnBadOnly was skipped on this implementation but not on the reference' -- \
  "${named[@]}" Fixture.Rejects Fixture.SkipsOnBadOnly
expect typo 1 'Fixture.Rejetcs matches no test of the suite' -- \
  "${named[@]}" Fixture.Rejetcs
expect not_a_pattern 1 "'Fixture.Rejects:Fixture.Passes' is not one test name" -- \
  "${named[@]}" 'Fixture.Rejects:Fixture.Passes'
expect no_reference 2 'named tests need --reference' -- --suite="${bad}" Fixture.Rejects
expect not_executable 2 'is not an executable' -- --suite=/nonexistent

# Whole-suite mode (the starter): a failing suite is rejected, a passing one
# is not, and a crash is not.
expect whole_rejected 0 'rejected as expected \(4 tests failed\)' -- --suite="${bad}"
expect whole_passes 1 'the suite passed, but it must reject' -- --suite="${reference}"
XFAIL_FIXTURE_CRASH=1 expect whole_crash 1 'did not run to the end \(was killed by SIGABRT\)' -- \
  --suite="${bad}"

# The conditional expectation, with both answers of the probe.
expect condition_holds_rejected 0 'the condition holds here: condition holds' -- \
  --only_if="${holds}" "${named[@]}" Fixture.Rejects
expect condition_holds_not_rejected 1 'Fixture.Passes passed' -- \
  --only_if="${holds}" "${named[@]}" Fixture.Passes
expect condition_absent 0 'not expected to be rejected on this machine, not run: condition absent: fixture says no' -- \
  --only_if="${absent}" "${named[@]}" Fixture.Passes
expect condition_unknown 1 'could not tell \(exit 2\): unknown: fixture cannot tell' -- \
  --only_if="${unknown}" "${named[@]}" Fixture.Rejects

finish "all cases passed"
