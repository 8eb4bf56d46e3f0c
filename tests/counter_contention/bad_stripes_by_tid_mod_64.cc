// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "64 stripes, each alone in its cache line, and a thread counts
// in stripe gettid() % 64: thread ids are consecutive, so threads land in
// different stripes, and no registry or fold is needed". Every count is an
// atomic add on a stripe that is never cleared, so every total is exact and
// never goes down, and a handful of threads started together do get a
// stripe each. But two live threads whose ids are 64 apart share a stripe,
// and with more than 64 live threads two always do: their counts are locked
// adds on one line (promises 1 and 4).

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

#include "labs/counter_contention/task.h"

namespace counter_contention {
namespace {

constexpr int kStripes = 64;

struct alignas(kCacheLineBytes) Stripe {
  std::atomic<uint64_t> count{0};
};

constinit Stripe g_stripes[kStripes];

// The calling thread's stripe, its id looked up once.
Stripe& Mine() {
  thread_local const long tid = syscall(SYS_gettid);
  return g_stripes[tid % kStripes];
}

}  // namespace

void CountAllocation() { Mine().count.fetch_add(1, std::memory_order_relaxed); }

uint64_t TotalAllocations() {
  uint64_t total = 0;
  for (const Stripe& s : g_stripes) {
    total += s.count.load(std::memory_order_relaxed);
  }
  return total;
}

const void* ThisThreadSlot() { return &Mine().count; }

}  // namespace counter_contention
