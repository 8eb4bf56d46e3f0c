// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: experiment.h
// -----------------------------------------------------------------------------
//
// The one experiment harness. A lab's experiment.cc keeps only its variants,
// its own flags and its notes; everything else every lab needs is here:
//
//   - `RunLab()`: the entry point. Parses and checks the flags before any
//     work (an unknown flag, an unwritable --json path and the lab's own
//     `check_flags` are refused at start), then sets up what every lab
//     records (the machine line, the timer's overhead, a page-fault counter
//     whose source is stored once, in the machine), runs the lab's body, and
//     prints the table, the notes and the machine line (and the JSON). The
//     body returns an absl::Status: the one error path. The helpers below
//     name the variant in the errors they return (`VariantError()`), so the
//     message says which row failed.
//   - `MeasureInterleaved()`: in-process variants timed in batches, taken
//     round-robin (a0 b0 c0 a1 b1 c1 ...), so that a machine that slows down
//     between minutes slows every row alike; one warm-up batch each first,
//     then a separate counting pass (allocation counter on, never timed),
//     then one `VariantSummary` per variant: median, min, MAD, allocations
//     and page faults per call.
//   - `RunFreshCalls()`: N fresh processes of one registered call
//     (fresh_process.h), their values gathered key by key in `Samples`;
//     `RunFreshInterleaved()` takes several rows' processes in turn;
//     `AddFreshRow()` makes a row. `SamplesOrNote()` is for rows whose
//     failure belongs in the table (the learner's code refused a setting):
//     a note and n/a cells instead of the end of the run.
//   - `DifferenceNote()`: "one malloc+free ≈ 13.2 ns" only when the two rows'
//     ranges (median ± spread) do not overlap; otherwise it says the
//     difference is within noise.
//
// Notes are computed from the values a lab holds (the summaries returned
// here), never read back from the table by string.
//
// Labs whose variants are child processes (a workload binary per variant)
// or thread teams (thread_team.h, rows with a threads count) use `RunLab()`,
// `Samples`, `VariantError()` and `DifferenceNote()` without the batch loop,
// and take their runs in turn with `Interleave()` (interleave.h):
// `lab.results().AddRow(name, threads)` takes their rows as they measure
// them.
//
// clang-format off
// Example (a lab's whole experiment.cc, minus its banner):
//
//   ABSL_FLAG(int, size_kib, 256, "bytes each call allocates, KiB");
//
//   namespace {
//   enum { kNew, kReuse };  // the order of the variants below
//
//   absl::Status Experiment(alloclab::Lab& lab) {
//     std::string line;
//     const int64_t calls = lab.options().quick ? 10'000 : 100'000;
//     const std::vector<alloclab::Variant> variants = {
//         {"new", calls, [&](int64_t n) { ... }},
//         {"reuse", calls, [&](int64_t n) { ... }},
//     };
//     absl::StatusOr<std::vector<alloclab::VariantSummary>> rows =
//         alloclab::MeasureInterleaved(
//             variants, {.repetitions = lab.options().Repetitions(5, 15),
//                        .faults = &lab.faults(),
//                        .count_allocations = alloclab::CountAllocations});
//     if (!rows.ok()) return rows.status();  // names the variant
//     for (const auto& row : *rows) {
//       alloclab::AddSummaryRow(row, lab.results());
//     }
//     lab.results().AddNote(alloclab::DifferenceNote(
//         "one malloc+free", (*rows)[kNew], (*rows)[kReuse], "ns"));
//     return absl::OkStatus();
//   }
//
//   alloclab::LabSpec Spec() {
//     return {.lab = "my_lab",
//             .usage = "Lab my_lab: what one call costs.",
//             .columns = {{"ns_per_call", "ns per call", 1}},
//             .check_flags = [](const alloclab::LabOptions&) {
//               return alloclab::CheckRange(
//                   "size_kib", absl::GetFlag(FLAGS_size_kib), 1);
//             }};
//   }
//   }  // namespace
//
//   ALLOCLAB_EXPERIMENT_MAIN(Spec, Experiment)
// clang-format on
//
// The BUILD target lists "//common:experiment" (and "//common:counting_pass"
// for `CountAllocations`) in `experiment_deps`.

