#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
#
# Formatting is a check: every C and C++ source git tracks against
# .clang-format (Google style), every Python source against setup.cfg's
# [pycodestyle] section. Exits 0 when all are clean, 1 with each file and
# line that is not, 2 when a tool is missing (with the Debian package to
# install). .ci/run runs it beside buildifier.
#
# Usage: tools/checks/format_check.sh [--fix]
#   --fix  rewrite the files in place instead (clang-format -i, autopep8
#          --in-place), then check again.
set -u
cd "$(dirname "$0")/../.."

fix=0
case "${1:-}" in
  "") ;;
  --fix) fix=1 ;;
  *)
    echo "usage: tools/checks/format_check.sh [--fix]" >&2
    exit 2
    ;;
esac

need() {
  if ! command -v "$1" >/dev/null; then
    echo "format_check: $1 is not on PATH; install Debian's package $2" >&2
    exit 2
  fi
}
need clang-format clang-format
need pycodestyle pycodestyle
((fix)) && need autopep8 python3-autopep8

mapfile -t cc < <(git ls-files '*.cc' '*.h' '*.c')
mapfile -t py < <(git ls-files '*.py')

if ((fix)); then
  clang-format -i "${cc[@]}"
  autopep8 --in-place --global-config=/dev/null "${py[@]}"
fi

status=0
echo "clang-format $(clang-format --version | grep -oE '[0-9]+\.[0-9.]+' | head -1):" \
  "${#cc[@]} C and C++ files"
clang-format --dry-run --Werror "${cc[@]}" || status=1
echo "pycodestyle $(pycodestyle --version): ${#py[@]} Python files"
pycodestyle "${py[@]}" || status=1
if ((status)); then
  echo "format_check: not formatted as .clang-format and setup.cfg say;" \
    "tools/checks/format_check.sh --fix applies them" >&2
else
  echo "format_check: every file is formatted"
fi
exit "${status}"
