// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: Dynamic() where the environment fixed the threshold is
// refused with FailedPrecondition "the environment has fixed the mmap
// threshold": the right code, for all eight settings, and a message that
// explains; but it does not say which setting, so the user cannot find
// what to unset. task.h promises "The message names the cause". The suite
// must reject it.
//
// The probe is known_bad_common's correct one; the mistake is the
// policy's message. Its SetMallocPolicy() takes the place of
// known_bad_common's weak, correct one.

#include <malloc.h>

#include <cstddef>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
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
  if (!known_bad::FixedByEnvironment().empty()) {
    // The mistake: the setting found is not named.
    return absl::FailedPreconditionError(
        "the environment has fixed the mmap threshold");
  }
  return absl::OkStatus();
}

}  // namespace mmap_threshold
