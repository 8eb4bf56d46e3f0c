// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: Fixed(t) is refused with InvalidArgument from
// kFixedThresholdMax on (`>=`), "INT_MAX is mallopt()'s limit". Every
// threshold a test usually fixes is far below it, and one above it is
// refused as it should be; but task.h makes kFixedThresholdMax the largest
// threshold SetMallocPolicy() *can* fix (INT_MAX itself fits mallopt()'s
// int), and glibc 2.35+ takes it. The suite must reject it.
//
// The probe is known_bad_common's correct one; the mistake is the
// policy's. Its SetMallocPolicy() takes the place of known_bad_common's
// weak, correct one.

#include <malloc.h>

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "labs/mmap_threshold/task.h"
#include "tests/mmap_threshold/known_bad_common.h"

namespace mmap_threshold {
namespace {

bool g_fixed = false;

}  // namespace

absl::StatusOr<size_t> ProbeMmapThreshold() {
  return known_bad::CorrectProbe();
}

absl::Status SetMallocPolicy(const MallocPolicy& policy) {
  if (policy.kind == MallocPolicy::Kind::kFixed) {
    // The mistake: the limit itself is refused.
    if (policy.threshold_bytes >= kFixedThresholdMax) {
      return absl::InvalidArgumentError("not below INT_MAX");
    }
    if (mallopt(M_MMAP_THRESHOLD, static_cast<int>(policy.threshold_bytes)) !=
        1) {
      return absl::InternalError("mallopt refused");
    }
    g_fixed = true;
    return absl::OkStatus();
  }
  if (g_fixed) return absl::FailedPreconditionError("already fixed");
  if (const std::string cause = known_bad::FixedByEnvironment();
      !cause.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(cause, " is set"));
  }
  return absl::OkStatus();
}

}  // namespace mmap_threshold
