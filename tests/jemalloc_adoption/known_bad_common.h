// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: known_bad_common.h
// -----------------------------------------------------------------------------
//
// What this lab's Recommend() known-bads read off a table and off the
// reference's recommendation, so that each bad_*.cc holds only its own
// mistake: each includes the reference with its Recommend() renamed out of
// the way (docs/adding_a_lab.md, section 5), and the ones that change the
// reference's choice need to know which allocators it left in, or glibc's
// row of each workload. The reference keeps its candidates to itself; its
// reasons say which allocators are out, in the form "<allocator>: not a
// candidate, <why>.", read here and nowhere else.
//
// Example:
//
//   // bad_something.cc: the last candidate the table lists, whatever else.
//   absl::StatusOr<Recommendation> rec =
//       ReferenceRecommend(table, budget_ratio, seed);
//   if (!rec.ok() || !rec->allocator.has_value()) return rec;
//   rec->allocator = known_bad::Candidates(table, *rec).back();

#ifndef ALLOCLAB_TESTS_JEMALLOC_ADOPTION_KNOWN_BAD_COMMON_H_
#define ALLOCLAB_TESTS_JEMALLOC_ADOPTION_KNOWN_BAD_COMMON_H_

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "labs/jemalloc_adoption/task.h"

namespace jemalloc_adoption {
namespace known_bad {

// Excluded()
//
// Whether one of `rec`'s reasons says that `allocator` is not a candidate,
// as the reference's Recommend() words it.
inline bool Excluded(const Recommendation& rec, absl::string_view allocator) {
  const std::string excluded = absl::StrCat(allocator, ": not a candidate");
  return std::any_of(rec.reasons.begin(), rec.reasons.end(),
                     [&](const std::string& reason) {
                       return absl::StartsWith(reason, excluded);
                     });
}

// Candidates()
//
// The allocators of `table` that `rec`, the reference's recommendation on
// that table, did not exclude: each once, in the order the table first
// lists them.
inline std::vector<std::string> Candidates(absl::Span<const Measurement> table,
                                           const Recommendation& rec) {
  std::vector<std::string> candidates;
  for (const Measurement& m : table) {
    if (!Excluded(rec, m.allocator) &&
        std::find(candidates.begin(), candidates.end(), m.allocator) ==
            candidates.end()) {
      candidates.push_back(m.allocator);
    }
  }
  return candidates;
}

// BaselineRows()
//
// kBaseline's row of each workload of `table`, by workload name (the last
// one where a workload is listed twice, a table the reference refuses).
inline std::map<std::string, const Measurement*> BaselineRows(
    absl::Span<const Measurement> table) {
  std::map<std::string, const Measurement*> rows;
  for (const Measurement& m : table) {
    if (m.allocator == kBaseline) rows[m.workload] = &m;
  }
  return rows;
}

}  // namespace known_bad
}  // namespace jemalloc_adoption

#endif  // ALLOCLAB_TESTS_JEMALLOC_ADOPTION_KNOWN_BAD_COMMON_H_
