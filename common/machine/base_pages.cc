// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/machine/base_pages.h"

#include <errno.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/harness/internal/subprocess.h"

namespace alloclab {
namespace {

bool KernelHasThp() {
  struct stat st;
  return stat("/sys/kernel/mm/transparent_hugepage", &st) == 0;
}

}  // namespace

namespace internal {
// Set by base_pages_for_process.cc's initializer, when linked.
absl::Status* g_base_pages_for_process = nullptr;
}  // namespace internal

absl::Status AdviseBasePages(void* addr, size_t bytes) {
  if (madvise(addr, bytes, MADV_NOHUGEPAGE) == 0) return absl::OkStatus();
  const int err = errno;
  if (err == EINVAL && !KernelHasThp()) return absl::OkStatus();
  return absl::Status(absl::ErrnoToStatusCode(err),
                      absl::StrCat("madvise(MADV_NOHUGEPAGE, ", bytes,
                                   " bytes): ", internal::ErrnoText(err)));
}

absl::Status DisableThpForProcess() {
  if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) == 0) return absl::OkStatus();
  const int err = errno;
  return absl::Status(
      absl::ErrnoToStatusCode(err),
      absl::StrCat("prctl(PR_SET_THP_DISABLE): ", internal::ErrnoText(err)));
}

absl::StatusOr<bool> ThpDisabledForProcess() {
  const int r = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);
  if (r < 0) {
    const int err = errno;
    return absl::Status(
        absl::ErrnoToStatusCode(err),
        absl::StrCat("prctl(PR_GET_THP_DISABLE): ", internal::ErrnoText(err)));
  }
  return r == 1;
}

absl::Status BasePagesForProcessStatus() {
  if (internal::g_base_pages_for_process == nullptr) {
    return absl::FailedPreconditionError(
        "//common/machine:base_pages_for_process is not linked into this "
        "program");
  }
  return *internal::g_base_pages_for_process;
}

}  // namespace alloclab
