// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "Dynamic() puts glibc's default back: 128 KiB".
// Setting the threshold, even to its default, fixes it: the adjustment that
// Dynamic() promises to keep is switched off. The suite must reject it.
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
    if (policy.threshold_bytes > kFixedThresholdMax) {
      return absl::InvalidArgumentError("not an int");
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
  // The mistake: "back to the default" by setting the default, which fixes
  // the threshold there and switches the adjustment off.
  if (mallopt(M_MMAP_THRESHOLD, static_cast<int>(kDefaultMmapThreshold)) != 1) {
    return absl::InternalError("mallopt refused");
  }
  return absl::OkStatus();
}

}  // namespace mmap_threshold
