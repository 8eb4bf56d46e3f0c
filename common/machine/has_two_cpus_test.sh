#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
# //common/machine:has_two_cpus answers for the CPUs it may run on, not for the
# machine: pinned to one CPU (taskset, as a container with one CPU would be)
# it says 1 and exits 1; given every CPU it exits 0 exactly when there are
# two or more.
set -u
source tools/expect.sh
probe="$1"
failures=0


out="$(taskset -c 0 "${probe}")"
status=$?
[[ ${status} -eq 1 ]] || fail "pinned to CPU 0: exit ${status}, want 1: ${out}"
grep -qx '1 CPU in this process.s affinity mask: threads only take turns' <<<"${out}" ||
  fail "pinned to CPU 0: ${out}"

cpus="$(nproc)"
out="$("${probe}")"
status=$?
if [[ ${cpus} -ge 2 ]]; then
  [[ ${status} -eq 0 ]] || fail "${cpus} CPUs: exit ${status}, want 0: ${out}"
  grep -qx "${cpus} CPUs in this process.s affinity mask: two threads can run at once" <<<"${out}" ||
    fail "${cpus} CPUs: ${out}"
else
  [[ ${status} -eq 1 ]] || fail "one CPU: exit ${status}, want 1: ${out}"
fi

finish "has_two_cpus: one CPU and ${cpus} answered as they are"
