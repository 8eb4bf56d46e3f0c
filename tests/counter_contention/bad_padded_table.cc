// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "the experiment's per_thread_padded mode is the fast one, so
// that is my counter" (labs/counter_contention/counters.h). A slot per
// thread, each on its own cache line, counts moved under a lock when a
// thread exits: exact, and never going down. But it has 256 slots, and
// threads beyond them share one overflow atomic: from the 258th live thread
// on, two threads count on one line (promises 1 and 4).

#include "labs/counter_contention/counters.h"
#include "labs/counter_contention/task.h"

namespace counter_contention {

void CountAllocation() { kPadded.count(); }

uint64_t TotalAllocations() { return kPadded.total(); }

const void* ThisThreadSlot() { return PaddedSlot(); }

}  // namespace counter_contention
