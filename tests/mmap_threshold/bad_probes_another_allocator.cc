// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: the right search in a forked copy, FailedPrecondition naming
// the size when nothing maps, but no question of who serves malloc: under
// another allocator (jemalloc preloaded, as lab jemalloc_adoption runs it)
// it searches that allocator's mappings as if they were glibc's and reports
// whatever it finds. task.h promises FailedPrecondition where malloc is
// replaced by another allocator. The suite must reject it.
//
// The trial, the search and the copy come from known_bad_common.h,
// the policy from the reference; the mistake is the missing question.

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
    return absl::FailedPreconditionError(
        absl::StrCat("malloc mapped no block of up to ", largest_tried,
                     " bytes: mmap is off or the threshold fixed above"));
  });
}

}  // namespace mmap_threshold
