// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "a fetch_add is a locked instruction, the slow part; a load and
// a store are cheap". They are, and each is atomic, but the increment is
// not: two threads that load the same value both store value + 1, and one
// count is lost. (A plain uint64_t would lose counts the same way, and be a
// data race besides.) It still shares one cache line among all threads.

#include <atomic>
#include <cstdint>

#include "labs/counter_contention/task.h"

namespace counter_contention {
namespace {

std::atomic<uint64_t> g_allocations{0};

}  // namespace

void CountAllocation() {
  g_allocations.store(g_allocations.load(std::memory_order_relaxed) + 1,
                      std::memory_order_relaxed);
}

uint64_t TotalAllocations() {
  return g_allocations.load(std::memory_order_relaxed);
}

const void* ThisThreadSlot() { return &g_allocations; }

}  // namespace counter_contention
