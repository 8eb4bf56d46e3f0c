// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: a timing is refused only when it is 0 or negative. NaN compares
// false with everything and infinity is above 0, so both are taken, and a
// NaN median makes every ratio NaN; task.h promises InvalidArgument for any
// timing that is not a positive finite number. The rest is the reference's
// comparison. The suite must reject it.

// The reference, with its CompareTimings() renamed out of the way (its
// Recommend() keeps calling the reference's comparison).
#define CompareTimings ReferenceCompareTimings
#include "solutions/jemalloc_adoption/task.cc"
#undef CompareTimings

namespace jemalloc_adoption {

absl::StatusOr<Comparison> CompareTimings(absl::Span<const double> candidate,
                                          absl::Span<const double> baseline,
                                          uint64_t seed) {
  if (candidate.size() < static_cast<size_t>(kMinRepetitions) ||
      baseline.size() < static_cast<size_t>(kMinRepetitions)) {
    return absl::InvalidArgumentError("too few timings");
  }
  // The mistake: NaN and infinity pass this check.
  for (absl::Span<const double> set : {candidate, baseline}) {
    for (double t : set) {
      if (t <= 0) return absl::InvalidArgumentError("a timing is not positive");
    }
  }
  // From here on, the reference's comparison of two checked sets.
  return CompareChecked(candidate, baseline, seed);
}

}  // namespace jemalloc_adoption
