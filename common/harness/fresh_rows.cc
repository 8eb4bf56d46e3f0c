// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/fresh_rows.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/harness/fresh_process.h"
#include "common/harness/interleave.h"
#include "common/harness/report.h"
#include "common/harness/samples.h"
#include "common/harness/variant_error.h"
#include "common/stats/stats.h"
#include "common/testing/scoped_env.h"

namespace alloclab {
namespace {

// ProcessError()
//
// The error of a fresh process, naming the variant and which process of how
// many failed.
absl::Status ProcessError(absl::string_view variant, int process, int processes,
                          const absl::Status& status) {
  return VariantError(
      variant, absl::Status(status.code(),
                            absl::StrCat("fresh process ", process, " of ",
                                         processes, ": ", status.message())));
}

// RunWithEnv()
//
// One fresh process of `variant` with its environment set for this start
// only: the next variant's process must not see it.
absl::StatusOr<FreshCallResult> RunWithEnv(const FreshVariant& variant) {
  std::vector<std::unique_ptr<ScopedEnv>> env;
  absl::Status status;
  for (const auto& [name, value] : variant.env) {
    env.push_back(std::make_unique<ScopedEnv>(name, value));
    if (status.ok()) status = env.back()->status();
  }
  if (!status.ok()) return status;
  return RunFreshCall(variant.call, variant.arg);
}

}  // namespace

absl::StatusOr<Samples> RunFreshCalls(absl::string_view variant,
                                      absl::string_view call, int processes,
                                      absl::string_view arg) {
  Samples samples;
  for (int i = 0; i < processes; ++i) {
    absl::StatusOr<FreshCallResult> result = RunFreshCall(call, arg);
    if (!result.ok()) {
      return ProcessError(variant, i + 1, processes, result.status());
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
  Interleave(processes, static_cast<int>(variants.size()),
             [&](const InterleavedRun& turn) {
               absl::StatusOr<Samples>& samples = results[turn.variant];
               if (!samples.ok()) return absl::OkStatus();
               const FreshVariant& variant = variants[turn.variant];
               absl::StatusOr<FreshCallResult> result = RunWithEnv(variant);
               if (!result.ok()) {
                 samples = ProcessError(variant.name, turn.repetition + 1,
                                        processes, result.status());
               } else {
                 samples->AddRun(result->values);
               }
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

}  // namespace alloclab
