// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: known_bad_common.h
// -----------------------------------------------------------------------------
//
// What the known-bad solutions of this lab have in common, so that each
// bad_*.cc holds only its own mistake. Most of them are a wrong
// ProbeMmapThreshold(), the others a wrong SetMallocPolicy(); to be sure the
// suite rejects each for its mistake and nothing else, they share:
//
//   - a correct SetMallocPolicy() (defined in known_bad_common.cc, weak: a
//     probe known-bad links it as its policy, and a policy known-bad that
//     defines its own SetMallocPolicy() takes the place of it);
//   - a correct probe, CorrectProbe(), for the policy known-bads, and the
//     environment check, FixedByEnvironment(), that a policy needs;
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
//
//   // bad_other.cc: a right probe, and a policy of its own.
//   absl::StatusOr<size_t> ProbeMmapThreshold() {
//     return known_bad::CorrectProbe();
//   }
//   absl::Status SetMallocPolicy(const MallocPolicy& policy) { ... }

#ifndef ALLOCLAB_TESTS_MMAP_THRESHOLD_KNOWN_BAD_COMMON_H_
#define ALLOCLAB_TESTS_MMAP_THRESHOLD_KNOWN_BAD_COMMON_H_

#include <cstddef>
#include <string>

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

// CorrectProbe()
//
// A right ProbeMmapThreshold(): ProbeInForkedCopy() with FailedPrecondition,
// the message naming the largest size tried, when nothing maps.
absl::StatusOr<size_t> CorrectProbe();

// PolicyWithRangeCheck()
//
// SetMallocPolicy() as task.h asks, but for Fixed()'s range check: a
// threshold for which `refused` is true is InvalidArgument. The policy
// known-bads each pass their own check, and keep only that mistake.
absl::Status PolicyWithRangeCheck(const MallocPolicy& policy,
                                  absl::FunctionRef<bool(size_t)> refused);

// FixedByEnvironment()
//
// The setting that fixed the threshold at start-up, so that Dynamic() must
// be refused: one of the four MALLOC_*_ variables (MALLOC_MMAP_THRESHOLD_,
// MALLOC_TRIM_THRESHOLD_, MALLOC_TOP_PAD_, MALLOC_MMAP_MAX_) by name, or the
// GLIBC_TUNABLES entry (glibc.malloc.mmap_threshold=..., trim_threshold,
// top_pad, mmap_max) as written; "" when none is set.
std::string FixedByEnvironment();

}  // namespace known_bad
}  // namespace mmap_threshold

#endif  // ALLOCLAB_TESTS_MMAP_THRESHOLD_KNOWN_BAD_COMMON_H_
