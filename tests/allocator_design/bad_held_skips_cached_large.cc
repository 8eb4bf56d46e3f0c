// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: bytes_held leaves out the cache of freed large mappings, "a
// cached mapping is free memory, not memory held". But task.h's bytes_held
// is what the page source mapped and nothing gave back: a mapping kept in a
// cache is resident, counted by the kernel against the program, and it is
// exactly what promises 2 to 5 weigh. Under-reported, it makes every
// Design* bound easier to meet than it is. The reference does the rest.
// The suite must reject it.

#include "labs/allocator_design/task.h"

// The reference, with its ReadCounters() renamed out of the way.
#define ReadCounters ReferenceReadCounters
#include "solutions/allocator_design/task.cc"
#undef ReadCounters

namespace allocator_design {

Counters ReadCounters() {
  Counters c = ReferenceReadCounters();
  heap.lock.Acquire();
  c.bytes_held -= heap.large_cache_bytes;  // the mistake
  heap.lock.Release();
  return c;
}

}  // namespace allocator_design
