# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
# The one `expect` of the tools' own shell tests (check_results_test.sh,
# order_check_test.sh, xfail_test_test.sh), sourced from the runfiles root
# where Bazel starts a test: `source tools/expect.sh`. The test defines
# `subject ARGS...`, the program under test, and counts in `failures`.
#
# expect NAME STATUS PATTERN -- ARGS...: runs `subject ARGS...` and wants
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
