#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
#
# //:board on stand-in suites that write canned GoogleTest XML reports (the
# format of GoogleTest 1.12's --gtest_output=xml): no lab solved, some, all;
# a suite that crashes; bad arguments. Stand-ins, not the labs' suites, so
# that this test's verdict does not change when a learner solves a lab.
#
# Usage: board_test.sh BOARD UNSOLVED_XML SOLVED_XML
set -u
source tools/expect.sh
board="$1"
unsolved_xml="$(realpath "$2")"
solved_xml="$(realpath "$3")"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0

# A stand-in suite: writes REPORT where --gtest_output asks, exits STATUS.
suite() {
  local name="$1" report="$2" status="$3"
  cat >"${tmp}/${name}" <<SUITE
#!/usr/bin/env bash
for arg in "\$@"; do
  case "\${arg}" in
    --gtest_output=xml:*) cp "${report}" "\${arg#--gtest_output=xml:}" ;;
  esac
done
[[ -n "\${TEST_TMPDIR:-}" && -d "\${TEST_TMPDIR}" ]] || { echo "no TEST_TMPDIR"; exit 3; }
exit ${status}
SUITE
  chmod +x "${tmp}/${name}"
  echo "${tmp}/${name}"
}
unsolved="$(suite unsolved "${unsolved_xml}" 1)"
solved="$(suite solved "${solved_xml}" 0)"
cat >"${tmp}/crashing" <<'SUITE'
#!/usr/bin/env bash
echo "about to crash"
kill -SEGV $$
SUITE
chmod +x "${tmp}/crashing"

# No lab solved.
out="$("${board}" alpha="${unsolved}" beta="${unsolved}" 2>&1)"
status=$?
[[ ${status} -eq 0 ]] || fail "none solved: exit ${status}: ${out}"
grep -qE '^alpha +not yet +1/3 \(1 skipped\)$' <<<"${out}" || fail "none solved: no alpha line: ${out}"
grep -qF '    FAILED FixtureTest.ReuseAllocatesNothing: task_test.cc:83: Expected equality of these values: ... Reuse allocated although `out` had the capacity' <<<"${out}" ||
  fail "none solved: the failing check or its message is missing: ${out}"
grep -qF '    FAILED FixtureTest.LargeReuseAllocatesNothing: task_test.cc:110: Expected equality of these values:' <<<"${out}" ||
  fail "none solved: second failing check missing: ${out}"
grep -qF '    skipped FixtureTest.ZeroPageOnly: task_test.cc:121: this kernel has no zero page' <<<"${out}" ||
  fail "none solved: the skipped check is not shown with its reason: ${out}"
grep -q 'DISABLED_Slow' <<<"${out}" && fail "none solved: a disabled test is shown: ${out}"
grep -qx '0 of 2 labs solved.' <<<"${out}" || fail "none solved: wrong tally: ${out}"

# Some.
out="$("${board}" alpha="${solved}" beta="${unsolved}" 2>&1)"
grep -qE '^alpha +solved +3/3$' <<<"${out}" || fail "some solved: alpha is not solved: ${out}"
grep -qE '^beta +not yet +1/3' <<<"${out}" || fail "some solved: beta: ${out}"
[[ "$(grep -c FAILED <<<"${out}")" -eq 2 ]] || fail "some solved: want beta's 2 failures only: ${out}"
grep -qx '1 of 2 labs solved.' <<<"${out}" || fail "some solved: wrong tally: ${out}"

# All.
out="$("${board}" alpha="${solved}" beta="${solved}" 2>&1)"
grep -q FAILED <<<"${out}" && fail "all solved: a failure is shown: ${out}"
grep -qx '2 of 2 labs solved.' <<<"${out}" || fail "all solved: wrong tally: ${out}"
grep -q 'starter_test' <<<"${out}" && fail "all solved: still says how to work on one: ${out}"

# --labs picks; an unknown lab is refused.
out="$("${board}" --labs=beta alpha="${solved}" beta="${unsolved}" 2>&1)"
grep -q '^alpha' <<<"${out}" && fail "--labs=beta shows alpha: ${out}"
grep -qx '0 of 1 labs solved.' <<<"${out}" || fail "--labs=beta: ${out}"
"${board}" --labs=gamma alpha="${solved}" >/dev/null 2>"${tmp}/err"
[[ $? -eq 2 ]] || fail "--labs=gamma did not exit 2"
grep -q "unknown lab gamma" "${tmp}/err" || fail "--labs=gamma: $(cat "${tmp}/err")"

# A crash is "broken", with how it ended, and exit 1.
out="$("${board}" alpha="${solved}" beta="${tmp}/crashing" 2>&1)"
status=$?
[[ ${status} -eq 1 ]] || fail "crash: exit ${status}, want 1"
grep -qE '^beta +broken' <<<"${out}" || fail "crash: not broken: ${out}"
grep -qF 'was killed by SIGSEGV before writing a report: about to crash' <<<"${out}" || fail "crash: no reason: ${out}"

# Bad arguments.
"${board}" >/dev/null 2>&1
[[ $? -eq 2 ]] || fail "no argument did not exit 2"
"${board}" --bogus alpha="${solved}" >/dev/null 2>&1
[[ $? -eq 2 ]] || fail "an unknown flag did not exit 2"

finish "board: none, some and all solved, crash and bad arguments behave"
