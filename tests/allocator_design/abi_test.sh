#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
#
# Runs the C ABI check (abi_check.cc) with one implementation's
# libyours.so in LD_PRELOAD, as the experiment runs lab jemalloc_adoption's
# workloads on it. The check itself asserts that the library is the one
# serving malloc.
#
# Usage: abi_test.sh ABI_CHECK LIBRARY [EXPECTED_FAILURE]
# With EXPECTED_FAILURE (a known-bad library), the check must fail, and on
# a line that starts "FAIL: EXPECTED_FAILURE": the ABI check rejects it,
# for that reason.
set -uo pipefail
if [[ $# -ne 2 && $# -ne 3 ]]; then
  echo "usage: $0 ABI_CHECK LIBRARY [EXPECTED_FAILURE]" >&2
  exit 2
fi
check="$1"
library="$(realpath "$2")"
if [[ ! -f "${library}" ]]; then
  echo "abi_test: no library at $2" >&2
  exit 2
fi
output="$(LD_PRELOAD="${library}" "${check}" --expect_library="${library}")"
status=$?
echo "${output}"
if [[ $# -eq 2 ]]; then
  exit "${status}"
fi
expected="FAIL: $3"
if ((status != 1)); then
  echo "abi_test: the check exited ${status}; it must reject ${library}" \
    "(exit 1) with '${expected}'" >&2
  exit 1
fi
if ! grep -qF -- "${expected}" <<<"${output}"; then
  echo "abi_test: the check rejected ${library}, but not with" \
    "'${expected}'" >&2
  exit 1
fi
echo "abi_test: rejected as expected: ${expected}"