#ifndef ALLOCLAB_COMMON_EXPERIMENT_H_
#define ALLOCLAB_COMMON_EXPERIMENT_H_

#include <climits>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/faults.h"
#include "common/lab_main.h"
#include "common/machine.h"
#include "common/report.h"
#include "common/stats.h"

namespace alloclab {

// LabSpec
//
// What a lab tells the harness about itself.
struct LabSpec {
  // The lab's name, the JSON's "lab".
  std::string lab = {};
  // The --help text: what the lab asks. RunLab() adds the line that says
  // how to run it ("Usage: bazel run //labs/<lab> -- ...") unless it has one.
  std::string usage = {};
  // The lab's own flags worth naming in that line, e.g. "[--cpus=0-3]".
  std::string usage_flags = {};
  // The table's columns (`Lab::SetColumns()` changes them at run time).
  std::vector<Column> columns = {};
  // Checks the lab's own flags, after the common ones and before any work;
  // an error ends the program with exit 1 and its message.
  std::function<absl::Status(const LabOptions&)> check_flags = nullptr;
  // A mode that replaces the experiment (e.g. mmap_threshold's --loop):
  // when it returns an exit code, the program ends with it before any
  // set-up; nullopt runs the experiment.
  std::function<std::optional<int>(const LabOptions&)> instead = nullptr;
  // Where `Lab::faults()` reads page faults from (thread scope).
  FaultSource fault_source = FaultSource::kAuto;
  // Where the TABLE's page faults come from, when not from `Lab::faults()`
  // (e.g. "getrusage(RUSAGE_THREAD) in the fresh process"); the machine
  // line and the JSON say this instead.
  std::string faults_from = {};
};

// Lab
//
// What the harness hands the lab's body: the options, the results being
// built, and the page-fault counter of the main thread.
class Lab {
 public:
  Lab(LabOptions options, Results results, FaultCounter faults,
      std::vector<Column> columns)
      : options_(std::move(options)),
        results_(std::move(results)),
        faults_(std::move(faults)),
        columns_(std::move(columns)) {}

  const LabOptions& options() const { return options_; }
  Results& results() { return results_; }
  const Results& results() const { return results_; }

  // faults()
  //
  // Created on the thread that runs the body, which must be the one that
  // reads it (kThread scope). Its source is in `results().machine()`.
  const FaultCounter& faults() const { return faults_; }

  // PrintAboveTable()
  //
  // A line printed above the table (the number a reader came for, as the
  // reference run printed it). Not in the JSON: for the tour's summary,
  // see `Results::SetHeadline()`.
  void PrintAboveTable(absl::string_view line) { above_.emplace_back(line); }
  const std::vector<std::string>& lines_above_table() const { return above_; }

  void SetColumns(std::vector<Column> columns) {
    columns_ = std::move(columns);
  }
  const std::vector<Column>& columns() const { return columns_; }

