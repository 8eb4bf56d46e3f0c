// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab jemalloc_adoption: the experiment. Every workload runs as a child
// process under every allocator (LD_PRELOAD, as mimalloc-bench does), the
// allocators interleaved within each repetition, and each run is measured
// from outside: wall, user and system time, peak RSS, RSS over time. The
// child reports which library really served malloc; a row counts as
// verified only when that is the allocator asked for. Then your task.cc
// compares each allocator with glibc and writes the decision memo. The
// runner is matrix.h's, which lab allocator_design runs too.

#include "common/harness/experiment.h"

#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/adoption/matrix.h"
#include "common/adoption/workloads.h"
#include "common/machine/allocator_probe.h"
#include "labs/jemalloc_adoption/task.h"

ABSL_FLAG(std::string, workloads,
          absl::StrJoin(alloclab::adoption::WorkloadNames(), ","),
          "comma-separated workloads to run");
ABSL_FLAG(std::string, allocators, "glibc,jemalloc,tcmalloc,mimalloc",
          "comma-separated allocators (glibc, the baseline, is required)");
ABSL_FLAG(int, threads, 0, "threads per workload (0: the CPUs available)");
ABSL_FLAG(double, iterations_scale, 1.0,
          "multiplies every workload's iterations (the tests use 0.01)");
ABSL_FLAG(std::string, tuning_workload, "churn",
          "workload of jemalloc's MALLOC_CONF rows (empty: none)");
ABSL_FLAG(int, rss_interval_ms, 20, "milliseconds between two RSS samples");

namespace {

namespace ja = alloclab::adoption;

std::vector<std::string> List(const std::string& flag) {
  return absl::StrSplit(flag, ',', absl::SkipEmpty());
}

// "0.91x [0.88, 0.95]": a ratio and its interval. An interval that rounds
// to one number at two decimals is given to three, and one narrower still
// is said in words, so that "[0.91, 0.91]" never reads as an interval.
std::string RatioWithInterval(const ja::Comparison& c) {
  for (int digits : {2, 3}) {
    const std::string low = absl::StrFormat("%.*f", digits, c.ci_low);
    const std::string high = absl::StrFormat("%.*f", digits, c.ci_high);
    if (low != high) {
      return absl::StrFormat("%.2fx [%s, %s]", c.ratio, low, high);
    }
  }
  return absl::StrFormat(
      "%.2fx (its interval is under 0.001 wide: every resample agreed)",
      c.ratio);
}

absl::Status Experiment(alloclab::Lab& lab) {
  ja::MatrixSpec spec;
  spec.workloads = List(absl::GetFlag(FLAGS_workloads));
  for (const std::string& name : List(absl::GetFlag(FLAGS_allocators))) {
    absl::StatusOr<alloclab::LocatedAllocator> a =
        alloclab::LocateAllocator(name);
    if (!a.ok()) return a.status();  // names the Debian package
    spec.allocators.push_back({name, a->path});
  }
  spec.tuning_workload = absl::GetFlag(FLAGS_tuning_workload);
  spec.threads = absl::GetFlag(FLAGS_threads);
  spec.iterations_scale = absl::GetFlag(FLAGS_iterations_scale);
  spec.rss_interval_ms = absl::GetFlag(FLAGS_rss_interval_ms);
  // Your task.cc's functions judge the table.
  spec.compare = jemalloc_adoption::CompareTimings;
  spec.recommend = jemalloc_adoption::Recommend;
  absl::StatusOr<ja::MatrixResult> matrix = ja::RunMatrix(lab, spec);
  if (!matrix.ok()) return matrix.status();
  if (const ja::MatrixRow* row = matrix->Find("msgsend_jemalloc");
      row != nullptr && row->vs_baseline.has_value()) {
    const ja::Comparison& c = *row->vs_baseline;
    lab.results().SetHeadline({"msgsend, jemalloc / glibc time", c.ratio,
                               RatioWithInterval(c),
                               "0.59x (7.80 s / 13.30 s)"});
  }
  return absl::OkStatus();
}

absl::Status CheckFlags(const alloclab::LabOptions& options) {
  return ja::CheckMatrixFlags(
      options,
      {.workloads = absl::GetFlag(FLAGS_workloads),
       .allocators = absl::GetFlag(FLAGS_allocators),
       .threads = absl::GetFlag(FLAGS_threads),
       .iterations_scale = absl::GetFlag(FLAGS_iterations_scale),
       .tuning_workload = absl::GetFlag(FLAGS_tuning_workload),
       .rss_interval_ms = absl::GetFlag(FLAGS_rss_interval_ms)},
      [](absl::string_view a) { return alloclab::FindAllocator(a).status(); });
}

// Spec()
//
// The lab as RunLab() shows it: its name, its question (--help), its
// columns and its flag checks.
alloclab::LabSpec Spec() {
  return {.lab = "jemalloc_adoption",
          .usage =
              "Lab jemalloc_adoption: glibc, jemalloc, tcmalloc and "
              "mimalloc on six workloads; time, peak memory, and a "
              "decision.",
          .columns = ja::MatrixColumns(/*syscalls=*/false),
          .check_flags = CheckFlags};
}

}  // namespace

ALLOCLAB_EXPERIMENT_MAIN(Spec, Experiment)
