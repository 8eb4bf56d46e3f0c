// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "a switch is a risk, so keep glibc whenever it fits". Every
// other part of the decision is the reference's: the budget, the evidence,
// and what to do when glibc itself is over the budget. But an allocator
// clearly faster than glibc on every workload is then never taken; task.h's
// property 4 is that such a real win is not passed over. The suite must
// reject it.

#include <string>

#include "absl/strings/str_cat.h"
#include "labs/jemalloc_adoption/task.h"
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
  // The mistake: glibc fits (the reference did not exclude it), so glibc it
  // is.
  if (!known_bad::Excluded(*rec, kBaseline) && *rec->allocator != kBaseline) {
    rec->reasons.insert(
        rec->reasons.begin(),
        absl::StrCat(kBaseline, ": kept; it fits, and a switch is a risk."));
    rec->allocator = std::string(kBaseline);
  }
  return rec;
}

}  // namespace jemalloc_adoption