 private:
  LabOptions options_;
  Results results_;
  FaultCounter faults_;
  std::vector<Column> columns_;
  std::vector<std::string> above_;
};

using LabBody = absl::FunctionRef<absl::Status(Lab&)>;

// RunLab()
//
// main() of an experiment: `InitLab()` (the common flags, --json checked
// writable), `spec.check_flags`, `spec.instead`, the set-up, `body`, then
// `FinishLab()`. Returns main's exit code: 1 with "<lab>: <message>" on
// stderr when a check or the body fails (the table is not printed: half a
// table would read as a result).
int RunLab(int argc, char** argv, const LabSpec& spec, LabBody body);

// ALLOCLAB_EXPERIMENT_MAIN()
//
// Defines an experiment's main(): `RunLab()` with the lab's spec and body,
// each returned by a function of the lab's, as BENCHMARK_MAIN() defines
// Google Benchmark's. A lab's experiment.cc then ends with one line:
//
//   ALLOCLAB_EXPERIMENT_MAIN(my_lab::Spec, my_lab::Experiment)
#define ALLOCLAB_EXPERIMENT_MAIN(spec, body)               \
  int main(int argc, char** argv) {                        \
    return ::alloclab::RunLab(argc, argv, (spec)(), body); \
  }

// CheckRange()
//
// For `LabSpec::check_flags`: OK when `min` <= `value` <= `max`, else
// InvalidArgument "--<flag> must be at least <min>, got <value>" (or
// "between <min> and <max>").
absl::Status CheckRange(absl::string_view flag, int64_t value, int64_t min,
                        int64_t max = INT64_MAX);

// VariantError()
//
// `status` with its message prefixed "variant '<variant>': ", the same code.
// OK stays OK.
absl::Status VariantError(absl::string_view variant,
                          const absl::Status& status);

// Variant
//
// One in-process row: `run(calls)` makes `calls` calls. `prepare()`, when
// set, runs before every batch (warm-up, timed and counting), outside the
// timed region: a fresh live set, the ids back to their first value.
struct Variant {
  std::string name = {};
  int64_t calls_per_batch = 1;
  std::function<void(int64_t calls)> run = nullptr;
  std::function<void()> prepare = nullptr;
};

// AllocationCount
//
// Runs `fn` with an allocation counter on and returns what it counted
// (counting_pass.h has `CountAllocations`, for the course's counter).
using AllocationCount = std::function<uint64_t(absl::FunctionRef<void()> fn)>;

// BatchPlan
struct BatchPlan {
  // Timed batches per variant (at least 1).
  int repetitions = 5;
  // Counts each timed batch's page faults when set; must have been created
  // on the calling thread.
  const FaultCounter* faults = nullptr;
  // The counting pass, one more batch per variant, when set.
  AllocationCount count_allocations = nullptr;
};

// VariantSummary
//
// One variant's results: nanoseconds per call over the timed batches, and
// per-call counts. A count that was not taken is nullopt.
struct VariantSummary {
  std::string name;
  Summary ns;  // of the batches' ns per call
  std::optional<double> allocs_per_call;
  std::optional<double> page_faults_per_call;  // over all timed batches
  int64_t timed_calls = 0;
};

// MeasureInterleaved()
//
// For each variant one warm-up batch (round-robin, untimed), then
// `plan.repetitions` rounds, each timing one batch of every variant in
// order, then the counting pass of each variant. Returns the summaries in
// the order of `variants`. Errors (a fault counter that cannot be read, an
// empty variant) name the variant.
absl::StatusOr<std::vector<VariantSummary>> MeasureInterleaved(
    const std::vector<Variant>& variants, const BatchPlan& plan);

// AddSummaryRow()
//
// The row of a summary: ns_per_call (median), ns_min, ns_mad, calls, and
// allocs_per_call / page_faults_per_call when counted.
Row& AddSummaryRow(const VariantSummary& summary, Results& results,
                   int threads = 1);

// Samples
//
// Values of repeated runs, key by key: the fresh processes of one call, or
// the child processes of one workload.
class Samples {
 public:
  void Add(absl::string_view key, double value);
  void AddAll(const std::map<std::string, double>& values);
  // Runs that were added with `AddRun()` (each adds its values).
  void AddRun(const std::map<std::string, double>& values) {
    ++runs_;
    AddAll(values);
  }
  int runs() const { return runs_; }

  bool Has(absl::string_view key) const;
  // The values of `key`, empty when none.
  const std::vector<double>& Values(absl::string_view key) const;
  // The summary of `key`; NotFound naming the key when no run gave it.
  absl::StatusOr<Summary> Summarize(absl::string_view key) const;
  // The median of `key` divided by `divisor` (a per-call figure from a
  // per-run total); nullopt when no run gave it.
  std::optional<double> Median(absl::string_view key, double divisor = 1) const;
  // Their median absolute deviation, likewise.
  std::optional<double> Mad(absl::string_view key, double divisor = 1) const;

