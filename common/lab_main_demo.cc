// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The smallest experiment built the way every lab's is: InitLab, a first
// call in a fresh process next to the same call warmed up, FinishLab. The
// command-line test of lab_main runs it.

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "absl/flags/flag.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "common/fresh_process.h"
#include "common/lab_main.h"
#include "common/report.h"

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
    call.Fail(absl::StrCat("size '", call.arg(), "' is not a positive KiB count"));
    return;
  }
  call.Measure("first", [&] { TouchBuffer(kib); });
}
ALLOCLAB_FRESH_CALL("demo_first_touch", FirstTouch);

}  // namespace

int main(int argc, char** argv) {
  const alloclab::LabOptions options = alloclab::InitLab(
      argc, argv,
      "lab_main_demo: one buffer touched in a fresh process, then warm.");
  const int kib = absl::GetFlag(FLAGS_size_kib);
  if (kib <= 0) {
    std::cerr << "--size_kib=" << kib << " must be positive" << std::endl;
    return 1;
  }
  alloclab::Results results("lab_main_demo");
  results.SetMachine(alloclab::DescribeMachine(/*measure_clock=*/!options.quick));
  results.SetInstrument("timer_overhead_ns", alloclab::TimerOverheadNs());

  absl::StatusOr<alloclab::FreshCallResult> fresh =
      alloclab::RunFreshCall("demo_first_touch", absl::StrCat(kib));
  if (!fresh.ok()) {
    std::cerr << "fresh call: " << fresh.status() << std::endl;
    return 1;
  }
  results.AddRow("first call, fresh process")
      .Set("ns_per_call", fresh->values.at("first_ns"))
      .Set("page_faults_per_call", fresh->values.at("first_minor_faults"));

  // The fastest of the warm runs: what a benchmark that warms up reports.
  const int repetitions = options.Repetitions(3, 20);
  int64_t best = INT64_MAX;
  for (int i = 0; i < repetitions; ++i) {
    best = std::min(best, alloclab::TimeNs([&] { TouchBuffer(kib); }));
  }
  results.AddRow("warm call").Set("ns_per_call", static_cast<double>(best))
      .Set("page_faults_per_call", std::nullopt);
  results.AddNote("warm page faults are not counted in this demo");
  return alloclab::FinishLab(results, options,
                             {{"ns_per_call", "ns per call", 1},
                              {"page_faults_per_call", "page faults per call", 1}});
}
