// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: compares means, with a textbook interval for their ratio (the
// delta method: the relative standard errors of both means, combined). It
// looks rigorous, but a mean is not what a timing's typical run looks like:
// one hiccup moves it, and the ratio it reports is not the ratio of
// medians the table shows. Recommend() is the reference's. The suite must
// reject it.

// The reference, with its CompareTimings() renamed out of the way (its own
// Recommend() still calls it under that name).
#define CompareTimings ReferenceCompareTimings
#include "solutions/jemalloc_adoption/task.cc"
#undef CompareTimings

namespace jemalloc_adoption {

absl::StatusOr<Comparison> CompareTimings(absl::Span<const double> candidate,
                                          absl::Span<const double> baseline,
                                          uint64_t /*seed*/) {
  if (absl::Status s = CheckTimings(candidate, "candidate"); !s.ok()) return s;
  if (absl::Status s = CheckTimings(baseline, "baseline"); !s.ok()) return s;
  auto mean_and_relative_se = [](absl::Span<const double> x) {
    double sum = 0, sum_sq = 0;
    for (double v : x) {
      sum += v;
      sum_sq += v * v;
    }
    const double n = static_cast<double>(x.size());
    const double mean = sum / n;
    const double variance = std::max(0.0, (sum_sq - n * mean * mean) / (n - 1));
    return std::pair<double, double>(mean, std::sqrt(variance / n) / mean);
  };
  const auto [mean_a, rse_a] = mean_and_relative_se(candidate);
  const auto [mean_b, rse_b] = mean_and_relative_se(baseline);
  Comparison c;
  c.ratio = mean_a / mean_b;
  const double spread = 1.96 * std::sqrt(rse_a * rse_a + rse_b * rse_b);
  c.ci_low = c.ratio * std::exp(-spread);
  c.ci_high = c.ratio * std::exp(spread);
  c.verdict = c.ci_high < 1  ? Verdict::kFaster
              : c.ci_low > 1 ? Verdict::kSlower
                             : Verdict::kNoClearDifference;
  return c;
}

}  // namespace jemalloc_adoption
