// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: counters.h
// -----------------------------------------------------------------------------
//
// The counters the experiment sets beside yours, each plugged into the
// counting allocator the same way (alloclab::UseCustomCounter), so that the
// only difference between two rows is where the count lives:
//
//   kShared   one atomic for the whole process (what the starter does).
//   kPacked   one slot per thread, in one array of 8-byte slots: "per
//             thread", yet eight threads share each cache line.
//   kPadded   the same array with each slot on a cache line of its own
//             (kCacheLineBytes).
//
// Together with yours they are the experiment's modes (kModes). The two
// arrays hold kMaxSlots slots; a thread takes a free one on its
// first count and gives it back when it exits, its count kept in a retired
// total. Threads beyond kMaxSlots at once share one overflow atomic.
//
// Example:
//
//   alloclab::UseCustomCounter(counter_contention::kPadded);
//   std::string s(100, 'x');  // counted in this thread's padded slot

#ifndef ALLOCLAB_LABS_COUNTER_CONTENTION_COUNTERS_H_
#define ALLOCLAB_LABS_COUNTER_CONTENTION_COUNTERS_H_

#include "common/instruments/alloc_counter.h"

namespace counter_contention {

// kMaxSlots
//
// Threads that can hold a slot of kPacked (or kPadded) at once.
inline constexpr int kMaxSlots = 256;

extern const alloclab::AllocationCounter kShared;
extern const alloclab::AllocationCounter kPacked;
extern const alloclab::AllocationCounter kPadded;

// PackedSlot()
//
// The calling thread's slot in kPacked (taking one if it has none), or the
// overflow atomic it counts in when none is free.
const void* PackedSlot();

// PaddedSlot()
//
// The same in kPadded.
const void* PaddedSlot();

// Mode
//
// A row's counting mode: where the count lives. Off has no counter.
struct Mode {
  const char* name;
  const alloclab::AllocationCounter* counter;
};

// kModes
//
// off, shared, per_thread (your task.cc's kYourCounter), per_thread_packed,
// per_thread_padded: the experiment's modes, in its order.
extern const Mode kModes[5];

// Use()
//
// Plugs `mode`'s counter into the counting allocator, or turns counting off.
void Use(const Mode& mode);

}  // namespace counter_contention

#endif  // ALLOCLAB_LABS_COUNTER_CONTENTION_COUNTERS_H_
