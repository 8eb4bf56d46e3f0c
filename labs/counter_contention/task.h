// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: task.h
// -----------------------------------------------------------------------------
//
// Lab counter_contention, your task: an allocation counter that does not
// lie. The counting allocator (//common/instruments:alloc_counter) calls your
// CountAllocation() on every allocation of every thread, from inside malloc
// and operator new, once the experiment plugs your counter in
// (`kYourCounter`). The starter counts with one shared atomic: correct, but
// every thread's every allocation writes the same cache line, so on more
// than one core each count waits for that line to come over from the core
// that wrote it last. In the reference run that made one allocation look
// 8-10x dearer at four threads; how much it costs on your machine depends on
// how far apart its cores are (docs/labs/counter_contention.md). Yours must
// keep four promises:
//
//   1. The fast path writes no cache line that another thread writes: each
//      thread counts in a slot of its own, however many threads are alive
//      at once (the suite keeps 321 alive, and starts more beside them).
//   2. TotalAllocations() is exact whenever it is read after the counted
//      threads have been joined, and never goes down while threads run;
//      also while a thread exits: a count on its way from the exiting
//      thread's slot to wherever your counter keeps exited threads' counts
//      is in the total exactly once at every instant, with locks or without
//      (the suite reads the total after every instruction of an exit).
//   3. The counts of threads that have exited are kept: also those a
//      thread makes as it exits, after its slot's destructor has run (a
//      pthread key's destructor, or that of a thread_local made before
//      the slot, runs later and may allocate).
//   4. Slots owned by different threads are never in one cache line
//      (kCacheLineBytes): two slots in one line are one shared counter.
//
// CountAllocation() runs inside malloc: it must not allocate in its fast
// path. (An allocation it makes anyway, e.g. when a thread's first call
// sets up its slot, is counted by the course's own counter instead of
// coming back to yours: nothing recurses, but your total misses it.)
//
// `bazel test //tests/counter_contention:starter_test` checks your task.cc;
// `bazel run //labs/counter_contention` measures it beside the other modes.
//
// Example:
//
//   alloclab::UseCustomCounter(counter_contention::kYourCounter);
//   const uint64_t before = counter_contention::TotalAllocations();
//   std::thread t([] { std::string s(100, 'x'); });  // one allocation
//   t.join();
//   // TotalAllocations() - before == 1 (+ the thread's own start-up, which
//   // happens on this thread)

#ifndef ALLOCLAB_LABS_COUNTER_CONTENTION_TASK_H_
#define ALLOCLAB_LABS_COUNTER_CONTENTION_TASK_H_

#include <cstddef>
#include <cstdint>

#include "common/instruments/alloc_counter.h"

namespace counter_contention {

// kCacheLineBytes
//
// How far apart two threads' slots must be: at least the machine's cache
// line (coherency_line_size in /sys/devices/system/cpu/cpu*/cache/, which
// the suite reads and checks against). 64 bytes on x86-64, the line of
// x86-64 and GCC's std::hardware_destructive_interference_size there (some
// Intel cores fetch lines in pairs, the adjacent-line prefetcher, which makes
// 128 the safer distance there). 128 bytes on arm64: Apple Silicon's line
// is 128 bytes, and Graviton's 64-byte line fits in it.
// docs/labs/counter_contention.md says more.
#if defined(__aarch64__)
inline constexpr size_t kCacheLineBytes = 128;
#else
inline constexpr size_t kCacheLineBytes = 64;
#endif

// CountAllocation()
//
// Adds one allocation to the calling thread's count. Called from any thread,
// at any point of its life (also while it starts and while it exits).
void CountAllocation();

// TotalAllocations()
//
// Every CountAllocation() so far, by every thread, including threads that
// have exited.
uint64_t TotalAllocations();

// ThisThreadSlot()
//
// The address of the memory that CountAllocation() writes when the calling
// thread calls it (its slot), so that the suite can check promise 4. May set
// the slot up; must not count.
const void* ThisThreadSlot();

// kYourCounter
//
// Your counter, as the counting allocator takes it.
inline constexpr alloclab::AllocationCounter kYourCounter = {
    .count = &CountAllocation,
    .total = &TotalAllocations,
};

}  // namespace counter_contention

#endif  // ALLOCLAB_LABS_COUNTER_CONTENTION_TASK_H_
