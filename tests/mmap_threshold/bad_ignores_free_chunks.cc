// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: the probe that knows two outcomes. It works in a forked copy
// and takes the top chunk before each request, as it should, but it reads
// "hblks did not grow" as "the heap grew". On a heap with a free chunk big
// enough to serve the request, neither grew: the free chunk answered, and
// says nothing about the threshold. This probe takes that for "below the
// threshold" and reports one too high. The suite must reject it, on a heap
// full of holes.
//
// The search comes from known_bad_common.h, the policy from the reference;
// the mistake is all in MapsOrElseHeap().

#include <malloc.h>

#include <cstddef>
#include <cstdlib>

#include "absl/status/statusor.h"
#include "common/harness/fresh_process.h"
#include "common/instruments/sink.h"
#include "labs/mmap_threshold/task.h"
#include "tests/mmap_threshold/known_bad_common.h"

// The reference, with its ProbeMmapThreshold() renamed out of the way.
#define ProbeMmapThreshold ReferenceProbeMmapThreshold
#include "solutions/mmap_threshold/task.cc"
#undef ProbeMmapThreshold

namespace mmap_threshold {
namespace {

// 1: malloc(size) mapped once the top chunk was used up; 0: anything else.
int MapsOrElseHeap(size_t size) {
  const size_t top = mallinfo2().keepcost;
  if (top > 40) alloclab::Escape(malloc(top - 40));
  const size_t mapped_before = mallinfo2().hblks;
  alloclab::Escape(malloc(size));
  return mallinfo2().hblks > mapped_before ? 1 : 0;
}

// What the forked copy sends back: 0 when the search failed.
size_t SearchInThisCopy() {
  alloclab::Escape(malloc(1));
  absl::StatusOr<size_t> threshold = known_bad::SearchThreshold(MapsOrElseHeap);
  return threshold.ok() ? *threshold : 0;
}

}  // namespace

absl::StatusOr<size_t> ProbeMmapThreshold() {
  absl::StatusOr<size_t> threshold =
      alloclab::RunInForkedChild<size_t>(SearchInThisCopy);
  if (!threshold.ok()) return threshold.status();
  if (*threshold == 0) return absl::InternalError("the search failed");
  return *threshold;
}

}  // namespace mmap_threshold
