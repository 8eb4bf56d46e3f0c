// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: an unverified row disqualifies its allocator, except glibc's:
// "glibc is what runs when nothing is preloaded, so its rows are glibc's
// whatever the check says". But the check failing on glibc's row means the
// child did not report glibc's malloc serving it (a sanitizer's, a
// preloaded one's), and task.h's candidate has "a verified row for every
// workload", kBaseline included: glibc is then no candidate, and with
// nothing else fitting, nothing fits. The decision is the reference's. The
// suite must reject it.

#include <vector>

// The reference, with its Recommend() renamed out of the way.
#define Recommend ReferenceRecommend
#include "solutions/jemalloc_adoption/task.cc"
#undef Recommend

namespace jemalloc_adoption {

absl::StatusOr<Recommendation> Recommend(absl::Span<const Measurement> table,
                                         double budget_ratio, uint64_t seed) {
  std::vector<Measurement> trusted(table.begin(), table.end());
  for (Measurement& m : trusted) {
    if (m.allocator == kBaseline) m.verified = true;  // the mistake
  }
  return ReferenceRecommend(trusted, budget_ratio, seed);
}

}  // namespace jemalloc_adoption
