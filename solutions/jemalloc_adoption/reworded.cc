// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab jemalloc_adoption: a correct solution that words its memo and its
// refusals otherwise than the reference
// (//tests/jemalloc_adoption:design_reworded_test runs the whole suite on
// it). It is the reference with Recommend() wrapped:
//
//   - each reason "jemalloc: recommended; time 0.91x ..." is said the other
//     way round, its subject last and capitalised: "Recommended; time 0.91x
//     ... (Jemalloc)", and "Nothing fits: no allocator ..." becomes "No
//     allocator ... (Nothing fits)";
//   - a refusal's message starts with a capital ("Treemap under jemalloc:
//     ...") and says what it cost ("no recommendation made").
//
// The facts stay the reference's: the same allocators and workloads named,
// the same numbers, the words "nothing fits". task.h promises names and
// those words, not where they stand or their letter case; a suite that
// passes the reference and refuses this judges the reference's wording.
// CompareTimings() and every decision stay the reference's.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "labs/jemalloc_adoption/task.h"

// The reference, with its Recommend() renamed out of the way.
#define Recommend ReferenceRecommend
#include "solutions/jemalloc_adoption/task.cc"
#undef Recommend

namespace jemalloc_adoption {
namespace {

// "Jemalloc" for "jemalloc".
std::string Capitalised(absl::string_view text) {
  std::string out(text);
  if (!out.empty()) out[0] = absl::ascii_toupper(out[0]);
  return out;
}

// "<subject>: <what>." as "<What> (<Subject>)".
std::string SubjectLast(absl::string_view reason) {
  constexpr absl::string_view kColon = ": ";
  const size_t colon = reason.find(kColon);
  if (colon == absl::string_view::npos) return std::string(reason);
  absl::string_view what = reason.substr(colon + kColon.size());
  if (!what.empty() && what.back() == '.') what.remove_suffix(1);
  return absl::StrCat(Capitalised(what), " (",
                      Capitalised(reason.substr(0, colon)), ")");
}

}  // namespace

absl::StatusOr<Recommendation> Recommend(absl::Span<const Measurement> table,
                                         double budget_ratio, uint64_t seed) {
  absl::StatusOr<Recommendation> rec =
      ReferenceRecommend(table, budget_ratio, seed);
  if (!rec.ok()) {
    return absl::Status(rec.status().code(),
                        absl::StrCat(Capitalised(rec.status().message()),
                                     " (no recommendation made)"));
  }
  for (std::string& reason : rec->reasons) reason = SubjectLast(reason);
  return rec;
}

}  // namespace jemalloc_adoption
