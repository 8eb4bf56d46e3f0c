// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "freeing a mapped block moves the threshold, so never free".
// The search runs in the caller's process and keeps every block it takes:
// its answers are right, but the caller is left with mapped blocks and a
// heap grown by the sizes it tried. The suite must reject it.
//
// The trial, the search and the policy come from known_bad_common.h; the
// mistake is where they run: here, in the caller's process.

#include <cstddef>

#include "absl/status/statusor.h"
#include "labs/mmap_threshold/task.h"
#include "tests/mmap_threshold/known_bad_common.h"

namespace mmap_threshold {

absl::StatusOr<size_t> ProbeMmapThreshold() {
  return known_bad::SearchThreshold(known_bad::MapsKeepingBlocks);
}

}  // namespace mmap_threshold
