// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "the threshold is where malloc stops using the heap", so the
// probe returns the largest page multiple that did *not* map, one page
// below the smallest one that did. It runs the right search in a forked
// copy of the caller, so the heap is left alone, and every answer is within
// a page of the truth; but task.h promises the smallest multiple of the
// page size that maps (in a fresh process, kDefaultMmapThreshold itself,
// not 126976). The suite must reject it.
//
// The trial and the search come from known_bad_common.h, the policy from the
// reference; the mistake is the page it returns.

#include <unistd.h>

#include <cstddef>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/harness/fresh_process.h"
#include "labs/mmap_threshold/task.h"
#include "tests/mmap_threshold/known_bad_common.h"

// The reference, with its ProbeMmapThreshold() renamed out of the way.
#define ProbeMmapThreshold ReferenceProbeMmapThreshold
#include "solutions/mmap_threshold/task.cc"
#undef ProbeMmapThreshold

namespace mmap_threshold {

absl::StatusOr<size_t> ProbeMmapThreshold() {
  absl::StatusOr<size_t> found = alloclab::RunInForkedChild<size_t>([] {
    absl::StatusOr<size_t> t =
        known_bad::SearchThreshold(known_bad::MapsKeepingBlocks);
    return t.ok() ? *t : size_t{0};
  });
  if (!found.ok()) return found.status();
  if (*found == 0) return absl::InternalError("the search failed");
  return *found - static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace mmap_threshold
