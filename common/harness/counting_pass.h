// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: counting_pass.h
// -----------------------------------------------------------------------------
//
// The counting pass of measure_interleaved.h with the course's allocation
// counter (alloc_counter.h): a batch run once more with the per-thread
// counter on, after the timed batches ran with it off, so that the counter's
// own cost never reaches a timed number. A separate target, so that an
// experiment that counts nothing does not link the counter (which replaces the
// allocation functions of the whole program).
//
// Also the counting pass of a team of threads (`CountOnThreads`), whose
// count must start after every thread has started and end after every one
// has exited.
//
// Example:
//
//   alloclab::BatchPlan plan{.repetitions = 5,
//                            .count_allocations = alloclab::CountAllocations};
//   uint64_t n = alloclab::CountOnThreads(8, alloclab::TotalAllocations,
//                                         [](int thread) { Work(thread); });

#ifndef ALLOCLAB_COMMON_HARNESS_COUNTING_PASS_H_
#define ALLOCLAB_COMMON_HARNESS_COUNTING_PASS_H_

#include <cstdint>

#include "absl/functional/function_ref.h"

namespace alloclab {

// CountAllocations()
//
// Runs `fn` on this thread with the per-thread counter on and returns the
// allocations it made; the counter is off again afterwards (the timed
// batches' mode).
uint64_t CountAllocations(absl::FunctionRef<void()> fn);

// CountOnThreads()
//
// Runs `body(thread)` on `threads` new threads (thread = 0, 1, ...) and
// returns how much `total()` grew from their release to the last join: what
// the bodies counted, and nothing of starting the threads, which allocates
// (std::thread's state on this thread; under a sanitizer, on the new thread
// too) before the release. Each thread exits after its body; glibc's
// thread exit allocates nothing. The threads wait for the release runnable
// (spinning, yielding the CPU), so that it starts those on a CPU at the same
// instant: woken one by one from a sleep, each could finish before the next
// began, and no two would ever count at once.
uint64_t CountOnThreads(int threads, absl::FunctionRef<uint64_t()> total,
                        absl::FunctionRef<void(int thread)> body);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_HARNESS_COUNTING_PASS_H_
