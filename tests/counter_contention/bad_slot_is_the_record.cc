// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: ThisThreadSlot() returns "my thread's slot", the record that
// holds the thread's count, not the count itself. The record starts with
// its links in the list of live threads, so the 8 bytes at that address are
// a pointer that CountAllocation() never writes; task.h promises the memory
// CountAllocation() writes. The counter itself is the reference's, exact
// and on a cache line per thread (every record is its own, so the suite's
// cache-line check of the slots still holds). The suite must reject it.

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
// The thread's record: its place in the list of live threads, then its
// count, on a cache line of its own.
struct ThreadSlot {
  ThreadSlot* prev = nullptr;
  ThreadSlot* next = nullptr;
  State state = State::kNew;
  Slot slot;
  ~ThreadSlot();
};

// The registry. Constant-initialized: it works for the allocations a
// program makes before main, too.
constinit std::mutex g_mutex;
constinit ThreadSlot* g_live = nullptr;  // guarded by g_mutex
constinit uint64_t g_retired = 0;        // guarded by g_mutex
// What threads count after their slot was retired: allocations made by
// thread-exit code that runs after this file's destructor.
constinit std::atomic<uint64_t> g_after_exit{0};

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
  g_after_exit.fetch_add(1, std::memory_order_relaxed);
}

uint64_t TotalAllocations() {
  uint64_t total = g_after_exit.load(std::memory_order_relaxed);
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
  return &t;  // the mistake: the record, whose first bytes are its links
}

}  // namespace counter_contention
