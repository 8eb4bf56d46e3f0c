// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab allocator_cost, the experiment: what does one small malloc+free cost,
// and when does a benchmark measure it by mistake?
//
// Five variants, each timed in batches with the allocation counter off, then
// run once more with the per-thread counter on to count allocations:
//
//   small_new           FormatRecordNew(): a new string per call
//   small_reuse         FormatRecordInto(): your task, the caller's string
//   large_new           FillBlockNew(): a new 256 KiB vector per call
//   large_reuse         FillBlockInto(): your task, the caller's vector
//   small_new_live_set  small_new while thousands of strings of random sizes
//                       stay alive and each call drops a random old one
//
// The warm-up batch hides the first call; the first call of large_new is
// therefore also measured on its own, in fresh processes.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "common/alloc_counter.h"
#include "common/clock.h"
#include "common/faults.h"
#include "common/fresh_process.h"
#include "common/fresh_process_flag.h"
#include "common/lab_main.h"
#include "common/report.h"
#include "common/stats.h"
#include "labs/allocator_cost/task.h"

ABSL_FLAG(int, live_strings, 4096,
          "strings kept alive by small_new_live_set");

namespace allocator_cost {
namespace {

// The reference run (seed 000, three runs pinned to one core of a 4-core
// desktop): small_new minus small_reuse was 13.7, 8.3 and 8.9 ns.
constexpr double kReferenceMallocFreeNsLow = 8.3;
constexpr double kReferenceMallocFreeNsHigh = 13.7;

// Keeps results observable: GCC deletes a malloc whose result is unused.
volatile uint64_t g_sink;

// The first id of every batch: ten digits, like a real record's.
constexpr uint64_t kFirstId = 1'000'000'000;

// The largest --live_strings: about 140 MB of strings at 16-1,024 bytes.
constexpr int kMaxLiveStrings = 1 << 18;

// Variant
//
// One row of the table: `run(calls)` makes `calls` calls of the variant.
// `prepare()`, when set, runs before each batch, outside the timed region.
// Every batch of every variant formats the same ids, from kFirstId on, so
// that no variant gets shorter numbers to format than another.
struct Variant {
  const char* name;
  int64_t calls_per_batch;
  std::function<void(int64_t calls)> run;
  std::function<void()> prepare = nullptr;
};

absl::Status MeasureVariant(const Variant& variant, int repetitions,
                            const alloclab::FaultCounter& faults,
                            uint64_t& next_id, alloclab::Results& results) {
  const auto prepare = [&] {
    if (variant.prepare) variant.prepare();
    next_id = kFirstId;
  };
  const int64_t calls = variant.calls_per_batch;

  // Warm-up: the first call and the first batch are not part of the table.
  alloclab::SetCountingMode(alloclab::CountingMode::kOff);
  prepare();
  variant.run(calls);

  std::vector<double> ns_per_call;
  int64_t minor_faults = 0;
  for (int rep = 0; rep < repetitions; ++rep) {
    prepare();
    int64_t ns = 0;
    absl::StatusOr<alloclab::FaultCounts> batch_faults = alloclab::FaultsDuring(
        faults, [&] { ns = alloclab::TimeNs([&] { variant.run(calls); }); });
    if (!batch_faults.ok()) return batch_faults.status();
    minor_faults += batch_faults->minor;
    ns_per_call.push_back(static_cast<double>(ns) / static_cast<double>(calls));
  }

  // Counting pass: the same batch, now with the per-thread counter on.
  prepare();
  alloclab::SetCountingMode(alloclab::CountingMode::kPerThread);
  const uint64_t before = alloclab::ThreadAllocations();
  variant.run(calls);
  const uint64_t allocations = alloclab::ThreadAllocations() - before;
  alloclab::SetCountingMode(alloclab::CountingMode::kOff);

  const alloclab::Summary s = alloclab::Summarize(ns_per_call);
  results.AddRow(variant.name)
      .Set("ns_per_call", s.median)
      .Set("ns_min", s.min)
      .Set("ns_mad", s.mad)
      .Set("allocs_per_call",
           static_cast<double>(allocations) / static_cast<double>(calls))
      .Set("page_faults_per_call",
           static_cast<double>(minor_faults) /
               static_cast<double>(calls * repetitions))
      .Set("calls", static_cast<double>(calls * repetitions));
  return absl::OkStatus();
}

// The first call of large_new in a process that has never run it.
void LargeNewFirstCall(alloclab::FreshCall& call) {
  call.Measure("first_call", [] {
    std::vector<uint8_t> block = FillBlockNew(1);
    g_sink = block[kBlockBytes - 1];
  });
}
ALLOCLAB_FRESH_CALL("large_new_first_call", LargeNewFirstCall);

absl::Status MeasureFirstCall(int processes, alloclab::Results& results) {
  std::vector<double> ns, faults;
  for (int i = 0; i < processes; ++i) {
    absl::StatusOr<alloclab::FreshCallResult> r =
        alloclab::RunFreshCall("large_new_first_call");
    if (!r.ok()) return r.status();
    ns.push_back(r->values.at("first_call_ns"));
    faults.push_back(r->values.at("first_call_minor_faults"));
  }
  const alloclab::Summary t = alloclab::Summarize(ns);
  const alloclab::Summary f = alloclab::Summarize(faults);
  results.AddRow("large_new_first_call")
      .Set("ns_per_call", t.median)
      .Set("ns_min", t.min)
      .Set("ns_max", t.max)
      .Set("page_faults_per_call", f.median)
      .Set("processes", processes);
  return absl::OkStatus();
}

}  // namespace
}  // namespace allocator_cost

