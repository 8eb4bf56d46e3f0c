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
  // The mistake: the check of the int, not of the size asked for. An int
  // that is not negative is fixed as it is, a threshold never asked for.
  const int as_int = static_cast<int>(policy.threshold_bytes);
  if (as_int < 0) {
    return absl::InvalidArgumentError("not a threshold mallopt() takes");
  }
  return ReferenceSetMallocPolicy(
      MallocPolicy::Fixed(static_cast<size_t>(as_int)));
}

}  // namespace mmap_threshold
