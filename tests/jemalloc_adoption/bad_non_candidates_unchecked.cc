// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: sorts out the candidates first and compares only them, "why
// time an allocator that is out anyway". An allocator over the budget, with
// an unverified row or a row missing, is then never compared with glibc,
// and a row of it that CompareTimings() refuses (too few timings, a NaN)
// passes unseen; task.h's property 9 makes any such row an error: the
// table is broken, whoever's row it is. It looks right on every table whose
// rows are all good, which was every table the old suite gave it. The
// decision is the reference's. The suite must reject it.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/jemalloc_adoption/known_bad_common.h"

// The reference, with its Recommend() renamed out of the way.
#define Recommend ReferenceRecommend
#include "solutions/jemalloc_adoption/task.cc"
#undef Recommend

namespace jemalloc_adoption {

absl::StatusOr<Recommendation> Recommend(absl::Span<const Measurement> table,
                                         double budget_ratio, uint64_t seed) {
  const std::map<std::string, const Measurement*> base =
      known_bad::BaselineRows(table);
  // The non-candidates: a row missing, unverified or over the budget.
  std::set<std::string> out;
  for (const Measurement& m : table) {
    std::set<std::string> has;
    for (const Measurement& n : table) {
      if (n.allocator == m.allocator) has.insert(n.workload);
    }
    for (const auto& [workload, b] : base) {
      if (!has.count(workload)) out.insert(m.allocator);
    }
    auto b = base.find(m.workload);
    if (!m.verified ||
        (b != base.end() &&
         m.peak_rss_kib > budget_ratio * b->second->peak_rss_kib)) {
      out.insert(m.allocator);
    }
  }
  // The mistake: their rows are never compared, so never refused. Here,
  // glibc's own timings stand in where theirs would be refused.
  std::vector<Measurement> rows(table.begin(), table.end());
  for (Measurement& m : rows) {
    auto b = base.find(m.workload);
    if (m.allocator != kBaseline && out.count(m.allocator) && b != base.end() &&
        !CheckTimings(m.wall_s, "timings").ok()) {
      m.wall_s = b->second->wall_s;
    }
  }
  return ReferenceRecommend(rows, budget_ratio, seed);
}

}  // namespace jemalloc_adoption
