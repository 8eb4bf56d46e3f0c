# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
#
# The phase bookkeeping of .ci/run and tools/ci/legs.sh, sourced by both:
# each phase is a command (a `bazel test`, or a script that runs some)
# whose output is echoed, then tallied: tests passed and failed, each
# failure as "phase: target STATUS", what the failures printed (at most 40
# lines a phase), the phase's seconds, and the tests that passed in over a
# third of the time their size allows, which fail the run in a phase with
# strict_timing=1 (what a learner runs) and are printed in the others.
# CI's record keeps only the tail of its output: phases_summary prints
# what broke there.
#
# Example:
#
#   source tools/ci/phases.sh
#   phases_init
#   strict_timing=1
#   run_tests bazel test //...
#   phases_summary
#   exit "${overall}"

# Sets up the tallies; reads each test's timeout from its size.
phases_init() {
  overall=0
  passed=0
  failed=0
  failures=()
  over_a_third=()
  strict_timing=0
  phase_times=()
  phases_log="$(mktemp)"
  phases_excerpts="$(mktemp)"
  declare -gA timeout_of=()
  local size_timeout target
  for size_timeout in small:60 medium:300 large:900 enormous:3600; do
    while IFS= read -r target; do
      timeout_of["${target}"]=${size_timeout#*:}
    done < <(bazel query "attr(size, ${size_timeout%%:*}, tests(//...))" 2>/dev/null)
  done
}

# Removes the files phases_init made (for an EXIT trap).
phases_cleanup() {
  rm -f "${phases_log:-}" "${phases_excerpts:-}"
}

# Records a phase that is not a run of tests: its name $1 and seconds $2.
phase_time() {
  phase_times+=("$2|$1")
}

# Tallies a finished phase: its name $1, the file $2 holding its output,
# its exit status $3 and its seconds $4.
tally() {
  local phase="$1" output="$2" status="$3" seconds="$4" line target took limit
  phase_time "${phase}" "${seconds}"
  passed=$((passed + $(grep -cE '^//.* PASSED in ' "${output}" || true)))
  while read -r target took; do
    limit=${timeout_of["${target}"]:-}
    if [[ -n "${limit}" ]] && ((${took%.*} * 3 > limit)); then
      over_a_third+=("${phase}: ${target} ${took} s of ${limit} s")
      if ((strict_timing)); then
        failures+=("${phase}: ${target} took ${took} s, over a third of its ${limit} s timeout")
        failed=$((failed + 1))
        overall=1
      fi
    fi
  done < <(sed -nE 's/^(\/\/[^ ]+) +PASSED in ([0-9.]+)s$/\1 \2/p' "${output}")
  local bad='^//.* (FAILED|TIMEOUT|NO STATUS|FAILED TO BUILD|INCOMPLETE)'
  while IFS= read -r line; do
    failures+=("${phase}: ${line}")
    failed=$((failed + 1))
  done < <(grep -E "${bad}" "${output}" | sed 's/  */ /g' || true)
  if ((status != 0)); then
    {
      echo "-- ${phase}"
      grep -E -A3 ': Failure$|^ERROR: |\[  FAILED  \]|^-- Test timed out' \
        "${output}" | head -n 40
    } >>"${phases_excerpts}" || true
    overall=1
  fi
  if ((status != 0)) && ! grep -qE "${bad}" "${output}"; then
    failures+=("${phase}: exit ${status} with no failed test named")
    failed=$((failed + 1))
  fi
}

# Runs a bazel test command (or a script that runs some), echoing its
# output, then tallies it. Its verdict goes to ${overall}; it returns 0,
# so that a `set -e` script goes on to its next phase.
run_tests() {
  local status=0 start=${SECONDS} phase="$*"
  ((${#phase} <= 72)) || phase="${phase:0:69}..."
  # A phase that names its tests (the grader's) prints the first few.
  if (($# > 8)); then
    echo "== ${*:1:8} ... ($(($# - 8)) more)"
  else
    echo "== $*"
  fi
  "$@" 2>&1 | tee "${phases_log}" || status=$?
  echo "== $((SECONDS - start)) s: ${phase}"
  tally "${phase}" "${phases_log}" "${status}" "$((SECONDS - start))"
}

# Prints what the failures printed, the slow tests, each phase's seconds
# and the verdict (title $1 over the table of phases).
phases_summary() {
  local slow row failure
  if [[ -s "${phases_excerpts}" ]]; then
    echo "== what the failures printed"
    cat "${phases_excerpts}"
  fi
  for slow in "${over_a_third[@]}"; do
    echo "over a third of its timeout: ${slow}"
  done
  echo "== phases (seconds${1:+; $1})"
  for row in "${phase_times[@]}"; do
    printf '  %6s  %s\n' "${row%%|*}" "${row#*|}"
  done
  echo "  total: ${SECONDS} s; load average now: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "${passed} passed, ${failed} failed"
  for failure in "${failures[@]}"; do
    echo "failed: ${failure}"
  done
  ((overall == 0)) || echo "failed: see the lines above, and each phase's '== N s:' line"
}
