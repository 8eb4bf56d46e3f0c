// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: each workload's comparison gets a seed of its own, `seed` plus
// the workload's index in name order, "so that the workloads' bootstraps
// are independent draws, not the same resampling pattern again". It is
// deterministic and blind to the rows' order, and the first workload keeps
// `seed`; but task.h's verdicts are those of CompareTimings(its wall_s,
// kBaseline's wall_s, `seed`), and a verdict whose interval ends near 1
// differs with the seed, and with it the recommendation. The decision is
// the reference's. The suite must reject it.

#include <map>

#include "labs/jemalloc_adoption/task.h"
#include "tests/jemalloc_adoption/known_bad_common.h"

namespace jemalloc_adoption {
namespace {

// glibc's timings of each workload (where the reference's Recommend() finds
// them, in the table) -> the workload's index in name order.
thread_local std::map<const Timings*, uint64_t> workload_index;

}  // namespace

// Declared before the reference, so that its Recommend() calls this one: an
// exact match for the rows' vectors, where task.h's takes spans.
absl::StatusOr<Comparison> CompareTimings(const Timings& candidate,
                                          const Timings& baseline,
                                          uint64_t seed) {
  auto it = workload_index.find(&baseline);
  // The mistake: another seed for every workload but the first.
  const uint64_t salt = it == workload_index.end() ? 0 : it->second;
  return CompareTimings(absl::MakeConstSpan(candidate),
                        absl::MakeConstSpan(baseline), seed + salt);
}

}  // namespace jemalloc_adoption

// The reference, with its Recommend() renamed out of the way.
#define Recommend ReferenceRecommend
#include "solutions/jemalloc_adoption/task.cc"
#undef Recommend

namespace jemalloc_adoption {

absl::StatusOr<Recommendation> Recommend(absl::Span<const Measurement> table,
                                         double budget_ratio, uint64_t seed) {
  workload_index.clear();
  uint64_t index = 0;  // glibc's rows by workload name: in name order
  for (const auto& [workload, row] : known_bad::BaselineRows(table)) {
    workload_index[&row->wall_s] = index++;
  }
  absl::StatusOr<Recommendation> rec =
      ReferenceRecommend(table, budget_ratio, seed);
  workload_index.clear();
  return rec;
}

}  // namespace jemalloc_adoption
