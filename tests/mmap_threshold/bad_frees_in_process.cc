// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: the tidy probe. It runs in the caller's process and frees
// every block it took, so no block is left behind; but each free of a
// mapped block raises the threshold it is searching for, so the search
// chases its own tail and the caller's threshold ends up moved. The suite
// must reject it.
//
// The search comes from known_bad_common.h, the policy from the
// reference, Escape() from common/instruments/sink.h; the mistake is all in
// Maps().

#include <malloc.h>

#include <cstddef>
#include <cstdlib>

#include "absl/status/statusor.h"
#include "common/instruments/sink.h"
#include "labs/mmap_threshold/task.h"
#include "tests/mmap_threshold/known_bad_common.h"

// The reference, with its ProbeMmapThreshold() renamed out of the way.
#define ProbeMmapThreshold ReferenceProbeMmapThreshold
#include "solutions/mmap_threshold/task.cc"
#undef ProbeMmapThreshold

namespace mmap_threshold {
namespace {

using alloclab::Escape;

// 1: malloc(size) mapped once the top chunk was used up; 0: the heap grew.
// Frees both blocks before it answers.
int Maps(size_t size) {
  const size_t top = mallinfo2().keepcost;
  void* top_block = top > 40 ? malloc(top - 40) : nullptr;
  Escape(top_block);
  const struct mallinfo2 before = mallinfo2();
  void* block = malloc(size);
  Escape(block);
  const struct mallinfo2 after = mallinfo2();
  free(block);
  free(top_block);
  return after.hblks > before.hblks ? 1 : 0;
}

}  // namespace

absl::StatusOr<size_t> ProbeMmapThreshold() {
  return known_bad::SearchThreshold(Maps);
}

}  // namespace mmap_threshold
