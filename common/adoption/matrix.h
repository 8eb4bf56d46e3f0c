// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: matrix.h
// -----------------------------------------------------------------------------
//
// Lab jemalloc_adoption's allocator matrix, the one runner of the course's
// allocator comparisons: every workload (workloads.h) as a child process
// under every allocator (LD_PRELOAD, as mimalloc-bench does), the rows
// interleaved within each repetition, each run measured from outside (wall,
// user and system time, peak RSS, RSS over time) and verified: a row counts
// only when the child's malloc really came from the allocator asked for
// (allocator_probe.h). Then each row is compared with glibc's by the
// CompareTimings() it is given (a ratio, its interval, a verdict, and the
// course's exact Hodges-Lehmann interval beside it), and the Recommend() it
// is given turns the table into the decision memo.
//
// Lab jemalloc_adoption runs it with the learner's task.h functions and
// jemalloc's MALLOC_CONF rows; lab allocator_design with lab
// jemalloc_adoption's reference functions, the learner's own allocator as
// one more row, and one extra run per row under ptrace that counts its
// system calls (syscalls.h; never timed).
//
// Example:
//
//   alloclab::adoption::MatrixSpec spec;
//   spec.workloads = {"treemap", "msgsend"};
//   spec.allocators = {{"glibc", ""}, {"jemalloc", jemalloc_path}};
//   spec.compare = alloclab::adoption::CompareTimings;
//   spec.recommend = alloclab::adoption::Recommend;
//   absl::StatusOr<alloclab::adoption::MatrixResult> m =
//       alloclab::adoption::RunMatrix(lab, spec);
//   // lab.results() has the rows, the notes and the plots;
//   // m->Find("msgsend_jemalloc")->vs_baseline->ratio, m->recommendation

#ifndef ALLOCLAB_COMMON_ADOPTION_MATRIX_H_
#define ALLOCLAB_COMMON_ADOPTION_MATRIX_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "common/adoption/verdict.h"
#include "common/harness/experiment.h"

namespace alloclab::adoption {

// kMaxIterationsScale
//
// The largest --iterations_scale: no iteration count overflows.
inline constexpr double kMaxIterationsScale = 1000;

// MatrixFlags
//
// The flags every matrix experiment takes, as given (checked by
// CheckMatrixFlags()). `tuning_workload` is empty where a lab has no
// jemalloc MALLOC_CONF rows.
struct MatrixFlags {
  std::string workloads;
  std::string allocators;
  int threads = 0;
  double iterations_scale = 1;
  std::string tuning_workload = {};
  int rss_interval_ms = 20;
};

// CheckMatrixFlags()
//
// Refuses, before any run and with a message that says what to change: too
// few --repetitions for a comparison; an empty, repeated or unknown entry of
// --workloads or --allocators (`check_allocator` says which names are
// known); --allocators without glibc; tuning rows without the row they are
// compared with; threads, scale or RSS interval out of range.
absl::Status CheckMatrixFlags(
    const alloclab::LabOptions& options, const MatrixFlags& flags,
    const std::function<absl::Status(absl::string_view)>& check_allocator);

// MatrixAllocator
//
// One allocator of the matrix: its name (as the probe names who serves
// malloc: "glibc", "jemalloc", ..., "yours") and the library to preload
// ("" for glibc).
struct MatrixAllocator {
  std::string name;
  std::string library;
};

// CompareFunction / RecommendFunction
//
// task.h's CompareTimings() and Recommend(): the learner's, or the
// reference's.
using CompareFunction = std::function<absl::StatusOr<Comparison>(
    absl::Span<const double>, absl::Span<const double>, uint64_t)>;
using RecommendFunction = std::function<absl::StatusOr<Recommendation>(
    absl::Span<const Measurement>, double, uint64_t)>;

// MatrixSpec
//
// What to run. `workloads` and `allocators` in table order (kBaseline
// among the allocators); jemalloc's MALLOC_CONF rows on `tuning_workload`
// when it is not empty and jemalloc is one of `allocators`.
// `count_syscalls`: one more run per row under ptrace, for the system
// calls per operation.
struct MatrixSpec {
  std::vector<std::string> workloads = {};
  std::vector<MatrixAllocator> allocators = {};
  std::string tuning_workload = {};
  int threads = 0;
  double iterations_scale = 1;
  int rss_interval_ms = 20;
  bool count_syscalls = false;
  CompareFunction compare = nullptr;
  RecommendFunction recommend = nullptr;
};

// MatrixColumns()
//
// The table's columns, for the lab's LabSpec: time, memory, the comparison
// with glibc, verification; with `syscalls`, the system calls per operation
// after them.
std::vector<alloclab::Column> MatrixColumns(bool syscalls);

// MatrixRow
//
// What one row measured, for the lab's headline and notes. `vs_baseline`
// and `rss_ratio` compare with the row of the same workload under `vs`
// (kBaseline; jemalloc for the MALLOC_CONF rows): nullopt for a baseline
// row. `syscalls_per_op`: all system calls of the ptrace-counted run over
// its operations (workloads.h's Operations()); `memory_syscalls_per_op`:
// mmap, munmap, brk, madvise and mremap only; nullopt when not counted.
struct MatrixRow {
  std::string variant;
  std::string workload;
  std::string allocator;
  std::string malloc_conf;
  std::string vs;
  bool verified = false;
  double peak_rss_kib = 0;
  std::optional<Comparison> vs_baseline;
  std::optional<double> rss_ratio;
  std::optional<double> syscalls_per_op;
  std::optional<double> memory_syscalls_per_op;
};

// MatrixResult
//
// Every row in table order, the recommendation of `MatrixSpec::recommend`
// over the default rows (no MALLOC_CONF rows), and the table it was made
// from, for a lab that asks it another question.
struct MatrixResult {
  std::vector<MatrixRow> rows;
  std::vector<Measurement> table;
  Recommendation recommendation;
  int threads = 0;  // as the children reported them

  // The row `variant`, or nullptr.
  const MatrixRow* Find(absl::string_view variant) const;
};

// RunMatrix()
//
// Runs `spec` (lab.options(): --quick scales the workloads down,
// --repetitions sets the runs per row, at least kMinRepetitions) and adds to
// lab.results() every row, the line "recommendation: ..." above the table,
// the decision memo's notes (the recommendation and its reasons, what would
// change it, how stable it is), the notes on peak RSS and on the HL
// interval, and the plots (wall time against peak RSS; RSS over time).
// Errors name the row: a child failed or did not report its provider or
// peak, or the comparison refused a row. When the kernel refuses ptrace,
// the system call columns read n/a and a note says why.
absl::StatusOr<MatrixResult> RunMatrix(alloclab::Lab& lab,
                                       const MatrixSpec& spec);

}  // namespace alloclab::adoption

#endif  // ALLOCLAB_COMMON_ADOPTION_MATRIX_H_
