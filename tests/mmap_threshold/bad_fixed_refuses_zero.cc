// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: Fixed(0) is refused with InvalidArgument, "a threshold of
// nothing is a mistake". Every other threshold is handled right; but task.h
// refuses only a threshold above kFixedThresholdMax, and 0 is a policy
// glibc takes (every request maps). The suite must reject it.
//
// The probe and the rest of the policy are known_bad_common's correct
// ones; the mistake is the range check. Its SetMallocPolicy() takes the
// place of known_bad_common's weak, correct one.

#include <cstddef>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "labs/mmap_threshold/task.h"
#include "tests/mmap_threshold/known_bad_common.h"

namespace mmap_threshold {

absl::StatusOr<size_t> ProbeMmapThreshold() {
  return known_bad::CorrectProbe();
}

absl::Status SetMallocPolicy(const MallocPolicy& policy) {
  return known_bad::PolicyWithRangeCheck(policy, [](size_t t) {
    // The mistake: 0 is refused; the limit is right.
    return t == 0 || t > kFixedThresholdMax;
  });
}

}  // namespace mmap_threshold
