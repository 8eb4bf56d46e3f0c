# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
# The one `expect` and `fail` of the course's shell tests, sourced from the
# runfiles root where Bazel starts a test: `source tools/checks/expect.sh` (with
# //tools/checks:expect.sh in the test's data). Failures count in `failures`;
# `finish MESSAGE` ends the test: exit 1 with the count, or 0 and MESSAGE.
#
# fail MESSAGE...: prints "FAIL: MESSAGE" to stderr and counts a failure.
#
# expect NAME STATUS PATTERN -- ARGS...: the test defines `subject ARGS...`,
# the program under test; expect runs `subject ARGS...` and wants
# exit STATUS and a line of its output (stdout and stderr) matching the
# extended regular expression PATTERN. Prints "ok   NAME", or "FAIL NAME"
# with the whole output, indented, and adds one to `failures`.
expect() {
  local name="$1" want_status="$2" pattern="$3"
  shift 4
  local output status
  output="$(subject "$@" 2>&1)"
  status=$?
  if [[ ${status} -ne ${want_status} ]] || ! grep -qE -- "${pattern}" <<<"${output}"; then
    echo "FAIL ${name}: want exit ${want_status} and /${pattern}/, got exit ${status}:"
    while IFS= read -r line; do echo "    ${line}"; done <<<"${output}"
    failures=$((failures + 1))
  else
    echo "ok   ${name}"
  fi
}

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

finish() {
  if ((failures)); then
    echo "${failures} failure(s)" >&2
    exit 1
  fi
  echo "$*"
  exit 0
}
