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
    // The mistake: the check of the int, not of the size asked for.
    return static_cast<int>(t) < 0;
  });
}

}  // namespace mmap_threshold
