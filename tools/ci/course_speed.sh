#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
#
# The course's own speed: how long a learner waits for the course's checks.
# It prints figures and judges none (the machine is shared; .ci/run's
# per-test rule is what fails CI). .ci/run runs it after the cold
# `bazel test //...`, whose time is the first figure of its table, and the
# grader's checks.
#
# It measures, in this work tree and its output base:
#   - warm: `bazel test //...` again with nothing changed (a learner's rerun);
#   - each lab's loop: the lab's starter task.cc (or task.c) changed by one
#     comment line, then `bazel test //tests/<lab>:starter_test`, the
#     command a learner types after an edit (it fails on the unsolved
#     starter: the time is what counts). The file is restored afterwards,
#     also when the script is interrupted.
#
# Usage: tools/ci/course_speed.sh [BAZEL FLAG...]
#   The flags go to every `bazel test` (e.g. --jobs=2).
# Exit 0 when every figure was taken; 1 when a command could not run at all
# (a build error, not a failing starter); 2 on bad usage.
set -euo pipefail
cd "$(dirname "$0")/../.."

case "${1:-}" in
  -h | --help)
    sed -n '/^# Usage:/,/^# (a build error/p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
bazel_flags=("$@")

# The one list of labs, as the shell tools read it.
mapfile -t labs < <(bash tools/ci/solved_course_check.sh --list-labs)

edited=""
saved="$(mktemp)"
restore() {
  if [[ -n "${edited}" ]]; then
    cp "${saved}" "${edited}"
    edited=""
  fi
}
trap 'restore; rm -f "${saved}"' EXIT

# Runs a bazel test command; prints "SECONDS" and returns 1 when Bazel
# itself failed (exit 1: build error, 2: bad command line, 36: local error).
# Exit 3 (some test failed) and 0 are timed runs.
timed() {
  local start status=0
  start=$(date +%s.%N)
  bazel test "${bazel_flags[@]}" "$@" >/dev/null 2>&1 || status=$?
  awk -v s="${start}" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }'
  ((status == 0 || status == 3 || status == 4))
}

rows=()
problems=0
if seconds=$(timed //...); then
  rows+=("warm: bazel test //... (nothing changed)|${seconds}")
else
  rows+=("warm: bazel test //... (nothing changed)|failed")
  problems=1
fi
for lab in "${labs[@]}"; do
  task="labs/${lab}/task.cc"
  [[ -e "${task}" ]] || task="labs/${lab}/task.c"
  cp "${task}" "${saved}"
  edited="${task}"
  echo "/* tools/ci/course_speed.sh: a learner's edit */" >>"${task}"
  if seconds=$(timed "//tests/${lab}:starter_test"); then
    rows+=("loop: ${lab} (task edited, starter_test)|${seconds}")
  else
    rows+=("loop: ${lab} (task edited, starter_test)|failed")
    problems=1
  fi
  restore
done
echo "== the course's own speed (seconds; load average now: $(cut -d' ' -f1-3 /proc/loadavg))"
for row in "${rows[@]}"; do
  printf '  %-52s %8s\n' "${row%%|*}" "${row##*|}"
done
exit "${problems}"
