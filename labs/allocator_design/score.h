// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: score.h
// -----------------------------------------------------------------------------
//
// The capstone's score, as CMU's malloclab scores an allocator (its
// "performance index"): on each fixed trace of traces.h, utilization U
// (peak live bytes / peak bytes held, traces.h's ReplayTrace()) and
// throughput T (operations per second) against glibc's malloc timed on the
// same trace in the same run, combined as
//
//   P = kUtilizationWeight * U
//       + (1 - kUtilizationWeight) * min(1, T / T_glibc)
//
// and the total is the plain mean of P over the traces, each trace counting
// alike. U is the machine-independent part: the same trace asks for the
// same bytes in the same order, and the replay's clock stands still, so it
// is the same on every machine and every run. T / T_glibc is the
// machine-dependent part: a measurement of this machine at its load, taken
// with glibc's side by side so that the machine's speed cancels out.
//
// Why these weights: malloclab's, 0.6 and 0.4. Utilization weighs more
// because it is what the design decides, and a learner can improve it by
// reasoning alone; throughput is capped at glibc's, as malloclab caps it at
// libc's, so that speed past glibc stops paying and no design buys it with
// memory. Each trace is capped on its own (malloclab caps the throughput of
// all its traces together): a trace run faster than glibc does not hide one
// run slower.
//
// Example:
//
//   std::vector<allocator_design::TraceScore> traces;
//   traces.push_back(allocator_design::ScoreTrace(
//       "mixed", /*utilization=*/0.8,
//       allocator_design::ThroughputRatio(yours_ops_per_s, glibc_ops_per_s)));
//   allocator_design::Score total = allocator_design::TotalScore(traces);
//   // total.score: 0.6 * 0.8 + 0.4 * min(1, ratio), or nullopt and
//   // total.unavailable says why

#ifndef ALLOCLAB_LABS_ALLOCATOR_DESIGN_SCORE_H_
#define ALLOCLAB_LABS_ALLOCATOR_DESIGN_SCORE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace allocator_design {

// kUtilizationWeight
//
// w in P = w * U + (1 - w) * min(kThroughputCap, T / T_glibc): malloclab's
// 0.6 (see the file's comment for why).
inline constexpr double kUtilizationWeight = 0.6;

// kThroughputCap
//
// The most T / T_glibc counts for: as fast as glibc's malloc.
inline constexpr double kThroughputCap = 1.0;

// ThroughputRatio()
//
// Yours over glibc's operations per second on one trace, uncapped.
// Unavailable, saying which, when either was not measured (nullopt) or is
// not a positive finite number.
absl::StatusOr<double> ThroughputRatio(std::optional<double> yours_ops_per_s,
                                       std::optional<double> glibc_ops_per_s);

// TraceScore
//
// One trace's score: its parts apart, the machine-independent one always,
// the machine-dependent one when it was measured.
struct TraceScore {
  std::string trace;
  double utilization = 0;         // U, in [0, 1]
  double utilization_points = 0;  // kUtilizationWeight * U
  // T / T_glibc, uncapped, or why it is unavailable.
  absl::StatusOr<double> throughput_ratio = 0.0;
  // (1 - kUtilizationWeight) * min(kThroughputCap, T / T_glibc).
  std::optional<double> throughput_points;
  std::optional<double> score;  // the sum, when both parts are there
};

// ScoreTrace()
//
// P for one trace from its utilization and its throughput ratio (from
// ThroughputRatio()).
TraceScore ScoreTrace(std::string trace, double utilization,
                      absl::StatusOr<double> throughput_ratio);

// Score
//
// The total: each part the plain mean of the traces' (each trace counts
// alike), and their sum. `throughput_points` and `score` are nullopt when
// any trace's throughput is unavailable; `unavailable` then says which and
// why.
struct Score {
  double utilization_points = 0;
  std::optional<double> throughput_points;
  std::optional<double> score;
  std::string unavailable;
};

// TotalScore()
//
// The total over `traces` (at least one).
Score TotalScore(const std::vector<TraceScore>& traces);

}  // namespace allocator_design

#endif  // ALLOCLAB_LABS_ALLOCATOR_DESIGN_SCORE_H_
