// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: the course's reference before it moved its slots out of
// thread-local storage. "A thread_local is valid for as long as the thread
// runs, so it is the slot and the registry's node at once": each thread's
// slot is a thread_local, aligned to its own cache line and linked in a
// registry of live slots, and a pthread key's destructor retires it (a
// thread_local's destructor is armed when the thread first touches it, and
// glibc runs a thread's thread_local destructors before its key
// destructors: a thread whose first count comes in a key destructor would
// arm one that never runs). Exact, and exact for that thread too; but a
// key's destructor is not sure to run either. glibc runs the destructors of
// the keys set in rounds, each in key order, and stops after
// PTHREAD_DESTRUCTOR_ITERATIONS (4) rounds: a thread whose first count comes
// in the last round, from the destructor of a key made after this counter's,
// sets this counter's key too late. Its slot stays in the registry after the
// thread is gone, the next thread on the same storage links the same node
// again, and the list points to itself: TotalAllocations() never returns.
// The suite must reject it.
//
// The other known-bads on thread-local slots (bad_unpadded_thread_local.cc,
// bad_retires_in_thread_local_destructor.cc) include this file with their
// own mistake.

#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
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

// A thread's slot and its place in the registry. Trivially destructible:
// the exit key retires it (the main thread's stays live to the end).
struct ThreadSlot {
  Slot slot;
  ThreadSlot* prev = nullptr;
  ThreadSlot* next = nullptr;
  State state = State::kNew;
};

// The registry. Constant-initialized: it works for the allocations a
// program makes before main, too.
constinit std::mutex g_mutex;
constinit ThreadSlot* g_live = nullptr;  // guarded by g_mutex
constinit uint64_t g_retired = 0;        // guarded by g_mutex
// What threads count after their slot was retired: allocations made by
// thread-exit code that runs after this file's destructor.
constinit std::atomic<uint64_t> g_after_exit{0};

// The key whose destructor retires an exiting thread's slot.
constinit pthread_once_t g_exit_key_once = PTHREAD_ONCE_INIT;
constinit pthread_key_t g_exit_key;

thread_local ThreadSlot t_slot;

// Puts a new slot in the registry.
void Link(ThreadSlot& t) {
  std::lock_guard<std::mutex> lock(g_mutex);
  t.next = g_live;
  if (g_live != nullptr) g_live->prev = &t;
  g_live = &t;
  t.state = State::kLive;
}

// Takes a live slot out of the registry, g_mutex held.
void Unregister(ThreadSlot& t) {
  if (t.prev != nullptr) {
    t.prev->next = t.next;
  } else {
    g_live = t.next;
  }
  if (t.next != nullptr) t.next->prev = t.prev;
  t.state = State::kRetired;
}

// The exit key's destructor: folds the exiting thread's count into the
// retired total and takes its slot out, in one step under the lock.
void Retire(void* arg) {
  ThreadSlot& t = *static_cast<ThreadSlot*>(arg);
  if (t.state != State::kLive) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_retired += t.slot.count.load(std::memory_order_relaxed);
  Unregister(t);
}

void CreateExitKey() {
  // Fails only in a process that already holds PTHREAD_KEYS_MAX keys: its
  // slots could never be retired, so stop rather than corrupt the list.
  if (pthread_key_create(&g_exit_key, &Retire) != 0) std::abort();
}

// Has Retire() called for the slot when its thread exits. Neither call
// allocates for the first 32 keys of a process (glibc keeps them in the
// thread's descriptor); an allocation past those finds the slot live.
void ArmExit(ThreadSlot& t) {
  pthread_once(&g_exit_key_once, &CreateExitKey);
  pthread_setspecific(g_exit_key, &t);
}

// Gives the calling thread's new slot its place: in the registry, and in
// the thread's exit.
void Register(ThreadSlot& t) {
  Link(t);
  ArmExit(t);
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
  return &t.slot.count;
}

}  // namespace counter_contention
