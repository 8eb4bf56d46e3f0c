// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: Fixed(t) is refused with InvalidArgument from
// kFixedThresholdMax on (`>=`), "INT_MAX is mallopt()'s limit". Every
// threshold a test usually fixes is far below it, and one above it is
// refused as it should be; but task.h makes kFixedThresholdMax the largest
// threshold SetMallocPolicy() *can* fix (INT_MAX itself fits mallopt()'s
// int), and glibc 2.35+ takes it. The suite must reject it.
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
  // The mistake: the limit itself is refused.
  if (policy.kind == MallocPolicy::Kind::kFixed &&
      policy.threshold_bytes >= kFixedThresholdMax) {
    return absl::InvalidArgumentError("not a threshold mallopt() takes");
  }
  return ReferenceSetMallocPolicy(policy);
}

}  // namespace mmap_threshold
