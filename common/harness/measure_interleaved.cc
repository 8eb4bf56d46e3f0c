// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/measure_interleaved.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/harness/interleave.h"
#include "common/harness/noise.h"
#include "common/harness/report.h"
#include "common/harness/variant_error.h"
#include "common/instruments/clock.h"
#include "common/instruments/faults.h"
#include "common/stats/stats.h"

namespace alloclab {
namespace {

// What one variant gathers over the rounds.
struct Tally {
  std::vector<double> ns_per_call;
  int64_t minor_faults = 0;
};

// One batch: prepare (untimed), then `calls` calls.
void RunBatch(const Variant& variant) {
  if (variant.prepare) variant.prepare();
  variant.run(variant.calls_per_batch);
}

// CheckVariants()
//
// InvalidArgument, naming the variant, for a plan without repetitions or a
// variant that cannot make a batch.
absl::Status CheckVariants(const std::vector<Variant>& variants,
                           const BatchPlan& plan) {
  if (plan.repetitions < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "MeasureInterleaved: ", plan.repetitions, " repetitions; want >= 1"));
  }
  for (const Variant& variant : variants) {
    if (!variant.run || variant.calls_per_batch < 1) {
      return VariantError(variant.name,
                          absl::InvalidArgumentError(
                              "no run function, or fewer than 1 call per "
                              "batch"));
    }
  }
  return absl::OkStatus();
}

// TimeBatch()
//
// One timed batch of `variant` (prepared untimed), its ns per call and, when
// `faults` is set, its minor page faults added to `tally`.
absl::Status TimeBatch(const Variant& variant, const FaultCounter* faults,
                       Tally& tally) {
  if (variant.prepare) variant.prepare();
  int64_t ns = 0;
  const auto timed = [&] {
    ns = TimeNs([&] { variant.run(variant.calls_per_batch); });
  };
  if (faults != nullptr) {
    absl::StatusOr<FaultCounts> counts = FaultsDuring(*faults, timed);
    if (!counts.ok()) return VariantError(variant.name, counts.status());
    tally.minor_faults += counts->minor;
  } else {
    timed();
  }
  tally.ns_per_call.push_back(static_cast<double>(ns) /
                              static_cast<double>(variant.calls_per_batch));
  return absl::OkStatus();
}

// SummarizeVariant()
//
// The summary of `variant` from its tally, with its counting pass (one more
// batch, never timed: the counter's cost never reaches a timed one) when the
// plan counts allocations.
VariantSummary SummarizeVariant(const Variant& variant, const Tally& tally,
                                const BatchPlan& plan) {
  VariantSummary summary;
  summary.name = variant.name;
  summary.ns = Summarize(tally.ns_per_call);
  summary.timed_calls = variant.calls_per_batch * plan.repetitions;
  if (plan.faults != nullptr) {
    summary.page_faults_per_call = static_cast<double>(tally.minor_faults) /
                                   static_cast<double>(summary.timed_calls);
  }
  if (plan.count_allocations) {
    if (variant.prepare) variant.prepare();
    const uint64_t allocations =
        plan.count_allocations([&] { variant.run(variant.calls_per_batch); });
    summary.allocs_per_call = static_cast<double>(allocations) /
                              static_cast<double>(variant.calls_per_batch);
  }
  return summary;
}

}  // namespace

absl::StatusOr<std::vector<VariantSummary>> MeasureInterleaved(
    const std::vector<Variant>& variants, const BatchPlan& plan) {
  if (absl::Status s = CheckVariants(variants, plan); !s.ok()) return s;
  // Warm-up: the first call and the first batch are not part of the table.
  for (const Variant& variant : variants) RunBatch(variant);

  std::vector<Tally> tallies(variants.size());
  const absl::Status timed_batches =
      Interleave(plan.repetitions, static_cast<int>(variants.size()),
                 [&](const InterleavedRun& turn) {
                   return TimeBatch(variants[turn.variant], plan.faults,
                                    tallies[turn.variant]);
                 });
  if (!timed_batches.ok()) return timed_batches;

  std::vector<VariantSummary> summaries;
  summaries.reserve(variants.size());
  for (size_t v = 0; v < variants.size(); ++v) {
    summaries.push_back(SummarizeVariant(variants[v], tallies[v], plan));
  }
  return summaries;
}

Row& AddSummaryRow(const VariantSummary& summary, Results& results,
                   int threads) {
  Row& row = results.AddRow(summary.name, threads);
  row.Set("ns_per_call", summary.ns.median)
      .Set("ns_min", summary.ns.min)
      .Set("ns_mad", summary.ns.mad);
  if (summary.allocs_per_call.has_value()) {
    row.Set("allocs_per_call", summary.allocs_per_call);
  }
  if (summary.page_faults_per_call.has_value()) {
    row.Set("page_faults_per_call", summary.page_faults_per_call);
  }
  row.Set("calls", static_cast<double>(summary.timed_calls));
  return row;
}

std::string DifferenceNote(absl::string_view what, const VariantSummary& a,
                           const VariantSummary& b, absl::string_view unit,
                           int precision) {
  return DifferenceNote(what, a.name, EstimateOf(a.ns), b.name,
                        EstimateOf(b.ns), unit, precision);
}

}  // namespace alloclab
