// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab counter_contention: the starter. One atomic counter for the whole
// process, as most first counters are. Every count is exact; the trouble is
// where it lives. Replace it (task.h says what yours must promise).

#include "labs/counter_contention/task.h"

#include <atomic>
#include <cstdint>

namespace counter_contention {
namespace {

// TODO(you): replace this one counter for the whole process with counting
// that keeps task.h's promises; the three functions below change with it.
std::atomic<uint64_t> g_allocations{0};

}  // namespace

void CountAllocation() {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
}

uint64_t TotalAllocations() {
  return g_allocations.load(std::memory_order_relaxed);
}

const void* ThisThreadSlot() { return &g_allocations; }

}  // namespace counter_contention
