// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: the smallest geometric mean wins, and of two equal ones the
// allocator the table lists first, "the first found". Measured times are
// never exactly equal, so no generated table tells; but repeated timings
// make equal ratios, and two allocators with the same timings then win by
// their place in the table, where task.h's property 8 asks that any order
// of the same rows give the same recommendation. Here the reference (which
// breaks ties by name) is given names that sort in the table's order. The
// suite must reject it.

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"

// The reference, with its Recommend() renamed out of the way.
#define Recommend ReferenceRecommend
#include "solutions/jemalloc_adoption/task.cc"
#undef Recommend

namespace jemalloc_adoption {

absl::StatusOr<Recommendation> Recommend(absl::Span<const Measurement> table,
                                         double budget_ratio, uint64_t seed) {
  // The mistake, through the reference's tie-break: names that sort in the
  // order of the table, "\x01jemalloc" before "\x02mimalloc".
  std::map<std::string, std::string> renamed;
  std::vector<Measurement> rows(table.begin(), table.end());
  for (Measurement& m : rows) {
    if (m.allocator == kBaseline) continue;
    auto [it, added] = renamed.emplace(m.allocator, "");
    if (added) {
      it->second =
          std::string(1, static_cast<char>(renamed.size())) + m.allocator;
    }
    m.allocator = it->second;
  }
  absl::StatusOr<Recommendation> rec =
      ReferenceRecommend(rows, budget_ratio, seed);
  if (!rec.ok()) return rec;
  std::vector<std::pair<std::string, std::string>> back;
  for (const auto& [name, marked] : renamed) back.emplace_back(marked, name);
  if (rec->allocator.has_value()) {
    rec->allocator = absl::StrReplaceAll(*rec->allocator, back);
  }
  for (std::string& reason : rec->reasons) {
    reason = absl::StrReplaceAll(reason, back);
  }
  return rec;
}

}  // namespace jemalloc_adoption
