// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: Fixed(t) hands t to mallopt() without checking it
// fits: above kFixedThresholdMax the int cast wraps, and glibc either
// fixes a wrong threshold or refuses it, where task.h promises
// InvalidArgument and nothing changed. The suite must reject it.
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
  return known_bad::PolicyWithRangeCheck(policy, [](size_t) {
    // The mistake: no range check; the size_t is cast to mallopt()'s int.
    return false;
  });
}

}  // namespace mmap_threshold
