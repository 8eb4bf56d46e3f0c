// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/internal/subprocess.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace alloclab {
namespace internal {

std::string ErrnoText(int error) {
  char buffer[256];
  // The GNU strerror_r: returns the message, which may not be `buffer`.
  return strerror_r(error, buffer, sizeof(buffer));
}

absl::Status WriteAll(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      return absl::InternalError(absl::StrCat("write: ", ErrnoText(error)));
    }
    p += n;
    size -= static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadAll(int fd) {
  std::string data;
  char buffer[4096];
  while (true) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      return absl::InternalError(absl::StrCat("read: ", ErrnoText(error)));
    }
    if (n == 0) return data;
    data.append(buffer, static_cast<size_t>(n));
  }
}

absl::StatusOr<int> WaitForPid(pid_t pid, struct rusage* usage) {
  int wait_status = 0;
  while (wait4(pid, &wait_status, 0, usage) < 0) {
    if (errno == EINTR) continue;
    const int error = errno;
    if (error == ECHILD) {
      return absl::InvalidArgumentError(absl::StrCat(
          "wait4(", pid,
          "): not a child of this process, or already waited for"));
    }
    return absl::InternalError(
        absl::StrCat("wait4(", pid, "): ", ErrnoText(error)));
  }
  return wait_status;
}

std::string DescribeExit(int exit_code, int term_signal) {
  if (term_signal != 0) {
    const char* name = strsignal(term_signal);
    return absl::StrCat("was killed by signal ", term_signal, " (",
                        name != nullptr ? name : "unknown signal", ")");
  }
  return absl::StrCat("exited with code ", exit_code);
}

std::string DescribeWaitStatus(int wait_status) {
  if (WIFEXITED(wait_status)) return DescribeExit(WEXITSTATUS(wait_status), 0);
  if (WIFSIGNALED(wait_status)) return DescribeExit(0, WTERMSIG(wait_status));
  if (WIFSTOPPED(wait_status)) {
    return absl::StrCat("stopped by signal ", WSTOPSIG(wait_status));
  }
  return absl::StrCat("ended with wait status ", wait_status);
}

bool ExitedCleanly(int wait_status) {
  return WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0;
}

}  // namespace internal
}  // namespace alloclab
