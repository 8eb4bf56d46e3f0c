#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
# A lab's experiment refuses what it cannot measure, before any run: each
# flag given must stop it with exit 1..127 (not 0, not a signal) and a message
# that contains the wanted text. For a lab's own flags, beyond the unknown
# flag that every experiment_test checks.
#
# Usage: refusals_test.sh EXPERIMENT [WANTED_TEXT FLAG]...
set -u
if [[ $# -lt 3 || $(($# % 2)) -ne 1 ]]; then
  echo "usage: refusals_test.sh EXPERIMENT [WANTED_TEXT FLAG]... (at least one pair)" >&2
  exit 2
fi
experiment="$1"
shift
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0

while [[ $# -gt 0 ]]; do
  wanted="$1"
  flag="$2"
  shift 2
  "${experiment}" --quick "${flag}" >"${tmp}/out" 2>&1
  status=$?
  if [[ ${status} -eq 0 || ${status} -ge 128 ]] || ! grep -qF -- "${wanted}" "${tmp}/out"; then
    echo "FAIL: ${flag} gave exit ${status}; want 1..127 and '${wanted}' in:" >&2
    cat "${tmp}/out" >&2
    failures=$((failures + 1))
  else
    echo "ok: ${flag} refused: $(grep -F -- "${wanted}" "${tmp}/out" | head -n 1)"
  fi
done
exit $((failures > 0))
