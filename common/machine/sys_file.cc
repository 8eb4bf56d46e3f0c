// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/machine/sys_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/harness/internal/subprocess.h"

namespace alloclab {
namespace internal {
namespace {

absl::Status ReadError(const std::string& path, int err) {
  return absl::Status(
      absl::ErrnoToStatusCode(err),
      absl::StrCat("cannot read ", path, ": ", internal::ErrnoText(err)));
}

}  // namespace

absl::StatusOr<std::string> ReadSysFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ReadError(path, errno);
  std::string contents;
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      close(fd);
      return ReadError(path, err);
    }
    contents.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return std::string(absl::StripAsciiWhitespace(contents));
}

}  // namespace internal
}  // namespace alloclab
