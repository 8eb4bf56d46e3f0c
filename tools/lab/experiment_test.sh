#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
# A lab's experiment, run as a test: it must refuse an unknown flag, run to
# the end in quick mode, write the results JSON (docs/results_json.md), and
# show the
# facts its chapter states (the checks, see tools/report/check_results.py). Without
# it, a crash, a flag that stopped working or a chapter that no longer
# matches the program would go unnoticed until a learner ran the lab.
#
# Usage (lab_tests in tools/lab/lab.bzl writes the arguments):
#   experiment_test.sh LAB EXPERIMENT CHECKER [FLAG...] -- CHECK...
set -u

if [[ $# -lt 3 ]]; then
  echo "usage: experiment_test.sh LAB EXPERIMENT CHECKER [FLAG...] -- CHECK..." >&2
  exit 2
fi
lab="$1"
experiment="$2"
checker="$3"
shift 3
flags=()
while [[ $# -gt 0 && "$1" != "--" ]]; do
  flags+=("$1")
  shift
done
if [[ $# -eq 0 ]]; then
  echo "experiment_test: no '--' before the checks" >&2
  exit 2
fi
shift
if [[ $# -eq 0 ]]; then
  echo "experiment_test: no checks; a test that checks nothing cannot fail" >&2
  exit 2
fi
if [[ ! -x "${experiment}" ]]; then
  echo "experiment_test: ${experiment} is not an executable" >&2
  exit 2
fi
if ! command -v python3 >/dev/null; then
  echo "experiment_test: python3 is not on PATH (${PATH}); the checks need" \
    "it (tools/setup.sh installs Debian's python3)" >&2
  exit 2
fi
tmp="${TEST_TMPDIR:-$(mktemp -d)}"

# 1. An unknown flag is an error with a message, not a crash and not a run.
"${experiment}" --no_such_flag >"${tmp}/bad_flag.out" 2>&1
status=$?
if [[ ${status} -eq 0 || ${status} -ge 128 ]] ||
  ! grep -q "no_such_flag" "${tmp}/bad_flag.out"; then
  cat "${tmp}/bad_flag.out"
  echo "experiment_test: --no_such_flag gave exit ${status}; want an error" \
    "(1..127) that names the flag" >&2
  exit 1
fi
echo "ok: --no_such_flag is refused (exit ${status}): $(head -n 1 "${tmp}/bad_flag.out")"

# 2. The quick run, as `bazel run //solutions/${lab} -- --quick` runs it.
json="${tmp}/results.json"
rm -f "${json}"
echo "running: ${lab} --quick ${flags[*]} --json=${json}"
"${experiment}" --quick "${flags[@]}" --json="${json}"
status=$?
if [[ ${status} -ne 0 ]]; then
  echo "experiment_test: the experiment exited with ${status}; want 0" >&2
  exit 1
fi
if [[ ! -s "${json}" ]]; then
  echo "experiment_test: the experiment exited 0 but wrote no ${json}" >&2
  exit 1
fi

# 3. The facts of the chapter.
echo
echo "checking with ${checker} ($(command -v python3))"
"${checker}" --lab="${lab}" "${json}" "$@"
