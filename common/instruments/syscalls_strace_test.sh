#!/usr/bin/env bash
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
# Counts the fixture's memory system calls twice, with `strace -c -f` and
# with count_syscalls (common/instruments/syscalls.h), and fails unless they agree on
# every one. The two tracers run one after the other: a process can have only
# one tracer, so neither can run inside the other.
#
# usage: syscalls_strace_test.sh FIXTURE COUNT_SYSCALLS
set -u
fixture="$1"
count_syscalls="$2"
names=(mmap munmap brk madvise mremap)

if ! command -v strace >/dev/null 2>&1; then
  echo "strace not installed: run tools/setup.sh" >&2
  exit 1
fi

tmp="${TEST_TMPDIR:-$(mktemp -d)}"
status=0
for count in 0 3; do
  if ! strace -c -f -e "trace=$(IFS=,; echo "${names[*]}")" \
      -o "${tmp}/strace.txt" "${fixture}" "--count=${count}"; then
    echo "strace failed on the fixture (--count=${count}):" >&2
    cat "${tmp}/strace.txt" >&2
    exit 1
  fi
  if ! "${count_syscalls}" -- "${fixture}" "--count=${count}" \
      >"${tmp}/ours.txt"; then
    echo "count_syscalls failed on the fixture (--count=${count})" >&2
    exit 1
  fi
  for name in "${names[@]}"; do
    # strace -c: "% time  seconds  usecs/call  calls  [errors]  syscall";
    # a call that never happened has no row.
    theirs="$(awk -v n="${name}" '$NF == n { print $4 }' "${tmp}/strace.txt")"
    ours="$(awk -v n="${name}" '$1 == n { print $2 }' "${tmp}/ours.txt")"
    theirs="${theirs:-0}"
    if [[ -z "${ours}" ]]; then
      echo "count_syscalls printed no ${name} line" >&2
      exit 1
    fi
    if [[ "${theirs}" != "${ours}" ]]; then
      echo "--count=${count} ${name}: strace counted ${theirs}," \
        "count_syscalls ${ours}" >&2
      status=1
    else
      echo "--count=${count} ${name}: ${ours} (both)"
    fi
  done
done
if [[ ${status} -ne 0 ]]; then
  echo "strace's table:" >&2
  cat "${tmp}/strace.txt" >&2
fi
exit "${status}"
