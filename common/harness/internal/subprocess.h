// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: internal/subprocess.h
// -----------------------------------------------------------------------------
//
// The plumbing under every instrument that talks to another process
// (fresh_process, syscalls, memory, child_run; the fork itself is in
// internal/launch.h): reads and writes that survive EINTR and short
// transfers, a wait that says how the child ended, and errno as text. One
// copy, so that a fix (EINTR, a short write) is made once. Internal to
// common/: labs use the instruments.
//
// Example:
//
//   absl::Status written = alloclab::internal::WriteAll(fd, "hi", 2);
//   absl::StatusOr<int> status = alloclab::internal::WaitForPid(pid);
//   // DescribeWaitStatus(*status) says "exited with code 0"

#ifndef ALLOCLAB_COMMON_HARNESS_INTERNAL_SUBPROCESS_H_
#define ALLOCLAB_COMMON_HARNESS_INTERNAL_SUBPROCESS_H_

#include <sys/resource.h>
#include <sys/types.h>

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace alloclab {
namespace internal {

// ErrnoText()
//
// strerror's message for `error` ("Permission denied"), thread-safe.
std::string ErrnoText(int error);

// WriteAll()
//
// Writes all `size` bytes, retrying after EINTR and short writes. Does not
// allocate on success, so a forked child may call it.
absl::Status WriteAll(int fd, const void* data, size_t size);

// ReadAll()
//
// Reads until end of file: every writer (a child, and anything it forked)
// has closed its end.
absl::StatusOr<std::string> ReadAll(int fd);

// WaitForPid()
//
// Waits for the child `pid` (retrying after EINTR) and returns its wait
// status; fills `usage` (wait4) when given.
absl::StatusOr<int> WaitForPid(pid_t pid, struct rusage* usage = nullptr);

// DescribeExit()
//
// How a process ended, for messages: "exited with code 3" or "was killed by
// signal 9 (Killed)" (`term_signal` != 0 wins).
std::string DescribeExit(int exit_code, int term_signal);

// DescribeWaitStatus()
//
// `DescribeExit()` of a wait status; "stopped by signal N" for a stopped
// child.
std::string DescribeWaitStatus(int wait_status);

// ExitedCleanly()
//
// Whether a wait status is a normal exit with code 0.
bool ExitedCleanly(int wait_status);

}  // namespace internal
}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_HARNESS_INTERNAL_SUBPROCESS_H_
