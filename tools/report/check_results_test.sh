#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
# The checker's own test: check_results.py must pass what holds and fail, with
# a message that says why, what does not. Without this, an experiment test
# whose checker always said PASS would look green forever.
#
# Usage: check_results_test.sh CHECKER RESULTS_JSON RESULTS_WITHOUT_NOTES_JSON
#                              RESULTS_THREADS_JSON
set -u
checker="$1"
fixture="$2"
without_notes="$3"
threads_fixture="$4"
failures=0

if ! command -v python3 >/dev/null; then
  echo "check_results_test: python3 is not on PATH (${PATH}); tools/setup.sh" \
    "installs Debian's python3" >&2
  exit 2
fi
echo "python3: $(command -v python3)"

# The program under test, for expect (tools/checks/expect.sh).
subject() { python3 "${checker}" "$@"; }
# shellcheck source=tools/checks/expect.sh
source tools/checks/expect.sh

# What holds passes, for every operator.
expect all_pass 0 '^check_results: all 7 checks passed \(lab fixture\)$' -- \
  --lab=fixture "${fixture}" \
  "small_new allocs_per_call == 1" "small_new page_faults_per_call != 1" \
  "fixed mmap_per_call < 1" "fixed mmap_per_call <= 0.999" \
  "fixed page_faults_per_call > 60" "fixed threshold_bytes >= 131072" \
  "  fixed   threshold_bytes   <=   133120  "
expect pass_line 0 '^PASS  small_new allocs_per_call == 1  \(actual 1\)$' -- \
  "${fixture}" "small_new allocs_per_call == 1"

# A value on the wrong side fails, and says what it was.
expect wrong_value 1 '^FAIL  fixed mmap_per_call >= 0.9999  \(actual 0.999\)$' -- \
  "${fixture}" "fixed mmap_per_call >= 0.9999"
expect equal_is_exact 1 '^FAIL  fixed page_faults_per_call == 65  \(actual 65.001\)$' -- \
  "${fixture}" "fixed page_faults_per_call == 65"
# One failure among passes fails the whole, and every check is still shown.
expect one_of_two 1 '^check_results: 1 of 2 checks failed' -- \
  "${fixture}" "small_new allocs_per_call == 1" "small_new allocs_per_call == 0"
expect one_of_two_shows_pass 1 '^PASS  small_new allocs_per_call == 1' -- \
  "${fixture}" "small_new allocs_per_call == 1" "small_new allocs_per_call == 0"
expect notes_on_failure 1 '^  note: a fixture' -- \
  "${fixture}" "small_new allocs_per_call == 0"

# Bounds in pages of the machine that ran it (the fixture has 16 KiB pages).
expect pages_pass 0 '^PASS  fixed page_faults_per_call >= pages\(262144\)  \(actual 65.001, bound pages\(262144\) = 16.0 with 16384-byte pages\)$' -- \
  "${fixture}" "fixed page_faults_per_call >= pages(262144)"
expect pages_factor 1 '^FAIL  fixed page_faults_per_call <= 0.5\*pages\(262144\)  \(actual 65.001, bound 0.5\*pages\(262144\) = 8.0 ' -- \
  "${fixture}" "fixed page_faults_per_call <= 0.5*pages(262144)"
expect pages_round_up 1 'bound pages\(1064961\) = 66.0 with 16384-byte pages' -- \
  "${fixture}" "fixed page_faults_per_call >= pages(1064961)"
no_page_size="${TEST_TMPDIR:-/tmp}/check_results_no_page_size.json"
sed 's/, "page_bytes": 16384//' "${fixture}" >"${no_page_size}"
expect pages_unknown 1 "needs the machine's page size, and the JSON's machine.page_bytes is null" -- \
  "${no_page_size}" "fixed page_faults_per_call >= pages(262144)"
expect pages_malformed 2 "'pages\(256k\)' is not a number or pages\(BYTES\)" -- \
  "${fixture}" "fixed page_faults_per_call >= pages(256k)"

# Missing and unmeasured facts fail; they never pass by default.
expect no_row 1 "^FAIL  large_new allocs_per_call == 1  \(no row 'large_new' \(rows: small_new, fixed, unmeasured\)\)$" -- \
  "${fixture}" "large_new allocs_per_call == 1"

# One row per thread count: VARIANT@THREADS picks one; the bare name is
# ambiguous and fails, naming the choices.
expect thread_row 0 '^PASS  team@2 ns_per_call == 20  \(actual 20\)$' -- \
  "${threads_fixture}" "team@2 ns_per_call == 20"
