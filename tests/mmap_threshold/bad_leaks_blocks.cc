// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "freeing a mapped block moves the threshold, so never free".
// The search runs in the caller's process and keeps every block it takes:
// its answers are right, but the caller is left with mapped blocks and a
// heap grown by the sizes it tried. The suite must reject it.
//
// The trial and the search come from known_bad_common.h, the policy from the
// reference; the mistake is where they run: here, in the caller's process.

#include <cstddef>

#include "absl/status/statusor.h"
#include "labs/mmap_threshold/task.h"
#include "tests/mmap_threshold/known_bad_common.h"

// The reference, with its ProbeMmapThreshold() renamed out of the way.
#define ProbeMmapThreshold ReferenceProbeMmapThreshold
#include "solutions/mmap_threshold/task.cc"
#undef ProbeMmapThreshold

namespace mmap_threshold {

absl::StatusOr<size_t> ProbeMmapThreshold() {
  return known_bad::SearchThreshold(known_bad::MapsKeepingBlocks);
}

}  // namespace mmap_threshold
