// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: verdict.h
// -----------------------------------------------------------------------------
//
// The words of an allocator decision, shared by everything that makes or
// judges one: a comparison of two sets of timings (a ratio of medians, its
// interval, a verdict), a row of the allocator matrix (a workload under an
// allocator, verified or not), a recommendation with its reasons, and the
// constants they are measured by. Lab jemalloc_adoption's task.h promises
// its CompareTimings() and Recommend() in these words (and documents each
// constant for the learner); the matrix (matrix.h) runs with any pair of
// such functions, and the course's judge (judge.h) is the pair lab
// allocator_design is judged by.
//
// Example:
//
//   alloclab::adoption::Comparison c;
//   c.ratio = 7.77 / 12.68;  // median(candidate) / median(baseline)
//   c.ci_low = 0.58;
//   c.ci_high = 0.66;
//   c.verdict = alloclab::adoption::Verdict::kFaster;  // wholly below 1
//   // alloclab::adoption::VerdictName(c.verdict) == "faster"

#ifndef ALLOCLAB_COMMON_ADOPTION_VERDICT_H_
#define ALLOCLAB_COMMON_ADOPTION_VERDICT_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace alloclab::adoption {

// kMinRepetitions
//
// Fewer timings than this per set is an error: with one or two runs there
// is no spread to judge a difference by.
inline constexpr int kMinRepetitions = 3;

// kConfidence
//
// The confidence level of the interval: 0.95, a 95% interval.
inline constexpr double kConfidence = 0.95;

// kCalibratedRepetitions
//
// From this many timings in each set up, the interval keeps its level
// (labs/jemalloc_adoption/task.h says what that promises and why fewer
// cannot).
inline constexpr int kCalibratedRepetitions = 5;

// kBootstrapResamples
//
// Resamples per interval, for a bootstrap (an exact method needs none).
inline constexpr int kBootstrapResamples = 4000;

// kMemoryBudgetRatio
//
// The default budget: an allocator fits when its peak RSS is at most this
// many times the baseline's, on every workload. The experiments, the tests
// and the chapters all use this one number.
inline constexpr double kMemoryBudgetRatio = 1.25;

// kBaseline
//
// The allocator every other is compared with: what the program uses today.
inline constexpr absl::string_view kBaseline = "glibc";

// Timings
//
// Repeated wall times of one workload under one allocator, in seconds.
using Timings = std::vector<double>;

// Verdict
enum class Verdict {
  kFaster,             // the interval lies wholly below 1
  kSlower,             // the interval lies wholly above 1
  kNoClearDifference,  // the interval contains 1
};

// VerdictName()
//
// "faster", "slower", "no clear difference".
inline absl::string_view VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kFaster:
      return "faster";
    case Verdict::kSlower:
      return "slower";
    case Verdict::kNoClearDifference:
      break;
  }
  return "no clear difference";
}

// Comparison
//
// `ratio`: median(candidate) / median(baseline). [`ci_low`, `ci_high`]: a
// kConfidence interval for that ratio, containing `ratio`.
struct Comparison {
  double ratio = 0;
  double ci_low = 0;
  double ci_high = 0;
  Verdict verdict = Verdict::kNoClearDifference;
};

// Measurement
//
// One row of the matrix's table: a workload under an allocator.
// `verified`: the child reported that this allocator really served malloc.
struct Measurement {
  std::string workload;
  std::string allocator;
  Timings wall_s;
  double peak_rss_kib = 0;
  bool verified = false;
};

// Recommendation
//
// `allocator`: the one to use (kBaseline when switching is not worth it),
// or nullopt when no allocator fits the budget. `reasons`: one sentence
// each, for the decision memo: why the chosen one, and why each other
// allocator was not chosen (naming it).
struct Recommendation {
  std::optional<std::string> allocator;
  std::vector<std::string> reasons;
};

}  // namespace alloclab::adoption

#endif  // ALLOCLAB_COMMON_ADOPTION_VERDICT_H_
