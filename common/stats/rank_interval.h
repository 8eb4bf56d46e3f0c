// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: rank_interval.h
// -----------------------------------------------------------------------------
//
// An exact, distribution-free interval for how many times slower one set of
// timings is than another: the Hodges-Lehmann estimate and interval of the
// shift between their logarithms. A bootstrap of medians from five timings
// each can draw only a handful of distinct medians, so its percentile
// interval is coarse and its coverage unknown. This one needs no resampling
// and no seed: take all n * m ratios candidate[i] / baseline[j]; their
// median is the estimate, and the (k+1)-th smallest to the (k+1)-th largest
// is an interval whose coverage is known exactly from the Mann-Whitney
// distribution, assuming only that the two sets differ by a factor (a shift
// of the logarithms) and that each set's runs are independent. With five
// timings each, the 3rd to the 23rd of the 25 ratios: 96.8%.
//
// Example:
//
//   std::vector<double> jemalloc = {7.98, 7.77, 7.65, 7.90, 7.70};
//   std::vector<double> glibc = {12.50, 14.72, 12.68, 12.60, 13.00};
//   absl::StatusOr<alloclab::RatioInterval> r =
//       alloclab::HodgesLehmannRatio(jemalloc, glibc);
//   // r->estimate ~0.61, [r->low, r->high] inside (0, 1), r->coverage 0.968

#ifndef ALLOCLAB_COMMON_STATS_RANK_INTERVAL_H_
#define ALLOCLAB_COMMON_STATS_RANK_INTERVAL_H_

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace alloclab {

// RatioInterval
struct RatioInterval {
  double estimate = 0;  // median of the pairwise ratios
  double low = 0;       // the interval's ends, ratios too
  double high = 0;
  double coverage = 0;  // its exact coverage, e.g. 0.968
  int rank = 0;         // `low` is the rank-th smallest ratio (1-based)
};

// HodgesLehmannRatio()
//
// The estimate and interval above for candidate / baseline, the interval
// the narrowest whose exact coverage is at least `confidence` (0 < c < 1);
// where no interval reaches it (too few timings: 3 and 3 reach 90% at
// most), the widest one, from the smallest ratio to the largest, with its
// own coverage. InvalidArgument for an empty set, a timing that is not
// positive, or `confidence` outside (0, 1).
absl::StatusOr<RatioInterval> HodgesLehmannRatio(
    absl::Span<const double> candidate, absl::Span<const double> baseline,
    double confidence = 0.95);

// MannWhitneyCdf()
//
// P(U <= u) for the Mann-Whitney statistic of samples of `n` and `m` under
// the null hypothesis, exactly (counts of the C(n + m, n) arrangements).
// 0 for u < 0. n, m >= 1.
double MannWhitneyCdf(int n, int m, int u);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_STATS_RANK_INTERVAL_H_
