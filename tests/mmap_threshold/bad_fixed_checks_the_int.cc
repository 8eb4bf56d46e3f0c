// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: Fixed(t)'s range check casts first ("mallopt() takes an int:
// check the int"), so a threshold above kFixedThresholdMax is refused only
// where its low 32 bits make a negative int. kFixedThresholdMax + 1 is
// refused as it should be; but 4 GiB + 128 KiB becomes 128 KiB, and the
// policy fixes a threshold the caller never asked for. task.h: any
// threshold above kFixedThresholdMax is InvalidArgument. The suite must
// reject it.
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
    // The mistake: the check of the int, not of the size asked for.
    if (static_cast<int>(policy.threshold_bytes) < 0) {
      return absl::InvalidArgumentError("does not fit mallopt()'s int");
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
