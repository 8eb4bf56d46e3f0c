// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/counter_contention/workloads.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/harness/counting_pass.h"
#include "common/workloads/record_line.h"
#include "labs/counter_contention/counters.h"

namespace counter_contention {

const char* WorkloadName(Workload workload) {
  return workload == kNew ? "new" : "reuse";
}

void RunWorkload(Workload workload, Line& line, int64_t calls) {
  constexpr uint64_t kFirstId = 1'000'000'000;
  for (int64_t i = 0; i < calls; ++i) {
    const uint64_t id = kFirstId + static_cast<uint64_t>(i);
    if (workload == kNew) {
      const std::string fresh = alloclab::FormatRecordNew(id);
      line.sink += fresh.size();
    } else {
      line.text.clear();
      alloclab::AppendRecord(id, line.text);
      line.sink += line.text.size();
    }
  }
}

std::optional<double> AllocsPerCall(const Mode& mode, Workload workload,
                                    std::vector<Line>& lines, int threads) {
  if (mode.counter == nullptr) return std::nullopt;
  constexpr int64_t kCalls = 10'000;
  Use(mode);
  const uint64_t counted =
      alloclab::CountOnThreads(threads, mode.counter->total, [&](int thread) {
        RunWorkload(workload, lines[static_cast<size_t>(thread)], kCalls);
      });
  return static_cast<double>(counted) / static_cast<double>(threads * kCalls);
}

}  // namespace counter_contention
