// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: when glibc itself is over the budget and nothing clearly wins,
// "take the first allocator that fits": the first candidate in the table's
// order. The decision then depends on how the rows happen to be listed (the
// order the experiment ran them, or a spreadsheet's sort); task.h's
// property 8 is that any order of the same rows gives the same
// recommendation. Everything else is the reference's. The suite must
// reject it.

#include <string>

#include "absl/strings/match.h"
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
  if (!known_bad::Excluded(*rec, kBaseline)) return rec;  // glibc fits
  // Whether the one the reference chose is a clear win ("clearly faster on
  // N and slower on 0", N > 0).
  bool chosen_wins = false;
  for (const std::string& reason : rec->reasons) {
    chosen_wins |=
        absl::StartsWith(reason, *rec->allocator + ": recommended") &&
        !absl::StrContains(reason, "clearly faster on 0 ") &&
        absl::StrContains(reason, " and slower on 0,");
  }
  if (chosen_wins) return rec;
  // The mistake: no clear win, so the first candidate in the table's order.
  rec->allocator = known_bad::Candidates(table, *rec).front();
  return rec;
}

}  // namespace jemalloc_adoption