 private:
  int runs_ = 0;
  std::map<std::string, std::vector<double>, std::less<>> values_;
};

// RunFreshCalls()
//
// `processes` fresh processes of the call registered as `call` with `arg`,
// one after the other. Errors name `variant`.
absl::StatusOr<Samples> RunFreshCalls(absl::string_view variant,
                                      absl::string_view call, int processes,
                                      absl::string_view arg = "");

// FreshVariant
//
// One row's fresh call: `call` registered with ALLOCLAB_FRESH_CALL, its
// `arg`, and environment variables ("NAME", "value") set for this row's
// processes only (e.g. GLIBC_TUNABLES, which glibc reads at start-up).
struct FreshVariant {
  std::string name = {};
  std::string call = {};
  std::string arg = {};
  std::vector<std::pair<std::string, std::string>> env = {};
};

// RunFreshInterleaved()
//
// `processes` rounds, each starting one fresh process of every variant in
// order (a0 b0 c0 a1 b1 c1 ...), so that a machine that slows down between
// minutes slows every row alike, as MeasureInterleaved() does in process.
// Returns one result per variant, in order: its samples, or the error of
// its first failed process (naming the variant), after which that variant
// is not started again while the others go on.
std::vector<absl::StatusOr<Samples>> RunFreshInterleaved(
    const std::vector<FreshVariant>& variants, int processes);

// SamplesOrNote()
//
// For a row whose failure belongs in the table (the learner's code refused
// a setting, a probe failed): the samples, or, when `samples` is an error,
// a note of `results` with its message (which names the variant) and empty
// samples, so that the row's cells read n/a and the run goes on.
Samples SamplesOrNote(absl::StatusOr<Samples> samples, Results& results);

// FreshRow
//
// What `AddFreshRow()` summarised: the values for the notes, and the row
// itself (for more cells; valid until the next `Results::AddRow()`).
struct FreshRow {
  Summary ns;
  Summary page_faults;
  Row* row = nullptr;
};

// AddFreshRow()
//
// The row `variant` from the "<label>_ns" and "<label>_minor_faults" of
// fresh processes (FreshCall::Measure): ns_per_call (median), ns_min,
// ns_max, page_faults_per_call (median), page_faults_min, page_faults_max,
// major_faults_per_call, processes and the text "measured". Errors name the
// variant when a key is missing.
absl::StatusOr<FreshRow> AddFreshRow(absl::string_view variant,
                                     absl::string_view label,
                                     const Samples& samples, Results& results);

// Estimate
//
// A measured value and its spread (median and MAD of a row), and how many
// measurements made them: one measurement has a spread of 0 that says
// nothing about the noise (0: not said).
struct Estimate {
  double value = 0;
  double spread = 0;
  size_t samples = 0;
};

inline Estimate EstimateOf(const Summary& s) { return {s.median, s.mad, s.n}; }

// DifferenceNote()
//
// A note on `a - b`, what the difference stands for named by `what`:
// "one malloc+free ≈ 13.2 ns here (small_new - small_reuse)" when the
// difference exceeds the sum of the two spreads (the rows' median ± spread
// ranges do not overlap), else "one malloc+free: small_new - small_reuse =
// 0.4 ns is within noise (± 1.1 ns and ± 0.9 ns)". Where a row is a single
// measurement (--repetitions=1), its spread is unknown, and the note says
// the run cannot tell. `unit` follows the numbers; `precision` is the
// digits after the point.
std::string DifferenceNote(absl::string_view what, absl::string_view a_name,
                           Estimate a, absl::string_view b_name, Estimate b,
                           absl::string_view unit, int precision = 1);
std::string DifferenceNote(absl::string_view what, const VariantSummary& a,
                           const VariantSummary& b, absl::string_view unit,
                           int precision = 1);

// DifferenceExceedsNoise()
//
// The rule of `DifferenceNote()`: |a - b| > a.spread + b.spread, and
// neither is a single measurement.
bool DifferenceExceedsNoise(Estimate a, Estimate b);

namespace internal {

// RunLabWithOptions()
//
// `RunLab()` after `InitLab()`: for tests, which cannot parse flags twice.
int RunLabWithOptions(const LabOptions& options, const LabSpec& spec,
                      LabBody body);

}  // namespace internal
}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_EXPERIMENT_H_
