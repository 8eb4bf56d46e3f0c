// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: the reasons cover the candidates only, "an allocator that did
// not qualify is not worth a line". The reader is then not told why an
// allocator over the budget (or with a missing or unverified row) was left
// out, and task.h promises a reason naming every allocator not chosen. The
// decision is the reference's. The suite must reject it.

#include <string>
#include <vector>

#include "absl/strings/match.h"

// The reference, with its Recommend() renamed out of the way.
#define Recommend ReferenceRecommend
#include "solutions/jemalloc_adoption/task.cc"
#undef Recommend

namespace jemalloc_adoption {

absl::StatusOr<Recommendation> Recommend(absl::Span<const Measurement> table,
                                         double budget_ratio, uint64_t seed) {
  absl::StatusOr<Recommendation> rec =
      ReferenceRecommend(table, budget_ratio, seed);
  if (!rec.ok()) return rec;
  // The mistake: the excluded allocators' reasons are left out.
  std::vector<std::string> kept;
  for (const std::string& reason : rec->reasons) {
    if (!absl::StrContains(reason, ": not a candidate,")) {
      kept.push_back(reason);
    }
  }
  rec->reasons = kept;
  return rec;
}

}  // namespace jemalloc_adoption
