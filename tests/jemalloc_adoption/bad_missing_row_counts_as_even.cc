// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: an allocator with no row for a workload is judged as if it
// were glibc there ("no measurement, no difference"): the missing row is
// filled in with glibc's. An allocator that never ran that workload is then
// a candidate, and may be recommended for it; task.h's rule is a verified
// row "for every workload that kBaseline has". CompareTimings() and the rest
// of the decision are the reference's. The suite must reject it.

#include <set>
#include <string>
#include <utility>
#include <vector>

// The reference, with its Recommend() renamed out of the way.
#define Recommend ReferenceRecommend
#include "solutions/jemalloc_adoption/task.cc"
#undef Recommend

namespace jemalloc_adoption {

absl::StatusOr<Recommendation> Recommend(absl::Span<const Measurement> table,
                                         double budget_ratio, uint64_t seed) {
  std::set<std::pair<std::string, std::string>> present;  // allocator, workload
  std::set<std::string> allocators;
  for (const Measurement& m : table) {
    present.emplace(m.allocator, m.workload);
    allocators.insert(m.allocator);
  }
  std::vector<Measurement> filled(table.begin(), table.end());
  for (const Measurement& base : table) {
    if (base.allocator != kBaseline) continue;
    for (const std::string& allocator : allocators) {
      if (present.count({allocator, base.workload})) continue;
      Measurement copy = base;  // the mistake: glibc's row stands in
      copy.allocator = allocator;
      filled.push_back(copy);
    }
  }
  return ReferenceRecommend(filled, budget_ratio, seed);
}

}  // namespace jemalloc_adoption
