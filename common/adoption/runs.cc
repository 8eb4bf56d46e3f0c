// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/adoption/runs.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/adoption/verdict.h"
#include "common/adoption/workloads.h"
#include "common/harness/child_run.h"
#include "common/harness/experiment.h"
#include "common/harness/variant_error.h"
#include "common/machine/allocator_probe.h"

namespace alloclab::adoption {

absl::StatusOr<std::string> WorkloadBinary() {
  return alloclab::FindRunfile("common/adoption/workload");
}

absl::StatusOr<std::vector<std::string>> ParseNames(
    absl::string_view flag, absl::string_view value,
    const std::function<absl::Status(absl::string_view)>& check) {
  std::vector<std::string> names =
      absl::StrSplit(value, ',', absl::SkipEmpty());
  if (names.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, " is empty: name at least one"));
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (absl::Status s = check(names[i]); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", flag, ": ", s.message()));
    }
    for (size_t j = 0; j < i; ++j) {
      if (names[j] == names[i]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--", flag, " names '", names[i], "' twice: one row each"));
      }
    }
  }
  return names;
}

absl::Status CheckRowChoice(const std::vector<std::string>& allocators,
                            const std::vector<std::string>& workloads,
                            absl::string_view tuning_workload) {
  auto has = [](const std::vector<std::string>& names, absl::string_view name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  if (!has(allocators, kBaseline)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--allocators must include ", kBaseline, ", the baseline"));
  }
  if (tuning_workload.empty()) return absl::OkStatus();
  if (absl::Status s = CheckWorkloadName(tuning_workload); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--tuning_workload: ", s.message()));
  }
  if (!has(workloads, tuning_workload) || !has(allocators, "jemalloc")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--tuning_workload=", tuning_workload, " needs '", tuning_workload,
        "' in --workloads and jemalloc in --allocators: its rows are compared "
        "with that default jemalloc row (--tuning_workload= for none)"));
  }
  return absl::OkStatus();
}

absl::Status RunOnce(AllocatorRun& s) {
  absl::StatusOr<alloclab::ChildRun> run = alloclab::RunChild(s.command);
  if (!run.ok()) return alloclab::VariantError(s.variant, run.status());
  absl::StatusOr<alloclab::MallocProvider> provider =
      alloclab::ParseProviderLine(run->stdout_text);
  if (!provider.ok())
    return alloclab::VariantError(s.variant, provider.status());
  if (s.served_by.empty()) s.served_by = provider->path;
  s.verified &= provider->allocator == s.allocator;
  double hwm = 0;
  for (absl::string_view line : absl::StrSplit(run->stdout_text, '\n')) {
    if (absl::ConsumePrefix(&line, "vm_hwm_kib: "))
      (void)absl::SimpleAtod(line, &hwm);
    if (absl::ConsumePrefix(&line, "threads: "))
      (void)absl::SimpleAtoi(line, &s.threads);
  }
  if (hwm <= 0) {  // a row with no peak would pass any memory budget
    return alloclab::VariantError(
        s.variant, absl::InternalError(absl::StrCat(
                       "the workload printed no 'vm_hwm_kib: N' line: '",
                       run->stdout_text, "'")));
  }
  s.samples.AddRun({{"wall_s", run->wall_s},
                    {"user_s", run->user_s},
                    {"sys_s", run->sys_s},
                    {"peak_rss_kib", hwm},
                    {"ru_maxrss_kib", static_cast<double>(run->peak_rss_kib)}});
  s.rss = run->rss_samples;
  std::fprintf(stderr, "  %-36s %6.2f s  %8.0f KiB  %s\n", s.variant.c_str(),
               run->wall_s, hwm, provider->allocator.c_str());
  return absl::OkStatus();
}

}  // namespace alloclab::adoption
