// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: the reference's per-thread slots, registry and retired total,
// but "once a thread's slot is destroyed the thread is gone": a count that
// arrives after the slot's destructor has run is dropped. Exact for every
// thread whose allocations end when its function returns; but an exiting
// thread still runs code that allocates after that destructor (another
// thread_local's destructor, a pthread key's destructor), and promise 3
// keeps those counts too (task.h: "at any point of its life, also while it
// exits"). The suite must reject it.

#include <atomic>
#include <cstdint>
#include <mutex>

#include "labs/counter_contention/task.h"

namespace counter_contention {
namespace {

// One thread's count, alone in its cache line: the alignment also pads it
// to a whole line, so nothing else is placed beside it.
struct alignas(kCacheLineBytes) Slot {
  // Atomic only so that TotalAllocations() may read it from another thread.
  std::atomic<uint64_t> count{0};
};

enum class State : unsigned char { kNew, kLive, kRetired };

// A thread's slot and its place in the registry. The destructor runs when
// the thread exits (for the main thread, at exit()).
struct ThreadSlot {
  Slot slot;
  ThreadSlot* prev = nullptr;
  ThreadSlot* next = nullptr;
  State state = State::kNew;
  ~ThreadSlot();
};

// The registry. Constant-initialized: it works for the allocations a
// program makes before main, too.
constinit std::mutex g_mutex;
constinit ThreadSlot* g_live = nullptr;  // guarded by g_mutex
constinit uint64_t g_retired = 0;        // guarded by g_mutex

thread_local ThreadSlot t_slot;

void Register(ThreadSlot& t) {
  std::lock_guard<std::mutex> lock(g_mutex);
  t.next = g_live;
  if (g_live != nullptr) g_live->prev = &t;
  g_live = &t;
  t.state = State::kLive;
}

ThreadSlot::~ThreadSlot() {
  if (state != State::kLive) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_retired += slot.count.load(std::memory_order_relaxed);
  if (prev != nullptr) {
    prev->next = next;
  } else {
    g_live = next;
  }
  if (next != nullptr) next->prev = prev;
  state = State::kRetired;
}

}  // namespace

void CountAllocation() {
  ThreadSlot& t = t_slot;
  if (t.state == State::kLive) [[likely]] {
    t.slot.count.store(t.slot.count.load(std::memory_order_relaxed) + 1,
                       std::memory_order_relaxed);
    return;
  }
  if (t.state == State::kNew) {
    Register(t);
    t.slot.count.store(t.slot.count.load(std::memory_order_relaxed) + 1,
                       std::memory_order_relaxed);
    return;
  }
  // The mistake: the slot is gone, so the count has nowhere to go.
}

uint64_t TotalAllocations() {
  uint64_t total = 0;
  std::lock_guard<std::mutex> lock(g_mutex);
  total += g_retired;
  for (const ThreadSlot* t = g_live; t != nullptr; t = t->next) {
    total += t->slot.count.load(std::memory_order_relaxed);
  }
  return total;
}

const void* ThisThreadSlot() {
  ThreadSlot& t = t_slot;
  if (t.state == State::kNew) Register(t);
  return &t.slot.count;
}

}  // namespace counter_contention
