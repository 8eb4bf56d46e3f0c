// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: measure_interleaved.h
// -----------------------------------------------------------------------------
//
// Timing in-process variants: each variant is a function that makes a given
// number of calls, and `MeasureInterleaved()` times them in batches taken in
// turn (a0 b0 c0 a1 b1 c1 ..., through `Interleave()` of interleave.h), so
// that a machine that slows down between minutes slows every row alike. One
// untimed warm-up batch per variant comes first (the first call pays for
// page faults and lazy binding, which is another lab's question); then the
// timed rounds, each batch's page faults counted when asked; then a separate
// counting pass per variant with the allocation counter on, never timed, so
// that the counter's cost never reaches a timed number. The result is one
// `VariantSummary` per variant (median, min and MAD of ns per call,
// allocations and page faults per call), and `AddSummaryRow()` makes it a
// row of the table.
//
// Variants that are child processes, fresh processes (fresh_rows.h) or
// thread teams (thread_team.h) are timed by their own code; this file is
// for calls a lab makes in its own process.
//
// clang-format off
// Example:
//
//   const int64_t calls = lab.options().quick ? 10'000 : 100'000;
//   const std::vector<alloclab::Variant> variants = {
//       {"new", calls, [&](int64_t n) { ... }},
//       {"reuse", calls, [&](int64_t n) { ... }},
//   };
//   absl::StatusOr<std::vector<alloclab::VariantSummary>> rows =
//       alloclab::MeasureInterleaved(
//           variants, {.repetitions = lab.options().Repetitions(5, 15),
//                      .faults = &lab.faults(),
//                      .count_allocations = alloclab::CountAllocations});
//   if (!rows.ok()) return rows.status();  // names the variant
//   for (const auto& row : *rows) alloclab::AddSummaryRow(row, lab.results());
//   lab.results().AddNote(alloclab::DifferenceNote(
//       "one malloc+free", (*rows)[0], (*rows)[1], "ns"));
// clang-format on

#ifndef ALLOCLAB_COMMON_HARNESS_MEASURE_INTERLEAVED_H_
#define ALLOCLAB_COMMON_HARNESS_MEASURE_INTERLEAVED_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/harness/report.h"
#include "common/instruments/faults.h"
#include "common/stats/stats.h"

namespace alloclab {

// Variant
//
// One in-process row: `run(calls)` makes `calls` calls. `prepare()`, when
// set, runs before every batch (warm-up, timed and counting), outside the
// timed region: a fresh live set, the ids back to their first value.
struct Variant {
  std::string name = {};
  int64_t calls_per_batch = 1;
  std::function<void(int64_t calls)> run = nullptr;
  std::function<void()> prepare = nullptr;
};

// AllocationCount
//
// Runs `fn` with an allocation counter on and returns what it counted
// (counting_pass.h has `CountAllocations`, for the course's counter).
using AllocationCount = std::function<uint64_t(absl::FunctionRef<void()> fn)>;

// BatchPlan
//
// How `MeasureInterleaved()` runs the batches, and what it counts.
struct BatchPlan {
  // Timed batches per variant (at least 1).
  int repetitions = 5;
  // Counts each timed batch's page faults when set; must have been created
  // on the calling thread.
  const FaultCounter* faults = nullptr;
  // The counting pass, one more batch per variant, when set.
  AllocationCount count_allocations = nullptr;
};

// VariantSummary
//
// One variant's results: nanoseconds per call over the timed batches, and
// per-call counts. A count that was not taken is nullopt.
struct VariantSummary {
  std::string name;
  Summary ns;  // of the batches' ns per call
  std::optional<double> allocs_per_call;
  std::optional<double> page_faults_per_call;  // over all timed batches
  int64_t timed_calls = 0;
};

// MeasureInterleaved()
//
// For each variant one warm-up batch (round-robin, untimed), then
// `plan.repetitions` rounds, each timing one batch of every variant in
// order, then the counting pass of each variant. Returns the summaries in
// the order of `variants`. Errors (a fault counter that cannot be read, an
// empty variant) name the variant.
absl::StatusOr<std::vector<VariantSummary>> MeasureInterleaved(
    const std::vector<Variant>& variants, const BatchPlan& plan);

// AddSummaryRow()
//
// The row of a summary: ns_per_call (median), ns_min, ns_mad, calls, and
// allocs_per_call / page_faults_per_call when counted.
Row& AddSummaryRow(const VariantSummary& summary, Results& results,
                   int threads = 1);

// DifferenceNote()
//
// noise.h's `DifferenceNote()` on two summaries' ns per call, each named by
// its variant.
std::string DifferenceNote(absl::string_view what, const VariantSummary& a,
                           const VariantSummary& b, absl::string_view unit,
                           int precision = 1);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_HARNESS_MEASURE_INTERLEAVED_H_
