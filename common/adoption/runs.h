// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: runs.h
// -----------------------------------------------------------------------------
//
// One row of the experiment, as child runs of the workload binary: the
// command (the allocator preloaded, MALLOC_CONF for jemalloc's settings),
// the values of every run so far, and whether each run's malloc really came
// from the allocator asked for. The experiment interleaves the rows' runs.
//
// Example:
//
//   absl::StatusOr<std::string> binary = alloclab::adoption::WorkloadBinary();
//   alloclab::adoption::AllocatorRun row{.variant = "treemap_jemalloc", ...};
//   row.command.argv = {*binary, "--workload=treemap"};
//   row.command.env = {{"LD_PRELOAD", jemalloc_path}};
//   absl::Status s = alloclab::adoption::RunOnce(row);
//   // row.samples.Values("wall_s"), row.verified, row.rss

#ifndef ALLOCLAB_COMMON_ADOPTION_RUNS_H_
#define ALLOCLAB_COMMON_ADOPTION_RUNS_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/harness/child_run.h"
#include "common/harness/experiment.h"
#include "common/harness/samples.h"

namespace alloclab::adoption {

// AllocatorRun
//
// A row's set-up and what its runs gave: samples "wall_s", "user_s",
// "sys_s", "peak_rss_kib" (the child's own VmHWM) and "ru_maxrss_kib"
// (wait4's), one value per run.
struct AllocatorRun {
  std::string variant = {}, workload = {}, allocator = {}, malloc_conf = {};
  std::string vs = {};  // the row it is compared with: <workload>_<vs>
  alloclab::ChildCommand command = {};
  alloclab::Samples samples = {};
  std::string served_by = {};  // the first run's provider path
  bool verified = true;        // every run so far served by `allocator`
  int threads = 0;             // as the child reported them
  std::vector<alloclab::RssPoint> rss = {};  // the last run's samples
};

// WorkloadBinary()
//
// The workload program, from this program's runfiles (a data dependency).
// NotFound, with the places tried, when it is not there.
absl::StatusOr<std::string> WorkloadBinary();

// ParseNames()
//
// The comma-separated names of flag `--flag`: at least one, none twice, and
// each accepted by `check` (whose error is returned, naming the flag), so
// that a bad list stops the experiment before its first run.
absl::StatusOr<std::vector<std::string>> ParseNames(
    absl::string_view flag, absl::string_view value,
    const std::function<absl::Status(absl::string_view)>& check);

// CheckRowChoice()
//
// The rows asked for can be compared: `allocators` include kBaseline, and a
// non-empty `tuning_workload` (jemalloc's MALLOC_CONF rows) is one of
// `workloads` and "jemalloc" one of `allocators`, whose default row the
// tuning rows are compared with. InvalidArgument saying what to change.
absl::Status CheckRowChoice(const std::vector<std::string>& allocators,
                            const std::vector<std::string>& workloads,
                            absl::string_view tuning_workload);

// RunOnce()
//
// Runs `row.command` once and adds its values; prints one progress line to
// stderr. Errors name the variant: the child failed, or did not report who
// served malloc or its peak RSS.
absl::Status RunOnce(AllocatorRun& row);

}  // namespace alloclab::adoption

#endif  // ALLOCLAB_COMMON_ADOPTION_RUNS_H_
