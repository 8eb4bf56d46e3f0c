// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: lock_free_slots.h
// -----------------------------------------------------------------------------
//
// The shared part of the known-bad counters built on a fixed table
// (bad_lock_free_fold_*.cc, bad_eight_slots_overflow.cc,
// bad_table_of_1024_overflow.cc): a table of kSlots slots, each alone in its
// cache line, claimed by a thread with a compare-and-swap on its first count
// and given back when the thread exits; an atomic retired total, where the
// threads without a slot count too; and a Total() that sums the retired
// total and every slot, taking no lock. No lock anywhere. What each
// known-bad adds is its fold, the template argument: how an exiting thread
// moves its slot's count into the retired total before the slot is given
// back (or KeepInSlot: the count stays for the slot's next owner), and the
// table's size. Every fold of two atomics has a window between them; the
// suite's stepped exit test stops the thread inside it.
//
// Example:
//
//   void Fold(std::atomic<uint64_t>& slot, std::atomic<uint64_t>& retired);
//   using Counter = lock_free_slots::LockFreeSlots<&Fold>;
//   void CountAllocation() { Counter::Count(); }
//   uint64_t TotalAllocations() { return Counter::Total(); }
//   const void* ThisThreadSlot() { return Counter::ThisThreadSlot(); }

#ifndef ALLOCLAB_TESTS_COUNTER_CONTENTION_LOCK_FREE_SLOTS_H_
#define ALLOCLAB_TESTS_COUNTER_CONTENTION_LOCK_FREE_SLOTS_H_

#include <atomic>
#include <cstdint>

#include "labs/counter_contention/task.h"

namespace counter_contention {
namespace lock_free_slots {

// kLockFreeSlots
//
// Threads that hold a slot at once, unless the known-bad says otherwise;
// the rest count in the retired total.
inline constexpr int kLockFreeSlots = 1024;

// A fold: leaves `slot` at zero with its count added to `retired` (but
// KeepInSlot(), below). Called once, by the thread that owns the slot, as
// it exits.
using FoldFn = void (*)(std::atomic<uint64_t>& slot,
                        std::atomic<uint64_t>& retired);

// KeepInSlot()
//
// The fold that moves nothing: the count stays in the slot, given back with
// it, and its next owner counts on from it.
inline void KeepInSlot(std::atomic<uint64_t>&, std::atomic<uint64_t>&) {}

template <FoldFn kFold, int kSlots = kLockFreeSlots>
class LockFreeSlots {
 public:
  // Count()
  //
  // One count in the calling thread's slot: a relaxed load and store, since
  // only the owner writes it.
  static void Count() {
    Slot* slot = Mine();
    if (slot == nullptr) {
      retired_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    slot->count.store(slot->count.load(std::memory_order_relaxed) + 1,
                      std::memory_order_relaxed);
  }

  // Total()
  //
  // The retired total and every slot, read without a lock.
  static uint64_t Total() {
    uint64_t total = retired_.load(std::memory_order_relaxed);
    for (const Slot& s : slots_) {
      total += s.count.load(std::memory_order_relaxed);
    }
    return total;
  }

  // ThisThreadSlot()
  //
  // The calling thread's slot, or the retired total it counts in instead.
  static const void* ThisThreadSlot() {
    Slot* slot = Mine();
    return slot == nullptr ? static_cast<const void*>(&retired_) : &slot->count;
  }

 private:
  struct alignas(kCacheLineBytes) Slot {
    std::atomic<uint64_t> count{0};
    std::atomic<bool> taken{false};
  };

  // A thread's hold on its slot; the destructor folds and gives it back.
  struct Hold {
    Slot* slot = nullptr;
    bool gone = false;
    ~Hold() {
      gone = true;
      if (slot == nullptr) return;
      kFold(slot->count, retired_);
      slot->taken.store(false, std::memory_order_release);
      slot = nullptr;
    }
  };

  // The calling thread's slot, claimed on first use; nullptr when none is
  // free or the thread is exiting.
  static Slot* Mine() {
    Hold& h = hold_;
    if (h.slot == nullptr && !h.gone) {
      for (Slot& s : slots_) {
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

  static constinit inline Slot slots_[kSlots];
  // Counts folded in by exited threads, and those of threads without a
  // slot (none free, or past their exit).
  alignas(
      kCacheLineBytes) static constinit inline std::atomic<uint64_t> retired_{
      0};
  static thread_local inline Hold hold_;
};

}  // namespace lock_free_slots
}  // namespace counter_contention

#endif  // ALLOCLAB_TESTS_COUNTER_CONTENTION_LOCK_FREE_SLOTS_H_
