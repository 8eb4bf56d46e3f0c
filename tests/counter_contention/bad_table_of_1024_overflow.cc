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

#include <atomic>
#include <cstdint>

#include "labs/counter_contention/task.h"

namespace counter_contention {
namespace {

constexpr int kSlots = 1024;

struct alignas(kCacheLineBytes) Slot {
  std::atomic<uint64_t> count{0};
  std::atomic<bool> taken{false};
};

constinit Slot g_slots[kSlots];
alignas(kCacheLineBytes) constinit std::atomic<uint64_t> g_overflow{0};

// A thread's slot, given back (count and all) when the thread exits.
struct Hold {
  Slot* slot = nullptr;
  bool gone = false;
  ~Hold() {
    gone = true;
    if (slot != nullptr) slot->taken.store(false, std::memory_order_release);
    slot = nullptr;
  }
};

thread_local Hold t_hold;

// The calling thread's slot, or nullptr: it counts in the overflow atomic.
Slot* Mine() {
  Hold& h = t_hold;
  if (h.slot == nullptr && !h.gone) {
    for (Slot& s : g_slots) {
      bool expected = false;
      if (s.taken.compare_exchange_strong(expected, true,
                                          std::memory_order_acquire)) {
        h.slot = &s;
        break;
      }
    }
  }
  return h.slot;
}

}  // namespace

void CountAllocation() {
  Slot* slot = Mine();
  if (slot == nullptr) {
    g_overflow.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  // Only the owner writes: the one before it gave the slot back with a
  // release, and counts in the overflow from then on.
  slot->count.store(slot->count.load(std::memory_order_relaxed) + 1,
                    std::memory_order_relaxed);
}

uint64_t TotalAllocations() {
  uint64_t total = g_overflow.load(std::memory_order_relaxed);
  for (const Slot& s : g_slots)
    total += s.count.load(std::memory_order_relaxed);
  return total;
}

const void* ThisThreadSlot() {
  Slot* slot = Mine();
  return slot == nullptr ? static_cast<const void*>(&g_overflow) : &slot->count;
}

}  // namespace counter_contention
