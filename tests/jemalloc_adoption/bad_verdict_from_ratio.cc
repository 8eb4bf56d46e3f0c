// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: the verdict read off the ratio of medians, "below 1 is faster".
// Two sets of timings whose ranges overlap then give "faster" or "slower"
// for a difference the noise explains; task.h's verdict is the interval's:
// faster only when all of it lies below 1. The ratio and the interval are
// the reference's. The suite must reject it.

#include <algorithm>
#include <vector>

// The reference, with its CompareTimings() renamed out of the way (its
// Recommend() keeps calling the reference's comparison).
#define CompareTimings ReferenceCompareTimings
#include "solutions/jemalloc_adoption/task.cc"
#undef CompareTimings

namespace jemalloc_adoption {

absl::StatusOr<Comparison> CompareTimings(absl::Span<const double> candidate,
                                          absl::Span<const double> baseline,
                                          uint64_t seed) {
  absl::StatusOr<Comparison> c =
      ReferenceCompareTimings(candidate, baseline, seed);
  if (!c.ok()) return c;
  // The mistake: the point estimate decides, the interval is only shown.
  if (c->ratio < 1) {
    c->verdict = Verdict::kFaster;
  } else if (c->ratio > 1) {
    c->verdict = Verdict::kSlower;
  } else {
    c->verdict = Verdict::kNoClearDifference;
  }
  return c;
}

}  // namespace jemalloc_adoption
