#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
#
# Holds every lab to the promise of the README: `bazel test //...` stays
# green on a fresh clone AND after a learner solves any lab. The tests whose
# verdict flips when a starter is solved (they run a lab's suite on the
# learner's task.cc, or build a check the learner writes) must be tagged
# manual, so //... leaves them out; each lab's starter_unsolved_test must
# carry the course_integrity tag, by which .ci/run still runs them.
#
# Usage (//:course_integrity_test writes the arguments):
#   course_integrity_test.sh INTEGRITY MANUAL STARTER_USERS LAB...
# where the first three are the outputs of the genqueries in //:BUILD.
set -u
integrity="$1"
manual="$2"
starter_users="$3"
shift 3
if [[ $# -eq 0 ]]; then
  echo "course_integrity_test: no labs given" >&2
  exit 2
fi
failures=0
for lab in "$@"; do
  want="//tests/${lab}:starter_unsolved_test"
  if ! grep -qxF "${want}" "${integrity}"; then
    echo "FAIL: ${want} is not tagged course_integrity; .ci/run would not run it" >&2
    failures=$((failures + 1))
  fi
done
while read -r test; do
  [[ -z "${test}" ]] && continue
  if grep -qxF "${test}" "${manual}"; then
    echo "ok: ${test} runs the learner's code and is manual"
  else
    echo "FAIL: ${test} runs the learner's code (task.cc, or a check of" \
      "theirs) but is not tagged manual: solving the lab would turn" \
      "'bazel test //...' red" >&2
    failures=$((failures + 1))
  fi
done <"${starter_users}"
if [[ ! -s "${starter_users}" ]]; then
  echo "FAIL: no test runs a starter's suite; the query is wrong" >&2
  failures=$((failures + 1))
fi
if ((failures)); then
  exit 1
fi
echo "course_integrity: $# labs; solving any of them keeps bazel test //... green"
