#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
#
# //:board on stand-in suites that write canned GoogleTest XML reports (the
# format of GoogleTest 1.12's --gtest_output=xml): no lab solved, some, all;
# a suite that crashes; bad arguments. Stand-ins, not the labs' suites, so
# that this test's verdict does not change when a learner solves a lab.
#
# Lab allocator_design's extra lines, on a stand-in suite of its shape
# (Validator* tests pass, Design* tests fail) and tour folders made here:
# the validator's count, its stages (from stages JSON made here), and the
# decision read from the newest tour's JSON, from --tour=DIR, or "run the
# tour" when there is none.
#
# Usage: board_test.sh BOARD UNSOLVED_XML SOLVED_XML ALLOCATOR_DESIGN_XML
set -u
source tools/checks/expect.sh
board="$1"
unsolved_xml="$(realpath "$2")"
solved_xml="$(realpath "$3")"
design_xml="$(realpath "$4")"
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

# Lab allocator_design: the validator apart, and the decision.
design="$(suite design "${design_xml}" 1)"
work="${tmp}/work"
mkdir -p "${work}"
out="$(BUILD_WORKING_DIRECTORY="${work}" "${board}" alpha="${unsolved}" allocator_design="${design}" 2>&1)"
grep -qE '^allocator_design +not yet +3/5$' <<<"${out}" || fail "design: no lab line: ${out}"
grep -qxF '    validator (Validator* tests): 3/3 passed; the design'"'"'s promises: 0/2' <<<"${out}" ||
  fail "design: the validator's count is missing or wrong: ${out}"
grep -qF 'promise 1: the fast path visited the central pool on every call' <<<"${out}" ||
  fail "design: a failing promise is not shown in its words: ${out}"
grep -qF "jemalloc_adoption's rule: run the tour to see whether it recommends yours over glibc" <<<"${out}" ||
  fail "design: no tour, but no 'run the tour': ${out}"
[[ "$(grep -c 'validator' <<<"${out}")" -eq 1 ]] || fail "a suite without Validator tests got a validator line: ${out}"
grep -q 'stages:' <<<"${out}" && fail "a lab given no --stages got a stage line: ${out}"

# A lab in stages (tests/<lab>/stages.json's shape): the highest stage
# whose tests all pass, each stage's count from the same run, and the next
# stage's command. Stage 3 passes while stage 2 does not: the highest is
# 3, and the next is 2.
stages_json() {  # FILE, then one "NAME FILTER" per stage
  local file="$1" number=0 sep=""
  shift
  printf '[' >"${file}"
  for stage in "$@"; do
    number=$((number + 1))
    printf '%s{"number": %d, "name": "%s", "promises": "promise %d", "filter": "%s", "target": "//tests/allocator_design:stage_%d_%s_test"}' \
      "${sep}" "${number}" "${stage%% *}" "${number}" "${stage#* }" "${number}" "${stage%% *}" >>"${file}"
    sep=", "
  done
  printf ']\n' >>"${file}"
}
stages_json "${tmp}/stages.json" "working ValidatorTest.*" \
  "fast_path DesignTest.Fast*" "sizes *ValidatorSizeTest.*" "decay DesignTest.Idle*"
out="$("${board}" --stages=allocator_design="${tmp}/stages.json" allocator_design="${design}" 2>&1)"
grep -qxF '    stages: stage 3 of 4 passed (1 working 2/2, 3 sizes 1/1; not yet: 2 fast_path 0/1, 4 decay 0/1)' <<<"${out}" ||
  fail "stages: the highest stage passed, or a stage's count, is wrong: ${out}"
grep -qxF '    next, stage 2 fast_path (promise 2): bazel test //tests/allocator_design:stage_2_fast_path_test' <<<"${out}" ||
  fail "stages: the next stage is not the first that fails: ${out}"
stages_json "${tmp}/stages_solved.json" "working Validator*:*/Validator*"
out="$("${board}" --stages=allocator_design="${tmp}/stages_solved.json" allocator_design="${design}" 2>&1)"
grep -qxF '    stages: stage 1 of 1 passed (1 working 3/3)' <<<"${out}" ||
  fail "stages: every stage passed, but not so shown: ${out}"
grep -q 'next, stage' <<<"${out}" && fail "stages: all passed, yet a next stage: ${out}"
stages_json "${tmp}/stages_none.json" "fast_path DesignTest.*"
out="$("${board}" --stages=allocator_design="${tmp}/stages_none.json" allocator_design="${design}" 2>&1)"
grep -qxF '    stages: no stage of 1 passed yet (not yet: 1 fast_path 0/2)' <<<"${out}" ||
  fail "stages: none passed, but not so shown: ${out}"
"${board}" --stages=beta="${tmp}/stages.json" allocator_design="${design}" >/dev/null 2>"${tmp}/err"
[[ $? -eq 2 ]] || fail "--stages for a lab without a suite did not exit 2"
grep -q "no suite is given for beta" "${tmp}/err" || fail "--stages=beta: $(cat "${tmp}/err")"
"${board}" --stages=allocator_design="${tmp}/nowhere.json" allocator_design="${design}" >/dev/null 2>"${tmp}/err"
[[ $? -eq 2 ]] || fail "--stages of a missing file did not exit 2"

