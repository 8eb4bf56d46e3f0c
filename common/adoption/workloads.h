// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: workloads.h
// -----------------------------------------------------------------------------
//
// The lab's workloads, the jemalloc thread's benchmarks rebuilt: each one
// stresses the allocator in a different way, and the experiment runs each
// under every allocator (the `workload` binary, one flag each, the
// allocator swapped with LD_PRELOAD as mimalloc-bench does).
//
//   treemap           each thread keeps a std::map of small nodes and
//                     inserts and erases random keys (the thread's core-map
//                     test): small allocations, freed by the thread that
//                     made them, with a live set
//   scalability_8     each thread a tight malloc(8)/free loop, and
//   scalability_1024  the same with 1024 bytes (the linux-scalability test
//                     the thread ran): the fast path alone, per thread
//   msgsend           producers allocate messages, consumers free them,
//                     through a bounded queue: every free is made by a
//                     thread other than the one that allocated (the
//                     thread's msgsend-pipes: 13.30 s -> 7.80 s real)
//   churn             large blocks of random sizes, single-threaded (lab
//                     musl_churn's workload, common/workloads/churn.h)
//   large_blocks      blocks of several MiB (kLargeBlocksMinBytes to
//                     kLargeBlocksMaxBytes), kLargeBlocksLive of them live,
//                     each written page by page, freed and replaced by
//                     another, single-threaded: mimalloc-bench's
//                     malloc-large, the trade of lab mmap_threshold's dynamic
//                     threshold (keep a freed block, or map, fault and
//                     unmap every one)
//
// Example:
//
//   alloclab::adoption::WorkloadParams params;
//   params.threads = 2;
//   params.iterations =
//       alloclab::adoption::DefaultIterations("treemap", false);
//   absl::StatusOr<uint64_t> checksum =
//       alloclab::adoption::RunWorkload("treemap", params);

#ifndef ALLOCLAB_COMMON_ADOPTION_WORKLOADS_H_
#define ALLOCLAB_COMMON_ADOPTION_WORKLOADS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace alloclab::adoption {

// WorkloadNames()
//
// treemap, scalability_8, scalability_1024, msgsend, churn, large_blocks.
const std::vector<std::string>& WorkloadNames();

// kMaxThreads
//
// The most threads a workload runs: beyond any machine the course expects,
// and a bound on what a mistyped flag can start.
inline constexpr int kMaxThreads = 1024;

// WorkloadParams
//
// `threads` 1..kMaxThreads (churn and large_blocks run on one thread
// whatever it says); `iterations`: per thread for treemap and
// scalability_*, messages in all for msgsend, allocations for churn and
// large_blocks.
struct WorkloadParams {
  int threads = 1;
  uint64_t iterations = 0;
  uint64_t seed = 1;
};

// CheckWorkloadName()
//
// OK for a name of WorkloadNames(); InvalidArgument listing them otherwise.
absl::Status CheckWorkloadName(absl::string_view workload);

// DefaultIterations()
//
// The work of one run: about a second under glibc on a 2-core machine of
// 2024 for the full scale. When `quick`, a tenth of it for the workloads
// whose peak RSS does not grow with the work (scalability_*, msgsend); half
// of treemap's, a quarter of large_blocks' and three quarters of churn's,
// whose peak RSS does: with a tenth, churn peaked at 47 MiB under glibc
// against 279 MiB in the full run, and each allocator's RSS ratio to
// glibc's, the memo's budget verdict, was another than the full run's
// (tools/report/quick_full_test.py checks they agree).
uint64_t DefaultIterations(absl::string_view workload, bool quick);

// Operations()
//
// The operations of a run, for per-operation figures (system calls per
// operation): its iterations over all its threads. treemap and
// scalability_* run `iterations` on each of `threads` threads (an insert or
// an erase; a malloc and its free); msgsend's iterations are its messages
// in all (each a malloc and a free), churn's and large_blocks' their
// allocations (one thread).
uint64_t Operations(absl::string_view workload, int threads,
                    uint64_t iterations);

// kChurnScale
//
// churn's bytes per size step: 1 KiB, blocks of 1 KiB to 256 KiB, as in the
// musl thread.
inline constexpr uint64_t kChurnScale = 1024;

// kLargeBlocksMinBytes, kLargeBlocksMaxBytes, kLargeBlocksLive
//
// large_blocks' blocks: sizes uniform in [kLargeBlocksMinBytes,
// kLargeBlocksMaxBytes], far above every allocator's first large-block
// threshold (glibc's 128 KiB, lab mmap_threshold) and below glibc's
// largest dynamic one (32 MiB on 64-bit); kLargeBlocksLive of them live at
// once (mimalloc-bench's malloc-large, in the version of 5 to 25 MiB with
// up to 20 live, makes each new block before it frees the one it replaces;
// here the old one goes first, as a program that is done with it would).
inline constexpr uint64_t kLargeBlocksMinBytes = uint64_t{1} << 20;
inline constexpr uint64_t kLargeBlocksMaxBytes = uint64_t{16} << 20;
inline constexpr int kLargeBlocksLive = 4;

// kLargeBlocksTouchStride
//
// large_blocks writes one byte every this many bytes of a new block: every
// 4 KiB page, as a program that fills its buffer touches each one (a page
// fault each, where the block is fresh from the kernel).
inline constexpr uint64_t kLargeBlocksTouchStride = 4096;

// RunWorkload()
//
// Runs `workload` and returns a checksum of its work (the same for every
// allocator, given the same params). InvalidArgument for an unknown name
// (CheckWorkloadName()), threads outside 1..kMaxThreads or iterations < 1;
// Internal when an allocation fails.
absl::StatusOr<uint64_t> RunWorkload(absl::string_view workload,
                                     const WorkloadParams& params);

}  // namespace alloclab::adoption

#endif  // ALLOCLAB_COMMON_ADOPTION_WORKLOADS_H_
