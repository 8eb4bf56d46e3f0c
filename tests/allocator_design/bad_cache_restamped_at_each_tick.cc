// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad, a learner's, written from task.h in one sitting: a thread's
// cache counts its idle time from the thread's last look at the clock.
// Every tick re-stamps the blocks in the cache as freed now, so the cache
// goes back only when a thread went kDecayNs / 2 between two ticks. A
// thread that freed 64 MiB and keeps calling, the clock moving a little
// between its ticks, keeps what it freed seconds ago: 17 MiB held where
// kIdleHeldBytes is 4 MiB, in the learner's allocator. The suite's decay
// tests moved the clock in one jump, past every stamp. The reference
// stamps the cache when it flushes it, not when it ticks. The reference
// does the rest. The suite must reject it.

#include <cstddef>

#include "labs/allocator_design/task.h"

// The reference, with its Allocate() and Free() renamed out of the way.
#define Allocate ReferenceAllocate
#define Free ReferenceFree
#include "solutions/allocator_design/task.cc"
#undef Allocate
#undef Free

namespace allocator_design {
namespace {

// The mistake: a call that ticked (its count is back at kDecayCheckOps)
// re-stamps the cache.
void RestampIfTicked() {
  if (tc.armed && tc.ticks_left == kDecayCheckOps) tc.flushed_ns = NowNs();
}

}  // namespace

void* Allocate(size_t size, size_t alignment, bool zero) {
  void* block = ReferenceAllocate(size, alignment, zero);
  RestampIfTicked();
  return block;
}

void Free(void* block) {
  ReferenceFree(block);
  RestampIfTicked();
}

}  // namespace allocator_design
