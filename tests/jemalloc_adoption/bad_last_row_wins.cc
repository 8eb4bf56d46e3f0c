// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: a workload listed twice for one allocator keeps its last row,
// "the later run is the fresher". Which row is the measurement is then a
// guess, and task.h promises InvalidArgument for such a table. The rest is
// the reference's. The suite must reject it.

#include <string>
#include <vector>

// The reference, with its Recommend() renamed out of the way.
#define Recommend ReferenceRecommend
#include "solutions/jemalloc_adoption/task.cc"
#undef Recommend

namespace jemalloc_adoption {

absl::StatusOr<Recommendation> Recommend(absl::Span<const Measurement> table,
                                         double budget_ratio, uint64_t seed) {
  // The mistake: a repeated (workload, allocator) replaces the earlier row.
  std::vector<Measurement> last;
  for (const Measurement& m : table) {
    bool replaced = false;
    for (Measurement& kept : last) {
      if (kept.workload == m.workload && kept.allocator == m.allocator) {
        kept = m;
        replaced = true;
      }
    }
    if (!replaced) last.push_back(m);
  }
  return ReferenceRecommend(last, budget_ratio, seed);
}

}  // namespace jemalloc_adoption
