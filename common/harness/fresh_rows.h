// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: fresh_rows.h
// -----------------------------------------------------------------------------
//
// Rows measured in fresh processes. Some costs are paid once per process
// (the first malloc that maps an arena, a large calloc's zeroed pages), so
// a row about them must start a new process per sample: fresh_process.h
// registers the call and runs it once in a copy of the program; this file
// runs it N times and makes rows of what came back. `RunFreshCalls()` takes
// one row's processes one after the other; `RunFreshInterleaved()` takes
// several rows' processes in turn (a0 b0 a1 b1 ...), each row with its own
// environment (e.g. GLIBC_TUNABLES, read at start-up); `AddFreshRow()` makes
// the table's row from the values (samples.h). `SamplesOrNote()` is for rows
// whose failure belongs in the table (the learner's code refused a setting):
// a note and n/a cells instead of the end of the run.
//
// clang-format off
// Example:
//
//   absl::StatusOr<alloclab::Samples> samples = alloclab::RunFreshCalls(
//       "calloc_1mib", "calloc_call", /*processes=*/7, /*arg=*/"1048576");
//   if (!samples.ok()) return samples.status();  // names the variant
//   absl::StatusOr<alloclab::FreshRow> row = alloclab::AddFreshRow(
//       "calloc_1mib", "calloc", *samples, lab.results());
//   if (!row.ok()) return row.status();
//   row->row->Set("bytes", 1048576);
// clang-format on

#ifndef ALLOCLAB_COMMON_HARNESS_FRESH_ROWS_H_
#define ALLOCLAB_COMMON_HARNESS_FRESH_ROWS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/harness/report.h"
#include "common/harness/samples.h"
#include "common/stats/stats.h"

namespace alloclab {

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

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_HARNESS_FRESH_ROWS_H_
