// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "1024 slots are plenty, no program of this course has more
// live threads; any thread beyond them counts in one overflow atomic".
// Each slot is alone in its cache line and keeps its count when its thread
// exits (the next owner counts on in it), so every total is exact and
// never goes down, and up to 1025 threads have lines of their own. But a
// program has as many threads as it starts, not as a table holds: from the
// 1026th live thread on, threads share the overflow counter's line and each
// of their counts is a locked add on it (promises 1 and 4). A table sized
// far past a few hundred passes a suite that stops at a few hundred.

#include <cstdint>

#include "labs/counter_contention/task.h"
#include "tests/counter_contention/lock_free_slots.h"

namespace counter_contention {
namespace {

// The mistake: 1024 slots; the threads past them count in the overflow (the
// table's retired total), all on its one line.
using Counter =
    lock_free_slots::LockFreeSlots<&lock_free_slots::KeepInSlot, 1024>;

}  // namespace

void CountAllocation() { Counter::Count(); }

uint64_t TotalAllocations() { return Counter::Total(); }

const void* ThisThreadSlot() { return Counter::ThisThreadSlot(); }

}  // namespace counter_contention
