// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: the reference's decision, but each call draws its own seed for
// the comparisons "so that no one seed decides". Every verdict is a fine
// bootstrap verdict; but a verdict near the edge of its interval then flips
// from one call to the next, and with it the memo and perhaps the choice;
// task.h's property 7 is that the same table, budget and seed always give
// the same recommendation and reasons. The suite must reject it.

#include <random>

#include "labs/jemalloc_adoption/task.h"

// The reference, with its Recommend() renamed out of the way.
#define Recommend ReferenceRecommend
#include "solutions/jemalloc_adoption/task.cc"
#undef Recommend

namespace jemalloc_adoption {

absl::StatusOr<Recommendation> Recommend(absl::Span<const Measurement> table,
                                         double budget_ratio,
                                         uint64_t /*seed*/) {
  std::random_device device;
  const uint64_t drawn = (uint64_t{device()} << 32) | device();
  return ReferenceRecommend(table, budget_ratio, drawn | 1);
}

}  // namespace jemalloc_adoption
