// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "eight slots are plenty, the machine has no more cores; any
// thread beyond them counts in one overflow atomic". Each of the eight
// slots is alone in its cache line and keeps its count when its thread
// exits (the next owner counts on in it), so every total is exact and
// never goes down, and up to nine threads have nine lines. But a program
// has as many threads as it starts, not as the machine has cores: from the
// tenth live thread on, threads share the overflow counter's line and each
// of their counts is a locked add on it (promises 1 and 4).

#include <cstdint>

#include "labs/counter_contention/task.h"
#include "tests/counter_contention/lock_free_slots.h"

namespace counter_contention {
namespace {

// The mistake: eight slots; the threads past them count in the overflow (the
// table's retired total), all on its one line.
using Counter = lock_free_slots::LockFreeSlots<&lock_free_slots::KeepInSlot, 8>;

}  // namespace

void CountAllocation() { Counter::Count(); }

uint64_t TotalAllocations() { return Counter::Total(); }

const void* ThisThreadSlot() { return Counter::ThisThreadSlot(); }

}  // namespace counter_contention
