#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
#
# Runs the C ABI check (abi_check.cc) with one implementation's
# libyours.so in LD_PRELOAD, as the experiment runs lab jemalloc_adoption's
# workloads on it. The check itself asserts that the library is the one
# serving malloc.
#
# Usage: abi_test.sh ABI_CHECK LIBRARY
set -euo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: $0 ABI_CHECK LIBRARY" >&2
  exit 2
fi
check="$1"
library="$(realpath "$2")"
if [[ ! -f "${library}" ]]; then
  echo "abi_test: no library at $2" >&2
  exit 2
fi
LD_PRELOAD="${library}" "${check}" --expect_library="${library}"
