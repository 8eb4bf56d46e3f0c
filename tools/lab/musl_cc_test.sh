#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
# tools/lab/musl_cc.sh: a missing musl-gcc is a clear error that names Debian's
# musl-tools; with musl-gcc, a C file becomes a static executable that runs.
set -u
script="$1"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fail() {
  echo "musl_cc_test: $*" >&2
  exit 1
}

# 1. No musl-gcc on PATH (bash itself is found by its absolute path).
empty="${tmp}/empty_path"
mkdir -p "${empty}"
printf 'int main(void) { return 0; }\n' >"${tmp}/ok.c"
PATH="${empty}" /bin/bash "${script}" "${tmp}/out" "${tmp}/ok.c" >"${tmp}/missing.log" 2>&1
status=$?
cat "${tmp}/missing.log"
[[ ${status} -ne 0 ]] || fail "exit 0 without musl-gcc; want an error"
grep -q "musl-tools" "${tmp}/missing.log" || fail "the message does not name the Debian package musl-tools"
[[ ! -e "${tmp}/out" ]] || fail "an output was written without musl-gcc"
echo "ok: without musl-gcc: exit ${status}, names musl-tools"

# 2. Bad usage.
/bin/bash "${script}" "${tmp}/out" >"${tmp}/usage.log" 2>&1 && fail "no sources: exit 0"
grep -q "usage" "${tmp}/usage.log" || fail "no sources: no usage line"
echo "ok: no sources is refused"

# 3. With musl-gcc (tools/setup.sh installs it), a static program that runs.
if ! command -v musl-gcc >/dev/null; then
  fail "musl-gcc is not installed here (sudo tools/setup.sh installs musl-tools)"
fi
printf '#include <stdio.h>\nint main(void) { puts("musl ok"); return 0; }\n' >"${tmp}/hello.c"
/bin/bash "${script}" "${tmp}/hello" "${tmp}/hello.c" -- -O2 || fail "musl-gcc failed on hello.c"
[[ "$("${tmp}/hello")" == "musl ok" ]] || fail "the musl program did not print 'musl ok'"
if command -v file >/dev/null; then
  file "${tmp}/hello" | grep -q "statically linked" || fail "not static: $(file "${tmp}/hello")"
fi
echo "ok: musl-gcc builds a static program that runs"
