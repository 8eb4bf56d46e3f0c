// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "faster" when the interval's upper end is at most 1,
// "slower" when its lower end is at least 1: <= where task.h's "wholly
// below 1" is <. With timings that scatter, an interval never ends at
// exactly 1.0 and the two rules agree; with repeated timings (a coarse
// clock, a steady machine) the resampled medians repeat, an interval such
// as [0.90, 1.00] does end there, and contains 1: no clear difference, not
// a clear win. The interval and the rest are the reference's. The suite
// must reject it.

#include "labs/jemalloc_adoption/task.h"

namespace jemalloc_adoption {

// Declared before the reference, so that its Recommend() calls this one (an
// exact match for the rows' vectors) and decides on the verdicts below.
absl::StatusOr<Comparison> ReferenceCompareTimings(const Timings& candidate,
                                                   const Timings& baseline,
                                                   uint64_t seed);

}  // namespace jemalloc_adoption

// The reference, with its CompareTimings() renamed out of the way.
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
  // The mistake: an interval that ends at 1 counts as clear of it.
  c->verdict = c->ci_high <= 1  ? Verdict::kFaster
               : c->ci_low >= 1 ? Verdict::kSlower
                                : Verdict::kNoClearDifference;
  return c;
}

absl::StatusOr<Comparison> ReferenceCompareTimings(const Timings& candidate,
                                                   const Timings& baseline,
                                                   uint64_t seed) {
  return CompareTimings(absl::MakeConstSpan(candidate),
                        absl::MakeConstSpan(baseline), seed);
}

}  // namespace jemalloc_adoption
