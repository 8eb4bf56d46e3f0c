// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "one counter per thread, so no thread writes another's
// counter". True, and every count is exact, but the counters are 8-byte
// slots side by side in one array: eight threads share each cache line, and
// the line moves between their cores on every count as if it were one
// shared counter. The experiment's per_thread_packed mode is this counter.

#include "labs/counter_contention/counters.h"
#include "labs/counter_contention/task.h"

namespace counter_contention {

void CountAllocation() { kPacked.count(); }

uint64_t TotalAllocations() { return kPacked.total(); }

const void* ThisThreadSlot() { return PackedSlot(); }

}  // namespace counter_contention
