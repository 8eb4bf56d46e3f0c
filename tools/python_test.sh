#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
# A Python check of tools/ run as a Bazel sh_test: tools/xfail.py (a starter
# or known-bad solution is rejected by its suite for the right reason) and
# tools/order_check.py (a suite's verdicts do not depend on test order).
# lab_tests in tools/lab.bzl writes the arguments.
#
# Usage: python_test.sh SCRIPT [ARG...]
set -u
if [[ $# -lt 1 ]]; then
  echo "usage: python_test.sh SCRIPT [ARG...]" >&2
  exit 2
fi
script="$1"
shift
if ! command -v python3 >/dev/null; then
  echo "$(basename "${script}"): python3 is not on PATH (${PATH});" \
    "tools/setup.sh installs Debian's python3" >&2
  exit 2
fi
exec python3 "${script}" "$@"
