// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: the reference, but "an atomic total needs no lock, so a thread
// that exits may fold its count into one after leaving the registry's
// lock". Every total read after join() is exact; but while a thread exits,
// its count is for a moment in neither the registry nor a total, and a
// reader in that moment sees the total go down (promise 2). The suite must
// reject it on every run: its exit checkpoints stop the thread right after
// the unlock (tests/counter_contention/exit_checkpoints.h).
//
// The atomic total is the reference's own g_unslotted (what threads count
// without a node), which TotalAllocations() adds in too. The mistake is in
// a thread's exit, which no rename reaches (the reference's exit key's
// destructor): a thread_local of this file's, destroyed before any key
// destructor runs, retires the node first, with the reference's Release();
// the reference's Retire() then finds it retired and does nothing. The rest
// is the reference's.

#include <atomic>
#include <cstdint>
#include <mutex>

#include "labs/counter_contention/task.h"

// The reference, with its CountAllocation() renamed out of the way.
#define CountAllocation ReferenceCountAllocation
#include "solutions/counter_contention/task.cc"
#undef CountAllocation

namespace counter_contention {
namespace {

// Retires the exiting thread's node, the fold outside the lock.
struct RetireOutsideLock {
  ~RetireOutsideLock() {
    Hold& h = t_hold;
    if (h.state != State::kLive) return;
    uint64_t count = 0;
    {
      std::lock_guard<std::mutex> lock(g_mutex);
      count = Release(h);
    }
    // The mistake: the total is atomic, so the fold needs no lock. Between
    // the unlock and this line the count is in neither place.
    g_unslotted.fetch_add(count, std::memory_order_relaxed);
  }
};

thread_local RetireOutsideLock t_retire;

}  // namespace

// A thread's thread_locals are destroyed before its key destructors: the
// reference's Retire() runs after t_retire's destructor.
void CountAllocation() {
  ReferenceCountAllocation();
  static_cast<void>(t_retire);
}

}  // namespace counter_contention
