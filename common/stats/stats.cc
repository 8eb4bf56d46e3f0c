// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/stats/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace alloclab {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The percentile of an already sorted, non-empty sample: rank q/100 * (n-1),
// interpolated between its two neighbours (the "type 7" definition of
// Hyndman and Fan, the default of R and NumPy), so that p0 is the minimum,
// p100 the maximum and p50 the usual median.
double SortedPercentile(const std::vector<double>& sorted, double q) {
  const double rank = q / 100.0 * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(rank));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = rank - static_cast<double>(lo);
  return sorted[lo] + frac * (sorted[hi] - sorted[lo]);
}

}  // namespace

double Percentile(absl::Span<const double> samples, double q) {
  // `!(q >= 0)` also rejects a NaN `q`.
  if (samples.empty() || !(q >= 0) || q > 100) return kNaN;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  return SortedPercentile(sorted, q);
}

Summary Summarize(absl::Span<const double> samples) {
  Summary s;
  s.n = samples.size();
  if (samples.empty()) {
    s.median = s.min = s.max = s.mad = s.p10 = s.p90 = kNaN;
    return s;
  }
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = SortedPercentile(sorted, 50);
  s.p10 = SortedPercentile(sorted, 10);
  s.p90 = SortedPercentile(sorted, 90);

  std::vector<double> deviations;
  deviations.reserve(sorted.size());
  for (double x : sorted) deviations.push_back(std::fabs(x - s.median));
  std::sort(deviations.begin(), deviations.end());
  s.mad = SortedPercentile(deviations, 50);
  return s;
}

}  // namespace alloclab
