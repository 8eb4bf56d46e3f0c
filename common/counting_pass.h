// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: counting_pass.h
// -----------------------------------------------------------------------------
//
// The counting pass of experiment.h with the course's allocation counter
// (alloc_counter.h): a batch run once more with the per-thread counter on,
// after the timed batches ran with it off, so that the counter's own cost
// never reaches a timed number. A separate target, so that an experiment
// that counts nothing does not link the counter (which replaces the
// allocation functions of the whole program).
//
// Example:
//
//   alloclab::BatchPlan plan{.repetitions = 5,
//                            .count_allocations = alloclab::CountAllocations};

#ifndef ALLOCLAB_COMMON_COUNTING_PASS_H_
#define ALLOCLAB_COMMON_COUNTING_PASS_H_

#include <cstdint>

#include "absl/functional/function_ref.h"

namespace alloclab {

// CountAllocations()
//
// Runs `fn` on this thread with the per-thread counter on and returns the
// allocations it made; the counter is off again afterwards (the timed
// batches' mode).
uint64_t CountAllocations(absl::FunctionRef<void()> fn);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_COUNTING_PASS_H_
