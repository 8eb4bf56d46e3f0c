// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: known_bad_common.h
// -----------------------------------------------------------------------------
//
// What the known-bad solutions of this lab have in common, so that each
// bad_*.cc holds only its own mistake. Every one of them is a wrong
// ProbeMmapThreshold(); to be sure the suite rejects it for the probe and
// nothing else, they share:
//
//   - a correct SetMallocPolicy() (defined in known_bad_common.cc: linking
//     this library gives a known-bad its policy);
//   - a trial that answers "does malloc(size) map?" by taking the heap's
//     top chunk first, as a right probe must, and keeps what it takes;
//   - the binary search over whole pages that turns trials into a
//     threshold.
//
// Deliberately not built on solutions/mmap_threshold: the reference stays
// a program a learner reads from top to bottom, and the known-bads must not
// pass because they borrowed the right answer.
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
#include "absl/status/statusor.h"

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
// Internal error when a trial answers -1, or nothing maps up to 1 TiB.
absl::StatusOr<size_t> SearchThreshold(absl::FunctionRef<int(size_t)> maps);

}  // namespace known_bad
}  // namespace mmap_threshold

#endif  // ALLOCLAB_TESTS_MMAP_THRESHOLD_KNOWN_BAD_COMMON_H_
