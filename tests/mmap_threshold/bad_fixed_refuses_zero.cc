// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: Fixed(0) is refused with InvalidArgument, "a threshold of
// nothing is a mistake". Every other threshold is handled right; but task.h
// refuses only a threshold above kFixedThresholdMax, and 0 is a policy
// glibc takes (every request maps). The suite must reject it.
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
  // The mistake: 0 is refused; the limit is right.
  if (policy.kind == MallocPolicy::Kind::kFixed &&
      policy.threshold_bytes == 0) {
    return absl::InvalidArgumentError("not a threshold mallopt() takes");
  }
  return ReferenceSetMallocPolicy(policy);
}

}  // namespace mmap_threshold
