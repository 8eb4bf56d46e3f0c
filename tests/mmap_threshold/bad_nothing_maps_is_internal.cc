// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: when the search finds no size that maps, "the probe failed",
// so it returns Internal, naming the size it stopped at. It runs the right
// search in a forked copy, finds every threshold there is, and no test that
// leaves mmap switched on can tell; but task.h promises FailedPrecondition
// when malloc maps no block at all (mmap switched off with M_MMAP_MAX = 0):
// Internal is for a probe that itself failed. The suite must reject it.
//
// The trial, the search and the copy come from known_bad_common.h,
// the policy from the reference; the mistake is the status.

#include <cstddef>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "labs/mmap_threshold/task.h"
#include "tests/mmap_threshold/known_bad_common.h"

// The reference, with its ProbeMmapThreshold() renamed out of the way.
#define ProbeMmapThreshold ReferenceProbeMmapThreshold
#include "solutions/mmap_threshold/task.cc"
#undef ProbeMmapThreshold

namespace mmap_threshold {

absl::StatusOr<size_t> ProbeMmapThreshold() {
  return known_bad::ProbeInForkedCopy([](size_t largest_tried) {
    return absl::InternalError(
        absl::StrCat("threshold probe failed: nothing mapped up to ",
                     largest_tried, " bytes"));
  });
}

}  // namespace mmap_threshold
