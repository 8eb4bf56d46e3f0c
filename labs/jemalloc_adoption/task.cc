// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab jemalloc_adoption: the starter. It answers the way a hurried review
// does: one mean against another, and the fastest allocator wins, whatever
// memory it takes. Run `bazel run //labs/jemalloc_adoption -- --quick` and
// read its verdicts beside the table: "faster" for a difference well inside
// the noise, and a recommendation that may blow the memory budget. Then make
// `bazel test //tests/jemalloc_adoption:starter_test` pass.

#include "labs/jemalloc_adoption/task.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"

namespace jemalloc_adoption {
namespace {

double Mean(absl::Span<const double> values) {
  if (values.empty()) return std::nan("");
  return std::accumulate(values.begin(), values.end(), 0.0) /
         static_cast<double>(values.size());
}

}  // namespace

absl::StatusOr<Comparison> CompareTimings(absl::Span<const double> candidate,
                                          absl::Span<const double> baseline,
                                          uint64_t /*seed*/) {
  // TODO(you): check the inputs; compare medians; give the ratio an
  // interval, and a verdict only when the interval is clear of 1.
  Comparison c;
  c.ratio = Mean(candidate) / Mean(baseline);
  c.ci_low = c.ratio;
  c.ci_high = c.ratio;
  c.verdict = c.ratio < 1 ? Verdict::kFaster : Verdict::kSlower;
  return c;
}

absl::StatusOr<Recommendation> Recommend(absl::Span<const Measurement> table,
                                         double /*budget_ratio*/,
                                         uint64_t seed) {
  // TODO(you): apply the memory budget and skip unverified rows; demand a
  // clear difference before switching; explain the choice.
  std::map<std::string, double> log_ratio_sum;
  std::map<std::string, double> baseline_mean;
  for (const Measurement& m : table) {
    if (m.allocator == kBaseline) baseline_mean[m.workload] = Mean(m.wall_s);
  }
  for (const Measurement& m : table) {
    auto base = baseline_mean.find(m.workload);
    if (base == baseline_mean.end()) continue;
    absl::StatusOr<Comparison> c =
        CompareTimings(m.wall_s, {base->second}, seed);
    if (!c.ok()) return c.status();
    log_ratio_sum[m.allocator] += std::log(c->ratio);
  }
  Recommendation rec;
  double best = std::numeric_limits<double>::infinity();
  for (const auto& [allocator, sum] : log_ratio_sum) {
    if (sum < best) {
      best = sum;
      rec.allocator = allocator;
    }
  }
  if (rec.allocator.has_value()) {
    rec.reasons.push_back(
        absl::StrCat(*rec.allocator, ": the smallest mean time."));
  }
  return rec;
}

}  // namespace jemalloc_adoption
