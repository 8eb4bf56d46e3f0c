// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: ThisThreadSlot() returns "my thread's entry in the registry",
// the link that puts the thread's node in the registry's list, not the
// count. The 8 bytes at that address are a pointer that CountAllocation()
// never writes; task.h promises the memory CountAllocation() writes. The
// counter itself is the reference's, exact and on a cache line per thread
// (every node is its own, so the suite's cache-line check of the slots
// still holds). The suite must reject it.

#include "labs/counter_contention/task.h"

// The reference, with its ThisThreadSlot() renamed out of the way.
#define ThisThreadSlot ReferenceThisThreadSlot
#include "solutions/counter_contention/task.cc"
#undef ThisThreadSlot

namespace counter_contention {

const void* ThisThreadSlot() {
  ReferenceThisThreadSlot();  // registers the thread, as the reference does
  return &t_hold.node->next;  // the mistake: the link, not the count
}

}  // namespace counter_contention
