// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "two timings are enough to have a spread". Below
// kMinRepetitions the bootstrap resamples so few values that its interval
// means nothing, and task.h promises InvalidArgument for fewer. The rest is
// the reference's comparison. The suite must reject it.

#include <cmath>

// The reference, with its CompareTimings() renamed out of the way (its
// Recommend() keeps calling the reference's comparison).
#define CompareTimings ReferenceCompareTimings
#include "solutions/jemalloc_adoption/task.cc"
#undef CompareTimings

namespace jemalloc_adoption {

absl::StatusOr<Comparison> CompareTimings(absl::Span<const double> candidate,
                                          absl::Span<const double> baseline,
                                          uint64_t seed) {
  // The mistake: two timings, not kMinRepetitions.
  if (candidate.size() < 2 || baseline.size() < 2) {
    return absl::InvalidArgumentError("fewer than two timings");
  }
  for (absl::Span<const double> set : {candidate, baseline}) {
    for (double t : set) {
      if (!std::isfinite(t) || t <= 0) {
        return absl::InvalidArgumentError("a timing is not positive");
      }
    }
  }
  // From here on, the reference's comparison of two checked sets.
  return CompareChecked(candidate, baseline, seed);
}

}  // namespace jemalloc_adoption
