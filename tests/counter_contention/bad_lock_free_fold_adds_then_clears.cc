// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "no lock anywhere: an exiting thread adds its slot's count to
// the atomic retired total, then clears its slot" (the slot table and the
// lock-free TotalAllocations() are lock_free_slots.h's). Each step is
// atomic, every total read after join() is exact and no count is lost; but
// between the two atomics the count is in the slot and in the retired total
// at once. A reader in that window counts it twice, and the next reading,
// after the clear, is lower: the total went down (promise 2). The window is
// one instruction wide, and a test that stops the thread only at mutex
// calls never lands in it; the suite's stepped exit does, on every run.

#include <atomic>
#include <cstdint>

#include "labs/counter_contention/task.h"
#include "tests/counter_contention/lock_free_slots.h"

namespace counter_contention {
namespace {

// How an exiting thread moves its count out of its slot.
void Fold(std::atomic<uint64_t>& slot, std::atomic<uint64_t>& retired) {
  retired.fetch_add(slot.load(std::memory_order_relaxed),
                    std::memory_order_relaxed);
  // The mistake: until this store, the count is in both places.
  slot.store(0, std::memory_order_relaxed);
}

using Counter = lock_free_slots::LockFreeSlots<&Fold>;

}  // namespace

void CountAllocation() { Counter::Count(); }

uint64_t TotalAllocations() { return Counter::Total(); }

const void* ThisThreadSlot() { return Counter::ThisThreadSlot(); }

}  // namespace counter_contention
