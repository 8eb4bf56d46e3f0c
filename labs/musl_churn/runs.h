// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: runs.h
// -----------------------------------------------------------------------------
//
// The churn program (workload_main.c) run from C++: its command line, its
// steady-state system calls, and the checksum it must print. The experiment
// and the suite's musl test both count system calls this way.
//
// Steady state: the churn first fills its table of CHURN_MAX_LIVE blocks
// and at its end frees them all, which costs the same whatever the run's
// length. The difference between a traced run of kFillRun + k iterations
// and one of kFillRun is what k iterations of churn cost, and nothing else.
//
// Example:
//
//   musl_churn::ChurnRunSpec spec;
//   spec.scale = 1024;
//   spec.recycle_bound = RECYCLER_LAB_BOUND_BYTES;
//   absl::StatusOr<musl_churn::SteadyCounts> steady =
//       musl_churn::CountSteadySyscalls("/path/churn_musl", spec, 8192);
//   // steady->counts.munmap: munmap calls in 8,192 steady iterations

#ifndef ALLOCLAB_LABS_MUSL_CHURN_RUNS_H_
#define ALLOCLAB_LABS_MUSL_CHURN_RUNS_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/harness/child_run.h"
#include "common/harness/samples.h"
#include "common/instruments/syscalls.h"
#include "common/workloads/churn.h"

namespace musl_churn {

// kFillRun
//
// A run this long has filled the table and churned as long again: the base
// of the steady-state differences.
inline constexpr int64_t kFillRun = 2 * CHURN_MAX_LIVE;

// ChurnRunSpec
//
// One variant's flags: `recycle_bound` 0 runs without the recycler;
// `fixed_threshold` sets glibc's mmap threshold to 128 KiB through
// GLIBC_TUNABLES (musl ignores it). `label`, when not empty, names the
// variant in a line on stderr before each run, and the run prints its own
// progress every few seconds (churn --progress): a full experiment takes
// minutes, the thread's 100 million iterations hours.
struct ChurnRunSpec {
  uint64_t scale = 1024;
  uint64_t seed = 1;
  uint64_t recycle_bound = 0;
  bool fixed_threshold = false;
  std::string label;
};

// ChurnCommand()
//
// `program` (a churn_glibc or churn_musl) for `iterations` of `spec`.
alloclab::ChildCommand ChurnCommand(const std::string& program,
                                    const ChurnRunSpec& spec,
                                    int64_t iterations);

// ChurnRun
//
// One untraced run: its rusage and what it printed, and whether its checksum
// was the one ExpectedChecksum() computes.
struct ChurnRun {
  alloclab::ChildRun child;
  uint64_t checksum = 0;
  bool checksum_ok = false;
};

// RunChurn()
//
// Runs `program` untraced. Errors: RunChild()'s, or no checksum printed.
absl::StatusOr<ChurnRun> RunChurn(const std::string& program,
                                  const ChurnRunSpec& spec, int64_t iterations);

// UntracedRuns
//
// The untraced runs of one variant, one sample per run (RunUntraced()):
// "wall_s", "user_s", "sys_s", "peak_rss_kib", "page_faults_per_call"
// (steady state: the fill run's faults taken off), "checksum_ok" and
// "launcher_rss_kib"; and the fill run's faults, the base of that count.
struct UntracedRuns {
  alloclab::Samples samples;
  int64_t fill_faults = 0;
  uint64_t checksum = 0;
};

// RunUntraced()
//
// Runs `program` untraced for `iterations` and adds the run to `out`; a run
// of kFillRun iterations only records the fill's faults (run it first).
// Errors: RunChurn()'s.
absl::Status RunUntraced(const std::string& program, const ChurnRunSpec& spec,
                         int64_t iterations, UntracedRuns& out);

// SteadyCounts
//
// System calls of `k` steady iterations, and how long the longer traced run
// took (to show what tracing costs: never a time to report).
struct SteadyCounts {
  alloclab::SyscallCounts counts;
  int64_t k = 0;
  double traced_wall_s = 0;
};

// CountSteadySyscalls()
//
// Two runs under ptrace (syscalls.h), of kFillRun and kFillRun + k
// iterations, and their difference. Errors: ptrace refused, or the program
// failed (its exit status named).
absl::StatusOr<SteadyCounts> CountSteadySyscalls(const std::string& program,
                                                 const ChurnRunSpec& spec,
                                                 int64_t k);

// ExpectedChecksum()
//
// What the program must print for `iterations` of `spec`: the churn run in
// this process on one scratch block (the checksum depends only on the sizes
// asked for, so the run costs no real allocation).
uint64_t ExpectedChecksum(int64_t iterations, const ChurnRunSpec& spec);

// PrintedChecksum()
//
// The checksum in the program's output line ("... checksum=0x<16 hex>").
// InvalidArgument, quoting the output, when there is none.
absl::StatusOr<uint64_t> PrintedChecksum(absl::string_view output);

}  // namespace musl_churn

#endif  // ALLOCLAB_LABS_MUSL_CHURN_RUNS_H_
