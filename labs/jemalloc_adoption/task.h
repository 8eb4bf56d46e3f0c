// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: task.h
// -----------------------------------------------------------------------------
//
// Lab jemalloc_adoption, your task: the statistics of a decision. The
// experiment runs each workload under glibc, jemalloc, tcmalloc and mimalloc,
// several times each, and measures wall time and peak resident memory. Two
// functions turn that table into a decision you could defend in a review:
//
//   1. CompareTimings(): is allocator A faster than allocator B on this
//      workload? Not "is one mean smaller": repeated timings scatter, and a
//      single slow run moves a mean. Compare the medians as a ratio
//      (A / B: 0.5 means A takes half the time), with a confidence interval
//      for that ratio, and give a verdict only when the interval is clear of
//      1.0.
//   2. Recommend(): which allocator should the project use? One worth
//      switching to that stays within a memory budget, relative to the
//      baseline (glibc): by default kMemoryBudgetRatio times its peak RSS on
//      every workload. A faster allocator that needs twice the memory is not
//      a free win, and a recommendation must say so, and say when nothing
//      fits. You design the rule; Recommend() lists the properties the
//      suite checks.
//
// `bazel test //tests/jemalloc_adoption:starter_test` checks your task.cc;
// docs/labs/jemalloc_adoption.md explains the method.
//
// Example:
//
//   // msgsend in the jemalloc thread, real seconds: after and before.
//   jemalloc_adoption::Timings jemalloc = {7.98, 7.77, 7.65};
//   jemalloc_adoption::Timings glibc = {12.50, 14.72, 12.68};
//   absl::StatusOr<jemalloc_adoption::Comparison> c =
//       jemalloc_adoption::CompareTimings(jemalloc, glibc, /*seed=*/1);
//   // c->ratio == 7.77 / 12.68; c->verdict == Verdict::kFaster when the
//   // whole interval [c->ci_low, c->ci_high] lies below 1.

#ifndef ALLOCLAB_LABS_JEMALLOC_ADOPTION_TASK_H_
#define ALLOCLAB_LABS_JEMALLOC_ADOPTION_TASK_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "common/adoption/verdict.h"

