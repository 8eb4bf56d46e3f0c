// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: the reference's statistics and rule, but the memory budget is
// never applied: the fastest verified allocator wins, whatever its peak RSS.
// That is how the jemalloc thread's first benchmarks read (time only), and
// why it then measured a compiler build's peak memory. The suite must
// reject it.

// The reference, with its Recommend() renamed out of the way.
#define Recommend ReferenceRecommend
#include "solutions/jemalloc_adoption/task.cc"
#undef Recommend

#include <limits>

namespace jemalloc_adoption {

absl::StatusOr<Recommendation> Recommend(absl::Span<const Measurement> table,
                                         double /*budget_ratio*/,
                                         uint64_t seed) {
  return ReferenceRecommend(table, std::numeric_limits<double>::infinity(),
                            seed);
}

}  // namespace jemalloc_adoption
