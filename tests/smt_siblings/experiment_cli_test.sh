#!/usr/bin/env bash
# The smt_siblings experiment refuses CPUs it cannot use, with exit 1 and a
# message naming the problem, before any work; and its quick run shows the
# rows this machine can show (check_rows.py).
#
# With --starter, the untouched starter's quick run instead: on a machine
# without SMT its smt_siblings row (CPUs 0 and 1) must be marked as not
# siblings (check_rows.py --starter). That one turns red once the lab is
# solved: tests/smt_siblings/BUILD tags it manual and course_integrity.
#
# Usage: experiment_cli_test.sh EXPERIMENT CHECK_ROWS
#        experiment_cli_test.sh --starter STARTER CHECK_ROWS
set -u
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0

if [[ "${1:-}" == "--starter" ]]; then
  starter="$2"
  check_rows="$3"
  json="${tmp}/results.json"
  if ! "${starter}" --quick --repetitions=1 --json="${json}" >"${tmp}/run" 2>&1; then
    echo "FAIL: the starter's quick run failed:"
    cat "${tmp}/run"
    exit 1
  fi
  cat "${tmp}/run"
  if ! python3 "${check_rows}" --starter "${json}"; then
    echo "starter_experiment_test: the starter's rows are not as expected"
    exit 1
  fi
  echo "starter_experiment_test: all passed"
  exit 0
fi
experiment="$1"
check_rows="$2"

# expect_refusal WANT ARGS...: exit 1 (not 0, not a crash) and WANT in the
# output.
expect_refusal() {
  local want="$1"
  shift
  "$@" >"${tmp}/out" 2>&1
  local status=$?
  if [[ ${status} -ne 1 ]] || ! grep -qF -- "${want}" "${tmp}/out"; then
    echo "FAIL: $* gave exit ${status}; want 1 and \"${want}\":"
    cat "${tmp}/out"
    failures=$((failures + 1))
  else
    echo "ok: $* -> exit 1: $(grep -F -- "${want}" "${tmp}/out" | head -n 1)"
  fi
}

expect_refusal 'not a CPU number' "${experiment}" --quick --cpus=abc
expect_refusal 'runs backwards' "${experiment}" --quick --cpus=3-1
expect_refusal 'empty entry' "${experiment}" --quick --cpus=0,,1
expect_refusal 'CPU 4095 is not online' "${experiment}" --quick --cpus=0,4095

# A CPU that is online but outside the affinity mask: narrow the mask with
# taskset (util-linux, in every Debian) to the first allowed CPU and ask for
# the second.
read -r -a cpus <<<"$(python3 -c \
  'import os; print(*sorted(os.sched_getaffinity(0)))')"
if [[ ${#cpus[@]} -ge 2 ]]; then
  if ! command -v taskset >/dev/null; then
    echo "FAIL: taskset is not on PATH (Debian package util-linux)"
    failures=$((failures + 1))
  else
    expect_refusal "outside this thread's affinity mask" \
      taskset -c "${cpus[0]}" "${experiment}" --quick --cpus="${cpus[1]}"
  fi
else
  echo "note: this test may run on CPU ${cpus[*]} only: the affinity" \
    "refusal needs two (common/instruments/thread_team_test checks it on fixtures)"
fi

# The quick run, and its rows.
json="${tmp}/results.json"
if ! "${experiment}" --quick --repetitions=1 --json="${json}" >"${tmp}/run" 2>&1; then
  echo "FAIL: the quick run failed:"
  cat "${tmp}/run"
  exit 1
fi
cat "${tmp}/run"
python3 "${check_rows}" "${json}" || failures=$((failures + 1))

if [[ ${failures} -gt 0 ]]; then
  echo "experiment_cli_test: ${failures} failure(s)"
  exit 1
fi
echo "experiment_cli_test: all passed"
