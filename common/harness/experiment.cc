// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/experiment.h"

#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/harness/lab_main.h"
#include "common/harness/report.h"
#include "common/instruments/clock.h"
#include "common/instruments/faults.h"
#include "common/machine/machine.h"

namespace alloclab {

absl::Status CheckRange(absl::string_view flag, int64_t value, int64_t min,
                        int64_t max) {
  if (value >= min && value <= max) return absl::OkStatus();
  return absl::InvalidArgumentError(
      max == INT64_MAX
          ? absl::StrCat("--", flag, " must be at least ", min, ", got ", value)
          : absl::StrCat("--", flag, " must be between ", min, " and ", max,
                         ", got ", value));
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
  if (options.cpu != -1) {
    lab.results().AddNote(
        absl::StrCat("pinned to CPU ", options.cpu, " (--cpu)"));
  }
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
