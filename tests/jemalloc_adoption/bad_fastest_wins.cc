// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: among the allocators that fit the budget, the fastest wins, "the
// smallest geometric mean of the time ratios". An allocator that is no
// clearer than noise anywhere, or clearly slower on one workload and fast
// on another, then replaces glibc; task.h asks for a clear win (faster on
// one workload, slower on none) and keeps the baseline without one. Which
// allocators fit, the errors and "nothing fits" are the reference's. The
// suite must reject it.

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "tests/jemalloc_adoption/known_bad_common.h"

// The reference, with its Recommend() renamed out of the way.
#define Recommend ReferenceRecommend
#include "solutions/jemalloc_adoption/task.cc"
#undef Recommend

namespace jemalloc_adoption {

absl::StatusOr<Recommendation> Recommend(absl::Span<const Measurement> table,
                                         double budget_ratio, uint64_t seed) {
  absl::StatusOr<Recommendation> rec =
      ReferenceRecommend(table, budget_ratio, seed);
  if (!rec.ok() || !rec->allocator.has_value()) return rec;
  // The mistake: of the reference's candidates, the smallest geometric
  // mean, clear win or not.
  std::string fastest;
  double fastest_geomean = 0;
  for (const std::string& allocator : known_bad::Candidates(table, *rec)) {
    double log_sum = 0;
    int workloads = 0;
    for (const Measurement& b : table) {
      if (b.allocator != kBaseline) continue;
      for (const Measurement& m : table) {
        if (m.allocator != allocator || m.workload != b.workload) continue;
        absl::StatusOr<Comparison> c = CompareTimings(m.wall_s, b.wall_s, seed);
        if (!c.ok()) return c.status();
        log_sum += std::log(c->ratio);
        ++workloads;
      }
    }
    const double geomean = std::exp(log_sum / workloads);
    if (fastest.empty() || geomean < fastest_geomean) {
      fastest = allocator;
      fastest_geomean = geomean;
    }
  }
  std::vector<std::string> reasons = {absl::StrFormat(
      "%s: recommended; time %.2fx %s's, the fastest within the budget.",
      fastest, fastest_geomean, kBaseline)};
  for (const std::string& reason : rec->reasons) {
    if (absl::StartsWith(reason, fastest + ": ")) continue;
    if (absl::StrContains(reason, ": recommended;")) {
      reasons.push_back(absl::StrCat(*rec->allocator,
                                     ": fits the budget, but slower overall."));
      continue;
    }
    reasons.push_back(reason);
  }
  rec->allocator = fastest;
  rec->reasons = reasons;
  return rec;
}

}  // namespace jemalloc_adoption
