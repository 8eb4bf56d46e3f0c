// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: workloads.h
// -----------------------------------------------------------------------------
//
// The two loops the experiment times under every counting mode, and its
// counting pass, on the course's record line
// (common/workloads/record_line.h):
//
//   kNew     a fresh std::string per call: one operator new and one delete,
//            so one count per call in every counting mode.
//   kReuse   the same line formatted into the thread's own reused string:
//            nothing to count, so the mode cannot matter.
//
// Each thread passes its own `Line`, alone in its cache lines: two threads'
// strings in one line would contend in `reuse` too, whatever the counter.
//
// Example:
//
//   counter_contention::Line line;
//   counter_contention::RunWorkload(counter_contention::kNew, line, 1000);

#ifndef ALLOCLAB_LABS_COUNTER_CONTENTION_WORKLOADS_H_
#define ALLOCLAB_LABS_COUNTER_CONTENTION_WORKLOADS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "labs/counter_contention/counters.h"

namespace counter_contention {

// Workload
enum Workload { kNew, kReuse };

// WorkloadName()
//
// "new" or "reuse": the first half of a row's name ("new_shared").
const char* WorkloadName(Workload workload);

// Line
struct alignas(128) Line {
  std::string text;
  uint64_t sink = 0;  // keeps the loop's results observable
};

// RunWorkload()
//
// `calls` calls of `workload`, formatting ids from 1,000,000,000 up (ten
// digits: every `new` line is longer than libstdc++'s 15-byte small-string
// buffer, so it allocates).
void RunWorkload(Workload workload, Line& line, int64_t calls);

// AllocsPerCall()
//
// The counting pass: `mode`'s counter plugged in, 10000 calls of `workload`
// on each of `threads` unpinned threads (each on its own element of
// `lines`), all started before the count (common/harness/counting_pass.h); the
// counter's total per call. nullopt for off, which counts nothing.
std::optional<double> AllocsPerCall(const Mode& mode, Workload workload,
                                    std::vector<Line>& lines, int threads);

}  // namespace counter_contention

#endif  // ALLOCLAB_LABS_COUNTER_CONTENTION_WORKLOADS_H_
