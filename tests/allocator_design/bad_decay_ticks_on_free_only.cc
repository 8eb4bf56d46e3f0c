// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: the decay's clock is read on frees only, "memory becomes idle
// when it is freed, so that is where to look". A thread that, after its
// frees, only allocates (it builds up a new structure, a cache, a queue)
// never looks at the clock again, and whatever the earlier frees left idle
// stays held however long it sits. task.h's promise 2 counts calls, any
// calls. Here an Allocate() leaves the reference's call countdown as it
// found it. The reference does the rest. The suite must reject it.

#include <cstdint>

#include "labs/allocator_design/task.h"

// The reference, with its Allocate() renamed out of the way.
#define Allocate ReferenceAllocate
#include "solutions/allocator_design/task.cc"
#undef Allocate

namespace allocator_design {

void* Allocate(size_t size, size_t alignment, bool zero) {
  const uint32_t ticks_left = tc.ticks_left;
  void* block = ReferenceAllocate(size, alignment, zero);
  tc.ticks_left = ticks_left;  // the mistake: an allocation does not count
  return block;
}

}  // namespace allocator_design
