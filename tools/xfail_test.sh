#!/usr/bin/env bash
# The check that a starter or a known-bad solution is rejected by its suite,
# for the right reason: tools/xfail.py says what "rejected" means (named
# tests fail here and pass on the reference; a crash, a pass or a failure
# the reference shares is not a rejection). lab_tests in tools/lab.bzl writes
# the arguments.
#
# Usage: xfail_test.sh XFAIL_PY --suite=BINARY [--reference=BINARY]
#                      [--only_if=PROBE] [PATTERN...]
set -u
if [[ $# -lt 2 ]]; then
  echo "usage: xfail_test.sh XFAIL_PY --suite=BINARY [...]" >&2
  exit 2
fi
script="$1"
shift
if ! command -v python3 >/dev/null; then
  echo "xfail: python3 is not on PATH (${PATH}); tools/setup.sh installs" \
    "Debian's python3" >&2
  exit 2
fi
exec python3 "${script}" "$@"