expect single_at_1 0 '^PASS  alone@1 ns_per_call == 5' -- \
  "${threads_fixture}" "alone@1 ns_per_call == 5"
expect ambiguous 1 "2 rows are called 'team': which one is meant\? \(name one as team@1, team@2\)" -- \
  "${threads_fixture}" "team ns_per_call > 0"
expect no_thread_row 1 "no row 'team@3' \(rows: alone, team@1, team@2\)" -- \
  "${threads_fixture}" "team@3 ns_per_call > 0"
expect bad_threads 2 "'team@two' is not VARIANT or VARIANT@THREADS" -- \
  "${threads_fixture}" "team@two ns_per_call > 0"
expect no_metric 1 "row 'small_new' has no metric 'mmap_per_call' \(it has: threads, ns_per_call, allocs_per_call, page_faults_per_call\)" -- \
  "${fixture}" "small_new mmap_per_call < 1"
expect null_metric 1 "'ns_per_call' of row 'unmeasured' is null: the experiment did not measure it" -- \
  "${fixture}" "unmeasured ns_per_call >= 0"
expect text_metric 1 "'method' of row 'unmeasured' is \"none\", not a number" -- \
  "${fixture}" "unmeasured method == 0"

# A fact with a condition: judged where the condition holds, N/A (neither
# pass nor fail) where it does not, a failure where it cannot be judged.
expect where_holds_pass 0 '^PASS  fixed mmap_per_call < 1 where small_new allocs_per_call == 1  \(actual 0.999\)$' -- \
  "${fixture}" "fixed mmap_per_call < 1 where small_new allocs_per_call == 1"
expect where_holds_fail 1 '^FAIL  fixed mmap_per_call > 1 where small_new allocs_per_call == 1  \(actual 0.999\)$' -- \
  "${fixture}" "fixed mmap_per_call > 1 where small_new allocs_per_call == 1"
expect where_false_na 0 '^N/A   fixed mmap_per_call > 1 where small_new allocs_per_call == 0  \(condition false: actual 1\)$' -- \
  "${fixture}" "fixed mmap_per_call > 1 where small_new allocs_per_call == 0" \
  "small_new allocs_per_call == 1"
expect where_counts_na 0 '^check_results: all 1 checks passed, 1 not applicable here \(lab fixture\)$' -- \
  "${fixture}" "fixed mmap_per_call > 1 where small_new allocs_per_call == 0" \
  "small_new allocs_per_call == 1"
expect where_only_na 1 'no check applies to this machine' -- \
  "${fixture}" "fixed mmap_per_call > 1 where small_new allocs_per_call == 0"
expect where_unjudged 1 "^FAIL  .*its condition cannot be judged: row 'small_new' has no metric 'musl_madv_free'" -- \
  "${fixture}" "fixed mmap_per_call < 1 where small_new musl_madv_free == 1"
expect where_malformed 2 "malformed check 'fixed mmap_per_call < 1 where small_new allocs_per_call 1'" -- \
  "${fixture}" "fixed mmap_per_call < 1 where small_new allocs_per_call 1"

# Unusable input: exit 2, with the reason.
expect no_checks 2 'no checks given' -- "${fixture}"
expect three_words 2 "malformed check 'small_new allocs_per_call 1': want 'VARIANT METRIC OPERATOR NUMBER'" -- \
  "${fixture}" "small_new allocs_per_call 1"
expect bad_operator 2 "operator '=' is not one of == != < <= > >=" -- \
  "${fixture}" "small_new allocs_per_call = 1"
expect bad_number 2 "'one' is not a number" -- \
  "${fixture}" "small_new allocs_per_call == one"
expect infinite_bound 2 "bound is not finite" -- \
  "${fixture}" "small_new allocs_per_call < inf"
expect wrong_lab 2 '"lab" is "fixture", want "allocator_cost"' -- \
  --lab=allocator_cost "${fixture}" "small_new allocs_per_call == 1"
expect missing_notes 2 'missing "notes"' -- \
  "${without_notes}" "small_new allocs_per_call == 1"
expect missing_file 2 'cannot read .*no_such.json' -- \
  "${TEST_TMPDIR:-/tmp}/no_such.json" "small_new allocs_per_call == 1"
not_json="${TEST_TMPDIR:-/tmp}/check_results_not_json.json"
printf '{"lab": "fixture", "rows": [' >"${not_json}"
expect not_json 2 'is not JSON' -- "${not_json}" "small_new allocs_per_call == 1"

expect unknown_flag 2 'unrecognized arguments: --bogus' -- \
  --bogus "${fixture}" "small_new allocs_per_call == 1"

finish "check_results_test: every case behaved"
