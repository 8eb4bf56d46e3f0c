// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: every row counts, verified or not, "the experiment preloaded the
// allocator, so it ran". A row whose malloc was not verified may be glibc's
// own numbers under another name, and task.h disqualifies its allocator.
// The decision is the reference's. The suite must reject it.

#include <string>
#include <vector>

// The reference, with its Recommend() renamed out of the way.
#define Recommend ReferenceRecommend
#include "solutions/jemalloc_adoption/task.cc"
#undef Recommend

namespace jemalloc_adoption {

absl::StatusOr<Recommendation> Recommend(absl::Span<const Measurement> table,
                                         double budget_ratio, uint64_t seed) {
  // The mistake: the verification is dropped before the decision.
  std::vector<Measurement> trusted(table.begin(), table.end());
  for (Measurement& m : trusted) m.verified = true;
  return ReferenceRecommend(trusted, budget_ratio, seed);
}

}  // namespace jemalloc_adoption
