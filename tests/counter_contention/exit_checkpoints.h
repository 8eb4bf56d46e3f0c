// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: exit_checkpoints.h
// -----------------------------------------------------------------------------
//
// Checkpoints in a thread's exit, for the race test of promise 2 ("never
// goes down while threads run"). A count that leaves a thread's slot when
// the thread exits must reach the total before, or as, the slot leaves it;
// a counter that folds it in outside the lock its readers take has a window
// in which a reader sees the total drop. Sampling the total and hoping to
// land in that window is a race test that passes some runs. This library
// drives the interleaving instead.
//
// It interposes pthread_mutex_lock() and pthread_mutex_unlock() for the
// suite binary (std::mutex, and every lock a learner is likely to use, go
// through them). A thread that has called MarkExiting() stops at every such
// call it makes from then on, as its exit runs (thread_local destructors,
// pthread key destructors): just before each lock and just after each
// unlock, the points between which a counter moves a count. At each stop it
// waits for the observer (ServeCheckpoint()) to read the total. Every
// reading of a counter that keeps promise 2 then includes the thread's
// counts, and a counter that folds outside its lock is caught in the gap,
// on every run.
//
// Every other thread, and the marked one before MarkExiting(), goes
// straight to the real functions.
//
// Example:
//
//   // the thread under test
//   for (int i = 0; i < n; ++i) CountAllocation();
//   exit_checkpoints::MarkExiting();
//   return nullptr;  // its exit stops at each lock and unlock
//
//   // the observer, until the thread has exited
//   exit_checkpoints::ServeCheckpoint([] { return TotalAllocations(); });

#ifndef ALLOCLAB_TESTS_COUNTER_CONTENTION_EXIT_CHECKPOINTS_H_
#define ALLOCLAB_TESTS_COUNTER_CONTENTION_EXIT_CHECKPOINTS_H_

#include <cstdint>
#include <optional>

#include "absl/functional/function_ref.h"

namespace counter_contention {
namespace exit_checkpoints {

// MarkExiting()
//
// From now on, the calling thread stops at each of its pthread mutex locks
// (before) and unlocks (after) until an observer serves the stop. One
// thread at a time may be marked.
void MarkExiting();

// ServeCheckpoint()
//
// If the marked thread is stopped at a checkpoint, calls `read()` while it
// waits there, lets it go on and returns the value read; std::nullopt when
// no thread is waiting. Call it from a thread that is not marked.
std::optional<uint64_t> ServeCheckpoint(absl::FunctionRef<uint64_t()> read);

}  // namespace exit_checkpoints
}  // namespace counter_contention

#endif  // ALLOCLAB_TESTS_COUNTER_CONTENTION_EXIT_CHECKPOINTS_H_
