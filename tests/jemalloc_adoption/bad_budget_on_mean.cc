// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: the memory budget applied to the mean, over the workloads, of
// an allocator's peak RSS ratio to glibc's, "because one workload should not
// decide". An allocator that takes 1.5x glibc's memory on one workload and
// 0.9x on another is within a 1.25x budget on average, and is recommended;
// task.h's rule is the budget "on each of them". On the lab's own full run
// this recommends jemalloc at 1.37x on churn. CompareTimings() and the rest
// of the decision are the reference's. The suite must reject it.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tests/jemalloc_adoption/known_bad_common.h"

// The reference, with its Recommend() renamed out of the way.
#define Recommend ReferenceRecommend
#include "solutions/jemalloc_adoption/task.cc"
#undef Recommend

namespace jemalloc_adoption {

absl::StatusOr<Recommendation> Recommend(absl::Span<const Measurement> table,
                                         double budget_ratio, uint64_t seed) {
  // The mistake: every row of an allocator gets its mean ratio, so the
  // reference's per-workload budget sees only the mean.
  const std::map<std::string, const Measurement*> base =
      known_bad::BaselineRows(table);
  std::map<std::string, std::pair<double, int>> sums;  // allocator -> ratios
  for (const Measurement& m : table) {
    auto it = base.find(m.workload);
    if (it == base.end() || it->second->peak_rss_kib <= 0) continue;
    sums[m.allocator].first += m.peak_rss_kib / it->second->peak_rss_kib;
    ++sums[m.allocator].second;
  }
  std::vector<Measurement> averaged(table.begin(), table.end());
  for (Measurement& m : averaged) {
    auto b = base.find(m.workload);
    auto sum = sums.find(m.allocator);
    if (b == base.end() || sum == sums.end()) continue;
    m.peak_rss_kib =
        b->second->peak_rss_kib * sum->second.first / sum->second.second;
  }
  return ReferenceRecommend(averaged, budget_ratio, seed);
}

}  // namespace jemalloc_adoption
