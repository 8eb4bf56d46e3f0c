// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "each thread has its own slot, on its own cache line, and the
// total sums the slots of the threads that hold one". Fast, and exact
// while every thread runs; but a thread that exits gives its slot back
// emptied, its count with it, so a total read after join() has lost every
// count of the joined threads.

#include <atomic>
#include <cstdint>

#include "labs/counter_contention/task.h"
#include "tests/counter_contention/lock_free_slots.h"

namespace counter_contention {
namespace {

// How an exiting thread moves its count out of its slot.
void Fold(std::atomic<uint64_t>& slot, std::atomic<uint64_t>& retired) {
  (void)retired;
  // The mistake: the count goes nowhere.
  slot.store(0, std::memory_order_relaxed);
}

using Counter = lock_free_slots::LockFreeSlots<&Fold>;

}  // namespace

void CountAllocation() { Counter::Count(); }

uint64_t TotalAllocations() { return Counter::Total(); }

const void* ThisThreadSlot() { return Counter::ThisThreadSlot(); }

}  // namespace counter_contention
