// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "each thread has its own slot, on its own cache line, and the
// total sums the slots of the threads that are registered". Fast, and exact
// while every thread runs; but a thread that exits takes its slot out of
// the table and its count with it, so a total read after join() has lost
// every count of the joined threads.

#include <atomic>
#include <cstdint>
#include <mutex>

#include "labs/counter_contention/task.h"

namespace counter_contention {
namespace {

constexpr int kMaxThreads = 4096;

struct alignas(kCacheLineBytes) Slot {
  std::atomic<uint64_t> count{0};
};

constinit std::mutex g_mutex;
constinit Slot* g_table[kMaxThreads] = {};  // guarded by g_mutex
constinit int g_used = 0;                   // guarded by g_mutex

// The thread's slot, in the table while the thread lives.
struct Registration {
  Slot slot;
  enum { kNew, kLive, kGone } state = kNew;
  ~Registration() {
    if (state != kLive) return;
    std::lock_guard<std::mutex> lock(g_mutex);
    // The mistake: out of the table it goes, count and all.
    for (int i = 0; i < g_used; ++i) {
      if (g_table[i] == &slot) {
        g_table[i] = g_table[--g_used];
        break;
      }
    }
    state = kGone;
  }
};

thread_local Registration t_registration;

Registration& Registered() {
  Registration& r = t_registration;
  if (r.state == Registration::kNew) {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_used < kMaxThreads) g_table[g_used++] = &r.slot;
    r.state = Registration::kLive;
  }
  return r;
}

}  // namespace

void CountAllocation() {
  std::atomic<uint64_t>& count = Registered().slot.count;
  count.store(count.load(std::memory_order_relaxed) + 1,
              std::memory_order_relaxed);
}

uint64_t TotalAllocations() {
  std::lock_guard<std::mutex> lock(g_mutex);
  uint64_t total = 0;
  for (int i = 0; i < g_used; ++i) {
    total += g_table[i]->count.load(std::memory_order_relaxed);
  }
  return total;
}

const void* ThisThreadSlot() { return &Registered().slot.count; }

}  // namespace counter_contention
