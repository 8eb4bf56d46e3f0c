// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Linked into a lab's experiment and suite
// (`//common/machine:base_pages_for_process`), switches THP off for the whole
// process before main() runs, so that every fault count of the lab is a count
// of base pages, glibc's own mappings included (base_pages.h). A refusal is
// printed once and kept for BasePagesForProcessStatus(); it is not fatal: the
// kernels that refuse (before 3.15) have no multi-size THP to guard against.

#include <cstdio>

#include "absl/status/status.h"
#include "common/machine/base_pages.h"

namespace alloclab {
namespace internal {
extern absl::Status* g_base_pages_for_process;
}  // namespace internal

namespace {

const bool g_switched = [] {
  static absl::Status status = DisableThpForProcess();
  internal::g_base_pages_for_process = &status;
  if (!status.ok()) {
    std::fprintf(stderr, "warning: cannot ask for base pages: %s\n",
                 std::string(status.message()).c_str());
  }
  return status.ok();
}();

}  // namespace
}  // namespace alloclab
