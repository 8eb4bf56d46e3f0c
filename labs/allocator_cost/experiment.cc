// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab allocator_cost, the experiment: what does one small malloc+free cost,
// and when does a benchmark measure it by mistake?
//
// Five variants, timed in interleaved batches with the allocation counter
// off, then run once more with the per-thread counter on to count
// allocations (common/harness/experiment.h):
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

#include "common/harness/experiment.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/harness/counting_pass.h"
#include "common/harness/fresh_process.h"
#include "common/harness/fresh_process_flag.h"
#include "common/harness/fresh_rows.h"
#include "common/harness/measure_interleaved.h"
#include "common/harness/noise.h"
#include "common/harness/samples.h"
#include "common/instruments/alloc_counter.h"
#include "labs/allocator_cost/task.h"

ABSL_FLAG(int, live_strings, 4096, "strings kept alive by small_new_live_set");

namespace allocator_cost {
namespace {

// The reference run (the allocator article, three runs pinned to one core
// of a 4-core desktop): small_new minus small_reuse was 13.7, 8.3 and 8.9 ns.
constexpr double kReferenceMallocFreeNsLow = 8.3;
constexpr double kReferenceMallocFreeNsHigh = 13.7;

// Keeps results observable: GCC deletes a malloc whose result is unused.
volatile uint64_t g_sink;

// The first id of every batch: ten digits, like a real record's.
constexpr uint64_t kFirstId = 1'000'000'000;

// The largest --live_strings: about 140 MB of strings at 16-1,024 bytes.
constexpr int kMaxLiveStrings = 1 << 18;

// The variants, in the order of the table.
enum { kSmallNew, kSmallReuse, kLargeNew, kLargeReuse, kLiveSet };

// The first call of large_new in a process that has never run it.
void LargeNewFirstCall(alloclab::FreshCall& call) {
  call.Measure("first_call", [] {
    std::vector<uint8_t> block = FillBlockNew(1);
    g_sink = block[kBlockBytes - 1];
  });
}
ALLOCLAB_FRESH_CALL("large_new_first_call", LargeNewFirstCall);

absl::Status CheckFlags(const alloclab::LabOptions&) {
  return alloclab::CheckRange("live_strings", absl::GetFlag(FLAGS_live_strings),
                              2, kMaxLiveStrings);
}

// State
//
// What the variants' calls share: the buffers the reuse rows write into,
// the next id to format, and the live set of small_new_live_set.
struct State {
  std::string line;
  std::vector<uint8_t> block;
  uint64_t next_id = kFirstId;
  std::mt19937_64 rng{2026};
  std::vector<std::string> live;
  int live_strings = 0;
};

// Variants()
//
// The table's in-process rows, in the order of the enum above. Every batch
// of every variant formats the same ids, from kFirstId on, so that no
// variant gets shorter numbers to format than another.
std::vector<alloclab::Variant> Variants(State& state, int64_t small_calls,
                                        int64_t large_calls) {
  const auto first_id = [&state] { state.next_id = kFirstId; };
  return {
      {"small_new", small_calls,
       [&state](int64_t n) {
         for (int64_t i = 0; i < n; ++i) {
           g_sink = FormatRecordNew(state.next_id++).size();
         }
       },
       first_id},
      {"small_reuse", small_calls,
       [&state](int64_t n) {
         for (int64_t i = 0; i < n; ++i) {
           FormatRecordInto(state.next_id++, state.line);
           g_sink = state.line.size();
         }
       },
       first_id},
      {"large_new", large_calls,
       [&state](int64_t n) {
         for (int64_t i = 0; i < n; ++i) {
           g_sink = FillBlockNew(state.next_id++)[kBlockBytes / 2];
         }
       },
       first_id},
      {"large_reuse", large_calls,
       [&state](int64_t n) {
         for (int64_t i = 0; i < n; ++i) {
           FillBlockInto(state.next_id++, state.block);
           g_sink = state.block[kBlockBytes / 2];
         }
       },
       first_id},
      // Each call keeps its new line in a random slot and frees the string
      // that was there: 1 malloc and 1 free of a size the allocator did not
      // just see. Batches stay below half the slots, and every batch starts
      // from fresh random sizes, so most frees are of random-size strings.
      {"small_new_live_set",
       std::min<int64_t>(small_calls, state.live_strings / 2),
       [&state](int64_t n) {
         for (int64_t i = 0; i < n; ++i) {
           state.live[state.rng() % state.live.size()] =
               FormatRecordNew(state.next_id++);
         }
       },
       [&state, first_id] {
         first_id();
         state.live.clear();
         state.live.resize(static_cast<size_t>(state.live_strings));
         std::uniform_int_distribution<size_t> size(16, 1024);
         for (std::string& s : state.live) s.assign(size(state.rng), 'x');
       }},
  };
}

// FirstCallRow()
//
// The row of large_new's first call, in `processes` fresh processes, and
// the line above the table that gives it, as the reference run printed it.
absl::StatusOr<alloclab::FreshRow> FirstCallRow(alloclab::Lab& lab,
                                                int processes) {
  absl::StatusOr<alloclab::Samples> fresh = alloclab::RunFreshCalls(
      "large_new_first_call", "large_new_first_call", processes);
  if (!fresh.ok()) return fresh.status();
  absl::StatusOr<alloclab::FreshRow> first = alloclab::AddFreshRow(
      "large_new_first_call", "first_call", *fresh, lab.results());
  if (!first.ok()) return first.status();
  lab.PrintAboveTable(absl::StrFormat(
      "first call of %zu KiB, new vector, in a fresh process: %.0f ns (median "
      "of %d; min %.0f, max %.0f), %.0f page faults",
      kBlockBytes / 1024, first->ns.median, processes, first->ns.min,
      first->ns.max, first->page_faults.median));
  return first;
}

// AddCostNotes()
//
// What the rows say: the first call against a warm one, one malloc+free
// (small_new - small_reuse) against the reference run, and whether the
// reuse rows still allocate (task.cc not done), which it returns.
bool AddCostNotes(const std::vector<alloclab::VariantSummary>& rows,
                  const alloclab::FreshRow& first, alloclab::Results& results) {
  results.AddNote(absl::StrFormat(
      "the first call of large_new took %.1fx a warm one (medians): a warm "
      "benchmark never shows it (lab first_call)",
      first.ns.median / rows[kLargeNew].ns.median));
  results.AddNote(absl::StrFormat(
      "%s; the reference run: %.1f to %.1f ns",
      alloclab::DifferenceNote("one malloc+free", rows[kSmallNew],
                               rows[kSmallReuse], "ns"),
      kReferenceMallocFreeNsLow, kReferenceMallocFreeNsHigh));
  const bool reuse_allocates =
      rows[kSmallReuse].allocs_per_call.value_or(0) +
          rows[kLargeReuse].allocs_per_call.value_or(0) >
      0;
  if (reuse_allocates) {
    results.AddNote(
        "the reuse rows still allocate: task.cc is not done yet, so their "
        "difference to the new rows is not the cost of malloc+free");
  }
  return reuse_allocates;
}

// SetHeadlineAndPlots()
//
// The tour's summary figure, one malloc+free, n/a while the reuse rows
// allocate; and the lab's pictures (docs/adding_a_lab.md).
void SetHeadlineAndPlots(const std::vector<alloclab::VariantSummary>& rows,
                         bool reuse_allocates, alloclab::Results& results) {
  const alloclab::Summary& small_new = rows[kSmallNew].ns;
  const alloclab::Summary& small_reuse = rows[kSmallReuse].ns;
  const double malloc_free_ns = small_new.median - small_reuse.median;
  const bool beyond_noise = alloclab::DifferenceExceedsNoise(
      alloclab::EstimateOf(small_new), alloclab::EstimateOf(small_reuse));
  results.SetHeadline(
      {.label = "one malloc+free (small_new - small_reuse)",
       .value = reuse_allocates ? std::nullopt : std::optional(malloc_free_ns),
       .text = reuse_allocates ? "n/a: task.cc not done (reuse rows allocate)"
               : beyond_noise
                   ? absl::StrFormat("%.1f ns", malloc_free_ns)
                   : absl::StrFormat("%.1f ns, within noise", malloc_free_ns),
       .reference = absl::StrFormat("%.1f-%.1f ns", kReferenceMallocFreeNsLow,
                                    kReferenceMallocFreeNsHigh)});
  results.AddPlot({.kind = alloclab::PlotKind::kBars,
                   .y = "allocs_per_call",
                   .title = "allocations per call"});
  results.AddPlot({.kind = alloclab::PlotKind::kBars,
                   .y = "ns_per_call",
                   .title = "ns per call (median)",
                   .log_y = true});
}

// Spec()
//
// The lab as RunLab() shows it: its name, its question (--help), its
// columns and its flag checks.
alloclab::LabSpec Spec() {
  return {.lab = "allocator_cost",
          .usage =
              "Lab allocator_cost: what one small malloc+free costs, and "
              "when a benchmark includes it by mistake.",
          .columns = {{"ns_per_call", 1},
                      {"ns_mad", 1},
                      {"allocs_per_call", 2},
                      {"page_faults_per_call", 2}},
          .check_flags = CheckFlags};
}

absl::Status Experiment(alloclab::Lab& lab) {
  const alloclab::LabOptions& options = lab.options();
  alloclab::Results& results = lab.results();
  const int repetitions = options.Repetitions(5, 15);
  const int processes = alloclab::FreshProcesses(options, 3, 9);
  results.SetInstrument(
      "shared_counter_cost_ns",
      alloclab::CounterCostNs(alloclab::CountingMode::kShared));
  results.SetInstrument(
      "per_thread_counter_cost_ns",
      alloclab::CounterCostNs(alloclab::CountingMode::kPerThread));

  State state;
  state.live_strings = absl::GetFlag(FLAGS_live_strings);
  absl::StatusOr<std::vector<alloclab::VariantSummary>> rows =
      alloclab::MeasureInterleaved(
          Variants(state, options.quick ? 20'000 : 200'000,
                   options.quick ? 100 : 1'000),
          {.repetitions = repetitions,
           .faults = &lab.faults(),
           .count_allocations = alloclab::CountAllocations});
  if (!rows.ok()) return rows.status();
  for (const alloclab::VariantSummary& row : *rows) {
    alloclab::AddSummaryRow(row, results);
  }
  absl::StatusOr<alloclab::FreshRow> first = FirstCallRow(lab, processes);
  if (!first.ok()) return first.status();

  const bool reuse_allocates = AddCostNotes(*rows, *first, results);
  SetHeadlineAndPlots(*rows, reuse_allocates, results);
  results.AddNote(absl::StrCat(
      "ns columns: median and median absolute deviation of ", repetitions,
      " batches per variant, taken in turn (one batch of each, then the "
      "next round), timed with the allocation counter off (the JSON has the "
      "minimum too); allocations come from one more batch with the "
      "per-thread counter on"));
  return absl::OkStatus();
}

}  // namespace
}  // namespace allocator_cost

ALLOCLAB_EXPERIMENT_MAIN(allocator_cost::Spec, allocator_cost::Experiment)
