// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: gives memory back and forgets to say so. ReadCounters()
// reports no bytes returned, whatever was unmapped or released: the
// experiment's table and the chapter would say the allocator never gives
// anything back. The reference does the rest. The suite must reject it.

#include "labs/allocator_design/task.h"

// The reference, with its ReadCounters() renamed out of the way.
#define ReadCounters ReferenceReadCounters
#include "solutions/allocator_design/task.cc"
#undef ReadCounters

namespace allocator_design {

Counters ReadCounters() {
  Counters c = ReferenceReadCounters();
  c.bytes_returned = 0;
  return c;
}

}  // namespace allocator_design
