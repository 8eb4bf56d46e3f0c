// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: the reference, but "the retired total is an atomic, so a thread
// that exits may fold its count into it after leaving the registry's lock".
// Every total read after join() is exact; but while a thread exits, its
// count is for a moment in neither the registry nor the retired total, and
// a reader in that moment sees the total go down (promise 2). The suite must
// reject it on every run: its exit checkpoints stop the thread right after
// the unlock (tests/counter_contention/exit_checkpoints.h).

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
constinit std::atomic<uint64_t> g_retired{0};
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
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (prev != nullptr) {
      prev->next = next;
    } else {
      g_live = next;
    }
    if (next != nullptr) next->prev = prev;
    state = State::kRetired;
  }
  // The mistake: the retired total is atomic, so the fold needs no lock.
  // Between the unlock and this line the count is in neither place.
  g_retired.fetch_add(slot.count.load(std::memory_order_relaxed),
                      std::memory_order_relaxed);
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
  total += g_retired.load(std::memory_order_relaxed);
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
