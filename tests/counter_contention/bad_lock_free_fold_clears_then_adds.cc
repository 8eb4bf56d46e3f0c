// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "no lock anywhere, and never count twice: an exiting thread
// takes its slot's count with an atomic exchange (the slot is zero from
// then on), then adds what it took to the atomic retired total" (the slot
// table and the lock-free TotalAllocations() are lock_free_slots.h's). No
// count is ever in two places, and every total read after join() is exact;
// but between the two atomics the count is in neither place. A reader in
// that window sees the total go down by the whole slot (promise 2). The
// suite's stepped exit stops the thread there on every run.

#include <atomic>
#include <cstdint>

#include "labs/counter_contention/task.h"
#include "tests/counter_contention/lock_free_slots.h"

namespace counter_contention {
namespace {

// How an exiting thread moves its count out of its slot.
void Fold(std::atomic<uint64_t>& slot, std::atomic<uint64_t>& retired) {
  const uint64_t count = slot.exchange(0, std::memory_order_relaxed);
  // The mistake: until this add, the count is nowhere a reader looks.
  retired.fetch_add(count, std::memory_order_relaxed);
}

using Counter = lock_free_slots::LockFreeSlots<&Fold>;

}  // namespace

void CountAllocation() { Counter::Count(); }

uint64_t TotalAllocations() { return Counter::Total(); }

const void* ThisThreadSlot() { return Counter::ThisThreadSlot(); }

}  // namespace counter_contention
