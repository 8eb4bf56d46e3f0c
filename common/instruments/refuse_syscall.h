// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: refuse_syscall.h
// -----------------------------------------------------------------------------
//
// Makes the kernel itself refuse a system call in this process, from now on,
// with an errno of the caller's choice: a seccomp filter, as a container's
// profile would install. Tests use it to put code where a call is
// unavailable without faking anything: an older kernel that answers
// madvise(MADV_POPULATE_WRITE) with EINVAL, a sandbox that forbids ptrace or
// perf_event_open. The code under test makes its real call and gets the
// kernel's real answer.
//
// A filter cannot be removed, and is inherited by every child: install it
// only in a process made for the test (alloclab::RunInForkedChild,
// RunFreshCall, CountSyscallsInChild's function). A tracer still sees the
// refused call (ptrace stops at the entry before seccomp answers), so the
// syscall counter counts it as `strace` would.
//
// Example:
//
//   // In a forked child: madvise(..., MADV_POPULATE_WRITE) fails with
//   // EINVAL, as on Linux before 5.14; every other madvise still works.
//   absl::Status s = alloclab::RefuseSyscall(
//       {.nr = SYS_madvise, .arg = 2, .arg_value = 23, .error = EINVAL});

#ifndef ALLOCLAB_COMMON_INSTRUMENTS_REFUSE_SYSCALL_H_
#define ALLOCLAB_COMMON_INSTRUMENTS_REFUSE_SYSCALL_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"

namespace alloclab {

// Refusal
//
// Which calls to refuse: system call number `nr` (SYS_... from
// <sys/syscall.h>), only when its argument number `arg` (0-5) equals
// `arg_value` in its low 32 bits, or every call of `nr` when `arg` is unset;
// answered with -1 and errno `error`.
struct Refusal {
  long nr = -1;
  std::optional<int> arg = std::nullopt;
  uint32_t arg_value = 0;
  int error = 0;
};

// RefuseSyscall()
//
// Installs the filter (setting no_new_privs first, which needs no
// privilege). Calls of other architectures' system call tables (a 32-bit
// call on x86-64) are left alone. Errors: InvalidArgument for a refusal
// outside the ranges above; FailedPrecondition with errno's text when the
// kernel refused the filter (seccomp compiled out, or a profile that forbids
// prctl).
absl::Status RefuseSyscall(const Refusal& refusal);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_INSTRUMENTS_REFUSE_SYSCALL_H_
