#!/usr/bin/env bash
# The experiment refuses what it cannot measure, before any run, with a
# message that says what to do: an allocator it does not know, a set of
# allocators without the baseline, too few repetitions for a comparison, an
# unknown workload.
#
# Usage: bad_flags_test.sh EXPERIMENT
set -u
experiment="$1"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0

# expect_refusal WANTED_TEXT FLAG...
expect_refusal() {
  local wanted="$1"
  shift
  "${experiment}" --quick "$@" >"${tmp}/out" 2>&1
  local status=$?
  if [[ ${status} -eq 0 || ${status} -ge 128 ]] || ! grep -qF -- "${wanted}" "${tmp}/out"; then
    echo "FAIL: $* gave exit ${status}; want 1..127 and '${wanted}' in:" >&2
    cat "${tmp}/out" >&2
    failures=$((failures + 1))
  else
    echo "ok: $* refused: $(grep -F -- "${wanted}" "${tmp}/out" | head -n 1)"
  fi
}

expect_refusal "unknown allocator 'hoard'" --allocators=glibc,hoard
expect_refusal "must include glibc" --allocators=jemalloc,tcmalloc
expect_refusal "needs at least 3" --repetitions=2
expect_refusal "unknown workload 'mandelbrot'" --workloads=treemap,mandelbrot
exit $((failures > 0))
