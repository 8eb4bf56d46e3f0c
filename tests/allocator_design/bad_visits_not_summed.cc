// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: ReadCounters() sums the page heap's central visits and forgets
// the size classes' own counters, each kept on its class's line (lab
// counter_contention's lesson, half applied). Every refill and drain of a
// thread cache goes uncounted, and promise 1's "at most one central visit
// per kOpsPerCentralVisit operations" holds for any allocator, however
// often it takes the central locks. The reference does the rest. The suite
// must reject it.

#include "labs/allocator_design/task.h"

// The reference, with its ReadCounters() renamed out of the way.
#define ReadCounters ReferenceReadCounters
#include "solutions/allocator_design/task.cc"
#undef ReadCounters

namespace allocator_design {

Counters ReadCounters() {
  Counters c = ReferenceReadCounters();
  heap.lock.Acquire();
  c.central_visits = heap.visits;  // the mistake: central[c].visits left out
  heap.lock.Release();
  return c;
}

}  // namespace allocator_design
