#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
# The command line every experiment shares, checked on //common/harness:lab_main_demo:
# help, bad input, and where --json lands.
set -u
source tools/expect.sh
demo="$1"
failures=0


# Runs the demo with the given arguments; sets `status`, `out`, `err`.
run() {
  "${demo}" "$@" >"${TEST_TMPDIR}/stdout" 2>"${TEST_TMPDIR}/stderr"
  status=$?
  out="$(cat "${TEST_TMPDIR}/stdout")"
  err="$(cat "${TEST_TMPDIR}/stderr")"
}

run --help
[[ ${status} -eq 0 ]] || fail "--help exited ${status}, want 0"
for flag in --quick --json --repetitions --size_kib; do
  grep -q -- "${flag}" <<<"${out}" || fail "--help does not mention ${flag}: ${out}"
done
grep -q -- "fresh process, then warm" <<<"${out}" || fail "--help lacks the usage text"

run --nonsense
[[ ${status} -ne 0 ]] || fail "--nonsense exited 0"
grep -q "nonsense" <<<"${err}" || fail "--nonsense: message does not name the flag: ${err}"

run --quick extra
[[ ${status} -ne 0 ]] || fail "a positional argument exited 0"
grep -q "unexpected argument 'extra'" <<<"${err}" || fail "positional: message: ${err}"

run --repetitions=-1
[[ ${status} -ne 0 ]] || fail "--repetitions=-1 exited 0"
grep -q -- "--repetitions=-1" <<<"${err}" || fail "--repetitions=-1: message: ${err}"

run --repetitions=many
[[ ${status} -ne 0 ]] || fail "--repetitions=many exited 0"

# --cpu: an online CPU pins and says so; one that does not exist is refused
# with the list of those that do.
run --quick --cpu=99999
[[ ${status} -ne 0 ]] || fail "--cpu=99999 exited 0"
grep -q -- "--cpu=99999" <<<"${err}" || fail "--cpu=99999: message: ${err}"
first_cpu="$(taskset -pc $$ 2>/dev/null | sed -E 's/.*: ([0-9]+).*/\1/')"
run --quick --cpu="${first_cpu:-0}"
[[ ${status} -eq 0 ]] || fail "--cpu=${first_cpu:-0} exited ${status}: ${err}"
grep -q "^note: pinned to CPU ${first_cpu:-0} (--cpu)$" <<<"${out}" || fail "no pinned note: ${out}"

run --quick --json="${TEST_TMPDIR}/out.json"
[[ ${status} -eq 0 ]] || fail "--quick --json exited ${status}: ${err}"
if [[ -f "${TEST_TMPDIR}/out.json" ]]; then
  for key in '"lab": "lab_main_demo"' '"machine": {' '"rows": \[' \
             '"variant": "first call, fresh process"' '"notes": \['; do
    grep -q -- "${key}" "${TEST_TMPDIR}/out.json" || fail "JSON lacks ${key}"
  done
else
  fail "--json did not write ${TEST_TMPDIR}/out.json"
fi
grep -q "^variant  *ns per call  *page faults per call$" <<<"${out}" || fail "no table header: ${out}"
grep -q "^note: warm page faults" <<<"${out}" || fail "no note line: ${out}"
grep -q "^machine: " <<<"${out}" || fail "no machine line: ${out}"
grep -q "^wrote ${TEST_TMPDIR}/out.json$" <<<"${out}" || fail "no 'wrote' line: ${out}"

# `bazel run` changes directory: a relative path is taken from where the
# command was typed.
mkdir -p "${TEST_TMPDIR}/typed_here"
BUILD_WORKING_DIRECTORY="${TEST_TMPDIR}/typed_here" run --quick --json=rel.json
[[ ${status} -eq 0 ]] || fail "relative --json exited ${status}: ${err}"
[[ -f "${TEST_TMPDIR}/typed_here/rel.json" ]] || fail "relative --json not under BUILD_WORKING_DIRECTORY"
grep -q "^wrote ${TEST_TMPDIR}/typed_here/rel.json$" <<<"${out}" || fail "wrote line: ${out}"

run --quick --json=/nonexistent/dir/x.json
[[ ${status} -eq 1 ]] || fail "unwritable --json exited ${status}, want 1"
grep -q "/nonexistent/dir/x.json" <<<"${err}" || fail "unwritable --json: message: ${err}"
# Refused at start: nothing was measured before the refusal.
grep -q "measuring" <<<"${err}" && fail "unwritable --json was refused only after the work: ${err}"
[[ -z "${out}" ]] || fail "unwritable --json printed a table: ${out}"

# The lab's own flags are checked before any work too, with its message.
run --quick --size_kib=0
[[ ${status} -eq 1 ]] || fail "--size_kib=0 exited ${status}, want 1"
grep -q "^lab_main_demo: --size_kib=0 must be positive$" <<<"${err}" || fail "--size_kib=0: message: ${err}"
grep -q "measuring" <<<"${err}" && fail "--size_kib=0 was refused only after the work: ${err}"

finish "all lab_main command-line checks passed"