int main(int argc, char** argv) {
  using namespace allocator_cost;  // NOLINT: a lab's main reads better so
  const alloclab::LabOptions options = alloclab::InitLab(
      argc, argv,
      "Lab allocator_cost: what one small malloc+free costs, and when a "
      "benchmark includes it by mistake.\n"
      "Usage: bazel run //labs/allocator_cost -- [--quick] [--json=out.json]");
  const int repetitions = options.Repetitions(5, 15);
  const int processes = alloclab::FreshProcesses(options, 3, 9);
  const int live_strings = absl::GetFlag(FLAGS_live_strings);
  if (live_strings < 2 || live_strings > kMaxLiveStrings) {
    std::fprintf(stderr, "--live_strings must be between 2 and %d, got %d\n",
                 kMaxLiveStrings, live_strings);
    return 1;
  }
  const int64_t small_calls = options.quick ? 20'000 : 200'000;
  const int64_t large_calls = options.quick ? 100 : 1'000;

  alloclab::Results results("allocator_cost");
  results.SetMachine(alloclab::DescribeMachine());
  results.SetInstrument("timer_overhead_ns", alloclab::TimerOverheadNs());
  results.SetInstrument(
      "shared_counter_cost_ns",
      alloclab::CounterCostNs(alloclab::CountingMode::kShared));
  results.SetInstrument(
      "per_thread_counter_cost_ns",
      alloclab::CounterCostNs(alloclab::CountingMode::kPerThread));

  absl::StatusOr<alloclab::FaultCounter> faults =
      alloclab::FaultCounter::Create(alloclab::FaultScope::kThread);
  if (!faults.ok()) {
    std::fprintf(stderr, "page-fault counter: %s\n",
                 faults.status().ToString().c_str());
    return 1;
  }
  results.SetInstrumentText("faults_source", faults->source());

  std::string line;
  std::vector<uint8_t> block;
  uint64_t next_id = 0;
  std::mt19937_64 rng(2026);
  std::vector<std::string> live;

  const std::vector<Variant> variants = {
      {"small_new", small_calls,
       [&](int64_t n) {
         for (int64_t i = 0; i < n; ++i) {
           g_sink = FormatRecordNew(next_id++).size();
         }
       }},
      {"small_reuse", small_calls,
       [&](int64_t n) {
         for (int64_t i = 0; i < n; ++i) {
           FormatRecordInto(next_id++, line);
           g_sink = line.size();
         }
       }},
      {"large_new", large_calls,
       [&](int64_t n) {
         for (int64_t i = 0; i < n; ++i) {
           g_sink = FillBlockNew(next_id++)[kBlockBytes / 2];
         }
       }},
      {"large_reuse", large_calls,
       [&](int64_t n) {
         for (int64_t i = 0; i < n; ++i) {
           FillBlockInto(next_id++, block);
           g_sink = block[kBlockBytes / 2];
         }
       }},
      // Each call keeps its new line in a random slot and frees the string
      // that was there: 1 malloc and 1 free of a size the allocator did not
      // just see. Batches stay below half the slots, and every batch starts
      // from fresh random sizes, so most frees are of random-size strings.
      {"small_new_live_set", std::min<int64_t>(small_calls, live_strings / 2),
       [&](int64_t n) {
         for (int64_t i = 0; i < n; ++i) {
           live[rng() % live.size()] = FormatRecordNew(next_id++);
         }
       },
       [&] {
         live.clear();
         live.resize(static_cast<size_t>(live_strings));
         std::uniform_int_distribution<size_t> size(16, 1024);
         for (std::string& s : live) s.assign(size(rng), 'x');
       }},
  };

  for (const Variant& variant : variants) {
    if (absl::Status s =
            MeasureVariant(variant, repetitions, *faults, next_id, results);
        !s.ok()) {
      std::fprintf(stderr, "%s: %s\n", variant.name, s.ToString().c_str());
      return 1;
    }
  }
  if (absl::Status s = MeasureFirstCall(processes, results); !s.ok()) {
    std::fprintf(stderr, "first call in a fresh process: %s\n",
                 s.ToString().c_str());
    return 1;
  }

  // The first call goes above the table, as the reference run printed it.
  const alloclab::Row* first = results.FindRow("large_new_first_call");
  std::printf("first call of %zu KiB, new vector, in a fresh process: "
              "%.0f ns (median of %d; min %.0f, max %.0f), %.0f page faults\n",
              kBlockBytes / 1024, *first->Get("ns_per_call"), processes,
              *first->Get("ns_min"), *first->Get("ns_max"),
              *first->Get("page_faults_per_call"));
  results.AddNote(absl::StrFormat(
      "the first call of large_new took %.1fx a warm one (medians): a warm "
      "benchmark never shows it (lab first_call)",
      *first->Get("ns_per_call") /
          *results.FindRow("large_new")->Get("ns_per_call")));
  const double malloc_free_ns =
      *results.FindRow("small_new")->Get("ns_per_call") -
      *results.FindRow("small_reuse")->Get("ns_per_call");
  results.AddNote(absl::StrFormat(
      "one malloc+free ≈ %.1f ns here (small_new - small_reuse); "
      "the reference run: %.1f to %.1f ns",
      malloc_free_ns, kReferenceMallocFreeNsLow, kReferenceMallocFreeNsHigh));
  const double reuse_allocs =
      *results.FindRow("small_reuse")->Get("allocs_per_call") +
      *results.FindRow("large_reuse")->Get("allocs_per_call");
  if (reuse_allocs > 0) {
    results.AddNote(
        "the reuse rows still allocate: task.cc is not done yet, so their "
        "difference to the new rows is not the cost of malloc+free");
  }
  results.AddNote(
      "ns columns: median and median absolute deviation of " +
      std::to_string(repetitions) +
      " batches (the JSON has the minimum too), timed with the allocation "
      "counter off; allocations come from one more batch with the "
      "per-thread counter on");

  return alloclab::FinishLab(
      results, options,
      {{"ns_per_call", "ns per call", 1},
       {"ns_mad", "± ns (MAD)", 1},
       {"allocs_per_call", "allocs per call", 2},
       {"page_faults_per_call", "page faults per call", 2}});
}
