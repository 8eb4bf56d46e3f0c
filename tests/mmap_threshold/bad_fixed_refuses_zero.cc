// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: Fixed(0) is refused with InvalidArgument, "a threshold of
// nothing is a mistake". Every other threshold is handled right; but task.h
// refuses only a threshold above kFixedThresholdMax, and 0 is a policy
// glibc takes (every request maps). The suite must reject it.
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
    // The mistake: 0 is refused; the limit is right.
    if (policy.threshold_bytes == 0 ||
        policy.threshold_bytes > kFixedThresholdMax) {
      return absl::InvalidArgumentError("not a threshold");
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
