#!/usr/bin/env bash
# Passes only when the GoogleTest binary given as $1 runs and reports a failed
# test: the check that a starter or a known-bad solution is rejected by its
# suite. A crash, a missing binary or a suite that passes all fail this test,
# so "rejected" always means "a test in the suite caught it".
set -u
binary="$1"
shift
if [[ ! -x "${binary}" ]]; then
  echo "xfail: ${binary} is not an executable" >&2
  exit 2
fi
# The inner suite must not write this test's XML report (a passing xfail
# test would list the suite's failures) nor obey this test's --test_filter.
output="$(env -u XML_OUTPUT_FILE -u TESTBRIDGE_TEST_ONLY "${binary}" "$@" 2>&1)"
status=$?
echo "${output}" | grep -E '^\[  (FAILED|PASSED) ' || true
if [[ ${status} -eq 0 ]]; then
  echo "xfail: the suite passed, but it must reject this implementation." >&2
  exit 1
fi
if [[ ${status} -ne 1 ]] || ! grep -q '^\[  FAILED  \]' <<<"${output}"; then
  echo "${output}" | tail -n 40
  echo "xfail: the suite did not fail cleanly (exit ${status}); a crash is not a rejection." >&2
  exit 1
fi
echo "xfail: rejected as expected."