# The newest tour folder is read; an older one is not.
tour_json() {  # FOLDER RECOMMENDED REASON...
  local folder="$1" chosen="$2"
  shift 2
  mkdir -p "${folder}"
  {
    printf '{"lab": "allocator_design", "notes": ["a note", "memo: recommended: %s"' "${chosen}"
    for reason in "$@"; do printf ', "memo: %s"' "${reason}"; done
    printf ']}\n'
  } >"${folder}/allocator_design.json"
}
tour_json "${work}/alloclab-tour-20261201-100000" yours "yours is faster on 2 workloads and slower on none"
tour_json "${work}/alloclab-tour-20261201-110000" glibc "mimalloc is over the budget on churn" \
  "yours is slower on churn (1.40x) and over the budget on churn (1.60x)"
touch -d '2026-12-01 10:00' "${work}/alloclab-tour-20261201-100000"
touch -d '2026-12-01 11:00' "${work}/alloclab-tour-20261201-110000"
out="$(BUILD_WORKING_DIRECTORY="${work}" "${board}" allocator_design="${design}" 2>&1)"
grep -qxF "    jemalloc_adoption's rule recommends glibc, not yours: yours is slower on churn (1.40x) and over the budget on churn (1.60x) (tour in alloclab-tour-20261201-110000)" <<<"${out}" ||
  fail "newest tour: the decision and its reason naming yours are missing: ${out}"

# --tour=DIR picks one, relative to where bazel run was typed.
out="$(BUILD_WORKING_DIRECTORY="${work}" "${board}" --tour=alloclab-tour-20261201-100000 allocator_design="${design}" 2>&1)"
grep -qxF "    jemalloc_adoption's rule recommends yours (tour in alloclab-tour-20261201-100000)" <<<"${out}" ||
  fail "--tour: the decision is missing: ${out}"
"${board}" --tour="${tmp}/nowhere" allocator_design="${design}" >/dev/null 2>"${tmp}/err"
[[ $? -eq 2 ]] || fail "--tour of no folder did not exit 2"
grep -q "is not a folder" "${tmp}/err" || fail "--tour of no folder: $(cat "${tmp}/err")"

# The experiment's own answer for yours against glibc alone comes first.
duel="${tmp}/tour_duel"
tour_json "${duel}" mimalloc "yours: no clear win"
sed -i 's|"a note"|"a note", "memo: yours over glibc (Recommend() on their rows alone, budget 1.25x peak RSS): not recommended. yours: slower on churn (1.30x, interval 1.10-1.50). Per workload: churn slower (1.30x time, 1.00x RSS)."|' "${duel}/allocator_design.json"
out="$("${board}" --tour="${duel}" allocator_design="${design}" 2>&1)"
grep -qxF "    jemalloc_adoption's rule does not recommend yours over glibc: yours: slower on churn (1.30x, interval 1.10-1.50). (tour in tour_duel)" <<<"${out}" ||
  fail "the experiment's answer for yours is not the one shown: ${out}"
sed -i 's|: not recommended. yours: slower on churn (1.30x, interval 1.10-1.50).|: recommended. yours: faster on 2 workloads.|' "${duel}/allocator_design.json"
out="$("${board}" --tour="${duel}" allocator_design="${design}" 2>&1)"
grep -qxF "    jemalloc_adoption's rule recommends yours over glibc (tour in tour_duel)" <<<"${out}" ||
  fail "the experiment's 'recommended' is not shown: ${out}"

# The score, from the same tour: its total and both parts.
sed -i 's|"notes": |"rows": [{"variant": "score_total", "u_points": 0.41, "t_points": 0.365, "score": 0.775}], "notes": |' "${duel}/allocator_design.json"
out="$("${board}" --tour="${duel}" allocator_design="${design}" 2>&1)"
# Beside the reference's and the other designs' (the runs committed
# in docs/img/, tools/report/results.py's SCORED_BESIDE).
grep -qxE "    score \(malloclab's index, labs/allocator_design/score\.h\): 0\.775 = utilization part 0\.410 \(the same on every run\) \+ throughput part 0\.365 \(this machine's\); tour in tour_duel; beside: reference [0-9]\.[0-9]{3}, segregated_fit [0-9]\.[0-9]{3}, thread_owned_pages [0-9]\.[0-9]{3} \(runs in docs/img/\)" <<<"${out}" ||
  fail "the score is not shown beside the reference's and the designs': ${out}"

# A tour without the lab's JSON, and a JSON that states no decision.
mkdir -p "${tmp}/tour_without"
out="$("${board}" --tour="${tmp}/tour_without" allocator_design="${design}" 2>&1)"
grep -qF "the tour in tour_without has no allocator_design.json: run the tour again" <<<"${out}" ||
  fail "tour without the lab: ${out}"
mkdir -p "${tmp}/tour_silent"
echo '{"lab": "allocator_design", "notes": ["a note"]}' >"${tmp}/tour_silent/allocator_design.json"
out="$("${board}" --tour="${tmp}/tour_silent" allocator_design="${design}" 2>&1)"
grep -qF "states no recommendation" <<<"${out}" || fail "tour without a memo: ${out}"

# Bad arguments.
"${board}" >/dev/null 2>&1
[[ $? -eq 2 ]] || fail "no argument did not exit 2"
"${board}" --bogus alpha="${solved}" >/dev/null 2>&1
[[ $? -eq 2 ]] || fail "an unknown flag did not exit 2"

finish "board: none, some and all solved, crash, lab allocator_design's validator, stages, decision and score, and bad arguments behave"
