// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: subprocess.h
// -----------------------------------------------------------------------------
//
// The plumbing under every instrument that starts a process (fresh_process,
// syscalls, memory, child_run): a fork with a pipe back to the parent, reads
// and writes that survive EINTR and short transfers, a wait that says how
// the child ended, and errno as text. One copy, so that a fix (EINTR, a
// descriptor leaked into exec, a child that prints the parent's buffered
// output twice) is made once. Internal to common/: labs use the instruments.
//
// Example:
//
//   absl::StatusOr<alloclab::internal::ChildOutput> child =
//       alloclab::internal::ForkAndRead([](int fd) {
//         const char hello[] = "hi";
//         return alloclab::internal::WriteAll(fd, hello, 2).ok() ? 0 : 2;
//       });
//   // child->data == "hi"; DescribeWaitStatus(child->wait_status) says
//   // "exited with code 0"

#ifndef ALLOCLAB_COMMON_SUBPROCESS_H_
#define ALLOCLAB_COMMON_SUBPROCESS_H_

#include <sys/resource.h>
#include <sys/types.h>

#include <cstddef>
#include <string>

#include "absl/functional/function_ref.h"
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

// ChildOutput
struct ChildOutput {
  std::string data;     // what the child wrote to its pipe
  int wait_status = 0;  // see DescribeWaitStatus()
};

// ForkAndRead()
//
// Flushes stdio (or the child would print the parent's buffered output
// again), creates a close-on-exec pipe and forks. The child runs `child`
// with the pipe's write end and `_exit`s with its result; the parent reads
// the pipe to its end and waits. The child of a multi-threaded parent may
// only make async-signal-safe calls: no malloc, build everything before.
absl::StatusOr<ChildOutput> ForkAndRead(absl::FunctionRef<int(int fd)> child);

}  // namespace internal
}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_SUBPROCESS_H_
