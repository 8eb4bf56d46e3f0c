// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: task.h
// -----------------------------------------------------------------------------
//
// Lab mmap_threshold, your task: two tools for looking at glibc's mmap
// threshold, the size above which malloc gives a request a mapping of its
// own (mmap) instead of memory from the heap.
//
//   1. ProbeMmapThreshold() finds the threshold that applies in this process
//      right now, only by watching what malloc does: no glibc internals.
//   2. SetMallocPolicy() chooses between glibc's default, where the
//      threshold moves up when a mapped block is freed, and a fixed
//      threshold (mallopt(3)).
//
// The experiment uses both to answer the lab's question: why do 1,000
// allocations of 256 KiB, twice the documented threshold, make almost no
// system call (docs/labs/mmap_threshold.md)?
// `bazel test //tests/mmap_threshold:starter_test` checks your task.cc.
//
// Example:
//
//   absl::StatusOr<size_t> t = mmap_threshold::ProbeMmapThreshold();
//   // *t == mmap_threshold::kDefaultMmapThreshold in a fresh process
//   void* p = malloc(256 << 10);   // mapped: 256 KiB > 128 KiB
//   free(p);                       // ... and the threshold moves up
//   t = mmap_threshold::ProbeMmapThreshold();
//   // *t >= 256 KiB now
//
//   absl::Status s = mmap_threshold::SetMallocPolicy(
//       mmap_threshold::MallocPolicy::Fixed(128 << 10));
//   // from now on every malloc of 256 KiB maps, and every free unmaps

#ifndef ALLOCLAB_LABS_MMAP_THRESHOLD_TASK_H_
#define ALLOCLAB_LABS_MMAP_THRESHOLD_TASK_H_

#include <cstddef>
#include <limits>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "labs/mmap_threshold/workloads.h"

namespace mmap_threshold {

// kDefaultMmapThreshold
//
// The threshold a glibc process starts with (mallopt(3), M_MMAP_THRESHOLD):
// 128 KiB.
inline constexpr size_t kDefaultMmapThreshold = 128 * 1024;

// kMmapThresholdMax
//
// The ceiling of glibc's dynamic adjustment on 64-bit systems (glibc's
// DEFAULT_MMAP_THRESHOLD_MAX, 32 MiB): freeing a mapped block larger than
// this leaves the threshold where it was. From glibc 2.35 on it is not a
// limit on a fixed threshold: 2.35+ accepts mallopt(M_MMAP_THRESHOLD) well
// above it (64 MiB and 1 GiB take effect), although mallopt(3) still calls
// it the upper limit. glibc 2.34 and earlier refuse a fixed threshold above
// it (HEAP_MAX_SIZE / 2), through mallopt() and the tunable alike
// (common/machine/versions.h keeps that rule:
// GlibcAcceptsFixedThresholdAbove32MiB).
inline constexpr size_t kMmapThresholdMax = 32 * 1024 * 1024;

// kFixedThresholdMax
//
// The largest threshold SetMallocPolicy() can fix: mallopt() takes the value
// as an int, so INT_MAX bytes (2 GiB - 1). The environment can fix larger
// ones (GLIBC_TUNABLES=glibc.malloc.mmap_threshold=...).
inline constexpr size_t kFixedThresholdMax =
    static_cast<size_t>(std::numeric_limits<int>::max());

// ProbeMmapThreshold()
//
// Returns the mmap threshold glibc's malloc applies in this process now, to
// page granularity: the smallest multiple of the page size `s` such that
// malloc(s) gets a mapping of its own when the heap has no free memory left
// to serve it from (exactly that one: a page less, the largest size that
// does not map, is a different answer). In a fresh process that is
// kDefaultMmapThreshold; a fixed threshold can be anything up to what the
// machine can allocate (glibc 2.35+; a test fixes 100 MiB there and expects to
// find it).
//
// Only what malloc does may be observed (mallinfo2(3) is allowed); no glibc
// internal structure or symbol may be read.
//
// Leaves this process's heap as it found it: afterwards malloc has mapped
// the same blocks (mallinfo2().hblks and .hblkhd), the heap has the same size
// (mallinfo2().arena), and the threshold is where it was. Careful: freeing a
// mapped block is exactly what moves the threshold. The heap may hold free
// chunks (a test probes one full of holes): a request they serve says
// nothing about the threshold.
//
// Probes the main heap: call it from a program's main thread, with no other
// thread allocating meanwhile.
//
// Errors: FailedPrecondition when malloc maps no block at all, up to the
// largest this machine would allocate (mmap switched off with
// M_MMAP_MAX = 0, a threshold fixed above that size, or malloc replaced by
// another allocator), the message naming the size up to which nothing
// mapped (in bytes, or with a unit: "128 MiB"), or the allocator that
// replaced glibc's malloc by its name ("jemalloc"); Internal when the probe
// itself failed (e.g. fork), with the reason.
absl::StatusOr<size_t> ProbeMmapThreshold();

// MallocPolicy
//
// How glibc chooses between heap and mmap for large requests.
//
//   Dynamic()   glibc's default: the threshold starts at
//               kDefaultMmapThreshold, and freeing a mapped block larger
//               than the threshold (up to kMmapThresholdMax) raises it to
//               that block's size, and the trim threshold to twice that.
//   Fixed(t)    the threshold stays at `t` bytes, whatever is freed; `t`
//               may be above kMmapThresholdMax (up to kFixedThresholdMax)
//               where glibc is 2.35 or later; 2.34 and earlier refuse it.
struct MallocPolicy {
  enum class Kind { kDynamic, kFixed };

  static MallocPolicy Dynamic() { return {Kind::kDynamic, 0}; }
  static MallocPolicy Fixed(size_t threshold_bytes) {
    return {Kind::kFixed, threshold_bytes};
  }

  Kind kind = Kind::kDynamic;
  size_t threshold_bytes = 0;  // kFixed only
};

// SetMallocPolicy()
//
// Makes `policy` the one in force for the rest of this process. glibc has no
// way back: once anything fixes the threshold (this function, mallopt() with
// M_MMAP_THRESHOLD, M_TRIM_THRESHOLD, M_TOP_PAD or M_MMAP_MAX, or the
// matching GLIBC_TUNABLES at start-up), the adjustment is off for good. So
// choose the policy at the start of a process, before it allocates anything
// large.
//
// Errors:
//   - InvalidArgument: Fixed() with a threshold above kFixedThresholdMax,
//     which mallopt() cannot take.
//   - FailedPrecondition: Dynamic() in a process where the adjustment is
//     already off: SetMallocPolicy() fixed the threshold earlier, or the
//     environment sets one of the four tunables (GLIBC_TUNABLES, or the
//     older MALLOC_MMAP_THRESHOLD_-style variables). The message names the
//     cause: the tunable ("mmap_threshold") or the variable
//     ("MALLOC_MMAP_THRESHOLD_") that is set, in any letter case.
//   - Internal: glibc refused the setting.
absl::Status SetMallocPolicy(const MallocPolicy& policy);

}  // namespace mmap_threshold

#endif  // ALLOCLAB_LABS_MMAP_THRESHOLD_TASK_H_
