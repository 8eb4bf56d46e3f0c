// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: a timing that is not a positive finite number is dropped, as
// a harness drops a failed run, and the set is refused only when fewer
// than kMinRepetitions remain. On three timings with one bad, two remain
// and it refuses, as task.h asks; on five with one bad, it compares the
// four left, where task.h promises InvalidArgument for any timing that is
// not a positive finite number: a NaN in a table is a broken measurement
// to fix, not a run to forget. The interval is the reference's. The suite
// must reject it.

#include <cmath>
#include <vector>

// The reference, with its CompareTimings() renamed out of the way.
#define CompareTimings ReferenceCompareTimings
#include "solutions/jemalloc_adoption/task.cc"
#undef CompareTimings

namespace jemalloc_adoption {
namespace {

// The mistake: the bad timings leave the set without a word.
std::vector<double> Good(absl::Span<const double> timings) {
  std::vector<double> good;
  for (double t : timings) {
    if (std::isfinite(t) && t > 0) good.push_back(t);
  }
  return good;
}

}  // namespace

absl::StatusOr<Comparison> CompareTimings(absl::Span<const double> candidate,
                                          absl::Span<const double> baseline,
                                          uint64_t seed) {
  return ReferenceCompareTimings(Good(candidate), Good(baseline), seed);
}

}  // namespace jemalloc_adoption
