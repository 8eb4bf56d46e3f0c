// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: when no allocator fits the budget, recommend glibc, "the safe
// default". glibc is over the budget too, and task.h promises no
// recommendation (nullopt) with a reason that says nothing fits. The rest
// is the reference's. The suite must reject it.

#include <string>
#include <vector>

// The reference, with its Recommend() renamed out of the way.
#define Recommend ReferenceRecommend
#include "solutions/jemalloc_adoption/task.cc"
#undef Recommend

namespace jemalloc_adoption {

absl::StatusOr<Recommendation> Recommend(absl::Span<const Measurement> table,
                                         double budget_ratio, uint64_t seed) {
  absl::StatusOr<Recommendation> rec =
      ReferenceRecommend(table, budget_ratio, seed);
  // The mistake: "nothing fits" becomes the baseline.
  if (rec.ok() && !rec->allocator.has_value()) {
    rec->allocator = std::string(kBaseline);
  }
  return rec;
}

}  // namespace jemalloc_adoption
