// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: Fixed(t) hands t to mallopt() without checking it
// fits: above kFixedThresholdMax the int cast wraps, and glibc either
// fixes a wrong threshold or refuses it, where task.h promises
// InvalidArgument and nothing changed. The suite must reject it.
//
// The probe and the rest of the policy are the reference's; the mistake is
// the range check.

#include <cstddef>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "labs/mmap_threshold/task.h"

// The reference, with its SetMallocPolicy() renamed out of the way.
#define SetMallocPolicy ReferenceSetMallocPolicy
#include "solutions/mmap_threshold/task.cc"
#undef SetMallocPolicy

namespace mmap_threshold {

absl::Status SetMallocPolicy(const MallocPolicy& policy) {
  if (policy.kind != MallocPolicy::Kind::kFixed ||
      policy.threshold_bytes <= kFixedThresholdMax) {
    return ReferenceSetMallocPolicy(policy);
  }
  // The mistake: no range check; the size_t is cast to mallopt()'s int.
  if (mallopt(M_MMAP_THRESHOLD, static_cast<int>(policy.threshold_bytes)) !=
      1) {
    return absl::InternalError("mallopt refused");
  }
  g_fixed = true;
  g_fixed_threshold = policy.threshold_bytes;
  return absl::OkStatus();
}

}  // namespace mmap_threshold
