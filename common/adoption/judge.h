// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: judge.h
// -----------------------------------------------------------------------------
//
// The course's judge of an allocator decision: lab jemalloc_adoption's
// reference CompareTimings() and Recommend(), the rule lab allocator_design
// is judged by ("does lab 7's rule recommend your allocator?"). Its one
// source is rule.inc, which lab jemalloc_adoption's reference
// (solutions/jemalloc_adoption/task.cc) compiles too: lab 7's answer and
// lab 8's judge cannot drift apart, and lab 8 reaches no package of lab 7.
// Each function keeps the promises of labs/jemalloc_adoption/task.h, whose
// words (verdict.h) it takes and gives.
//
// Example:
//
//   alloclab::adoption::MatrixSpec spec;
//   spec.compare = alloclab::adoption::CompareTimings;
//   spec.recommend = alloclab::adoption::Recommend;
//   absl::StatusOr<alloclab::adoption::Recommendation> duel =
//       alloclab::adoption::Recommend(rows, kMemoryBudgetRatio, /*seed=*/1);

#ifndef ALLOCLAB_COMMON_ADOPTION_JUDGE_H_
#define ALLOCLAB_COMMON_ADOPTION_JUDGE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/adoption/verdict.h"

namespace alloclab::adoption {

// CompareTimings()
//
// `candidate` against `baseline`: the ratio of medians, a percentile
// bootstrap interval of kConfidence seeded with `seed`, and the interval's
// verdict. InvalidArgument when a set has fewer than kMinRepetitions
// timings, or a timing is not a positive finite number.
absl::StatusOr<Comparison> CompareTimings(absl::Span<const double> candidate,
                                          absl::Span<const double> baseline,
                                          uint64_t seed);

// Recommend()
//
// The decision from a whole table: within `budget_ratio` of kBaseline's
// peak RSS on every workload, on verified rows, then the fastest clear win
// (or kBaseline without one); nullopt, "nothing fits", without a
// candidate. Every allocator of the table is named in a reason.
// InvalidArgument for a table without kBaseline, a workload twice for one
// allocator, or a row CompareTimings() refuses.
absl::StatusOr<Recommendation> Recommend(
    absl::Span<const Measurement> table,
    double budget_ratio = kMemoryBudgetRatio, uint64_t seed = 1);

}  // namespace alloclab::adoption

#endif  // ALLOCLAB_COMMON_ADOPTION_JUDGE_H_
