// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: experiment.h
// -----------------------------------------------------------------------------
//
// The experiment harness: what runs a lab's body. Every lab's program starts,
// checks its input, describes the machine and prints its results the same
// way, so a lab's experiment.cc keeps only its variants, its own flags and
// its notes. `RunLab()` parses and checks the flags before any work (an
// unknown flag, an unwritable --json path and the lab's own `check_flags`
// are refused at start), then sets up what every lab records (the machine
// line, the timer's overhead, a page-fault counter whose source is stored
// once, in the machine), runs the body, and prints the table, the notes and
// the machine line (and writes the JSON). The body returns an absl::Status:
// the one error path, whose message ends the run before half a table is
// printed.
//
// How a body measures is a piece of its own, each in its header:
//
//   - measure_interleaved.h: in-process variants timed in batches, in turn;
//   - fresh_rows.h: rows from fresh processes of one call (samples.h);
//   - interleave.h: the order of runs taken in turn, for child processes
//     and thread teams (thread_team.h);
//   - noise.h: whether a difference of two rows exceeds their noise;
//   - variant_error.h: errors that name the row that failed.
//
// A file includes the header of each piece it uses, and its target lists
// that piece beside "//common/harness:experiment" (include what you use; the
// lab template does): this header includes none of them.
//
// clang-format off
// Example (a lab's whole experiment.cc, minus its banner):
//
//   ABSL_FLAG(int, size_kib, 256, "bytes each call allocates, KiB");
//
//   namespace {
//   absl::Status Experiment(alloclab::Lab& lab) {
//     const int64_t calls = lab.options().quick ? 10'000 : 100'000;
//     absl::StatusOr<std::vector<alloclab::VariantSummary>> rows =
//         alloclab::MeasureInterleaved(
//             {{"new", calls, [&](int64_t n) { ... }},
//              {"reuse", calls, [&](int64_t n) { ... }}},
//             {.repetitions = lab.options().Repetitions(5, 15),
//              .faults = &lab.faults()});
//     if (!rows.ok()) return rows.status();  // ends the run, says why
//     for (const auto& row : *rows) {
//       alloclab::AddSummaryRow(row, lab.results());
//     }
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

#ifndef ALLOCLAB_COMMON_HARNESS_EXPERIMENT_H_
#define ALLOCLAB_COMMON_HARNESS_EXPERIMENT_H_

#include <climits>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/harness/lab_main.h"
#include "common/harness/report.h"
#include "common/instruments/faults.h"
#include "common/machine/machine.h"

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

namespace internal {

// RunLabWithOptions()
//
// `RunLab()` after `InitLab()`: for tests, which cannot parse flags twice.
int RunLabWithOptions(const LabOptions& options, const LabSpec& spec,
                      LabBody body);

}  // namespace internal
}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_HARNESS_EXPERIMENT_H_
