// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: known_bad_common.h
// -----------------------------------------------------------------------------
//
// The probe machinery of this lab's probe known-bads, so that each
// bad_*.cc holds only its own mistake: each includes the reference with its
// ProbeMmapThreshold() renamed out of the way (docs/adding_a_lab.md, section
// 5) and builds its own wrong probe from these parts:
//
//   - a trial that answers "does malloc(size) map?" by taking the heap's
//     top chunk first, as a right probe must, and keeps what it takes;
//   - the binary search over whole pages that turns trials into a
//     threshold;
//   - the search in a forked copy of the process.
//
// The parts are not the reference's own: the probe known-bads must not pass
// because they borrowed the right answer. The policy known-bads need none
// of it: they take the reference's probe and rename its SetMallocPolicy().
//
// Example:
//
//   // bad_something.cc: a probe that runs the trials where it should not.
//   absl::StatusOr<size_t> ProbeMmapThreshold() {
//     return known_bad::SearchThreshold(known_bad::MapsKeepingBlocks);
//   }

#ifndef ALLOCLAB_TESTS_MMAP_THRESHOLD_KNOWN_BAD_COMMON_H_
#define ALLOCLAB_TESTS_MMAP_THRESHOLD_KNOWN_BAD_COMMON_H_

#include <cstddef>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "labs/mmap_threshold/task.h"

namespace mmap_threshold {
namespace known_bad {

// MapsKeepingBlocks()
//
// 1 if malloc(size) got a mapping of its own once the heap's top chunk was
// used up, 0 if it grew the heap instead, -1 if free chunks kept serving it
// for 64 attempts. Each attempt takes the top chunk and the requested block
// and keeps both, for good: right in a process that is thrown away
// afterwards, wrong in the caller's.
int MapsKeepingBlocks(size_t size);

// SearchThreshold()
//
// The smallest multiple of the page size for which `maps` (a trial like
// MapsKeepingBlocks()) answers 1: sizes double from twice kMmapThresholdMax
// until one maps, then a binary search; every trial runs in this process.
// Internal error when a trial answers -1, or nothing maps up to 1 TiB; then
// `largest_tried`, when given, is set to the last size asked about.
absl::StatusOr<size_t> SearchThreshold(absl::FunctionRef<int(size_t)> maps,
                                       size_t* largest_tried = nullptr);

// ProbeInForkedCopy()
//
// SearchThreshold(MapsKeepingBlocks) in a forked copy of this process, so
// the caller's heap and threshold are left as found. When the search finds
// nothing that maps, returns `nothing_maps(largest_tried)`; Internal when
// the copy gives no answer.
absl::StatusOr<size_t> ProbeInForkedCopy(
    absl::FunctionRef<absl::Status(size_t largest_tried)> nothing_maps);

}  // namespace known_bad
}  // namespace mmap_threshold

#endif  // ALLOCLAB_TESTS_MMAP_THRESHOLD_KNOWN_BAD_COMMON_H_
