// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "tests/jemalloc_adoption/known_bad_common.h"

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

bool Excluded(const Recommendation& rec, absl::string_view allocator) {
  const std::string excluded = absl::StrCat(allocator, ": not a candidate");
  return std::any_of(rec.reasons.begin(), rec.reasons.end(),
                     [&](const std::string& reason) {
                       return absl::StartsWith(reason, excluded);
                     });
}

std::vector<std::string> Candidates(absl::Span<const Measurement> table,
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

std::map<std::string, const Measurement*> BaselineRows(
    absl::Span<const Measurement> table) {
  std::map<std::string, const Measurement*> rows;
  for (const Measurement& m : table) {
    if (m.allocator == kBaseline) rows[m.workload] = &m;
  }
  return rows;
}

}  // namespace known_bad
}  // namespace jemalloc_adoption
