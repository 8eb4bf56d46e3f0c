// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/experiment.h"

#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "common/clock.h"
#include "common/faults.h"
#include "common/fresh_process.h"
#include "common/interleave.h"
#include "common/lab_main.h"
#include "common/report.h"
#include "common/scoped_env.h"
#include "common/stats.h"

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

}  // namespace

absl::Status CheckRange(absl::string_view flag, int64_t value, int64_t min,
                        int64_t max) {
  if (value >= min && value <= max) return absl::OkStatus();
  return absl::InvalidArgumentError(
      max == INT64_MAX
          ? absl::StrCat("--", flag, " must be at least ", min, ", got ", value)
          : absl::StrCat("--", flag, " must be between ", min, " and ", max,
                         ", got ", value));
}

absl::Status VariantError(absl::string_view variant,
                          const absl::Status& status) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat("variant '", variant,
                                                  "': ", status.message()));
}

absl::StatusOr<std::vector<VariantSummary>> MeasureInterleaved(
    const std::vector<Variant>& variants, const BatchPlan& plan) {
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
  // Warm-up: the first call and the first batch are not part of the table.
  for (const Variant& variant : variants) RunBatch(variant);

  std::vector<Tally> tallies(variants.size());
  const absl::Status timed_batches =
      Interleave(plan.repetitions, static_cast<int>(variants.size()),
                 [&](const InterleavedRun& turn) -> absl::Status {
                   const Variant& variant = variants[turn.variant];
                   Tally& tally = tallies[turn.variant];
                   if (variant.prepare) variant.prepare();
                   int64_t ns = 0;
                   const auto timed = [&] {
                     ns = TimeNs([&] { variant.run(variant.calls_per_batch); });
                   };
                   if (plan.faults != nullptr) {
                     absl::StatusOr<FaultCounts> faults =
                         FaultsDuring(*plan.faults, timed);
                     if (!faults.ok())
                       return VariantError(variant.name, faults.status());
                     tally.minor_faults += faults->minor;
                   } else {
                     timed();
                   }
                   tally.ns_per_call.push_back(
                       static_cast<double>(ns) /
                       static_cast<double>(variant.calls_per_batch));
                   return absl::OkStatus();
                 });
  if (!timed_batches.ok()) return timed_batches;

  std::vector<VariantSummary> summaries;
  summaries.reserve(variants.size());
  for (size_t v = 0; v < variants.size(); ++v) {
    const Variant& variant = variants[v];
    VariantSummary summary;
    summary.name = variant.name;
    summary.ns = Summarize(tallies[v].ns_per_call);
    summary.timed_calls = variant.calls_per_batch * plan.repetitions;
    if (plan.faults != nullptr) {
      summary.page_faults_per_call =
          static_cast<double>(tallies[v].minor_faults) /
          static_cast<double>(summary.timed_calls);
    }
    if (plan.count_allocations) {
      // Its own batch: the counter's cost never reaches a timed one.
      if (variant.prepare) variant.prepare();
      const uint64_t allocations =
          plan.count_allocations([&] { variant.run(variant.calls_per_batch); });
      summary.allocs_per_call = static_cast<double>(allocations) /
                                static_cast<double>(variant.calls_per_batch);
    }
    summaries.push_back(std::move(summary));
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

void Samples::Add(absl::string_view key, double value) {
  auto it = values_.find(key);
  if (it == values_.end()) {
    it = values_.emplace(std::string(key), std::vector<double>()).first;
  }
  it->second.push_back(value);
}

void Samples::AddAll(const std::map<std::string, double>& values) {
  for (const auto& [key, value] : values) Add(key, value);
}

bool Samples::Has(absl::string_view key) const {
  return values_.find(key) != values_.end();
}

const std::vector<double>& Samples::Values(absl::string_view key) const {
  static const std::vector<double>* const kNone = new std::vector<double>();
  auto it = values_.find(key);
  return it == values_.end() ? *kNone : it->second;
}

absl::StatusOr<Summary> Samples::Summarize(absl::string_view key) const {
  auto it = values_.find(key);
  if (it == values_.end() || it->second.empty()) {
    return absl::NotFoundError(
        absl::StrCat("no run reported '", key, "' (", runs_, " runs)"));
  }
  return alloclab::Summarize(it->second);
}

std::optional<double> Samples::Median(absl::string_view key,
                                      double divisor) const {
  absl::StatusOr<Summary> summary = Summarize(key);
  if (!summary.ok()) return std::nullopt;
  return summary->median / divisor;
}

std::optional<double> Samples::Mad(absl::string_view key,
                                   double divisor) const {
  absl::StatusOr<Summary> summary = Summarize(key);
  if (!summary.ok()) return std::nullopt;
  return summary->mad / divisor;
}

absl::StatusOr<Samples> RunFreshCalls(absl::string_view variant,
                                      absl::string_view call, int processes,
                                      absl::string_view arg) {
  Samples samples;
  for (int i = 0; i < processes; ++i) {
    absl::StatusOr<FreshCallResult> result = RunFreshCall(call, arg);
    if (!result.ok()) {
      return VariantError(
          variant,
          absl::Status(result.status().code(),
                       absl::StrCat("fresh process ", i + 1, " of ", processes,
                                    ": ", result.status().message())));
    }
    samples.AddRun(result->values);
  }
  return samples;
}

std::vector<absl::StatusOr<Samples>> RunFreshInterleaved(
    const std::vector<FreshVariant>& variants, int processes) {
  std::vector<absl::StatusOr<Samples>> results(variants.size(), Samples());
  // A variant that fails keeps its error and makes no more processes; the
  // others go on, so the run always returns OK here.
  Interleave(
      processes, static_cast<int>(variants.size()),
      [&](const InterleavedRun& turn) {
        absl::StatusOr<Samples>& samples = results[turn.variant];
        if (!samples.ok()) return absl::OkStatus();
        const FreshVariant& variant = variants[turn.variant];
        // Set for this start only: the next variant's process must
        // not see it.
        std::vector<std::unique_ptr<ScopedEnv>> env;
        absl::Status status;
        for (const auto& [name, value] : variant.env) {
          env.push_back(std::make_unique<ScopedEnv>(name, value));
          if (status.ok()) status = env.back()->status();
        }
        absl::StatusOr<FreshCallResult> result =
            status.ok() ? RunFreshCall(variant.call, variant.arg)
                        : absl::StatusOr<FreshCallResult>(status);
        if (!result.ok()) {
          samples = VariantError(
              variant.name,
              absl::Status(
                  result.status().code(),
                  absl::StrCat("fresh process ", turn.repetition + 1, " of ",
                               processes, ": ", result.status().message())));
          return absl::OkStatus();
        }
        samples->AddRun(result->values);
        return absl::OkStatus();
      })
      .IgnoreError();
  return results;
}

Samples SamplesOrNote(absl::StatusOr<Samples> samples, Results& results) {
  if (samples.ok()) return *std::move(samples);
  results.AddNote(samples.status().message());
  return Samples();
}

absl::StatusOr<FreshRow> AddFreshRow(absl::string_view variant,
                                     absl::string_view label,
                                     const Samples& samples, Results& results) {
  absl::StatusOr<Summary> ns = samples.Summarize(absl::StrCat(label, "_ns"));
  if (!ns.ok()) return VariantError(variant, ns.status());
  absl::StatusOr<Summary> faults =
      samples.Summarize(absl::StrCat(label, "_minor_faults"));
  if (!faults.ok()) return VariantError(variant, faults.status());
  Row& row = results.AddRow(variant);
  row.Set("ns_per_call", ns->median)
      .Set("ns_min", ns->min)
      .Set("ns_max", ns->max)
      .Set("page_faults_per_call", faults->median)
      .Set("page_faults_min", faults->min)
      .Set("page_faults_max", faults->max);
  if (absl::StatusOr<Summary> major =
          samples.Summarize(absl::StrCat(label, "_major_faults"));
      major.ok()) {
    row.Set("major_faults_per_call", major->median);
  }
  row.Set("processes", samples.runs())
      .SetText("measured", absl::StrCat(samples.runs(), " fresh processes"));
  return FreshRow{*ns, *faults, &row};
}

bool DifferenceExceedsNoise(Estimate a, Estimate b) {
  if (a.samples == 1 || b.samples == 1) return false;  // no spread measured
  return std::fabs(a.value - b.value) > a.spread + b.spread;
}

std::string DifferenceNote(absl::string_view what, absl::string_view a_name,
                           Estimate a, absl::string_view b_name, Estimate b,
                           absl::string_view unit, int precision) {
  const double difference = a.value - b.value;
  if (a.samples == 1 || b.samples == 1) {
    return absl::StrFormat(
        "%s: %s - %s = %.*f %s from a single measurement, whose noise is "
        "unknown, so this run cannot tell it (repeat the rows: "
        "--repetitions=3 or more)",
        what, a_name, b_name, precision, difference, unit);
  }
  if (DifferenceExceedsNoise(a, b)) {
    return absl::StrFormat("%s ≈ %.*f %s here (%s - %s)", what, precision,
                           difference, unit, a_name, b_name);
  }
  return absl::StrFormat(
      "%s: %s - %s = %.*f %s is within noise (± %.*f %s and ± %.*f %s), so "
      "this run cannot tell it",
      what, a_name, b_name, precision, difference, unit, precision, a.spread,
      unit, precision, b.spread, unit);
}

std::string DifferenceNote(absl::string_view what, const VariantSummary& a,
                           const VariantSummary& b, absl::string_view unit,
                           int precision) {
  return DifferenceNote(what, a.name, EstimateOf(a.ns), b.name,
                        EstimateOf(b.ns), unit, precision);
}

namespace internal {

int RunLabWithOptions(const LabOptions& options, const LabSpec& spec,
                      LabBody body) {
  const auto refuse = [&](const absl::Status& status) {
    std::cerr << spec.lab << ": " << status.message() << std::endl;
    return 1;
  };
  if (spec.check_flags) {
    if (absl::Status s = spec.check_flags(options); !s.ok()) return refuse(s);
  }
  if (spec.instead) {
    if (std::optional<int> code = spec.instead(options)) return *code;
  }

  absl::StatusOr<FaultCounter> faults =
      FaultCounter::Create(FaultScope::kThread, spec.fault_source);
  if (!faults.ok()) {
    return refuse(absl::Status(
        faults.status().code(),
        absl::StrCat("page-fault counter: ", faults.status().message())));
  }
  // One place for the source: the machine line and the JSON's machine.
  Results results(spec.lab);
  results.SetMachine(DescribeMachine(
      /*measure_clock=*/!options.quick,
      spec.faults_from.empty() ? faults->source() : spec.faults_from));
  results.SetInstrument("timer_overhead_ns", TimerOverheadNs());

  Lab lab(options, std::move(results), *std::move(faults), spec.columns);
  if (absl::Status s = body(lab); !s.ok()) return refuse(s);
  for (const std::string& line : lab.lines_above_table()) {
    std::cout << line << "\n";
  }
  return FinishLab(lab.results(), options, lab.columns());
}

}  // namespace internal

int RunLab(int argc, char** argv, const LabSpec& spec, LabBody body) {
  // Every lab runs the same way: the line that says how is written here.
  const std::string usage =
      absl::StrContains(spec.usage, "Usage:")
          ? spec.usage
          : absl::StrCat(spec.usage, "\nUsage: bazel run //labs/", spec.lab,
                         " -- [--quick] ", spec.usage_flags,
                         spec.usage_flags.empty() ? "" : " ",
                         "[--json=out.json]");
  const LabOptions options = InitLab(argc, argv, usage);
  return internal::RunLabWithOptions(options, spec, body);
}

}  // namespace alloclab
