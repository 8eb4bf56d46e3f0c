// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The smallest experiment built the way every lab's is
// (common/harness/experiment.h): a first call in a fresh process next to the
// same call warmed up. The command-line test of lab_main and the harness runs
// it.

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/harness/experiment.h"
#include "common/harness/fresh_process.h"
#include "common/harness/fresh_rows.h"
#include "common/harness/lab_main.h"
#include "common/harness/report.h"
#include "common/harness/samples.h"
#include "common/instruments/clock.h"

ABSL_FLAG(int, size_kib, 256, "size of the buffer each call touches, KiB");

namespace {

volatile char sink;

// A buffer of `kib` KiB, every page written once.
void TouchBuffer(int64_t kib) {
  const size_t bytes = static_cast<size_t>(kib) << 10;
  std::unique_ptr<char[]> buffer(new char[bytes]);
  for (size_t i = 0; i < bytes; i += 4096) {
    static_cast<volatile char*>(buffer.get())[i] = 1;
  }
  sink = buffer[0];
}

void FirstTouch(alloclab::FreshCall& call) {
  int64_t kib = 0;
  if (!absl::SimpleAtoi(call.arg(), &kib) || kib <= 0) {
    call.Fail(
        absl::StrCat("size '", call.arg(), "' is not a positive KiB count"));
    return;
  }
  call.Measure("first", [&] { TouchBuffer(kib); });
}
ALLOCLAB_FRESH_CALL("demo_first_touch", FirstTouch);

absl::Status Experiment(alloclab::Lab& lab) {
  const int kib = absl::GetFlag(FLAGS_size_kib);
  // What the command-line test looks for: no work before the flags pass.
  std::cerr << "measuring" << std::endl;
  absl::StatusOr<alloclab::Samples> fresh = alloclab::RunFreshCalls(
      "first call, fresh process", "demo_first_touch", 1, absl::StrCat(kib));
  if (!fresh.ok()) return fresh.status();
  absl::StatusOr<alloclab::FreshRow> first = alloclab::AddFreshRow(
      "first call, fresh process", "first", *fresh, lab.results());
  if (!first.ok()) return first.status();

  // The fastest of the warm runs: what a benchmark that warms up reports.
  const int repetitions = lab.options().Repetitions(3, 20);
  int64_t best = INT64_MAX;
  for (int i = 0; i < repetitions; ++i) {
    best = std::min(best, alloclab::TimeNs([&] { TouchBuffer(kib); }));
  }
  lab.results()
      .AddRow("warm call")
      .Set("ns_per_call", static_cast<double>(best))
      .Set("page_faults_per_call", std::nullopt);
  lab.results().AddNote("warm page faults are not counted in this demo");
  return absl::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  return alloclab::RunLab(
      argc, argv,
      {.lab = "lab_main_demo",
       .usage = "lab_main_demo: one buffer touched in a fresh process, then "
                "warm.",
       .columns = {{"ns_per_call", "ns per call", 1},
                   {"page_faults_per_call", "page faults per call", 1}},
       .check_flags =
           [](const alloclab::LabOptions&) {
             const int kib = absl::GetFlag(FLAGS_size_kib);
             return kib > 0 ? absl::OkStatus()
                            : absl::InvalidArgumentError(absl::StrCat(
                                  "--size_kib=", kib, " must be positive"));
           }},
      Experiment);
}