namespace jemalloc_adoption {

// The constants and types below are common/adoption/verdict.h's: the
// allocator matrix that runs this lab's experiment (and lab
// allocator_design's) speaks the same words.

// kMinRepetitions
//
// Fewer timings than this per set is an error: with one or two runs there
// is no spread to judge a difference by.
using alloclab::adoption::kMinRepetitions;

// kConfidence
//
// The confidence level of the interval: 0.95, a 95% interval.
using alloclab::adoption::kConfidence;

// kCalibratedRepetitions
//
// From this many timings in each set up, the interval keeps its level: over
// many data sets it contains the true ratio of the medians (of the
// distributions the timings come from) in at least kConfidence of them. The
// suite checks it on simulated timings whose true ratio is known. With
// fewer, no interval within the timings' range can: with 3 timings a set,
// of one shape, all three of one set lie above all three of the other 1
// time in 20 (C(6, 3) = 20 orders), each way, so such an interval covers
// at most 90% (docs/labs/jemalloc_adoption.md).
using alloclab::adoption::kCalibratedRepetitions;

// kBootstrapResamples
//
// Resamples per interval, for a bootstrap (an exact method needs none).
using alloclab::adoption::kBootstrapResamples;

// kMemoryBudgetRatio
//
// The default budget: an allocator fits when its peak RSS is at most this
// many times the baseline's, on every workload. The experiment, the tests
// and the chapter all use this one number.
using alloclab::adoption::kMemoryBudgetRatio;

// kBaseline
//
// The allocator every other is compared with: what the program uses today.
using alloclab::adoption::kBaseline;

// Timings
//
// Repeated wall times of one workload under one allocator, in seconds.
using alloclab::adoption::Timings;

// Verdict
//
// kFaster: the interval lies wholly below 1; kSlower: wholly above 1;
// kNoClearDifference: it contains 1. VerdictName() spells them "faster",
// "slower", "no clear difference".
using alloclab::adoption::Verdict;
using alloclab::adoption::VerdictName;

// Comparison
//
// `ratio`: median(candidate) / median(baseline). [`ci_low`, `ci_high`]: a
// kConfidence interval for that ratio, containing `ratio` (one that keeps
// its level from kCalibratedRepetitions timings a set); `verdict`.
using alloclab::adoption::Comparison;

// CompareTimings()
//
// Compares `candidate` with `baseline`. The interval comes from a bootstrap
// seeded with `seed` (the same inputs and seed always give the same
// interval) or from an exact method. InvalidArgument when a set has fewer
// than kMinRepetitions timings, or a timing is not a positive finite
// number.
absl::StatusOr<Comparison> CompareTimings(absl::Span<const double> candidate,
                                          absl::Span<const double> baseline,
                                          uint64_t seed);

// Measurement
//
// One row of the experiment's table: a workload under an allocator
// (`workload`, `allocator`, `wall_s`: its Timings, `peak_rss_kib`).
// `verified`: the child reported that this allocator really served malloc.
using alloclab::adoption::Measurement;

// Recommendation
//
// `allocator`: the one to use (kBaseline when switching is not worth it),
// or nullopt when no allocator fits the budget. `reasons`: one sentence
// each, for the decision memo: why the chosen one, and why each other
// allocator was not chosen (naming it).
using alloclab::adoption::Recommendation;

// Recommend()
//
// The decision from a whole table. The goal: the allocator you could defend
// in a review, one that stays within the memory budget and is worth
// switching to, or the baseline when nothing is; never a guess from noise.
// The rule is yours to design. Its words: an allocator is a *candidate*
// when it has a verified row for every workload that kBaseline has and on
// each of them its peak RSS is at most `budget_ratio` times kBaseline's
// (an unverified row's numbers may be glibc's). Its *verdicts* are those of
// CompareTimings(its wall_s, kBaseline's wall_s, `seed`), one per workload;
// a *clear win* is a candidate other than kBaseline that is faster on at
// least one workload and slower on none. The suite checks these
// properties, on many generated tables (a fixed seed) and on examples:
//
//   1. Within the budget, on the evidence: the recommendation is always a
//      candidate, never an allocator over the budget on any workload (the
//      boundary is inclusive), with an unverified row, or without a row for
//      one of kBaseline's workloads.
//   2. Says when nothing fits: nullopt exactly when there is no candidate,
//      and then the first reason says so, with the words "nothing fits".
//   3. No switch without a clear win: when kBaseline is a candidate, the
//      recommendation is kBaseline or a clear win, so never an allocator
//      clearly slower than kBaseline on some workload, and kBaseline
//      whenever nothing is a clear win.
//   4. A real win is taken: when some candidate is clearly faster than
//      kBaseline on every workload, the recommendation is not kBaseline.
//   5. Clear wins first: when kBaseline is over the budget (a budget below
//      1) and there is a clear win, the recommendation is a clear win.
//   6. Explained: a reason names the recommended allocator, and every other
//      allocator of the table is named in a reason of its own.
//   7. Deterministic: the same table, budget and seed always give the same
//      recommendation and reasons.
//   8. Invariant to row order: any order of the same rows gives the same
//      recommendation and the same reasons (in any order).
//   9. Refusals: InvalidArgument when kBaseline has no row, a workload
//      appears twice for one allocator, or CompareTimings() refuses a row
//      (the message names it: its allocator and its workload).
//
// A reason or a message "names" an allocator or a workload, or "says" the
// words above, when they appear in it as whole words, in any letter case.
//
// Which clear win, and which candidate when kBaseline itself is over the
// budget and nothing clearly wins, is your design's;
// docs/labs/jemalloc_adoption.md discusses the reference's and others.
absl::StatusOr<Recommendation> Recommend(
    absl::Span<const Measurement> table,
    double budget_ratio = kMemoryBudgetRatio, uint64_t seed = 1);

}  // namespace jemalloc_adoption

#endif  // ALLOCLAB_LABS_JEMALLOC_ADOPTION_TASK_H_
