// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "set MALLOC_MMAP_THRESHOLD_ to t, that is the
// documented knob". glibc reads it once, at start-up: setting it in the
// running process changes nothing, and the threshold stays dynamic, where
// task.h promises Fixed(t) holds t. The suite must reject it.
//
// The probe is known_bad_common's correct one; the mistake is the
// policy's. Its SetMallocPolicy() takes the place of known_bad_common's
// weak, correct one.

#include <cstddef>
#include <cstdlib>
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
    if (policy.threshold_bytes > kFixedThresholdMax) {
      return absl::InvalidArgumentError("not an int");
    }
    // The mistake: glibc reads the variable at start-up, not now.
    if (setenv("MALLOC_MMAP_THRESHOLD_",
               absl::StrCat(policy.threshold_bytes).c_str(), 1) != 0) {
      return absl::InternalError("setenv failed");
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
