#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
# //:report on fixtures: one file, two files of one lab, and the refusals.
set -u
report="$1"
fixture="$2"
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

out="$("${report}" "${fixture}" 2>&1)" || fail "one file exited $?: ${out}"
grep -q "^variant  *ns_per_call  *allocs_per_call" <<<"${out}" || fail "no table header: ${out}"
grep -q "^unmeasured .* n/a .* none$" <<<"${out}" || fail "null is not n/a: ${out}"
grep -q "^note: a fixture" <<<"${out}" || fail "no notes: ${out}"

sed 's/"ns_per_call": 51.6/"ns_per_call": 103.2/' "${fixture}" >"${TEST_TMPDIR}/slower.json"
out="$("${report}" "${fixture}" "${TEST_TMPDIR}/slower.json" 2>&1)" || fail "two files exited $?: ${out}"
grep -q "^small_new  *ns_per_call  *51.6  *103.2  *2.00$" <<<"${out}" || fail "no ratio row: ${out}"
grep -q "^small_new  *allocs_per_call  *1  *1  *1.00$" <<<"${out}" || fail "no count row: ${out}"

sed 's/"ns_per_call": 51.6/"ns_per_call": 51.6, "rss_kib": [968, 20916]/' "${fixture}" >"${TEST_TMPDIR}/samples.json"
out="$("${report}" "${TEST_TMPDIR}/samples.json" 2>&1)" || fail "samples exited $?: ${out}"
grep -q "rss_kib\|20916" <<<"${out}" && fail "a sample array is in the table: ${out}"

sed 's/"lab": "fixture"/"lab": "other"/' "${fixture}" >"${TEST_TMPDIR}/other.json"
"${report}" "${fixture}" "${TEST_TMPDIR}/other.json" >/dev/null 2>"${TEST_TMPDIR}/err"
[[ $? -eq 2 ]] || fail "two labs did not exit 2"
grep -q "only runs of one lab compare" "${TEST_TMPDIR}/err" || fail "two labs: $(cat "${TEST_TMPDIR}/err")"

"${report}" "${TEST_TMPDIR}/missing.json" >/dev/null 2>"${TEST_TMPDIR}/err"
[[ $? -eq 2 ]] || fail "a missing file did not exit 2"
grep -q "cannot read" "${TEST_TMPDIR}/err" || fail "missing: $(cat "${TEST_TMPDIR}/err")"

"${report}" >/dev/null 2>&1
[[ $? -eq 2 ]] || fail "no argument did not exit 2"

# The usage line names the command a learner types, not the script.
BUILD_WORKING_DIRECTORY="${TEST_TMPDIR}" "${report}" >/dev/null 2>"${TEST_TMPDIR}/err"
[[ $? -eq 2 ]] || fail "no argument under bazel run did not exit 2"
grep -qF "usage: bazel run //:report -- [--plot=OUT.svg] RESULTS_JSON [OTHER_RESULTS_JSON]" "${TEST_TMPDIR}/err" ||
  fail "usage line: $(cat "${TEST_TMPDIR}/err")"
"${report}" --bogus "${fixture}" >/dev/null 2>"${TEST_TMPDIR}/err"
[[ $? -eq 2 ]] || fail "an unknown flag did not exit 2"
grep -q "unrecognized arguments: --bogus" "${TEST_TMPDIR}/err" || fail "unknown flag: $(cat "${TEST_TMPDIR}/err")"

# A picture that cannot be written is refused before the table is printed.
out="$("${report}" --plot="${TEST_TMPDIR}/no/such/dir/out.svg" "${fixture}" 2>"${TEST_TMPDIR}/err")"
[[ $? -eq 2 ]] || fail "an unwritable --plot did not exit 2"
[[ -z "${out}" ]] || fail "an unwritable --plot printed the table first: ${out}"
grep -q "cannot write into" "${TEST_TMPDIR}/err" || fail "unwritable --plot: $(cat "${TEST_TMPDIR}/err")"

if ((failures)); then
  echo "${failures} failures" >&2
  exit 1
fi
echo "report: all cases behave"
