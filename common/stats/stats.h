// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: stats.h
// -----------------------------------------------------------------------------
//
// Robust summaries of repeated measurements. Timings on a shared machine have
// a floor and a long tail, so the course reports the median, the minimum and
// the spread (median absolute deviation and the 10th/90th percentiles), never
// the mean alone.
//
// Example:
//
//   std::vector<double> ns = {51.6, 50.9, 88.0, 51.2};
//   alloclab::Summary s = alloclab::Summarize(ns);
//   // s.median == 51.4, s.min == 50.9, s.mad == 0.35

#ifndef ALLOCLAB_COMMON_STATS_STATS_H_
#define ALLOCLAB_COMMON_STATS_STATS_H_

#include <cstddef>

#include "absl/types/span.h"

namespace alloclab {

// Summary
//
// The order statistics of a sample. All fields are NaN when `n == 0`.
struct Summary {
  size_t n = 0;
  double median = 0;
  double min = 0;
  double max = 0;
  double mad = 0;  // median absolute deviation from the median
  double p10 = 0;  // percentiles by linear interpolation between ranks
  double p90 = 0;
};

// Summarize()
//
// Summarizes `samples` (any order; not modified).
Summary Summarize(absl::Span<const double> samples);

// Percentile()
//
// The `q`-th percentile (0 <= q <= 100) of `samples`, interpolating linearly
// between the two nearest ranks. NaN for an empty sample.
double Percentile(absl::Span<const double> samples, double q);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_STATS_STATS_H_
