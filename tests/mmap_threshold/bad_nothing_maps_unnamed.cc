// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: when nothing maps, FailedPrecondition "malloc never maps (mmap
// switched off?)": the right code, and a message that explains, but it
// names no size, so the caller cannot tell how far the probe looked (a
// fixed threshold can be far above the 32 MiB ceiling). task.h promises the
// message names the size. The suite must reject it.
//
// The trial, the search and the copy come from known_bad_common.h,
// the policy from the reference; the mistake is the message.

#include <cstddef>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "labs/mmap_threshold/task.h"
#include "tests/mmap_threshold/known_bad_common.h"

// The reference, with its ProbeMmapThreshold() renamed out of the way.
#define ProbeMmapThreshold ReferenceProbeMmapThreshold
#include "solutions/mmap_threshold/task.cc"
#undef ProbeMmapThreshold

namespace mmap_threshold {

absl::StatusOr<size_t> ProbeMmapThreshold() {
  return known_bad::ProbeInForkedCopy([](size_t) {
    return absl::FailedPreconditionError(
        "malloc never maps (mmap switched off?)");
  });
}

}  // namespace mmap_threshold
