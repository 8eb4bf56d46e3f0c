// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: glibc's workload twice is refused ("the baseline must be
// unambiguous"), but another allocator's second row for a workload replaces
// the first, "a rerun supersedes". Which of two rows is the measurement is
// then a guess about the harness, and task.h's property 9 refuses a
// workload twice "for one allocator", any allocator. The rest is the
// reference's. The suite must reject it.

#include <map>
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
  // (allocator, workload) -> the index of its last row.
  std::map<std::pair<std::string, std::string>, size_t> last;
  for (size_t i = 0; i < table.size(); ++i) {
    last[{table[i].allocator, table[i].workload}] = i;
  }
  std::vector<Measurement> rows;
  for (size_t i = 0; i < table.size(); ++i) {
    const Measurement& m = table[i];
    // The mistake: only glibc's repeats reach the reference's refusal.
    if (m.allocator != kBaseline && last[{m.allocator, m.workload}] != i) {
      continue;
    }
    rows.push_back(m);
  }
  return ReferenceRecommend(rows, budget_ratio, seed);
}

}  // namespace jemalloc_adoption
