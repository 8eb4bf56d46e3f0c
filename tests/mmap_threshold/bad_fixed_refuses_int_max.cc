// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: Fixed(t) is refused with InvalidArgument from
// kFixedThresholdMax on (`>=`), "INT_MAX is mallopt()'s limit". Every
// threshold a test usually fixes is far below it, and one above it is
// refused as it should be; but task.h makes kFixedThresholdMax the largest
// threshold SetMallocPolicy() *can* fix (INT_MAX itself fits mallopt()'s
// int), and glibc 2.35+ takes it. The suite must reject it.
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
    // The mistake: the limit itself is refused.
    return t >= kFixedThresholdMax;
  });
}

}  // namespace mmap_threshold
